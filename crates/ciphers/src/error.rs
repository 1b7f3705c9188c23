//! Errors of the catalogue. Each says what went wrong and what to do; authentication
//! failure stays opaque (it never says which check failed).

/// What kind of failure an error is, the same kinds for every cipherlab library
/// (`cipherlab_seal::Error::kind`, `cipherlab_pdf::Error::kind`). A caller that sorts
/// failures (the command line's exit codes, crates/cli/src/exit.rs) maps these, and only
/// these, to its own answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorKind {
    /// Authentication failed: wrong key or password, data modified, damaged or
    /// truncated.
    Authentication,
    /// Options or arguments that cannot work.
    Usage,
    /// The input is not readable as what was expected (not a container, not a PDF,
    /// damaged beyond repair, unsupported encryption).
    Unreadable,
    /// The output exists and replacing it was not asked for.
    OutputExists,
    /// Any other input/output failure.
    Io,
    /// No space left on the device.
    DiskFull,
    /// The document cannot be kept whole (writing it would lose part of it).
    Incomplete,
    /// A limit protecting against hostile input was hit.
    Limit,
    /// Anything else (an internal error, a study that failed).
    Other,
    /// An implementation that was checked failed its known-answer tests (`impl check`:
    /// no build of a C implementation agrees).
    Nonconforming,
}

impl ErrorKind {
    /// Every kind, in the order of the exit-code table.
    pub const ALL: [ErrorKind; 10] = [
        ErrorKind::Authentication,
        ErrorKind::Usage,
        ErrorKind::Unreadable,
        ErrorKind::OutputExists,
        ErrorKind::Io,
        ErrorKind::DiskFull,
        ErrorKind::Incomplete,
        ErrorKind::Limit,
        ErrorKind::Other,
        ErrorKind::Nonconforming,
    ];
}

/// Everything the catalogue can refuse.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Error {
    /// A hash request that cannot be served (customization for a plain hash, a length a
    /// fixed hash does not give, an output above the limit).
    #[error("{0}")]
    Hash(String),
    /// The name matches no algorithm.
    #[error("unknown cipher \"{name}\"{}", did_you_mean(.suggestions))]
    UnknownCipher {
        /// What was asked for.
        name: String,
        /// Close known names.
        suggestions: Vec<String>,
    },
    /// A block cipher named without a mode.
    #[error("\"{name}\" needs a mode, e.g. {}", .examples.join(", "))]
    ModeMissing {
        /// What was asked for.
        name: String,
        /// The same name with each mode.
        examples: Vec<String>,
    },
    /// A key size the algorithm does not have.
    #[error("{cipher} has no {bits}-bit key; it takes {accepted} bits")]
    KeySize {
        /// Algorithm stem.
        cipher: &'static str,
        /// Requested bits.
        bits: u16,
        /// Accepted sizes, in words.
        accepted: String,
    },
    /// Wrong key length for the spec.
    #[error("{cipher} needs a {expected}-byte key, got {got} bytes")]
    KeyLength {
        /// Canonical cipher name.
        cipher: String,
        /// Expected bytes.
        expected: usize,
        /// Given bytes.
        got: usize,
    },
    /// Wrong IV or nonce length for the spec.
    #[error("{cipher} needs a {expected}-byte IV/nonce, got {got} bytes")]
    IvLength {
        /// Canonical cipher name.
        cipher: String,
        /// Expected bytes.
        expected: usize,
        /// Given bytes.
        got: usize,
    },
    /// Associated data given to a cipher that cannot authenticate it.
    #[error("{cipher} does not authenticate associated data; use an AEAD")]
    AdNotSupported {
        /// Canonical cipher name.
        cipher: String,
    },
    /// The buffer cannot hold the output.
    #[error("output buffer too small: need {need} bytes, have {have}")]
    BufferTooSmall {
        /// Bytes needed.
        need: usize,
        /// Bytes available.
        have: usize,
    },
    /// Unpadded ECB/CBC input that is not whole blocks, or ciphertext of a wrong length.
    #[error(
        "length {len} is not a multiple of the {block}-byte block (use PKCS#7 padding, or check the input is complete)"
    )]
    NotBlockAligned {
        /// Input length.
        len: usize,
        /// Block size.
        block: usize,
    },
    /// PKCS#7 padding did not check out after decryption.
    #[error("bad padding: wrong key, wrong IV, or corrupted ciphertext")]
    BadPadding,
    /// The AEAD tag did not verify; no plaintext was released.
    #[error("authentication failed: wrong key, or the data was modified")]
    Authentication,
    /// No provider implements the spec, or the named one does not.
    #[error("{provider} does not implement {cipher}{}", hint(.available))]
    Unsupported {
        /// Provider name.
        provider: String,
        /// Canonical cipher name.
        cipher: String,
        /// Providers that do.
        available: Vec<&'static str>,
    },
    /// Unknown provider name.
    #[error("unknown provider \"{0}\" (known: rustcrypto, openssl, cipherlab, ring, aws-lc)")]
    UnknownProvider(String),
    /// A failure inside a provider library (message from that library).
    #[error("{provider}: {message}")]
    Provider {
        /// Provider name.
        provider: &'static str,
        /// What it said.
        message: String,
    },
}

fn did_you_mean(s: &[String]) -> String {
    if s.is_empty() {
        "; `cipherlab list` shows every cipher".into()
    } else {
        format!("; did you mean {}?", s.join(", "))
    }
}

fn hint(available: &[&str]) -> String {
    if available.is_empty() {
        String::new()
    } else {
        format!(" (use --provider {})", available.join(" or "))
    }
}
