//! What can go wrong, each variant saying the cause and the fix, and its kind (of which
//! the command line makes its exit code: docs/format.md, "Exit codes").
//!
//! Authentication failures stay opaque about *why* a tag failed: the header MAC says
//! "wrong key or modified header", a chunk says "chunk N failed"; nothing more can be
//! learnt from them.

use std::io;
use std::path::PathBuf;

pub use cipherlab_ciphers::ErrorKind;

/// How the file was (or must be) unlocked, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unlock {
    /// A key file (`--key-file`).
    KeyFile,
    /// A passphrase through Argon2id (`--passphrase`).
    Passphrase,
}

impl Unlock {
    fn words(self) -> &'static str {
        match self {
            Unlock::KeyFile => "key file",
            Unlock::Passphrase => "passphrase",
        }
    }
    fn flag(self) -> &'static str {
        match self {
            Unlock::KeyFile => "--key-file FILE",
            Unlock::Passphrase => "--passphrase",
        }
    }
}

/// Everything encryption and decryption can refuse.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The header MAC did not verify: wrong passphrase or key, or a modified header.
    #[error(
        "wrong {} (or the file's header was modified): the header did not authenticate; \
         check you have the right {} for this file",
        .0.words(), .0.words()
    )]
    WrongKey(Unlock),

    /// The file was sealed with a passphrase but a key file was given, or the reverse.
    #[error("this file was encrypted with a {}, not a {}: use {}", .needed.words(), .given.words(), .needed.flag())]
    WrongUnlock {
        /// What the header asks for.
        needed: Unlock,
        /// What was given.
        given: Unlock,
    },

    /// The key file is for another cipher than the one the file uses.
    #[error(
        "the key file is for {key_cipher} but the file was encrypted with {file_cipher}: \
         use the key file that was used to encrypt it"
    )]
    KeyFileCipher {
        /// Cipher in the key file.
        key_cipher: String,
        /// Cipher in the header.
        file_cipher: String,
    },

    /// The input does not start with the container's magic bytes.
    #[error(
        "not a cipherlab file{hint}: {fix}",
        fix = "was it made by `cipherlab encrypt` (without --raw)? For raw ciphertext use `cipherlab decrypt --raw`"
    )]
    NotSealed {
        /// What the input looks like instead (may be empty).
        hint: String,
    },

    /// A container version this build does not read.
    #[error(
        "unsupported container version {found} (this cipherlab reads version {supported}): \
         decrypt it with the newer cipherlab that made it"
    )]
    UnsupportedVersion {
        /// Version in the header.
        found: u8,
        /// Version this build reads.
        supported: u8,
    },

    /// An algorithm id this build does not know.
    #[error(
        "unknown algorithm id {0} in the header: the file was made by a newer cipherlab, \
         or the header is damaged"
    )]
    UnknownAlgorithm(u8),

    /// A header field out of range (before the MAC could be checked).
    #[error("damaged header: {0}; the file is corrupted or was not made by cipherlab")]
    BadHeader(String),

    /// The file ends early: the final chunk is missing, or the header is cut.
    #[error(
        "the file is truncated: {0}; the end of the file is missing (copy or download it \
         again); no plaintext beyond the last verified chunk was released"
    )]
    Truncated(String),

    /// A chunk failed authentication.
    #[error(
        "chunk {index} (input bytes from {offset}) failed authentication: the file was \
         modified or damaged{}; no plaintext of this chunk was released",
        if *.final_piece { ", or cut short" } else { "" }
    )]
    CorruptChunk {
        /// Chunk number, from 0.
        index: u64,
        /// Offset of the chunk in the input.
        offset: u64,
        /// Whether it was the last piece of the input (then truncation is possible too).
        final_piece: bool,
    },

    /// The counter would overflow: too many chunks for the chunk size.
    #[error("the input has more than 2^32 chunks: encrypt it with a larger --chunk-kib")]
    TooLarge,

    /// The output exists and `--force` was not given.
    #[error("{} already exists: choose another output, or add --force to replace it", .0.display())]
    OutputExists(PathBuf),

    /// No space left on the device.
    #[error(
        "disk full while writing {}: free some space (or write elsewhere) and run again",
        .0
    )]
    DiskFull(String),

    /// A key file that cannot be used.
    #[error("key file {}: {reason}", .path.display())]
    KeyFile {
        /// The file.
        path: PathBuf,
        /// What is wrong and what to do.
        reason: String,
    },

    /// The chosen cipher cannot be used this way.
    #[error("{0}")]
    Cipher(#[from] cipherlab_ciphers::Error),

    /// Bad options (Argon2 parameters, chunk size, raw-mode key or IV, ...).
    #[error("{0}")]
    Usage(String),

    /// A limit protecting against hostile input was hit (an Argon2id cost a header asks
    /// for before it can be authenticated); the message names the option that raises it.
    #[error("{0}")]
    CostLimit(String),

    /// Any other input/output failure.
    #[error("{what}: {source}")]
    Io {
        /// What was being done ("reading input.bin").
        what: String,
        /// The system's error.
        #[source]
        source: io::Error,
    },
}

impl Error {
    /// Wraps an I/O error with what was being done; ENOSPC becomes [`Error::DiskFull`].
    pub fn io(what: impl Into<String>, source: io::Error) -> Error {
        let what = what.into();
        if source.kind() == io::ErrorKind::StorageFull
            || source.kind() == io::ErrorKind::QuotaExceeded
        {
            return Error::DiskFull(what.trim_start_matches("writing ").to_string());
        }
        // An error we raised ourselves inside an io::Read/Write adapter: unwrap it.
        if source.get_ref().is_some_and(|e| e.is::<Error>()) {
            if let Some(inner) = source.into_inner()
                && let Ok(e) = inner.downcast::<Error>()
            {
                return *e;
            }
            return Error::Usage(format!("{what}: lost error"));
        }
        Error::Io { what, source }
    }

    /// What kind of failure this is; the command line gives each kind its exit code
    /// (crates/cli/src/exit.rs, docs/format.md): the data did not authenticate (wrong key
    /// or passphrase, modified, truncated); usage (options, key files); the input is not
    /// a readable cipherlab file; the output exists; input/output; disk full; a limit
    /// protecting against hostile input (the message names the option that raises it).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::WrongKey(_)
            | Error::Truncated(_)
            | Error::CorruptChunk { .. }
            | Error::Cipher(
                cipherlab_ciphers::Error::Authentication | cipherlab_ciphers::Error::BadPadding,
            ) => ErrorKind::Authentication,
            Error::WrongUnlock { .. }
            | Error::KeyFileCipher { .. }
            | Error::KeyFile { .. }
            | Error::Cipher(_)
            | Error::Usage(_)
            | Error::TooLarge => ErrorKind::Usage,
            Error::NotSealed { .. }
            | Error::UnsupportedVersion { .. }
            | Error::UnknownAlgorithm(_)
            | Error::BadHeader(_) => ErrorKind::Unreadable,
            Error::OutputExists(_) => ErrorKind::OutputExists,
            Error::Io { .. } => ErrorKind::Io,
            Error::DiskFull(_) => ErrorKind::DiskFull,
            Error::CostLimit(_) => ErrorKind::Limit,
        }
    }

    /// This error as an `io::Error` (for the `Read`/`Write` adapters); [`Error::io`]
    /// turns it back.
    pub fn into_io(self) -> io::Error {
        match self {
            Error::Io { source, .. } => source,
            e => {
                let kind = match e {
                    Error::Truncated(_) => io::ErrorKind::UnexpectedEof,
                    _ => io::ErrorKind::InvalidData,
                };
                io::Error::new(kind, e)
            }
        }
    }
}

/// Results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
