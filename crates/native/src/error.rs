//! What building, loading and checking a C implementation can refuse.

use std::path::PathBuf;

use cipherlab_ciphers::ErrorKind;

/// Why a folder could not be built, loaded or checked at all (a build that fails, or
/// one that disagrees with the KAT, is a result, [`crate::Outcome`], not an error).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The folder is not there.
    #[error("{0}: not a folder (name the folder that holds api.h and the .c files)")]
    NotAFolder(PathBuf),
    /// `api.h` is missing or does not define a size.
    #[error(
        "{path}: {message} (the NIST LWC API's api.h defines CRYPTO_KEYBYTES, CRYPTO_NPUBBYTES and CRYPTO_ABYTES for crypto_aead, CRYPTO_BYTES for crypto_hash)"
    )]
    ApiH {
        /// The api.h looked at.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The folder has no `.c` file.
    #[error("{0}: no .c files to build")]
    NoSources(PathBuf),
    /// api.h's sizes are not the algorithm's.
    #[error(
        "{folder}: api.h says key {key} B, nonce {nonce} B, tag {tag} B, but {cipher} has key {want_key} B, nonce {want_nonce} B, tag {want_tag} B: this is not an implementation of {cipher} (check --algorithm)"
    )]
    SizesMismatch {
        /// The folder.
        folder: PathBuf,
        /// The catalogue AEAD asked for.
        cipher: String,
        /// api.h's CRYPTO_KEYBYTES.
        key: usize,
        /// api.h's CRYPTO_NPUBBYTES.
        nonce: usize,
        /// api.h's CRYPTO_ABYTES.
        tag: usize,
        /// The catalogue's key bytes.
        want_key: usize,
        /// The catalogue's nonce bytes.
        want_nonce: usize,
        /// The catalogue's tag bytes.
        want_tag: usize,
    },
    /// api.h declares one API (`crypto_aead`, `crypto_hash`) and the algorithm is of the
    /// other.
    #[error(
        "{folder}: api.h declares the {api} API, but {algorithm} is {what}: this is not an implementation of {algorithm} (check --algorithm)"
    )]
    ApiMismatch {
        /// The folder.
        folder: PathBuf,
        /// The API api.h declares.
        api: &'static str,
        /// The catalogue algorithm asked for.
        algorithm: String,
        /// What that algorithm is ("an AEAD (crypto_aead)", "a hash (crypto_hash)").
        what: &'static str,
    },
    /// api.h's CRYPTO_BYTES is not the hash's digest length.
    #[error(
        "{folder}: api.h says CRYPTO_BYTES {bytes}, but {hash} gives {want} B: this is not an implementation of {hash} (check --algorithm)"
    )]
    DigestMismatch {
        /// The folder.
        folder: PathBuf,
        /// The catalogue hash asked for.
        hash: String,
        /// api.h's CRYPTO_BYTES.
        bytes: usize,
        /// The hash's digest length (an XOF's: its KAT file's).
        want: usize,
    },
    /// A catalogue hash the `crypto_hash` API cannot express (a customizable XOF).
    #[error("{0}")]
    Unsupported(String),
    /// `bench --impl` was given a `crypto_hash` folder.
    #[error(
        "{0}: api.h declares the crypto_hash API: `--impl` times AEADs in the lwc study; hashes are checked by `impl check` only"
    )]
    HashNotTimed(PathBuf),
    /// The algorithm is not a catalogue AEAD with an LWC KAT file.
    #[error(
        "{0} has no NIST LWC KAT file in the catalogue: C implementations can be checked for {1}"
    )]
    NoKat(String, String),
    /// The KAT file is missing or malformed.
    #[error("{0}")]
    Kat(String),
    /// No C compiler was found.
    #[error(
        "no C compiler found (looked for gcc, clang and cc on PATH): install one, e.g. `apt-get install gcc`"
    )]
    NoCompiler,
    /// The library could not be loaded, or lacks a symbol.
    #[error("{path}: {message}")]
    Load {
        /// The library.
        path: PathBuf,
        /// The loader's message.
        message: String,
    },
    /// A provider name that cannot be used.
    #[error("{0}")]
    Name(String),
    /// Reading the folder, or making the private build folder.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The cause.
        source: std::io::Error,
    },
}

impl Error {
    /// Its kind, for exit codes.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::NotAFolder(_) | Error::Io { .. } => ErrorKind::Io,
            Error::Kat(_) => ErrorKind::Unreadable,
            Error::NoCompiler | Error::Load { .. } => ErrorKind::Other,
            Error::ApiH { .. }
            | Error::NoSources(_)
            | Error::SizesMismatch { .. }
            | Error::ApiMismatch { .. }
            | Error::DigestMismatch { .. }
            | Error::Unsupported(_)
            | Error::HashNotTimed(_)
            | Error::NoKat(..)
            | Error::Name(_) => ErrorKind::Usage,
        }
    }

    pub(crate) fn io(what: impl Into<String>, source: std::io::Error) -> Error {
        Error::Io {
            what: what.into(),
            source,
        }
    }
}
