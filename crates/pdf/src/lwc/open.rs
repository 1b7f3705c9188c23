//! Reading an LWC payload, strictly: every check passes before the document is returned,
//! so no plaintext of a modified, damaged or truncated payload is ever released.
//!
//! 1. The payload must end with `%%EOF` and its cross-reference data must be usable as
//!    written (no repair); the /Encrypt dictionary must be ours ([`LwcDict::parse`]); the
//!    password opens it.
//! 2. The manifest must authenticate.
//! 3. Every top-level object except the /Encrypt dictionary and cross-reference streams
//!    must be a stream whose dictionary strings and data authenticate for its own number,
//!    generation, kind, place and dictionary: a plaintext object (a dictionary slipped in
//!    by an incremental update, say) is an error, not a warning.
//! 4. Object streams are parsed; the cross-reference data must agree with them.
//! 5. /Root, /Info and the digest of all objects and their tags must equal the manifest's;
//!    /Root must be, and /Info if present must be, a reference to an authenticated object.
//!    Only these two and /ID (bound into every associated data) reach the output trailer.

use std::collections::{BTreeMap, BTreeSet};

use super::LwcCipher;
use super::keys::{Kind, LwcDict, LwcKeys, TAG, id_bytes};
use super::seal::{Origin, canonical, manifest, manifest_len, objects_digest, tag_of};
use crate::document::{Document, Pdf, for_strings_dict, parse_object_stream_with};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::object::{Object, Stream};
use crate::par;
use crate::security::Auth;
use crate::xref::Entry;

/// A decrypted payload.
#[derive(Debug)]
pub struct Opened {
    /// The document, every object authenticated and decrypted.
    pub doc: Document,
    /// Which password opened it.
    pub auth: Auth,
    /// The cipher.
    pub cipher: LwcCipher,
    /// Strings authenticated (in stream dictionaries; the rest are inside object streams).
    pub strings: usize,
    /// Streams authenticated (object streams included).
    pub streams: usize,
    /// The design's version of the payload (1 or 2).
    pub version: i64,
}

/// One top-level stream opened: number, generation, tag, strings in its dictionary.
type Opened1 = (u32, u16, [u8; TAG], usize);

fn tampered(m: impl Into<String>) -> Error {
    Error::Tampered(m.into())
}

/// Whether `pdf`'s /Encrypt dictionary names our handler (/Filter /CipherlabAEAD): an LWC
/// payload, inside its wrapper or taken out of it.
pub fn is_payload(pdf: &Pdf<'_>) -> bool {
    let d = match pdf.xref.trailer.get(b"Encrypt") {
        Some(Object::Dict(d)) => Some(d.clone()),
        Some(Object::Ref(n, g)) => match pdf.top_object((*n, *g)) {
            Ok(Object::Dict(d)) => Some(d),
            _ => None,
        },
        _ => None,
    };
    d.is_some_and(|d| d.name(b"Filter") == Some(super::HANDLER.as_bytes()))
}

/// Reads the payload's /Encrypt dictionary (direct or indirect) without a password.
pub fn encrypt_dict(pdf: &Pdf<'_>) -> Result<(LwcDict, Option<u32>)> {
    let (d, num) = match pdf.xref.trailer.get(b"Encrypt") {
        Some(Object::Dict(d)) => (d.clone(), None),
        Some(Object::Ref(n, g)) => match pdf.top_object((*n, *g))? {
            Object::Dict(d) => (d, Some(*n)),
            _ => {
                return Err(Error::BadEncrypt(format!(
                    "/Encrypt {n} {g} R is not a dictionary"
                )));
            }
        },
        _ => {
            return Err(tampered(
                "the encrypted payload has no /Encrypt dictionary: it is not the document that \
                 was encrypted",
            ));
        }
    };
    Ok((LwcDict::parse(&d)?, num))
}

/// One top-level stream, decrypted in place; returns its strings count and its tag.
pub(crate) fn open_stream(
    keys: &LwcKeys,
    c: &mut dyn cipherlab_ciphers::Cipher,
    id: (u32, u16),
    s: &mut Stream,
) -> Result<(usize, [u8; TAG])> {
    let tag = tag_of(&s.data);
    // The dictionary as written (strings still sealed) is what the data is bound to.
    let (_, bytes) = canonical(&s.dict);
    let data = keys.open_data(c, id, Kind::Stream, &bytes, &s.data)?;
    let mut index = 0u32;
    let mut failed = None;
    for_strings_dict(&mut s.dict, &mut |v, _| {
        if failed.is_none() {
            match keys.open_data(c, id, Kind::String, &index.to_be_bytes(), v) {
                Ok(p) => *v = p,
                Err(e) => failed = Some(e),
            }
        }
        index += 1;
    });
    if let Some(e) = failed {
        return Err(e);
    }
    s.data = data;
    s.dict.remove(b"Length");
    Ok((index as usize, tag))
}

/// Decrypts an LWC payload with `password` (the empty user password when `None`), within
/// the default [`Limits`]: [`decrypt_payload_within`].
pub fn decrypt_payload(payload: &[u8], password: Option<&str>) -> Result<Opened> {
    decrypt_payload_within(payload, password, &Limits::default())
}

/// Decrypts an LWC payload with `password` (the empty user password when `None`) within
/// `limits`: [`unlock_payload_within`]'s reading and key recovery, then
/// [`decrypt_payload_with`]'s.
pub fn decrypt_payload_within(
    payload: &[u8],
    password: Option<&str>,
    limits: &Limits,
) -> Result<Opened> {
    let (pdf, dict, enc_num) = read_payload(payload, limits)?;
    let (keys, auth) = open_keys(&pdf, &dict, password)?;
    read_objects(&pdf, &dict, enc_num, &keys, auth)
}

/// The keys of an LWC payload, recovered with `password` (the empty user password when
/// `None`): the slow part of opening, the password hashing.
pub fn unlock_payload_within(
    payload: &[u8],
    password: Option<&str>,
    limits: &Limits,
) -> Result<(LwcKeys, Auth)> {
    let (pdf, dict, _) = read_payload(payload, limits)?;
    open_keys(&pdf, &dict, password)
}

/// Decrypts an LWC payload with keys [`unlock_payload_within`] recovered from it: every
/// check of the module documentation, as [`decrypt_payload`] makes them.
pub fn decrypt_payload_with(
    payload: &[u8],
    keys: &LwcKeys,
    auth: Auth,
    limits: &Limits,
) -> Result<Opened> {
    let (pdf, dict, enc_num) = read_payload(payload, limits)?;
    read_objects(&pdf, &dict, enc_num, keys, auth)
}

/// Step 1 up to the password: the payload parsed as written, and its /Encrypt dictionary
/// (with its object number).
fn read_payload<'p>(payload: &'p [u8], limits: &Limits) -> Result<(Pdf<'p>, LwcDict, Option<u32>)> {
    let pdf = Pdf::parse_with(payload, *limits)?;
    // The payload is exactly what the encryptor wrote: repairs that other files may need
    // are signs of truncation or tampering here.
    let end = payload
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    if !payload[..end].ends_with(b"%%EOF") {
        return Err(tampered(
            "the payload does not end with %%EOF: it was truncated or appended to",
        ));
    }
    if let Some(why) = &pdf.xref.rebuilt {
        return Err(tampered(format!(
            "the payload's cross-reference data is unusable ({why}): it was truncated or modified"
        )));
    }
    let (dict, enc_num) = encrypt_dict(&pdf)?;
    Ok((pdf, dict, enc_num))
}

/// The file's keys from `password`.
fn open_keys(pdf: &Pdf<'_>, dict: &LwcDict, password: Option<&str>) -> Result<(LwcKeys, Auth)> {
    let id = id_bytes(&pdf.xref.trailer);
    match LwcKeys::open(dict, id, password.unwrap_or("")) {
        Err(Error::WrongPassword(_)) if password.is_none() => Err(Error::PasswordRequired),
        r => r,
    }
}

/// Steps 2 to 5 with the keys.
fn read_objects(
    pdf: &Pdf<'_>,
    dict: &LwcDict,
    enc_num: Option<u32>,
    keys: &LwcKeys,
    auth: Auth,
) -> Result<Opened> {
    let mut c = keys.init()?;
    let m = keys.open_data(&mut *c, (0, 0), Kind::Manifest, &[], &dict.manifest)?;
    let fixed = manifest_len(dict.version);
    let origin = match m.get(fixed..) {
        Some([]) if dict.version < 3 => Origin::default(),
        Some(rest) if dict.version >= 3 => {
            Origin::decode(rest).ok_or_else(|| tampered("the manifest is malformed"))?
        }
        _ => return Err(tampered("the manifest has the wrong length")),
    };
    if dict.version >= 3 && origin.header != pdf.version {
        return Err(tampered(format!(
            "the payload's header says %PDF-{}, but its authenticated manifest says %PDF-{}",
            pdf.version, origin.header
        )));
    }

    // Top-level objects: streams only.
    let mut tops: Vec<(u32, u16, Stream)> = Vec::new();
    let mut listed: Vec<(u32, u32, u32)> = Vec::new();
    for (&num, e) in &pdf.xref.entries {
        match *e {
            Entry::Free => {}
            Entry::Compressed { container, index } => listed.push((num, container, index)),
            Entry::Offset { offset, .. } => {
                if Some(num) == enc_num || pdf.xref.xref_stream_objects.contains(&num) {
                    continue;
                }
                let (oid, obj) = pdf
                    .object_at(num, offset)
                    .map_err(|e| tampered(format!("object {num} cannot be read ({e})")))?;
                match obj {
                    Object::Stream(s) if s.dict.has_type(b"XRef") => {}
                    Object::Stream(s) => tops.push((oid.0, oid.1, *s)),
                    other => {
                        let what = match other {
                            Object::Dict(_) => "dictionary",
                            Object::Array(_) => "array",
                            Object::Str(..) => "string",
                            _ => "object",
                        };
                        return Err(tampered(format!(
                            "object {} {} is a plaintext {what}; in an authenticated payload \
                             every object outside an object stream is an encrypted stream",
                            oid.0, oid.1
                        )));
                    }
                }
            }
        }
    }
    let results = par::chunks(
        &mut tops,
        |t| t.2.data.len() + 64,
        |chunk| -> Result<Vec<Opened1>> {
            let mut c = keys.init()?;
            chunk
                .iter_mut()
                .map(|(n, g, s)| {
                    let (strings, tag) = open_stream(keys, &mut *c, (*n, *g), s)?;
                    Ok((*n, *g, tag, strings))
                })
                .collect()
        },
    );
    let mut tags = Vec::with_capacity(tops.len());
    let mut strings = 0;
    for r in results {
        for (n, g, tag, k) in r? {
            tags.push((n, g, tag));
            strings += k;
        }
    }
    let streams = tops.len();

    // Object streams.
    let mut objects: BTreeMap<u32, (u16, Object)> = BTreeMap::new();
    let mut members: Vec<(u32, u32, u32)> = Vec::new();
    let mut containers = BTreeSet::new();
    let mut values_left = pdf.limits.values;
    for (n, g, s) in &tops {
        if s.dict.has_type(b"ObjStm") {
            containers.insert(*n);
            let m = parse_object_stream_with(&s.dict, &s.data, *n, &pdf.limits, &mut values_left)
                .map_err(|e| match e {
                // A limit is the user's to raise, not a sign of tampering.
                e @ Error::Limit(_) => e,
                e => tampered(format!("object stream {n} {g} is unreadable ({e})")),
            })?;
            for (i, (num, o)) in m.into_iter().enumerate() {
                members.push((num, *n, i as u32));
                if objects.insert(num, (0, o)).is_some() {
                    return Err(tampered(format!("object {num} is in two object streams")));
                }
            }
        }
    }
    for (n, g, s) in tops {
        if containers.contains(&n) {
            continue;
        }
        if objects
            .insert(n, (g, Object::Stream(Box::new(s))))
            .is_some()
        {
            return Err(tampered(format!(
                "object {n} is both a stream and in an object stream"
            )));
        }
    }
    let held: BTreeSet<(u32, u32, u32)> = members.iter().copied().collect();
    if let Some((n, c, _)) = listed
        .iter()
        .find(|(n, c, i)| !held.contains(&(*n, *c, *i)))
    {
        return Err(tampered(format!(
            "the cross-reference data puts object {n} in object stream {c}, which does not hold it there"
        )));
    }

    // The manifest.
    let digest = objects_digest(&mut tags, &mut members);
    let trailer = &pdf.xref.trailer;
    if manifest(
        dict.version,
        trailer,
        tags.len(),
        members.len(),
        &digest,
        &origin,
    ) != m
    {
        return Err(tampered(
            "the payload's objects or its /Root or /Info differ from its authenticated manifest \
             (objects were removed, added, moved or replaced)",
        ));
    }
    let mut warnings = Vec::new();
    let info = trailer_refs(dict.version, trailer, &objects, &mut warnings)?;
    if dict.version == 2 {
        warnings.push(format!(
            "this payload (version 2 of the design) does not authenticate its %PDF-{} header: \
             the output's header version is as the payload says; re-encrypt it to bind it",
            pdf.version
        ));
    }

    let mut doc = Document {
        version: pdf.version.clone(),
        trailer: Default::default(),
        compressed: members.iter().map(|m| m.0).collect(),
        objects,
        had_object_streams: true,
        had_xref_stream: true,
        linearized: false,
        warnings,
        in_the_clear: Vec::new(),
        strings_decrypted: strings,
        streams_decrypted: streams,
    };
    // Only what the manifest and the associated data cover reaches the output.
    for (k, v) in [
        (&b"Root"[..], trailer.get(b"Root")),
        (b"Info", info),
        // Version 3: the document's own /ID, from the manifest (the payload has a fresh
        // one); before, the payload's.
        (
            b"ID",
            if dict.version >= 3 {
                origin.id.as_ref()
            } else {
                trailer.get(b"ID")
            },
        ),
    ] {
        if let Some(v) = v {
            doc.trailer.set(k, v.clone());
        }
    }
    Ok(Opened {
        doc,
        auth,
        cipher: dict.cipher,
        strings,
        streams,
        version: dict.version,
    })
}

/// Checks the trailer's /Root and /Info against the authenticated objects, after the
/// manifest matched: /Root must be a reference to one of them, and /Info absent or a
/// reference to one of them. Returns the /Info to release.
///
/// A version-1 manifest wrote "absent" and "not a reference" alike, so a direct /Info in a
/// version-1 payload is not authenticated: it is left out with a warning (the version-1
/// writer never wrote one for a well-formed input). In version 2 it is tampering.
fn trailer_refs<'t>(
    version: i64,
    trailer: &'t crate::object::Dict,
    objects: &BTreeMap<u32, (u16, Object)>,
    warnings: &mut Vec<String>,
) -> Result<Option<&'t Object>> {
    let known = |o: &Object| matches!(o, Object::Ref(n, g) if objects.get(n).is_some_and(|(og, _)| og == g));
    match trailer.get(b"Root") {
        Some(r) if known(r) => {}
        _ => {
            return Err(tampered(
                "the trailer's /Root is not a reference to an authenticated object",
            ));
        }
    }
    match trailer.get(b"Info") {
        None => Ok(None),
        Some(i) if known(i) => Ok(Some(i)),
        Some(Object::Ref(n, g)) => Err(tampered(format!(
            "the trailer's /Info {n} {g} R is not an authenticated object"
        ))),
        Some(_) if version == 1 => {
            warnings.push(
                "the trailer's /Info is a direct dictionary, which a version-1 payload does not \
                 authenticate: it was left out"
                    .into(),
            );
            Ok(None)
        }
        Some(_) => Err(tampered(
            "the trailer's /Info is not a reference: the payload's manifest records no such \
             value (an /Info added without the password)",
        )),
    }
}
