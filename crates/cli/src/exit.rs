//! The exit codes of every `cipherlab` command, in one place (README, "Exit codes"):
//!
//! | code | meaning |
//! |---|---|
//! | 0 | done |
//! | 1 | authentication failed: wrong key or password, data modified, damaged or truncated, `--require-authenticated` not met, or a password given for a PDF that is not encrypted |
//! | 2 | usage: options or arguments that cannot work (clap uses it too) |
//! | 3 | the input is not readable as what the command expects (not a container, not a PDF, a PDF damaged beyond repair, unsupported encryption, a results database without the runs asked for, lines that are not JSON) |
//! | 4 | the output exists (use `--force`) |
//! | 5 | input/output error (a missing input file or database included) |
//! | 6 | disk full |
//! | 7 | the document cannot be kept whole (`pdf`: writing it would lose part of it) |
//! | 8 | a limit protecting against hostile input was hit (the message names the option that raises it) |
//! | 9 | anything else went wrong (a study that failed, an internal error) |
//!
//! The libraries' typed errors carry their own code (`cipherlab_seal::Error::exit_code`,
//! `cipherlab_pdf::Error::exit_code`); [`code_of`] reads it from the error chain, and
//! [`Failure`] lets the command line's own checks say theirs.

use std::fmt;

/// An exit code of the table above that the command line gives itself (7 and 8 come only
/// from the libraries' errors).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Code {
    /// 1
    Authentication = 1,
    /// 2
    Usage = 2,
    /// 3
    Unreadable = 3,
    /// 4
    OutputExists = 4,
    /// 5
    Io = 5,
    /// 6
    DiskFull = 6,
    /// 9
    Other = 9,
}

/// A failure the command line itself found, with its code.
#[derive(Debug)]
pub struct Failure {
    /// The exit code.
    pub code: Code,
    /// What to tell the user (the cause and the fix).
    pub message: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// An error with `code`.
pub fn fail(code: Code, message: impl Into<String>) -> anyhow::Error {
    Failure {
        code,
        message: message.into(),
    }
    .into()
}

/// The exit code of `e`: the first typed error in its chain that has one; an error the
/// command line raised with a plain message (`bail!`) is a usage error.
pub fn code_of(e: &anyhow::Error) -> u8 {
    for cause in e.chain() {
        if let Some(f) = cause.downcast_ref::<Failure>() {
            return f.code as u8;
        }
        if let Some(s) = cause.downcast_ref::<cipherlab_seal::Error>() {
            return s.exit_code();
        }
        if let Some(p) = cause.downcast_ref::<cipherlab_pdf::Error>() {
            return p.exit_code();
        }
        if cause.downcast_ref::<cipherlab_ciphers::Error>().is_some() {
            return Code::Usage as u8;
        }
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            return match io.kind() {
                std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded => {
                    Code::DiskFull as u8
                }
                std::io::ErrorKind::AlreadyExists => Code::OutputExists as u8,
                _ => Code::Io as u8,
            };
        }
    }
    if e.chain()
        .any(|c| c.is::<cipherlab_bench::studies::StudyError>())
    {
        return Code::Other as u8;
    }
    for cause in e.chain() {
        use cipherlab_results::store::StoreError;
        match cause.downcast_ref::<StoreError>() {
            // A run id the database does not have: an argument naming nothing.
            Some(StoreError::RunNotFound { .. }) => return Code::Usage as u8,
            Some(_) => return Code::Unreadable as u8,
            None => {}
        }
    }
    Code::Usage as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The PDF library's codes are this table's: each kind of its errors exits with the
    /// code of the same meaning, through [`code_of`] and with context added.
    #[test]
    fn pdf_errors_keep_the_table() {
        use cipherlab_pdf::Error as P;
        let io = || std::io::Error::other("x");
        for (e, want) in [
            (P::WrongPassword("x".into()), Code::Authentication as u8),
            (P::PasswordRequired, Code::Authentication as u8),
            (P::Tampered("x".into()), Code::Authentication as u8),
            (P::Invalid("x".into()), Code::Usage as u8),
            (P::NotPdf("x".into()), Code::Unreadable as u8),
            (P::Damaged("x".into()), Code::Unreadable as u8),
            (P::Unsupported("x".into()), Code::Unreadable as u8),
            (P::OutputExists("x".into()), Code::OutputExists as u8),
            (P::io("reading", "x", io()), Code::Io as u8),
            (
                P::io("writing", "x", std::io::ErrorKind::StorageFull.into()),
                Code::DiskFull as u8,
            ),
            (P::Incomplete("x".into()), 7),
            (P::Limit("x".into()), 8),
        ] {
            let shown = e.to_string();
            let chained = anyhow::Error::from(e).context("file.pdf");
            assert_eq!(code_of(&chained), want, "{shown}");
        }
    }
}
