//! # cipherlab-seal: files and object streams, encrypted and authenticated
//!
//! The container cipherlab's `encrypt` and `decrypt` commands write (specified in
//! docs/format.md): an authenticated header (magic, version, algorithm, KDF, chunk size,
//! salt, nonce prefix, HMAC), then the payload as a chunked AEAD stream (STREAM: 64 KiB
//! chunks, nonce = prefix || counter || last-chunk flag), so truncation, reordering,
//! duplication and splicing are all detected, and memory stays bounded for any size.
//! Any AEAD of the catalogue can be used; the key comes from a key file ([`KeyFile`])
//! or a passphrase (Argon2id).
//!
//! ## Object streams
//!
//! [`SealWriter`] and [`SealReader`] are `Write` and `Read` adapters, like Java's
//! `CipherOutputStream` and `CipherInputStream` but authenticated: anything that
//! serializes to a writer (serde_json, postcard, ...) can be encrypted on the way out and
//! decrypted on the way back. A reader returns plaintext only after its chunk verified;
//! a modified or truncated stream gives an `io::Error` holding a [`Error`].
//!
//! ```
//! use std::io::{Read, Write};
//! use cipherlab_seal::{CipherSpec, KeyFile, SealOptions, SealReader, SealWriter, Secret};
//!
//! let key = KeyFile::generate(CipherSpec::parse("ascon-aead128")?);
//! let mut w = SealWriter::new(Vec::new(), Secret::Key(&key), &SealOptions::default())?;
//! w.write_all(b"{\"name\":\"Ada\",\"friends\":[\"Grace\"]}")?;
//! let sealed: Vec<u8> = w.finish()?;
//!
//! let mut r = SealReader::new(sealed.as_slice(), Secret::Key(&key))?;
//! let mut json = String::new();
//! r.read_to_string(&mut json)?;
//! assert!(json.contains("Grace"));
//!
//! let mut tampered = sealed.clone();
//! *tampered.last_mut().unwrap() ^= 1;
//! let mut r = SealReader::new(tampered.as_slice(), Secret::Key(&key))?;
//! assert!(r.read_to_string(&mut json).is_err()); // no plaintext of a failed chunk
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `examples/objects.rs` serializes a graph of structs with serde through them.
//!
//! ## Whole files at full speed
//!
//! [`encrypt`] and [`decrypt`] process batches of chunks on every core, in order, with
//! bounded buffers; [`Output`] writes to a temporary file renamed into place only when
//! everything verified. [`raw`] is the legacy mode: any catalogue cipher, the user's key
//! and IV, output exactly as `openssl enc` and JCE, and no integrity.

#![forbid(unsafe_code)]

mod chunk;
pub mod error;
pub mod format;
pub mod keys;
pub mod output;
mod pipeline;
pub mod raw;
mod stream;

pub use cipherlab_ciphers::{CipherSpec, Padding};
pub use error::{Error, ErrorKind, Result, Unlock};
pub use format::{Argon2Params, Header, Kdf, default_cipher};
pub use keys::{KeyFile, KeyFileError, Secret};
pub use output::Output;
pub use pipeline::{Progress, Summary, decrypt, decrypt_to, encrypt, encrypt_to};
pub use stream::{SealOptions, SealReader, SealWriter};
