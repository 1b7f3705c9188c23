//! Phase "prepare" of encryption: what the encrypted file needs beyond the input -- a PDF
//! version that has the cipher, an /ID, no stale /Crypt stream filters, no objects left
//! over from earlier revisions, and streams compressed where Flate makes them smaller (as
//! qpdf does: once encrypted, they could not be). [`crate::phases::prepare`] picks
//! [`prepare_with`] or [`prepare_lwc`] by cipher.

use crate::document::{Document, take_crypt_filter};
use crate::error::Result;
use crate::filters;
use crate::limits::Limits;
use crate::lwc;
use crate::object::{Dict, Object, StrForm, Stream};
use crate::par;
use crate::random;
use crate::standard::StdCipher;
use crate::writer::version_key;

/// The catalog of `doc`, if /Root leads to a dictionary.
fn catalog_mut(doc: &mut Document) -> Option<&mut Dict> {
    let Some(Object::Ref(n, _)) = doc.trailer.get(b"Root") else {
        return None;
    };
    match doc.objects.get_mut(n) {
        Some((_, Object::Dict(d))) => Some(d),
        _ => None,
    }
}

/// Raises the file's version to `min` where it is lower (the header, and the catalog's
/// /Version if it has one).
pub(crate) fn raise_version(doc: &mut Document, min: &str) {
    if version_key(&doc.version) < version_key(min) {
        doc.version = min.to_string();
    }
    if let Some(cat) = catalog_mut(doc)
        && let Some(v) = cat.name(b"Version")
        && version_key(&String::from_utf8_lossy(v)) < version_key(min)
    {
        cat.set(b"Version", Object::name(min));
    }
}

/// Phase 2: makes `doc` ready for `cipher`: the version that has it (R6 below PDF 2.0:
/// 1.7 with Adobe extension level 8 declared in the catalog, as qpdf and Acrobat write
/// it), /Crypt filters removed from streams (in an unencrypted document they can only be
/// the identity; left in an encrypted one they would say "not encrypted"), objects nothing
/// refers to dropped ([`Document::drop_unreachable`]: earlier revisions' leftovers would
/// carry old content into the new file), streams compressed ([`compress_streams`]), and an
/// /ID: the first element kept, the second new. Returns the first element, which revisions 3 and 4 mix into the key, and
/// remarks.
pub fn prepare(
    doc: &mut Document,
    cipher: StdCipher,
    encrypt_metadata: bool,
) -> Result<(Vec<u8>, Vec<String>)> {
    prepare_with(doc, cipher, encrypt_metadata, &Limits::default())
}

/// [`prepare`] within `limits` (streams that would decode beyond
/// [`Limits::stream_bytes`] are not recompressed).
pub fn prepare_with(
    doc: &mut Document,
    cipher: StdCipher,
    encrypt_metadata: bool,
    limits: &Limits,
) -> Result<(Vec<u8>, Vec<String>)> {
    raise_version(doc, cipher.min_version());
    if cipher == StdCipher::Aes256 && version_key(&doc.version) < (2, 0) {
        declare_adbe_level_8(doc);
    }
    let notes = remove_crypt_filters(doc);
    doc.drop_unreachable();
    compress_streams_capped(doc, !encrypt_metadata, limits.stream_bytes);
    Ok((set_id(doc)?, notes))
}

/// Removes /Crypt filters from every stream (see [`prepare`]); says which were not the
/// identity filter.
pub(crate) fn remove_crypt_filters(doc: &mut Document) -> Vec<String> {
    let mut notes = Vec::new();
    for (num, (_, o)) in &mut doc.objects {
        if let Object::Stream(s) = o
            && let Some(name) = take_crypt_filter(&mut s.dict)
            && name != "Identity"
        {
            notes.push(format!(
                "stream {num} had a /Crypt filter /{name} in an unencrypted file; it was removed"
            ));
        }
    }
    notes
}

/// Streams shorter than this are not worth a compression attempt.
const MIN_COMPRESS: usize = 64;

/// Whether zlib data was written with a window of 4 KiB or less, or at the "fastest"
/// level (RFC 1950 header: CINFO, FLEVEL). Acrobat writes many streams with a 4 KiB window;
/// one of 585 KB compresses to 72 KB that way and to 11 KB with a 32 KiB window, so these
/// are worth recompressing. Other Flate streams are kept as they are (no recompression).
fn weak_zlib(data: &[u8]) -> bool {
    match data {
        [cmf, flg, ..] if cmf & 0x0f == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0 => {
            cmf >> 4 <= 4 || flg >> 6 == 0
        }
        _ => false,
    }
}

/// Compresses streams with Flate where that makes them smaller: encrypted data does not
/// compress, so this is the last chance, and qpdf does the same by default (without it an
/// uncompressed XMP packet, a raw image or an ASCII85 content stream would make our output
/// larger than qpdf's). Three kinds are compressed: streams without a filter; streams
/// whose filters are all general-purpose ones with at least one of the old ones (LZW,
/// ASCIIHex, ASCII85, RunLength), which are decoded first; and Flate streams written with a
/// small window or the fastest level (`weak_zlib`). The result is kept only when
/// smaller. Left alone: image filters (DCT, JPX, JBIG2, CCITT), other Flate streams (no
/// recompression), streams with /DecodeParms but no filter, external streams (/F), and
/// metadata streams when `metadata_plain` (left unencrypted so that other tools can read
/// them, they stay as they are). Returns how many were compressed.
pub fn compress_streams(doc: &mut Document, metadata_plain: bool) -> usize {
    compress_streams_capped(doc, metadata_plain, Limits::default().stream_bytes)
}

/// [`compress_streams`], leaving alone streams that decode to more than `max` bytes.
pub fn compress_streams_capped(doc: &mut Document, metadata_plain: bool, max: usize) -> usize {
    let mut streams: Vec<(u32, &mut Stream)> = doc
        .objects
        .iter_mut()
        .filter_map(|(n, (_, o))| match o {
            Object::Stream(s) => Some((*n, &mut **s)),
            _ => None,
        })
        .collect();
    par::chunks(
        &mut streams,
        |(_, s)| s.data.len(),
        |chunk| {
            chunk
                .iter_mut()
                .map(|(n, s)| compress_one(*n, s, metadata_plain, max))
                .filter(|&done| done)
                .count()
        },
    )
    .into_iter()
    .sum()
}

/// [`compress_streams`] for one stream; true if it was compressed.
fn compress_one(num: u32, s: &mut Stream, metadata_plain: bool, max: usize) -> bool {
    let d = &s.dict;
    if s.data.len() < MIN_COMPRESS
        || [&b"F"[..], b"FFilter"]
            .iter()
            .any(|k| d.get(k).is_some_and(|v| !matches!(v, Object::Null)))
        || (metadata_plain && d.has_type(b"Metadata"))
    {
        return false;
    }
    let names_only = match d.get(b"Filter") {
        None | Some(Object::Null) => true,
        Some(Object::Name(_)) => true,
        Some(Object::Array(a)) => a.iter().all(|f| matches!(f, Object::Name(_))),
        Some(_) => false,
    };
    let chain = filters::filter_chain(d);
    let plain = if chain.is_empty() {
        if !names_only
            || d.get(b"DecodeParms")
                .is_some_and(|v| !matches!(v, Object::Null))
        {
            return false;
        }
        None
    } else if names_only
        && chain.iter().all(|(f, _)| filters::is_general(f))
        && (chain.iter().any(|(f, _)| f != b"FlateDecode" && f != b"Fl")
            || (chain.len() == 1 && chain[0].1.is_none() && weak_zlib(&s.data)))
    {
        match filters::decode_capped(d, &s.data, &format!("stream {num}"), max) {
            Ok(p) => Some(p),
            Err(_) => return false, // left as it is; readers will judge it
        }
    } else {
        return false;
    };
    let z = filters::deflate(plain.as_deref().unwrap_or(&s.data));
    if z.len() >= s.data.len() {
        return false;
    }
    s.data = z;
    s.dict.remove(b"DecodeParms");
    s.dict.set(b"Filter", Object::name(b"FlateDecode"));
    true
}

/// Declares Adobe extension level 8 (AES-256, revision 6) in the catalog of a file
/// below PDF 2.0, unless a higher level is declared.
fn declare_adbe_level_8(doc: &mut Document) {
    let Some(cat) = catalog_mut(doc) else { return };
    let mut ext = match cat.get(b"Extensions") {
        Some(Object::Dict(d)) => d.clone(),
        _ => Dict::new(),
    };
    let level = match ext.get(b"ADBE") {
        Some(Object::Dict(a)) => a.int(b"ExtensionLevel").unwrap_or(0),
        _ => 0,
    };
    if level < 8 {
        let mut adbe = Dict::new();
        adbe.set(b"BaseVersion", Object::name(b"1.7"));
        adbe.set(b"ExtensionLevel", Object::Int(8));
        ext.set(b"ADBE", Object::Dict(adbe));
        cat.set(b"Extensions", Object::Dict(ext));
    }
}

/// Sets the trailer's /ID: the input's first element kept (a document's permanent
/// identifier), the second new; both new when the input had none. Returns the first.
pub(crate) fn set_id(doc: &mut Document) -> Result<Vec<u8>> {
    let fresh: [u8; 16] = random::bytes()?;
    let id0 = match doc.trailer.get(b"ID") {
        Some(Object::Array(a)) => match a.first() {
            Some(Object::Str(s, _)) if !s.is_empty() => s.clone(),
            _ => fresh.to_vec(),
        },
        _ => fresh.to_vec(),
    };
    let id1 = if id0 == fresh {
        fresh.to_vec()
    } else {
        random::bytes::<16>()?.to_vec()
    };
    doc.trailer.set(
        b"ID",
        Object::Array(vec![
            Object::Str(id0.clone(), StrForm::Hex),
            Object::Str(id1, StrForm::Hex),
        ]),
    );
    Ok(id0)
}

/// Phase 2 for a lightweight cipher: as [`prepare`] (without the version and extension
/// changes: the payload is read by cipherlab only), and every generation made 0 so that
/// everything but streams goes into (encrypted) object streams.
pub fn prepare_lwc(doc: &mut Document) -> Result<Vec<String>> {
    let mut notes = remove_crypt_filters(doc);
    // An object stream still here is one whose objects could not be read: in a payload a
    // reader would take it for a container of ours and find it unreadable.
    let before = doc.objects.len();
    doc.objects
        .retain(|_, (_, o)| !matches!(o, Object::Stream(s) if s.dict.has_type(b"ObjStm")));
    if doc.objects.len() < before {
        notes.push(format!(
            "{} unreadable object stream{} left out",
            before - doc.objects.len(),
            if before - doc.objects.len() == 1 {
                ""
            } else {
                "s"
            }
        ));
    }
    doc.drop_unreachable();
    exact_trailer_refs(doc);
    lwc::seal::normalize_generations(doc);
    compress_streams(doc, false);
    set_id(doc)?;
    Ok(notes)
}

/// Makes the trailer's /Root and /Info exact references to objects of the document, so
/// that the payload's trailer holds nothing but what its manifest binds:
///
/// - a /Root or /Info whose number names an object but whose generation does not (the
///   reader took it by its number, as other readers do) gets that object's generation;
/// - a direct /Info dictionary (ISO 32000 asks for a reference) becomes an object of its
///   own, encrypted in an object stream like the rest;
/// - an /Info that leads nowhere (a dangling reference, `null`) goes.
fn exact_trailer_refs(doc: &mut Document) {
    for k in [&b"Root"[..], b"Info"] {
        if let Some(Object::Ref(n, _)) = doc.trailer.get(k)
            && let Some((g, _)) = doc.objects.get(n)
        {
            let (n, g) = (*n, *g);
            doc.trailer.set(k, Object::Ref(n, g));
        }
    }
    match doc.trailer.get(b"Info") {
        None => {}
        Some(Object::Ref(n, _)) if doc.objects.contains_key(n) => {}
        Some(Object::Dict(d)) => {
            let d = d.clone();
            let last = doc.objects.keys().next_back().copied().unwrap_or(0);
            let num = match last.checked_add(1) {
                Some(n) => n,
                None => (1..u32::MAX)
                    .find(|n| !doc.objects.contains_key(n))
                    .unwrap_or(1),
            };
            doc.objects.insert(num, (0, Object::Dict(d)));
            doc.trailer.set(b"Info", Object::Ref(num, 0));
        }
        Some(_) => {
            doc.trailer.remove(b"Info");
        }
    }
}
