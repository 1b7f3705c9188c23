//! `pdf encrypt`: a PDF in, the same PDF encrypted out. [`encrypt`] is the phases of
//! [`crate::phases`] one after the other, the same calls a study times apart:
//!
//! 1. [`phases::open`] -- parse the input (and decrypt it, if it was encrypted) into a
//!    [`crate::Document`];
//! 2. [`phases::prepare`] -- what the encrypted file needs beyond the input
//!    ([`crate::prepare`]);
//! 3. [`phases::keys`] -- the /Encrypt dictionary and file key from the passwords;
//! 4. [`phases::pack`] -- the layout: object streams kept (as the input had them), or
//!    everything but streams in object streams for a lightweight cipher;
//! 5. [`phases::encrypt`] -- every string and stream encrypted, each object stream as a
//!    whole (its members' strings are not encrypted again, §7.5.7);
//! 6. [`phases::write`] -- the /Encrypt dictionary added (never encrypted), the file with
//!    a cross-reference stream that is never encrypted (§7.5.8.2), and for a lightweight
//!    cipher the wrapper around it.
//!
//! Between them it checks what the document must still hold ([`repair`]).

use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::phases;
use crate::repair;
use crate::security::Auth;
use crate::standard::StdCipher;

use crate::open::Opened;
use crate::phases::Cipher;

/// How to encrypt.
#[derive(Clone, Copy, Debug)]
pub struct Options<'a> {
    /// The cipher.
    pub cipher: Cipher,
    /// The user (open) password; may be empty (the file opens without one, and the
    /// permissions apply).
    pub user_password: &'a str,
    /// The owner password (must not be empty).
    pub owner_password: &'a str,
    /// /P: the permissions of the user password ([`crate::permissions::parse`]).
    pub permissions: i32,
    /// Encrypt metadata streams (true unless asked otherwise; the Standard handler's
    /// /EncryptMetadata).
    pub encrypt_metadata: bool,
    /// The password of an encrypted input (the empty user password when `None`).
    pub input_password: Option<&'a str>,
    /// Allow a weak cipher (rc4-128, [`StdCipher::weak`]); without it, asking for one is
    /// an error.
    pub allow_weak: bool,
}

/// The result of [`encrypt`].
#[derive(Debug)]
pub struct Encrypted {
    /// The encrypted file.
    pub bytes: Vec<u8>,
    /// Repairs made while reading, and things the user should know.
    pub warnings: Vec<String>,
    /// How an encrypted input was opened (`None`: it was not encrypted).
    pub input_auth: Option<Auth>,
    /// Strings encrypted on their own (those in object streams are not counted).
    pub strings: usize,
    /// Streams encrypted (object streams included).
    pub streams: usize,
    /// Number of objects written.
    pub objects: usize,
    /// The output has object streams.
    pub object_streams: bool,
    /// The output has a cross-reference stream.
    pub xref_stream: bool,
    /// For a lightweight cipher: the size of the encrypted payload inside the wrapper.
    pub payload_bytes: Option<usize>,
}

/// Encrypts `input` as `opts` says: the phases of [`crate::phases`] one after the other
/// (see the module documentation). Before the bytes are returned, a Standard-handler
/// output is read back and checked to hold the document read ([`repair::check_written`]).
pub fn encrypt(input: &[u8], opts: &Options<'_>) -> Result<Encrypted> {
    encrypt_with(input, opts, &Limits::default())
}

/// [`encrypt`] within `limits`.
pub fn encrypt_with(input: &[u8], opts: &Options<'_>, limits: &Limits) -> Result<Encrypted> {
    encrypt_staged(input, opts, limits, |_| ()).map(|(e, ())| e)
}

/// [`encrypt_with`], handing the output to `stage` while it is read back: `stage` runs on
/// another thread with the bytes (writing and syncing a temporary file, [`crate::stage_atomic`],
/// so that the disk works while the CPU checks), and what it returns comes back only with
/// an output that passed the check; on any error it is dropped (a staged file with it,
/// never put in place). Where the output is not read back (a lightweight cipher's),
/// `stage` runs after the rest.
pub fn encrypt_staged<S: Send>(
    input: &[u8],
    opts: &Options<'_>,
    limits: &Limits,
    stage: impl FnOnce(&[u8]) -> S + Send,
) -> Result<(Encrypted, S)> {
    check_options(opts)?;
    let opened = phases::open(input, opts.input_password, limits)?;
    let remark = opened.user_only_remark();
    let Opened {
        mut doc,
        auth,
        mut warnings,
        census,
        ..
    } = opened;
    warnings.extend(remark);
    warnings.extend(phases::prepare(
        &mut doc,
        opts.cipher,
        opts.encrypt_metadata,
        limits,
    )?);
    // A Standard-handler output is read back whole below (`check_written`), which finds
    // anything `prepare` lost as well; only a lightweight cipher's output, which is not
    // read back, has the prepared document checked here. (Both walks of a large document
    // were a twentieth of `pdf encrypt`'s time: docs/BENCHMARKS.md.)
    if matches!(opts.cipher, Cipher::Lwc(_)) {
        repair::check_prepared(&census, &doc)?;
    }
    let keys = phases::keys(
        &doc,
        opts.cipher,
        opts.user_password,
        opts.owner_password,
        opts.permissions,
        opts.encrypt_metadata,
    )?;
    warnings.extend(keys.warnings.iter().cloned());
    let mut packed = phases::pack(doc, &keys);
    let counts = phases::encrypt(&mut packed, &keys)?;
    let written = phases::write(&mut packed, &keys)?;
    let lwc = written.payload_bytes.is_some();
    let objects = packed.object_count();
    let object_streams = lwc || packed.has_object_streams();
    let xref_stream = lwc || packed.xref_stream;
    let bytes = &written.bytes;
    let staged = match keys.handler() {
        Some(h) => {
            // The document is no longer needed: freeing its objects (a few percent of the
            // time for a large file) goes to the other core, then the staging, while the
            // output is read back.
            let (staged, checked) = crate::par::join(
                move || {
                    drop(packed);
                    stage(bytes)
                },
                || repair::check_written(&census, bytes, Some(h), limits),
            );
            checked?;
            staged
        }
        None => stage(bytes),
    };
    let encrypted = Encrypted {
        bytes: written.bytes,
        warnings,
        input_auth: auth,
        strings: counts.strings,
        streams: counts.streams,
        objects,
        object_streams,
        xref_stream,
        payload_bytes: written.payload_bytes,
    };
    Ok((encrypted, staged))
}

/// The options that no cipher's phases would catch, refused before the input is read: a
/// weak cipher not allowed, and /EncryptMetadata false where the cipher cannot leave
/// metadata in the clear.
fn check_options(opts: &Options<'_>) -> Result<()> {
    match opts.cipher {
        Cipher::Standard(cipher) => {
            if cipher.weak() && !opts.allow_weak {
                return Err(Error::Invalid(format!(
                    "{} is weak: RC4 is broken and PDF 2.0 deprecates it; use aes-256, or allow \
                     weak ciphers explicitly (--allow-weak) to write it anyway",
                    cipher.name()
                )));
            }
            if !opts.encrypt_metadata && cipher == StdCipher::Rc4_128 {
                return Err(Error::Invalid(
                    "rc4-128 (revision 3) always encrypts metadata; EncryptMetadata false needs \
                     aes-128 or aes-256"
                        .into(),
                ));
            }
        }
        Cipher::Lwc(cipher) => {
            if !opts.encrypt_metadata {
                return Err(Error::Invalid(format!(
                    "{} encrypts everything, metadata too: --no-encrypt-metadata is for aes-128 \
                     and aes-256",
                    cipher.name()
                )));
            }
        }
    }
    Ok(())
}

/// Options for the crate's tests: `cipher`, the passwords "u" and "o", every permission,
/// metadata encrypted, weak ciphers allowed.
#[cfg(test)]
pub(crate) fn test_options(cipher: StdCipher) -> Options<'static> {
    Options {
        cipher: Cipher::Standard(cipher),
        user_password: "u",
        owner_password: "o",
        permissions: -4,
        encrypt_metadata: true,
        input_password: None,
        allow_weak: true,
    }
}

/// Encrypting an empty-looking input must still say why it fails; used by tests.
#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn not_a_pdf_is_an_error() {
        let o = test_options(StdCipher::Aes256);
        assert!(matches!(encrypt(b"hello", &o), Err(Error::NotPdf(_))));
    }

    #[test]
    fn weak_ciphers_need_allow_weak() {
        let mut o = Options {
            allow_weak: false,
            ..test_options(StdCipher::Rc4_128)
        };
        match encrypt(b"%PDF-1.4 not read", &o) {
            Err(Error::Invalid(m)) => assert!(m.contains("weak"), "{m}"),
            r => panic!("rc4-128 without allow_weak: {r:?}"),
        }
        o.allow_weak = true;
        assert!(!matches!(
            encrypt(b"%PDF-1.4 not read", &o),
            Err(Error::Invalid(_))
        ));
    }
}
