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
//! | 10 | an implementation failed its known-answer tests (`impl check`: no build agrees) |
//!
//! The numbers live here and nowhere else: the libraries' typed errors say their kind
//! ([`Kind`]: `cipherlab_seal::Error::kind`, `cipherlab_pdf::Error::kind`), [`code`] is
//! the table from kind to number, [`code_of`] reads the kind from an error chain, and
//! [`Failure`] lets the command line's own checks say theirs.

use std::fmt;
use std::process::ExitCode;

/// What kind of failure ended a command; the same kinds for every cipherlab library.
pub use cipherlab_ciphers::ErrorKind as Kind;

/// The table: the exit code of each kind of failure (0 is success).
pub const fn code(kind: Kind) -> u8 {
    match kind {
        Kind::Authentication => 1,
        Kind::Usage => 2,
        Kind::Unreadable => 3,
        Kind::OutputExists => 4,
        Kind::Io => 5,
        Kind::DiskFull => 6,
        Kind::Incomplete => 7,
        Kind::Limit => 8,
        Kind::Other => 9,
        Kind::Nonconforming => 10,
    }
}

/// The process's exit status for `kind`.
pub fn status(kind: Kind) -> ExitCode {
    ExitCode::from(code(kind))
}

/// The exit status of a process that the signal `sig` ended, as shells report it
/// (128 + the signal's number: 130 for SIGINT).
pub const fn of_signal(sig: i32) -> i32 {
    128 + sig
}

/// A failure the command line itself found, with its kind.
#[derive(Debug)]
pub struct Failure {
    /// What kind of failure it is (its exit code is [`code`]'s).
    pub kind: Kind,
    /// What to tell the user (the cause and the fix).
    pub message: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// An error of `kind`.
pub fn fail(kind: Kind, message: impl Into<String>) -> anyhow::Error {
    Failure {
        kind,
        message: message.into(),
    }
    .into()
}

/// The exit code of `e`: its kind's ([`kind_of`]).
pub fn code_of(e: &anyhow::Error) -> u8 {
    code(kind_of(e))
}

/// The kind of `e`: that of the first typed error in its chain that has one; an error
/// the command line raised with a plain message (`bail!`) is a usage error.
pub fn kind_of(e: &anyhow::Error) -> Kind {
    for cause in e.chain() {
        if let Some(f) = cause.downcast_ref::<Failure>() {
            return f.kind;
        }
        if let Some(s) = cause.downcast_ref::<cipherlab_seal::Error>() {
            return s.kind();
        }
        if let Some(p) = cause.downcast_ref::<cipherlab_pdf::Error>() {
            return p.kind();
        }
        if let Some(n) = cause.downcast_ref::<cipherlab_native::Error>() {
            return n.kind();
        }
        if cause.downcast_ref::<cipherlab_ciphers::Error>().is_some() {
            return Kind::Usage;
        }
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            return match io.kind() {
                std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded => {
                    Kind::DiskFull
                }
                std::io::ErrorKind::AlreadyExists => Kind::OutputExists,
                _ => Kind::Io,
            };
        }
    }
    if e.chain()
        .any(|c| c.is::<cipherlab_bench::studies::StudyError>())
    {
        return Kind::Other;
    }
    for cause in e.chain() {
        use cipherlab_bench::pipeline::Error as Lab;
        // The lab's error wraps its causes transparently: they are not links of the
        // chain of their own, so each is read here.
        match cause.downcast_ref::<Lab>() {
            Some(Lab::Study(_) | Lab::Harness(_)) => return Kind::Other,
            Some(Lab::Store(s)) => return store_kind(s),
            Some(Lab::NothingMatches(_) | Lab::ProfileWithForks | Lab::ImplWithoutLwc) => {
                return Kind::Usage;
            }
            Some(Lab::Native(n)) => return n.kind(),
            None => {}
        }
        if let Some(s) = cause.downcast_ref::<cipherlab_results::store::StoreError>() {
            return store_kind(s);
        }
    }
    Kind::Usage
}

/// A store error's kind: a run id the database does not have is an argument naming
/// nothing; anything else is a database that cannot be read.
fn store_kind(e: &cipherlab_results::store::StoreError) -> Kind {
    match e {
        cipherlab_results::store::StoreError::RunNotFound { .. } => Kind::Usage,
        _ => Kind::Unreadable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lab's errors keep the kinds their causes had before the pipeline wrapped
    /// them: a study that fails is "other", a filter that matches nothing is usage.
    #[test]
    fn lab_errors_keep_their_causes_kinds() {
        use cipherlab_bench::pipeline::Error as Lab;
        use cipherlab_bench::studies::StudyError;
        let study = Lab::Study(StudyError {
            study: "pdf",
            message: "x".into(),
        });
        assert_eq!(kind_of(&anyhow::Error::from(study)), Kind::Other);
        let none = anyhow::Error::from(Lab::NothingMatches("x".into())).context("bench");
        assert_eq!(kind_of(&none), Kind::Usage);
        let missing = Lab::Store(cipherlab_results::store::StoreError::RunNotFound {
            path: "db".into(),
            id: 3,
        });
        assert_eq!(kind_of(&anyhow::Error::from(missing)), Kind::Usage);
    }

    /// The PDF library's errors keep the table: each kind of its errors exits with the
    /// code of the same meaning, through [`code_of`] and with context added.
    #[test]
    fn pdf_errors_keep_the_table() {
        use cipherlab_pdf::Error as P;
        let io = || std::io::Error::other("x");
        for (e, want) in [
            (P::WrongPassword("x".into()), 1),
            (P::PasswordRequired, 1),
            (P::Tampered("x".into()), 1),
            (P::Invalid("x".into()), 2),
            (P::NotPdf("x".into()), 3),
            (P::Damaged("x".into()), 3),
            (P::Unsupported("x".into()), 3),
            (P::OutputExists("x".into()), 4),
            (P::io("reading", "x", io()), 5),
            (
                P::io("writing", "x", std::io::ErrorKind::StorageFull.into()),
                6,
            ),
            (P::Incomplete("x".into()), 7),
            (P::Limit("x".into()), 8),
        ] {
            let shown = e.to_string();
            let chained = anyhow::Error::from(e).context("file.pdf");
            assert_eq!(code_of(&chained), want, "{shown}");
        }
    }

    /// The container library's errors keep the table too.
    #[test]
    fn seal_errors_keep_the_table() {
        use cipherlab_seal::{Error as S, Unlock};
        for (e, want) in [
            (S::WrongKey(Unlock::Passphrase), 1),
            (S::Truncated("x".into()), 1),
            (S::Cipher(cipherlab_ciphers::Error::Authentication), 1),
            (S::Usage("x".into()), 2),
            (S::TooLarge, 2),
            (S::BadHeader("x".into()), 3),
            (S::UnknownAlgorithm(99), 3),
            (S::OutputExists("x".into()), 4),
            (S::io("reading x", std::io::Error::other("x")), 5),
            (S::DiskFull("x".into()), 6),
            (S::CostLimit("x".into()), 8),
        ] {
            let shown = e.to_string();
            let chained = anyhow::Error::from(e).context("file");
            assert_eq!(code_of(&chained), want, "{shown}");
        }
        assert_eq!(code_of(&fail(Kind::Other, "x")), 9);
        assert_eq!(code_of(&anyhow::anyhow!("a plain message")), 2);
    }

    /// The table's numbers are distinct, not 0 (success), and are the README's "Exit
    /// codes" table, row by row, with the meaning of each kind.
    #[test]
    fn the_table_is_the_readmes() {
        let mut seen = std::collections::BTreeSet::new();
        for kind in Kind::ALL {
            assert_ne!(code(kind), 0, "{kind:?}");
            assert!(seen.insert(code(kind)), "{kind:?}: {} twice", code(kind));
        }
        let readme = include_str!("../../../README.md");
        let section = readme
            .split("### Exit codes")
            .nth(1)
            .expect("the README has an \"Exit codes\" section");
        let rows: std::collections::BTreeMap<u8, &str> = section
            .lines()
            .skip_while(|l| !l.starts_with("| code"))
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .map(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                (cells[1].parse().expect("a code"), cells[2])
            })
            .collect();
        let mut want: Vec<u8> = vec![0];
        want.extend(seen);
        assert_eq!(rows.keys().copied().collect::<Vec<_>>(), want);
        for kind in Kind::ALL {
            let words = match kind {
                Kind::Authentication => "authentication failed",
                Kind::Usage => "usage",
                Kind::Unreadable => "not readable",
                Kind::OutputExists => "the output exists",
                Kind::Io => "input/output error",
                Kind::DiskFull => "disk full",
                Kind::Incomplete => "cannot be kept whole",
                Kind::Limit => "a limit protecting against hostile input",
                Kind::Other => "anything else",
                Kind::Nonconforming => "failed its known-answer tests",
            };
            let row = rows[&code(kind)];
            assert!(
                row.contains(words),
                "{kind:?}: README row {}: {row}",
                code(kind)
            );
        }
    }
}
