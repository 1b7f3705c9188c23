//! # cipherlab-pdf: reading, encrypting and decrypting PDF files
//!
//! - The PDF Standard Security Handler of ISO 32000-2 §7.6 for reading -- every revision
//!   (R2 RC4-40, R3 RC4-128, R4 RC4 or AES-128 with crypt filters, R5 and R6 AES-256 with
//!   SASLprep'd passwords), user or owner password, /EncryptMetadata false, per-stream
//!   /Crypt filters, embedded-file filters (/EFF) -- and for writing: AES-256 (V 5 R 6,
//!   the default), AES-128 (V 4 R 4) and RC4-128 (V 2 R 3, weak, only when asked), with
//!   object streams and cross-reference streams kept ([`encrypt()`], [`standard`]).
//! - Lightweight ciphers (Ascon, Xoodyak, ISAP from `cipherlab-lwc`, through the
//!   catalogue) as **authenticated** crypt filters: every string and stream sealed with a
//!   fresh nonce and associated data binding its place in the file, a sealed manifest,
//!   decryption that rejects anything unauthenticated ([`lwc`]; the design is
//!   docs/pdf-lwc.md), carried in a PDF 2.0 unencrypted wrapper document that every
//!   reader opens ([`wrapper`]).
//! - Phase by phase for studies ([`phases`]): parse, encrypt (or decrypt) all strings and
//!   streams, write, each a call of its own.
//!
//! ```no_run
//! use cipherlab_pdf::{Cipher, LwcCipher, Options, StdCipher};
//! let input = std::fs::read("in.pdf")?;
//! let info = cipherlab_pdf::info(&input, None)?;           // what is it, needs a password?
//! let out = cipherlab_pdf::decrypt(&input, Some("secret"))?;
//! cipherlab_pdf::write_atomic("out.pdf".as_ref(), &out.bytes, false)?;
//! let opts = Options {
//!     cipher: Cipher::Standard(StdCipher::Aes256),         // or Cipher::Lwc(LwcCipher::ASCON_AEAD128)
//!     user_password: "user",
//!     owner_password: "owner",
//!     permissions: cipherlab_pdf::permissions::ALL,
//!     encrypt_metadata: true,
//!     input_password: None,
//!     allow_weak: false,                                  // rc4-128 only when true
//! };
//! let enc = cipherlab_pdf::encrypt(&input, &opts)?;
//! cipherlab_pdf::write_atomic("enc.pdf".as_ref(), &enc.bytes, false)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Why our own syntax layer, not lopdf's reader and writer
//!
//! lopdf 0.47's reader runs its own security handler while it loads: it tries the empty
//! password, decrypts with its code, and when that fails returns a document with *no
//! objects*; errors while decrypting an object are logged and the object kept half
//! decrypted. A handler of ours cannot sit between its parsing and its expansion of
//! (encrypted) object streams, and it misses a direct /Encrypt dictionary in the trailer.
//! Its writer drops object streams unless asked and then regroups every object. So this
//! crate parses PDF itself ([`lexer`], [`xref`], [`document`]), written for hostile input:
//! bounds-checked reads, nesting and size limits, /Prev loop detection, and repair of the
//! damage real files have (a wrong `startxref`, wrong offsets, a missing trailer: the
//! cross-reference table is rebuilt by scanning for `n g obj`, object streams included).
//!
//! ## The output file
//!
//! [`decrypt()`] and [`encrypt()`] write a new, complete file (no incremental update, not
//! linearized: the linearization dictionary and hint stream are dropped as they would be
//! stale) with [`writer`]: if the input had object streams, all non-stream objects of
//! generation 0 go into Flate-compressed object streams of 100 objects with a
//! cross-reference stream; if it had only a cross-reference stream, objects are written
//! directly with a cross-reference stream; a classic file gets a classic `xref` table.
//! Streams keep their filters and bytes (decryption is of the encoded data), so the output
//! is about the size of the input. The /Encrypt dictionary, the old cross-reference and
//! object streams and /Crypt stream filters are removed; /ID is kept.
//!
//! [`encrypt()`] also does what qpdf does so that its output is never much larger: objects
//! nothing refers to (earlier revisions' leftovers) are dropped, unfiltered streams,
//! streams in the old filters (LZW, ASCII85, ASCIIHex, RunLength) and Flate streams
//! written with a small window are (re)compressed with Flate when that is smaller. It
//! keeps the first /ID element, makes a new second one (or both when there is none),
//! raises the version to what the cipher needs, and writes through a temporary file
//! ([`write_atomic`]). Per-object work runs on several threads for large files
//! ([`par`]).
//!
//! ## What is encrypted and decrypted (ISO 32000-2 §7.6.2, §7.6.5, §7.6.6)
//!
//! Every string (with /StrF) and stream (with /StmF) of every top-level object, except:
//! the /Encrypt dictionary; the trailer and cross-reference streams (never encrypted);
//! /Contents of signature dictionaries; strings inside object streams (the object stream
//! is encrypted as a whole); streams whose /Filter starts with /Crypt (their named crypt
//! filter, /Identity by default); embedded-file streams (with /EFF); the metadata stream
//! when /EncryptMetadata is false (R4+). With a lightweight cipher there are no
//! exceptions: see [`lwc`].

pub mod decrypt;
pub mod document;
pub mod encrypt;
pub mod error;
pub mod filters;
pub mod info;
pub mod lexer;
pub mod limits;
pub mod lwc;
pub mod object;
pub mod open;
pub mod par;
pub mod password;
pub mod permissions;
pub mod phases;
pub mod prepare;
pub mod random;
mod readback;
pub mod repair;
pub mod security;
pub mod standard;
pub mod wrapper;
pub mod writer;
pub mod xref;

use std::path::Path;

pub use decrypt::{Decrypted, decrypt, decrypt_staged, decrypt_with};
pub use document::{Document, Pdf};
pub use encrypt::{Encrypted, Options, encrypt, encrypt_staged, encrypt_with};
pub use error::{Error, ErrorKind, Result};
pub use info::{Info, info};
pub use limits::Limits;
pub use lwc::LwcCipher;
pub use open::{Protection, Unlocked};
pub use phases::Cipher;
pub use repair::Census;
pub use security::{Auth, Handler, PasswordKind};
pub use standard::StdCipher;

/// Writes `bytes` to `path` as a whole or not at all ([`cipherlab_outfile`]: a temporary
/// file in the same directory, unnamed where the filesystem allows, put in place when
/// complete); refuses to replace an existing file unless `force`.
pub fn write_atomic(path: &Path, bytes: &[u8], force: bool) -> Result<()> {
    stage_atomic(path, bytes, force)?.commit()
}

/// The first half of [`write_atomic`]: `bytes` written to the temporary file for `path`
/// and, if it will replace a file, synced to disk. [`Staged::commit`] puts it in place;
/// dropped instead, it leaves nothing. For writing an output while it is still being
/// checked ([`encrypt_staged`], [`decrypt_staged`]).
pub fn stage_atomic(path: &Path, bytes: &[u8], force: bool) -> Result<Staged> {
    use std::io::Write as _;
    let mut f =
        cipherlab_outfile::OutFile::create(path, force).map_err(|e| write_error(path, e))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_if_replacing())
        .map_err(|e| write_error(path, e))?;
    Ok(Staged(f))
}

/// An output written whole to its temporary file by [`stage_atomic`], not yet in place.
#[derive(Debug)]
pub struct Staged(cipherlab_outfile::OutFile);

impl Staged {
    /// Puts the file in place (refused if the destination appeared meanwhile, unless
    /// `force`).
    pub fn commit(self) -> Result<()> {
        let path = self.0.dest().to_path_buf();
        self.0.commit().map_err(|e| write_error(&path, e))
    }
}

fn write_error(path: &Path, e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::AlreadyExists {
        Error::OutputExists(path.display().to_string())
    } else {
        // A full disk is its own error (and exit code).
        Error::io("writing", &path.display().to_string(), e)
    }
}
