//! Decrypting a PDF: the phases [`crate::phases::open`] and [`crate::phases::write_plain`]
//! in order -- the document opened (authenticated, decrypted, repaired or refused), then
//! written out unencrypted and read back to check it holds the whole document.

use std::collections::BTreeSet;

use crate::document::Document;
use crate::error::Result;
use crate::limits::Limits;
use crate::object::{Dict, Object};
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
    decrypt_staged(input, password, limits, |_| ()).map(|(d, ())| d)
}

/// [`decrypt_with`], handing the output to `stage` while it is read back, as
/// [`crate::encrypt_staged`] does: what `stage` returns comes back only with an output
/// that passed the check.
pub fn decrypt_staged<S: Send>(
    input: &[u8],
    password: Option<&str>,
    limits: &Limits,
    stage: impl FnOnce(&[u8]) -> S + Send,
) -> Result<(Decrypted, S)> {
    let opened = phases::open(input, password, limits)?;
    write_plain_staged(opened, limits, stage)
}

/// Writes an opened document out unencrypted, with the warnings its protection calls
/// for, and reads the output back to check it holds the whole document
/// ([`repair::check_written`]). [`crate::phases::write_plain`] is this.
pub fn write_plain(opened: Opened, limits: &Limits) -> Result<Decrypted> {
    write_plain_staged(opened, limits, |_| ()).map(|(d, ())| d)
}

/// [`write_plain`], handing the output to `stage` while it is read back
/// ([`decrypt_staged`]).
fn write_plain_staged<S: Send>(
    opened: Opened,
    limits: &Limits,
    stage: impl FnOnce(&[u8]) -> S + Send,
) -> Result<(Decrypted, S)> {
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
    if let Protection::Standard { .. } = &protection
        && !doc.in_the_clear.is_empty()
    {
        warnings.push(format!(
            "NOT ENCRYPTED: {} stored in the clear (the /Identity crypt filter named on the \
             stream itself): anyone could have written {}, with or without the password; do \
             not trust {} because a password opened this file",
            objects_named(&doc.in_the_clear),
            if doc.in_the_clear.len() == 1 {
                "it"
            } else {
                "them"
            },
            if doc.in_the_clear.len() == 1 {
                "it"
            } else {
                "them"
            },
        ));
    }
    if auth.is_some() && !protection.authenticated() {
        let js = javascript_objects(&doc);
        if !js.is_empty() {
            let clear: Vec<(u32, u16)> = js
                .iter()
                .copied()
                .filter(|o| doc.in_the_clear.contains(o))
                .collect();
            warnings.push(format!(
                "the output carries JavaScript actions ({}{}){}: this file is not \
                 authenticated, so anyone could have added them without the password",
                objects_named(&js),
                if clear.is_empty() {
                    String::new()
                } else {
                    format!("; {} came IN THE CLEAR", objects_named(&clear))
                },
                if has_trigger(&doc) {
                    ", and /OpenAction or /AA runs actions without a click"
                } else {
                    ""
                }
            ));
        }
    }
    let layout = writer::Layout::like_input(&doc);
    let (strings, streams) = (doc.strings_decrypted, doc.streams_decrypted);
    let bytes = writer::write(doc, layout);
    let (staged, checked) = crate::par::join(
        || stage(&bytes),
        || repair::check_written(&census, &bytes, None, limits),
    );
    checked?;
    let decrypted = Decrypted {
        bytes,
        auth,
        protection,
        warnings,
        strings,
        streams,
        object_streams: layout.object_streams,
        xref_stream: layout.xref_stream,
    };
    Ok((decrypted, staged))
}

/// "object 12 0" or "objects 12 0, 13 0, ...", at most 20 of them named.
fn objects_named(ids: &[(u32, u16)]) -> String {
    const SHOWN: usize = 20;
    let mut v: Vec<String> = ids
        .iter()
        .take(SHOWN)
        .map(|(n, g)| format!("{n} {g}"))
        .collect();
    if ids.len() > SHOWN {
        v.push(format!("and {} more", ids.len() - SHOWN));
    }
    format!(
        "{} {}",
        if ids.len() == 1 { "object" } else { "objects" },
        v.join(", ")
    )
}

/// The objects that hold a JavaScript action (a dictionary with /JS, or /S /JavaScript),
/// or are the /JS stream of one.
fn javascript_objects(doc: &Document) -> Vec<(u32, u16)> {
    let mut scripts = BTreeSet::new();
    let mut holders = BTreeSet::new();
    for (&n, (g, o)) in &doc.objects {
        if visit_dicts(o, &mut |d| {
            if let Some(Object::Ref(sn, sg)) = d.get(b"JS") {
                scripts.insert((*sn, *sg));
            }
            d.get(b"JS").is_some() || d.name(b"S") == Some(b"JavaScript")
        }) {
            holders.insert((n, *g));
        }
    }
    holders.extend(
        scripts
            .into_iter()
            .filter(|(n, g)| doc.objects.get(n).is_some_and(|(og, _)| og == g)),
    );
    holders.into_iter().collect()
}

/// Whether any dictionary has /OpenAction or /AA: actions that run without a click.
fn has_trigger(doc: &Document) -> bool {
    doc.objects.values().any(|(_, o)| {
        visit_dicts(o, &mut |d| {
            d.get(b"OpenAction").is_some() || d.get(b"AA").is_some()
        })
    })
}

/// Calls `f` on every dictionary in `o` (a stream's included); whether any call said yes.
fn visit_dicts(o: &Object, f: &mut impl FnMut(&Dict) -> bool) -> bool {
    let d = match o {
        Object::Dict(d) => d,
        Object::Stream(s) => &s.dict,
        Object::Array(a) => {
            let mut any = false;
            for v in a {
                any |= holds_dicts(v) && visit_dicts(v, f);
            }
            return any;
        }
        _ => return false,
    };
    let mut any = f(d);
    for (_, v) in &d.0 {
        any |= holds_dicts(v) && visit_dicts(v, f);
    }
    any
}

/// Whether `o` may hold a dictionary: the values [`visit_dicts`] is called on, not the
/// numbers, names and strings that make up most of a large document.
fn holds_dicts(o: &Object) -> bool {
    matches!(o, Object::Dict(_) | Object::Stream(_) | Object::Array(_))
}
