//! Limits that protect against hostile input: what a small file can make the reader
//! allocate. A file of n bytes can make us hold about 16n bytes of parsed objects (a
//! two-byte `0 ` becomes a 32-byte [`crate::object::Object`]); compressed data is what can
//! make that unbounded -- a 1 MB Flate stream inflates to 1 GB -- so these limits bound
//! what decoding and what the objects parsed from decoded data may cost. Each is an
//! option of [`crate::Pdf::parse_with`], [`crate::decrypt_with`] and
//! [`crate::encrypt_with`], and of the command line (the flag named in the error).
//! The defaults and the memory they allow are measured in docs/pdf.md.

use crate::error::Error;

/// The limits (see the module documentation). `Limits::default()` is what the command
/// line uses unless told otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest decoded size of one stream that is decoded (cross-reference streams, object
    /// streams, the streams `encrypt` recompresses, an LWC payload), in bytes.
    /// Command line: `--max-stream-mib`. Default 256 MiB.
    pub stream_bytes: usize,
    /// Most objects in one document: cross-reference entries plus objects in object
    /// streams. Command line: `--max-objects`. Default 5,000,000.
    pub objects: usize,
    /// Most values (numbers, names, strings, array and dictionary entries) parsed out of
    /// the object streams of one document, all together: what a small compressed file
    /// could make us hold. Command line: `--max-values`. Default 50,000,000 (about 1.6 GB of
    /// parsed objects at the worst).
    pub values: usize,
    /// Deepest nesting of arrays and dictionaries. Command line: `--max-depth`. Default
    /// 256, at most [`Limits::MAX_DEPTH`] (the parser recurses).
    pub depth: usize,
}

impl Limits {
    /// The largest `depth` accepted: the parser and the writer recurse once per level, and
    /// this keeps them well inside a 2 MiB thread stack in debug builds.
    pub const MAX_DEPTH: usize = 1024;

    /// Checks the values are usable.
    pub fn check(&self) -> Result<(), Error> {
        if self.depth == 0 || self.depth > Self::MAX_DEPTH {
            return Err(Error::Invalid(format!(
                "the nesting limit must be from 1 to {}; {} was asked",
                Self::MAX_DEPTH,
                self.depth
            )));
        }
        if self.stream_bytes == 0 || self.objects == 0 || self.values == 0 {
            return Err(Error::Invalid(
                "the limits on stream size, objects and values must not be 0".into(),
            ));
        }
        Ok(())
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            stream_bytes: 256 << 20,
            objects: 5_000_000,
            values: 50_000_000,
            depth: 256,
        }
    }
}

/// The limit a [`Error::Limit`] names, with its command-line flag.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Which {
    StreamBytes,
    Objects,
    Values,
    Depth,
}

impl Which {
    fn flag(self) -> &'static str {
        match self {
            Which::StreamBytes => "--max-stream-mib",
            Which::Objects => "--max-objects",
            Which::Values => "--max-values",
            Which::Depth => "--max-depth",
        }
    }
}

/// The error for `what` going beyond the limit `which`.
pub(crate) fn exceeded(which: Which, what: impl std::fmt::Display) -> Error {
    Error::Limit(format!(
        "{what}; if the file is trustworthy, raise the limit with {}",
        which.flag()
    ))
}
