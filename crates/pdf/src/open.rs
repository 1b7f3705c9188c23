//! Opening a PDF: parse it, find out what protects it, authenticate the password and
//! decrypt it -- the Standard handler ([`crate::security`]), an LWC payload in its wrapper
//! or not ([`crate::lwc::open`]) -- into a [`Document`] ([`open`]); and [`decrypt`], which
//! writes that document out unencrypted.

use crate::document::{Document, Pdf};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::lwc::{self, LwcCipher};
use crate::repair::{self, Census};
use crate::security::{Auth, Cfm, EncryptDict};
use crate::wrapper;
use crate::writer;

/// What protected a file that was opened, and so what its content can be trusted for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Protection {
    /// An authenticated lightweight-cipher payload (in its wrapper or not): every object
    /// was authenticated before it was released (docs/pdf-lwc.md).
    Authenticated {
        /// The cipher.
        cipher: LwcCipher,
        /// The design's version of the payload; 1 predates the separation of its password
        /// entries from the Standard handler's.
        version: i64,
    },
    /// The Standard security handler: encrypted, never authenticated. Anyone who can write
    /// the file can change it (flip ciphertext bits, add plaintext objects) without the
    /// password, and a password that opens it proves nothing about its content.
    Standard {
        /// /R, the handler's revision.
        revision: i64,
        /// The parts the /Encrypt dictionary leaves in the clear (`strings`, `streams`,
        /// `embedded files` under the /Identity filter; `metadata` with /EncryptMetadata
        /// false): content anyone could have written.
        plaintext: Vec<&'static str>,
    },
    /// Not encrypted.
    None,
}

impl Protection {
    /// The lightweight cipher of an authenticated payload.
    pub fn lwc(&self) -> Option<LwcCipher> {
        match self {
            Protection::Authenticated { cipher, .. } => Some(*cipher),
            _ => None,
        }
    }

    /// Whether every object was authenticated.
    pub fn authenticated(&self) -> bool {
        matches!(self, Protection::Authenticated { .. })
    }

    /// The Standard handler's protection of `enc`: what its crypt filters leave in the
    /// clear.
    pub fn standard(enc: &EncryptDict) -> Protection {
        let mut plaintext = Vec::new();
        if enc.v >= 4 {
            for (what, f) in [
                ("strings", &enc.strf),
                ("streams", &enc.stmf),
                ("embedded files", &enc.eff),
            ] {
                if enc.filter(f).cfm == Cfm::Identity {
                    plaintext.push(what);
                }
            }
            if !enc.encrypt_metadata {
                plaintext.push("metadata");
            }
        }
        Protection::Standard {
            revision: enc.r,
            plaintext,
        }
    }
}

/// A parsed input: the document, decrypted if it was encrypted.
#[derive(Debug)]
pub struct Opened {
    /// The document.
    pub doc: Document,
    /// How it was opened, if it was encrypted.
    pub auth: Option<Auth>,
    /// What protected it.
    pub protection: Protection,
    /// The input's /P, if it was encrypted.
    pub p: Option<i32>,
    /// Repairs and remarks.
    pub warnings: Vec<String>,
    /// What the document holds (pages, objects used): what the output must hold too.
    pub census: Census,
}

/// Phase 1: parses `input`; an encrypted input is decrypted with `password` (the empty
/// user password when `None`), and refused with [`Error::PasswordRequired`] when that
/// does not open it. A wrapper document around an LWC payload ([`crate::wrapper`]) is
/// opened as the payload (every object authenticated: [`crate::lwc::open`]). A damaged
/// input is repaired when that gives the whole document, else refused ([`repair`]).
pub fn open(input: &[u8], password: Option<&str>) -> Result<Opened> {
    open_with(input, password, &Limits::default())
}

/// [`open`] within `limits`.
pub fn open_with(input: &[u8], password: Option<&str>, limits: &Limits) -> Result<Opened> {
    let pdf = Pdf::parse_with(input, *limits)?;
    if lwc::open::is_payload(&pdf) {
        // A payload taken out of its wrapper: the same strict reading.
        return open_payload(input, password);
    }
    let (handler, auth) = match pdf.authenticate(password)? {
        Some((h, a)) => (Some(h), Some(a)),
        None => (None, None),
    };
    let (doc, census) = pdf.load_whole(handler.as_ref())?;
    if handler.is_none()
        && let Some(payload) = wrapper::find(&doc)?
    {
        if payload.subtype != lwc::HANDLER {
            return Err(Error::Unsupported(format!(
                "this is a wrapper around a document encrypted with the cryptographic filter \
                 /{}{}, which cipherlab does not know (it knows /{})",
                payload.subtype,
                payload
                    .version
                    .as_ref()
                    .map(|v| format!(" version {v}"))
                    .unwrap_or_default(),
                lwc::HANDLER
            )));
        }
        return open_payload(&payload.bytes, password);
    }
    let protection = handler
        .as_ref()
        .map_or(Protection::None, |h| Protection::standard(&h.enc));
    Ok(Opened {
        warnings: doc.warnings.clone(),
        doc,
        protection,
        p: handler.as_ref().map(|h| h.enc.p),
        auth,
        census,
    })
}

/// [`open`] for an LWC payload.
fn open_payload(payload: &[u8], password: Option<&str>) -> Result<Opened> {
    let o = lwc::open::decrypt_payload(payload, password)?;
    let mut warnings = o.doc.warnings.clone();
    if o.version == 1 {
        warnings.push(format!(
            "this payload was written by a cipherlab before version 2 of the design: its \
             password entries also open a Standard-handler PDF, so a file of someone else's \
             making can ask for the same password (docs/pdf-lwc.md); re-encrypt it with \
             cipherlab pdf encrypt --cipher {}",
            o.cipher.name()
        ));
    }
    Ok(Opened {
        warnings,
        census: repair::census_of_document(&o.doc),
        doc: o.doc,
        auth: Some(o.auth),
        protection: Protection::Authenticated {
            cipher: o.cipher,
            version: o.version,
        },
        p: None,
    })
}

impl Opened {
    /// A remark for re-encrypting an input opened with its user password only, whose owner
    /// had denied permissions: the new file's permissions are the caller's.
    pub(crate) fn user_only_remark(&self) -> Option<String> {
        let (Some(a), Some(p)) = (&self.auth, self.p) else {
            return None;
        };
        if a.owner {
            return None;
        }
        let denied: Vec<&str> = crate::permissions::permissions(p)
            .into_iter()
            .filter(|p| !p.1)
            .map(|p| p.0)
            .collect();
        (!denied.is_empty()).then(|| {
            format!(
                "the input was opened with its user password, and its owner had denied: {}; the \
             new file's permissions are those of --permissions",
                denied.join(", ")
            )
        })
    }
}

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
/// and refused ([`Error::Incomplete`]) where it does not ([`repair`]).
pub fn decrypt(input: &[u8], password: Option<&str>) -> Result<Decrypted> {
    decrypt_with(input, password, &Limits::default())
}

/// [`decrypt`] within `limits`.
pub fn decrypt_with(input: &[u8], password: Option<&str>, limits: &Limits) -> Result<Decrypted> {
    let Opened {
        doc,
        auth,
        protection,
        mut warnings,
        census,
        ..
    } = open_with(input, password, limits)?;
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
