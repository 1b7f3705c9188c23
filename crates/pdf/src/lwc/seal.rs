//! Writing an LWC payload. The document is laid out with every object that is not a
//! stream inside an object stream (so the only top-level objects are streams, the
//! /Encrypt dictionary and the cross-reference stream: a reader can reject any other as a
//! plaintext object), all generations 0; then every stream -- object streams among
//! them -- and every string of a stream dictionary is sealed; then the manifest.

use sha2::{Digest, Sha256};

use super::keys::{Kind, LwcKeys, Piece, TAG};
use crate::document::{Document, for_strings_dict};
use crate::error::{Error, Result};
use crate::lexer::Lexer;
use crate::object::{Dict, ObjId, Object, StrForm, write_dict};
use crate::par;
use crate::random::Rng;
use crate::writer::{Layout, Packed, TopObject};

/// The layout of a payload: object streams and a cross-reference stream, always.
pub const LAYOUT: Layout = Layout {
    object_streams: true,
    xref_stream: true,
};

/// Gives every object generation 0 (so that every non-stream object can go into an object
/// stream), rewriting references. A reference whose generation does not match its
/// object's is a reference to nothing (ISO 32000-2 §7.3.10): it becomes `null`.
pub fn normalize_generations(doc: &mut Document) {
    let gens: std::collections::HashMap<u32, u16> =
        doc.objects.iter().map(|(&n, (g, _))| (n, *g)).collect();
    if gens.values().all(|&g| g == 0) {
        return;
    }
    fn fix(o: &mut Object, gens: &std::collections::HashMap<u32, u16>) {
        match o {
            Object::Ref(n, g) => {
                if gens.get(n) == Some(g) {
                    *g = 0;
                } else {
                    *o = Object::Null;
                }
            }
            Object::Array(a) => a.iter_mut().for_each(|x| fix(x, gens)),
            Object::Dict(d) => d.0.iter_mut().for_each(|(_, x)| fix(x, gens)),
            Object::Stream(s) => s.dict.0.iter_mut().for_each(|(_, x)| fix(x, gens)),
            _ => {}
        }
    }
    for (g, o) in doc.objects.values_mut() {
        *g = 0;
        fix(o, &gens);
    }
    for (_, v) in &mut doc.trailer.0 {
        fix(v, &gens);
    }
}

/// A stream dictionary as the associated data binds it: without /Length (the writer
/// sets it), serialised, parsed and serialised again so that the bytes are exactly what a
/// reader of the file computes (our serialisation is a fixed point after one round trip:
/// `-0.0` becomes `0`, for instance). Returns the normalised dictionary and its bytes.
pub fn canonical(d: &Dict) -> (Dict, Vec<u8>) {
    let mut tmp = Dict(
        d.0.iter()
            .filter(|(k, _)| k != b"Length")
            .cloned()
            .collect(),
    );
    let mut b = Vec::new();
    write_dict(&mut b, &tmp);
    if let Ok(Object::Dict(n)) = Lexer::new(&b, 0).object(0) {
        tmp = n;
        b.clear();
        write_dict(&mut b, &tmp);
    }
    (tmp, b)
}

/// Seals a stream's dictionary in place: its strings (each with its index), then the
/// dictionary normalised. Returns the number of strings and the dictionary's bytes, which
/// the stream's data is bound to when it is sealed ([`seal_objects`]).
fn seal_dict(
    keys: &LwcKeys,
    c: &mut dyn cipherlab_ciphers::Cipher,
    rng: &mut Rng,
    id: ObjId,
    s: &mut crate::object::Stream,
) -> Result<(usize, Vec<u8>)> {
    let mut index = 0u32;
    let mut failed = None;
    for_strings_dict(&mut s.dict, &mut |v, form| {
        match keys.seal(c, rng, id, Kind::String, &index.to_be_bytes(), v) {
            Ok(ct) => {
                *v = ct;
                *form = StrForm::Literal;
            }
            Err(e) => failed = Some(e),
        }
        index += 1;
    });
    if let Some(e) = failed {
        return Err(e);
    }
    let (dict, bytes) = canonical(&s.dict);
    s.dict = dict;
    Ok((index as usize, bytes))
}

/// At most this many streams, or this many bytes of them, are sealed in one batch: enough
/// to fill Ascon's SIMD lanes several times over, few enough that the copies in flight
/// stay small.
const BATCH_STREAMS: usize = 32;
const BATCH_BYTES: usize = 4 << 20;

/// Seals every top-level object of `p` (all streams: see the module documentation), their
/// data in batches ([`LwcKeys::seal_many`]). Returns (strings, streams) sealed.
pub fn seal_objects(p: &mut Packed, keys: &LwcKeys) -> Result<(usize, usize)> {
    let results = par::chunks(&mut p.objects, TopObject::weight, |chunk| {
        let mut c = keys.init()?;
        let mut rng = Rng::new();
        let (mut strings, mut streams) = (0, 0);
        let mut batch: Vec<Piece<'_>> = Vec::with_capacity(BATCH_STREAMS);
        let mut batch_bytes = 0;
        for t in chunk {
            let id = t.id();
            match &mut t.obj {
                Object::Stream(s) => {
                    let (n, dict) = seal_dict(keys, &mut *c, &mut rng, id, s)?;
                    strings += n;
                    streams += 1;
                    batch_bytes += s.data.len();
                    batch.push(Piece {
                        id,
                        kind: Kind::Stream,
                        extra: dict,
                        data: &mut s.data,
                    });
                    if batch.len() == BATCH_STREAMS || batch_bytes >= BATCH_BYTES {
                        keys.seal_many(&mut *c, &mut rng, &mut batch)?;
                        batch.clear();
                        batch_bytes = 0;
                    }
                }
                _ => {
                    // pack() puts every generation-0 non-stream object in an object stream
                    // and normalize_generations() made every generation 0.
                    return Err(Error::Invalid(format!(
                        "object {} {} would be written outside an object stream, unencrypted",
                        id.0, id.1
                    )));
                }
            }
        }
        keys.seal_many(&mut *c, &mut rng, &mut batch)?;
        Ok((strings, streams))
    });
    let mut total = (0, 0);
    for r in results {
        let (a, b) = r?;
        total.0 += a;
        total.1 += b;
    }
    Ok(total)
}

/// The manifest's magic, by version.
fn magic(version: i64) -> &'static [u8; 8] {
    match version {
        1 => b"CLABMF1\n",
        2 => b"CLABMF2\n",
        _ => b"CLABMF3\n",
    }
}

/// What version 3 adds to the manifest: the payload's header version, which the reader
/// would otherwise take unauthenticated from `%PDF-x.y`, and the document's own /ID. The
/// payload's trailer has a fresh /ID instead, so that the encrypted file cannot be linked
/// to the original by its permanent identifier; the original comes back on decryption.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Origin {
    /// The payload's header version (`1.5`, `2.0`, ...).
    pub header: String,
    /// The document's /ID array, if it had one.
    pub id: Option<Object>,
}

impl Origin {
    /// Appends version 3's encoding: the header (a length byte, then its bytes) and the
    /// /ID (a 4-byte length, then [`super::keys::id_bytes`]' encoding of it).
    fn encode(&self, out: &mut Vec<u8>) {
        let h = &self.header.as_bytes()[..self.header.len().min(255)];
        out.push(h.len() as u8);
        out.extend_from_slice(h);
        let mut t = Dict::new();
        if let Some(id) = &self.id {
            t.set(b"ID", id.clone());
        }
        let id = super::keys::id_bytes(&t);
        out.extend_from_slice(&(id.len() as u32).to_be_bytes());
        out.extend_from_slice(&id);
    }

    /// Reads what `Origin::encode` wrote; `None` if `b` is not exactly that.
    pub fn decode(b: &[u8]) -> Option<Origin> {
        let (&hl, rest) = b.split_first()?;
        let (h, rest) = rest.split_at_checked(usize::from(hl))?;
        let header = std::str::from_utf8(h).ok()?.to_string();
        let (len, mut rest) = rest.split_at_checked(4)?;
        let len = u32::from_be_bytes(len.try_into().ok()?) as usize;
        if rest.len() != len {
            return None;
        }
        let mut elements = Vec::new();
        while !rest.is_empty() {
            let (l, r) = rest.split_at_checked(2)?;
            let (e, r) = r.split_at_checked(usize::from(u16::from_be_bytes([l[0], l[1]])))?;
            elements.push(Object::Str(e.to_vec(), StrForm::Hex));
            rest = r;
        }
        Some(Origin {
            header,
            id: (!elements.is_empty()).then_some(Object::Array(elements)),
        })
    }
}

/// The manifest's plaintext length in `version`, before version 3's [`Origin`]: version 2
/// gives each of /Root and /Info a presence byte.
pub fn manifest_len(version: i64) -> usize {
    if version == 1 {
        8 + 12 + 8 + 32
    } else {
        8 + 14 + 8 + 32
    }
}

/// The digest of a payload's objects: each top-level object (number, generation, the tag
/// that ends its data) and each compressed object (number, object stream, index), sorted
/// by number.
pub fn objects_digest(
    tops: &mut [(u32, u16, [u8; TAG])],
    compressed: &mut [(u32, u32, u32)],
) -> [u8; 32] {
    tops.sort_unstable();
    compressed.sort_unstable();
    let mut h = Sha256::new();
    for (n, g, tag) in tops.iter() {
        h.update(n.to_be_bytes());
        h.update(g.to_be_bytes());
        h.update(tag);
    }
    for (n, c, i) in compressed.iter() {
        h.update(n.to_be_bytes());
        h.update(c.to_be_bytes());
        h.update(i.to_be_bytes());
    }
    h.finalize().into()
}

/// A trailer reference as the manifest stores it. Version 2: a presence byte (0 absent, 1
/// a reference) and the number and generation. Version 1 wrote `FFFFFFFF 0000` for both
/// "absent" and "not a reference" -- the ambiguity a forged direct /Info used; its reader
/// ([`super::open`]) therefore never releases a trailer value that is not a reference.
fn ref_bytes(version: i64, o: Option<&Object>, out: &mut Vec<u8>) {
    let r = match o {
        Some(Object::Ref(n, g)) => Some((*n, *g)),
        _ => None,
    };
    if version != 1 {
        out.push(u8::from(r.is_some()));
    }
    let (n, g) = r.unwrap_or((u32::MAX, 0));
    out.extend_from_slice(&n.to_be_bytes());
    out.extend_from_slice(&g.to_be_bytes());
}

/// The manifest's plaintext: magic, /Root, /Info, the object counts, the digest; from
/// version 3 on, the [`Origin`].
pub fn manifest(
    version: i64,
    trailer: &Dict,
    tops: usize,
    compressed: usize,
    digest: &[u8; 32],
    origin: &Origin,
) -> Vec<u8> {
    let mut m = Vec::with_capacity(manifest_len(version) + 64);
    m.extend_from_slice(magic(version));
    ref_bytes(version, trailer.get(b"Root"), &mut m);
    ref_bytes(version, trailer.get(b"Info"), &mut m);
    m.extend_from_slice(&(tops as u32).to_be_bytes());
    m.extend_from_slice(&(compressed as u32).to_be_bytes());
    m.extend_from_slice(digest);
    if version >= 3 {
        origin.encode(&mut m);
    }
    m
}

/// The last [`TAG`] bytes of a sealed stream.
pub fn tag_of(data: &[u8]) -> [u8; TAG] {
    let mut t = [0u8; TAG];
    if data.len() >= TAG {
        t.copy_from_slice(&data[data.len() - TAG..]);
    }
    t
}

/// Seals the manifest of `p` into `enc` (as /Manifest), with the header `p` is written
/// with and the document's own /ID (`original_id`), adds `enc` as the /Encrypt
/// dictionary. Call after [`seal_objects`].
pub fn finish(
    p: &mut Packed,
    keys: &LwcKeys,
    mut enc: Dict,
    original_id: Option<&Object>,
) -> Result<()> {
    let mut tops: Vec<(u32, u16, [u8; TAG])> = p
        .objects
        .iter()
        .map(|t| match &t.obj {
            Object::Stream(s) => (t.num, t.gen_, tag_of(&s.data)),
            _ => (t.num, t.gen_, [0u8; TAG]),
        })
        .collect();
    let mut compressed = p.compressed.clone();
    let digest = objects_digest(&mut tops, &mut compressed);
    let m = manifest(
        keys.version(),
        &p.trailer,
        tops.len(),
        compressed.len(),
        &digest,
        &Origin {
            header: p.version.clone(),
            id: original_id.cloned(),
        },
    );
    let mut c = keys.init()?;
    let sealed = keys.seal(&mut *c, &mut Rng::new(), (0, 0), Kind::Manifest, &[], &m)?;
    enc.set(b"Manifest", Object::Str(sealed, StrForm::Hex));
    let r = p.add(Object::Dict(enc));
    p.trailer.set(b"Encrypt", Object::Ref(r.0, r.1));
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn canonical_is_a_fixed_point() {
        let src = b"<</Type/XObject/Length 5/BBox[0 0 -0.0 1.5]/N#20a (a\\)b\r\n)/H<00ff>/Z null>>";
        let Object::Dict(d) = Lexer::new(src, 0).object(0).unwrap() else {
            panic!()
        };
        let (n, b) = canonical(&d);
        let (_, b2) = canonical(&n);
        assert_eq!(b, b2);
        assert!(!String::from_utf8_lossy(&b).contains("Length"));
    }
}
