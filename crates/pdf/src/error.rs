//! Errors: each names the cause and, where there is one, the fix.

pub use cipherlab_ciphers::ErrorKind;

/// What went wrong reading, decrypting or writing a PDF.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input is not a PDF at all.
    #[error("not a PDF file: {0}")]
    NotPdf(String),
    /// The file is damaged beyond what we repair.
    #[error("damaged PDF: {0}")]
    Damaged(String),
    /// The password opens neither as user nor as owner password.
    #[error(
        "wrong password: it is neither the user nor the owner password of this file \
         ({0}); give the right one"
    )]
    WrongPassword(String),
    /// The file needs a password and none (or the empty one) was given.
    #[error(
        "this PDF needs a password: the empty user password does not open it; give the \
         user or owner password (--password-file FILE, $CIPHERLAB_PDF_PASSWORD, or on the \
         terminal when asked; --password P works too, but other users can see it in ps)"
    )]
    PasswordRequired,
    /// Encryption we do not implement (another security handler, an unknown /CFM, ...).
    #[error("unsupported encryption: {0}")]
    Unsupported(String),
    /// The /Encrypt dictionary is malformed.
    #[error("bad /Encrypt dictionary: {0}")]
    BadEncrypt(String),
    /// A resource limit protecting against hostile input was hit.
    #[error("limit exceeded: {0}")]
    Limit(String),
    /// A syntax error at a byte offset.
    #[error("syntax error at byte {offset}: {what}")]
    Syntax {
        /// Byte offset in the input (or in the decoded object stream, as `what` says).
        offset: usize,
        /// What was expected or found.
        what: String,
    },
    /// Reading or writing a file.
    #[error("{what}: {source}")]
    Io {
        /// What we were doing, with the path.
        what: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The output file exists and --force was not given.
    #[error("{0} exists; use --force to overwrite it")]
    OutputExists(String),
    /// The disk filled up while the output was written (nothing was left behind).
    #[error("disk full while writing {0}: free some space (or write elsewhere) and run again")]
    DiskFull(String),
    /// The document cannot be kept whole: part of what it uses could not be read, even
    /// after repair, or what would be written differs from what was read. Nothing is
    /// written.
    #[error(
        "the document cannot be kept whole: {0}. Nothing was written. If another tool can \
         repair the file (for example `qpdf damaged.pdf repaired.pdf`), encrypt or decrypt \
         the repaired copy"
    )]
    Incomplete(String),
    /// The operating system's random number generator failed.
    #[error("{0}")]
    Random(String),
    /// An option or argument that cannot be used (unknown permission, bad password, ...).
    #[error("{0}")]
    Invalid(String),
    /// An authenticated (AEAD-encrypted) file failed verification: it was modified,
    /// damaged or truncated. Nothing is released.
    #[error(
        "authentication failed: {0}; the file was modified, damaged or truncated, so \
         nothing was written"
    )]
    Tampered(String),
}

impl Error {
    /// What kind of failure this is; the command line gives each kind its exit code, the
    /// same table for every cipherlab command (crates/cli/src/exit.rs): authentication
    /// failed (wrong or missing password, modified or truncated authenticated data);
    /// usage (an option or argument that cannot be used); the input is not readable as a
    /// PDF (not a PDF, damaged beyond repair, unsupported encryption); the output exists;
    /// input/output; disk full; the document cannot be kept whole (a lossy result
    /// refused); a limit against hostile input was hit (the message names the option that
    /// raises it).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::WrongPassword(_) | Error::PasswordRequired | Error::Tampered(_) => {
                ErrorKind::Authentication
            }
            Error::Invalid(_) => ErrorKind::Usage,
            Error::NotPdf(_)
            | Error::Damaged(_)
            | Error::Syntax { .. }
            | Error::Unsupported(_)
            | Error::BadEncrypt(_) => ErrorKind::Unreadable,
            Error::OutputExists(_) => ErrorKind::OutputExists,
            Error::Io { .. } | Error::Random(_) => ErrorKind::Io,
            Error::DiskFull(_) => ErrorKind::DiskFull,
            Error::Incomplete(_) => ErrorKind::Incomplete,
            Error::Limit(_) => ErrorKind::Limit,
        }
    }

    /// An input/output error while doing `what` with `path`; a full disk becomes
    /// [`Error::DiskFull`].
    pub fn io(what: &str, path: &str, source: std::io::Error) -> Error {
        if matches!(
            source.kind(),
            std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
        ) {
            return Error::DiskFull(path.to_string());
        }
        Error::Io {
            what: format!("{what} {path}"),
            source,
        }
    }
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

pub(crate) fn syntax(offset: usize, what: impl Into<String>) -> Error {
    Error::Syntax {
        offset,
        what: what.into(),
    }
}
