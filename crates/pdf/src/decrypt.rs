//! Decrypting a PDF: the phases [`crate::phases::open`] and [`crate::phases::write_plain`]
//! in order -- the document opened (authenticated, decrypted, repaired or refused), then
//! written out unencrypted and read back to check it holds the whole document.

use crate::error::Result;
use crate::limits::Limits;
use crate::open::{Opened, Protection};
use crate::phases;
use crate::repair;
use crate::security::Auth;
use crate::writer;

/// The result of [`decrypt`].
#[derive(Debug)]
pub struct Decrypted {
    /// The decrypted file.
    pub bytes: Vec<u8>,
    /// Which password opened it (`None`: the input was not encrypted).
    pub auth: Option<Auth>,
    /// What protected the input: an authenticated payload, the Standard handler (not
    /// authenticated), or nothing.
    pub protection: Protection,
    /// Repairs and oddities met while reading.
    pub warnings: Vec<String>,
    /// Number of strings decrypted.
    pub strings: usize,
    /// Streams decrypted.
    pub streams: usize,
    /// The layout written.
    pub object_streams: bool,
    /// A cross-reference stream was written.
    pub xref_stream: bool,
}

/// Decrypts `input` with `password` (the empty user password when `None`) and writes it
/// as an unencrypted PDF. An unencrypted input is rewritten the same way; a wrapper
/// document around an LWC payload gives the payload's document, every object of it
/// authenticated first. A damaged input is repaired where that yields the whole document
/// and refused ([`crate::Error::Incomplete`]) where it does not ([`repair`]).
pub fn decrypt(input: &[u8], password: Option<&str>) -> Result<Decrypted> {
    decrypt_with(input, password, &Limits::default())
}

/// [`decrypt`] within `limits`.
pub fn decrypt_with(input: &[u8], password: Option<&str>, limits: &Limits) -> Result<Decrypted> {
    let opened = phases::open(input, password, limits)?;
    phases::write_plain(opened, limits)
}

/// Writes an opened document out unencrypted, with the warnings its protection calls
/// for, and reads the output back to check it holds the whole document
/// ([`repair::check_written`]). [`crate::phases::write_plain`] is this.
pub fn write_plain(opened: Opened, limits: &Limits) -> Result<Decrypted> {
    let Opened {
        doc,
        auth,
        protection,
        mut warnings,
        census,
        ..
    } = opened;
    if !protection.authenticated() && auth.as_ref().is_some_and(|a| a.perms_ok == Some(false)) {
        warnings.push(
            "/Perms does not match /P and /EncryptMetadata: the permissions were altered".into(),
        );
    }
    if let Protection::Standard { plaintext, .. } = &protection {
        let content: Vec<&str> = plaintext
            .iter()
            .copied()
            .filter(|p| *p != "metadata")
            .collect();
        if !content.is_empty() {
            warnings.push(format!(
                "NOT ENCRYPTED: this file's {} are stored in the clear (the /Identity crypt \
                 filter): anyone could have written them, with or without the password; do not \
                 trust this document's content because a password opened it",
                content.join(" and ")
            ));
        }
    }
    let layout = writer::Layout::like_input(&doc);
    let (strings, streams) = (doc.strings_decrypted, doc.streams_decrypted);
    let bytes = writer::write(doc, layout);
    repair::check_written(&census, &bytes, None, limits)?;
    Ok(Decrypted {
        bytes,
        auth,
        protection,
        warnings,
        strings,
        streams,
        object_streams: layout.object_streams,
        xref_stream: layout.xref_stream,
    })
}
