//! Opening a PDF: parse it, find out what protects it, authenticate the password and
//! decrypt it -- the Standard handler ([`crate::security`]), an LWC payload in its wrapper
//! or not ([`crate::lwc::open`]) -- into a [`Document`] ([`open`]). Opening is two steps
//! that can be taken apart: [`unlock`] (the password checked, the file's keys recovered:
//! the slow, deliberately costly part) and [`open_unlocked`] (every object read and
//! decrypted with those keys).

use crate::document::{Document, Pdf};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::lwc::keys::LwcKeys;
use crate::lwc::{self, LwcCipher};
use crate::repair::{self, Census};
use crate::security::{Auth, Cfm, EncryptDict, Handler};
use crate::wrapper;

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
    /// An LWC payload that the empty password opens: every tag checked, but under keys
    /// anyone can recover, so anyone could have written it (an attacker's own file made
    /// with an empty user password). Not authenticated.
    EmptyPassword {
        /// The cipher.
        cipher: LwcCipher,
        /// The design's version of the payload.
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
            Protection::Authenticated { cipher, .. } | Protection::EmptyPassword { cipher, .. } => {
                Some(*cipher)
            }
            _ => None,
        }
    }

    /// Whether every object was authenticated under a key only the password's holders
    /// have (never for a file the empty password opens).
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
    open_by(input, Key::Password(password), limits)
}

/// What a password unlocked: the keys a file's objects are decrypted with.
#[derive(Clone, Debug)]
pub enum Unlocked {
    /// The file is not encrypted.
    Plain,
    /// The Standard handler, authenticated.
    Standard {
        /// The file key and the crypt filters.
        handler: Box<Handler>,
        /// Which password opened it.
        auth: Auth,
    },
    /// An LWC payload's keys.
    Lwc {
        /// The keys.
        keys: std::sync::Arc<LwcKeys>,
        /// Which password opened it.
        auth: Auth,
    },
}

/// The first step of [`open`]: finds what protects `input` and recovers its keys with
/// `password` (the empty user password when `None`), without reading its objects. For a
/// wrapped LWC payload the small wrapper document is read to find the payload.
pub fn unlock(input: &[u8], password: Option<&str>, limits: &Limits) -> Result<Unlocked> {
    let pdf = Pdf::parse_with(input, *limits)?;
    if lwc::open::is_payload(&pdf) {
        return unlock_payload(input, password, limits);
    }
    if let Some((handler, auth)) = pdf.authenticate(password)? {
        return Ok(Unlocked::Standard {
            handler: Box::new(handler),
            auth,
        });
    }
    let (doc, _) = pdf.load_whole(None)?;
    match wrapper::find(&doc, limits)? {
        Some(payload) => {
            known_payload(&payload)?;
            unlock_payload(&payload.bytes, password, limits)
        }
        None => Ok(Unlocked::Plain),
    }
}

fn unlock_payload(payload: &[u8], password: Option<&str>, limits: &Limits) -> Result<Unlocked> {
    let (keys, auth) = lwc::open::unlock_payload_within(payload, password, limits)?;
    Ok(Unlocked::Lwc {
        keys: std::sync::Arc::new(keys),
        auth,
    })
}

/// The second step of [`open`]: reads and decrypts every object of `input` with keys
/// [`unlock`] recovered from it, with every check [`open`] makes (an LWC payload's objects
/// authenticated, a damaged file repaired or refused).
pub fn open_unlocked(input: &[u8], unlocked: &Unlocked, limits: &Limits) -> Result<Opened> {
    open_by(input, Key::Unlocked(unlocked), limits)
}

/// Where the keys come from.
#[derive(Clone, Copy)]
enum Key<'k> {
    /// A password, to be checked now.
    Password(Option<&'k str>),
    /// Keys recovered before.
    Unlocked(&'k Unlocked),
}

fn open_by(input: &[u8], key: Key<'_>, limits: &Limits) -> Result<Opened> {
    let pdf = Pdf::parse_with(input, *limits)?;
    if lwc::open::is_payload(&pdf) {
        // A payload taken out of its wrapper: the same strict reading.
        return open_payload(input, key, limits);
    }
    let (handler, auth) = match key {
        Key::Password(password) => match pdf.authenticate(password)? {
            Some((h, a)) => (Some(h), Some(a)),
            None => (None, None),
        },
        Key::Unlocked(Unlocked::Standard { handler, auth }) => {
            // The entries the keys were checked against must be this file's: another
            // file's key would decrypt to garbage without an error.
            let same = pdf.encrypt_dict()?.is_some_and(|e| {
                (e.r, e.p, &e.o, &e.u, &e.oe, &e.ue)
                    == (
                        handler.enc.r,
                        handler.enc.p,
                        &handler.enc.o,
                        &handler.enc.u,
                        &handler.enc.oe,
                        &handler.enc.ue,
                    )
            });
            if !same {
                return Err(other_file());
            }
            (Some((**handler).clone()), Some(auth.clone()))
        }
        Key::Unlocked(Unlocked::Plain | Unlocked::Lwc { .. }) => {
            if pdf.encrypt_dict()?.is_some() {
                return Err(other_file());
            }
            (None, None)
        }
    };
    let (doc, census) = pdf.load_whole(handler.as_ref())?;
    if handler.is_none()
        && let Some(payload) = wrapper::find(&doc, limits)?
    {
        known_payload(&payload)?;
        return open_payload(&payload.bytes, key, limits);
    }
    if matches!(key, Key::Unlocked(Unlocked::Lwc { .. })) {
        return Err(other_file());
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

/// Keys [`unlock`] recovered from one file, used on another of a different kind.
fn other_file() -> Error {
    Error::Invalid("these keys were recovered from another file: unlock this one".into())
}

/// A wrapper's payload must be ours.
fn known_payload(payload: &wrapper::Payload) -> Result<()> {
    if payload.subtype == lwc::HANDLER {
        return Ok(());
    }
    Err(Error::Unsupported(format!(
        "this is a wrapper around a document encrypted with the cryptographic filter \
         /{}{}, which cipherlab does not know (it knows /{})",
        payload.subtype,
        payload
            .version
            .as_ref()
            .map(|v| format!(" version {v}"))
            .unwrap_or_default(),
        lwc::HANDLER
    )))
}

/// [`open`] for an LWC payload.
fn open_payload(payload: &[u8], key: Key<'_>, limits: &Limits) -> Result<Opened> {
    let o = match key {
        Key::Password(password) => lwc::open::decrypt_payload_within(payload, password, limits)?,
        Key::Unlocked(Unlocked::Lwc { keys, auth }) => {
            lwc::open::decrypt_payload_with(payload, keys, auth.clone(), limits)?
        }
        Key::Unlocked(_) => return Err(other_file()),
    };
    let mut warnings = o.doc.warnings.clone();
    let empty_password = o.auth.empty_password;
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
        protection: if empty_password {
            Protection::EmptyPassword {
                cipher: o.cipher,
                version: o.version,
            }
        } else {
            Protection::Authenticated {
                cipher: o.cipher,
                version: o.version,
            }
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
