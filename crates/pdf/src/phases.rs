//! The phases of PDF encryption and decryption as separate calls, for a study that times
//! them apart ("parse", "encrypt all strings and streams", "write"; and the same for
//! decryption). Each phase takes what the previous one returned; nothing is timed here.
//!
//! Encryption (Standard handler):
//!
//! ```no_run
//! use cipherlab_pdf::{StdCipher, encrypt, phases, standard, writer};
//! # let input = std::fs::read("in.pdf")?;
//! let mut doc = encrypt::open(&input, None)?.doc;                        // parse
//! let (id0, _) = encrypt::prepare(&mut doc, StdCipher::Aes256, true)?;    // prepare
//! let new = standard::new_handler(StdCipher::Aes256, "u", "o", -4, true, &id0)?; // keys
//! let mut file = writer::pack(doc, writer::Layout { object_streams: true, xref_stream: true });
//! encrypt::encrypt_standard(&mut file, &new.handler)?;                   // encrypt
//! phases::finish_standard(&mut file, new.dict);
//! let bytes = writer::serialize(&file);                                  // write
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! With a lightweight cipher, `encrypt::prepare_lwc`, `lwc::keys::LwcKeys::create`,
//! `writer::pack(doc, lwc::seal::LAYOUT)`, `lwc::seal::seal_objects` (the encryption),
//! `lwc::seal::finish`, `writer::serialize`, then `wrapper::wrap`.
//!
//! Decryption: [`read_raw`] (parse: top-level objects as they are in the file, still
//! encrypted, object streams unexpanded), then [`decrypt_standard`] or
//! [`decrypt_lwc`] (every string and stream of the top-level objects, object streams as a
//! whole), then [`expand`] (parse the object streams) and `writer::write`.
//! [`decrypt_standard`] applies the rules of what cipherlab and common producers write
//! (/StrF, /StmF, /Crypt stream filters, /EFF for /Type /EmbeddedFile streams, metadata
//! when /EncryptMetadata is false); [`crate::decrypt`] is the full-fidelity path for
//! arbitrary files (repair, /EFF found through /EF references, lenient padding).

use std::collections::{BTreeMap, BTreeSet};

use crate::document::{Document, Pdf, for_strings, parse_object_stream, take_crypt_filter};
use crate::error::{Error, Result};
use crate::lwc::keys::LwcKeys;
use crate::object::{Dict, Object, StrForm};
use crate::par;
use crate::random::Rng;
use crate::security::Handler;
use crate::writer::{Packed, TopObject};
use crate::xref::Entry;

/// Counts of what a phase encrypted or decrypted.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    /// Strings (outside object streams).
    pub strings: usize,
    /// Streams, object streams included.
    pub streams: usize,
}

impl Counts {
    /// The sum of the counts of every chunk, or the first chunk's error.
    pub(crate) fn total(chunks: Vec<Result<Counts>>) -> Result<Counts> {
        chunks.into_iter().try_fold(Counts::default(), |t, c| {
            let c = c?;
            Ok(Counts {
                strings: t.strings + c.strings,
                streams: t.streams + c.streams,
            })
        })
    }
}

/// Phase 5: encrypts every string and stream of the top-level objects of `p` with
/// `handler`: strings with /StrF, streams with /StmF, except metadata streams when
/// /EncryptMetadata is false and the /Contents of signature dictionaries. Object streams
/// are streams here, so they are encrypted as a whole. Call before the /Encrypt dictionary
/// is added.
pub fn encrypt_standard(p: &mut Packed, handler: &Handler) -> Result<Counts> {
    let enc = &handler.enc;
    let strf = enc.filter(&enc.strf);
    let stmf = enc.filter(&enc.stmf);
    let results = par::chunks(&mut p.objects, TopObject::weight, |chunk| {
        let mut rng = Rng::new();
        let mut counts = Counts::default();
        let mut failed: Option<Error> = None;
        for t in chunk {
            let id = t.id();
            for_strings(&mut t.obj, &mut |s, form| {
                match handler.encrypt(&strf, id, s, &mut rng) {
                    Ok(c) => {
                        *s = c;
                        // Ciphertext is binary: literal form costs ~1% in escapes, hex 100%.
                        *form = StrForm::Literal;
                    }
                    Err(e) => failed = Some(e),
                }
                counts.strings += 1;
            });
            if let Some(e) = failed.take() {
                return Err(e);
            }
            if let Object::Stream(s) = &mut t.obj {
                if s.dict.has_type(b"Metadata") && !enc.encrypt_metadata {
                    continue;
                }
                s.data = handler.encrypt(&stmf, id, &s.data, &mut rng)?;
                counts.streams += 1;
            }
        }
        Ok(counts)
    });
    Counts::total(results)
}

/// Adds the /Encrypt dictionary `dict` to an encrypted [`Packed`] file and names it in the
/// trailer (after [`encrypt_standard`], so it is never encrypted).
pub fn finish_standard(p: &mut Packed, dict: Dict) {
    let r = p.add(Object::Dict(dict));
    p.trailer.set(b"Encrypt", Object::Ref(r.0, r.1));
}

/// A file's top-level objects as they are in the file (encrypted, object streams not
/// expanded), with what is needed to go on.
#[derive(Clone, Debug)]
pub struct RawFile {
    /// Header version.
    pub version: String,
    /// The trailer.
    pub trailer: Dict,
    /// Top-level objects in number order (without the /Encrypt dictionary and the
    /// cross-reference streams).
    pub objects: Vec<TopObject>,
    /// Objects the cross-reference data puts in object streams: (number, stream, index).
    pub compressed: Vec<(u32, u32, u32)>,
}

/// Phase "parse" of decryption: reads every top-level object of `input` without
/// decrypting anything. Unreadable objects are an error.
pub fn read_raw(input: &[u8]) -> Result<RawFile> {
    let pdf = Pdf::parse(input)?;
    let enc = match pdf.xref.trailer.get(b"Encrypt") {
        Some(Object::Ref(n, _)) => Some(*n),
        _ => None,
    };
    let mut objects = Vec::new();
    let mut compressed = Vec::new();
    for (&num, e) in &pdf.xref.entries {
        match *e {
            Entry::Free => {}
            _ if num == 0 => {}
            Entry::Compressed { container, index } => compressed.push((num, container, index)),
            Entry::Offset { offset, .. } => {
                if Some(num) == enc || pdf.xref.xref_stream_objects.contains(&num) {
                    continue;
                }
                let (id, obj) = pdf.object_at(num, offset)?;
                if matches!(&obj, Object::Stream(s) if s.dict.has_type(b"XRef")) {
                    continue;
                }
                let object_stream = matches!(&obj, Object::Stream(s) if s.dict.has_type(b"ObjStm"));
                objects.push(TopObject {
                    num: id.0,
                    gen_: id.1,
                    obj,
                    object_stream,
                });
            }
        }
    }
    Ok(RawFile {
        version: pdf.version.clone(),
        trailer: pdf.xref.trailer.clone(),
        objects,
        compressed,
    })
}

/// Phase "decrypt" (Standard handler): every string and stream of the top-level objects
/// of `raw`, object streams as a whole. AES data that is not well formed is an error here
/// (the lenient path is [`crate::decrypt`]).
pub fn decrypt_standard(raw: &mut RawFile, h: &Handler) -> Result<Counts> {
    let e = &h.enc;
    let strf = e.filter(&e.strf);
    let results = par::chunks(&mut raw.objects, TopObject::weight, |chunk| {
        let mut c = Counts::default();
        for t in chunk {
            let id = t.id();
            let mut bad = None;
            for_strings(&mut t.obj, &mut |s, _| {
                let (p, w) = h.decrypt(&strf, id, s);
                *s = p;
                c.strings += 1;
                if w.is_some() {
                    bad = w;
                }
            });
            if let Object::Stream(s) = &mut t.obj {
                let cf = if let Some(name) = take_crypt_filter(&mut s.dict) {
                    e.filter(&name)
                } else if s.dict.has_type(b"EmbeddedFile") {
                    e.filter(&e.eff)
                } else if s.dict.has_type(b"Metadata") && !e.encrypt_metadata && e.r >= 4 {
                    e.filter("Identity")
                } else {
                    e.filter(&e.stmf)
                };
                let (p, w) = h.decrypt(&cf, id, &s.data);
                s.data = p;
                c.streams += 1;
                if w.is_some() {
                    bad = w;
                }
            }
            if let Some(w) = bad {
                return Err(Error::Damaged(format!("object {} {}: {w}", id.0, id.1)));
            }
        }
        Ok(c)
    });
    Counts::total(results)
}

/// Phase "decrypt" (lightweight cipher): every top-level stream of an LWC payload opened
/// and authenticated (its dictionary's strings and its data). The checks of the file as a
/// whole (plaintext objects, the manifest) are [`crate::lwc::open::decrypt_payload`]'s.
pub fn decrypt_lwc(raw: &mut RawFile, keys: &LwcKeys) -> Result<Counts> {
    let results = par::chunks(&mut raw.objects, TopObject::weight, |chunk| {
        let mut cipher = keys.init()?;
        let mut c = Counts::default();
        for t in chunk {
            let id = t.id();
            match &mut t.obj {
                Object::Stream(s) => {
                    c.strings += crate::lwc::open::open_stream(keys, &mut *cipher, id, s)?.0;
                    c.streams += 1;
                }
                _ => {
                    return Err(Error::Tampered(format!(
                        "object {} {} is a plaintext object",
                        id.0, id.1
                    )));
                }
            }
        }
        Ok(c)
    });
    Counts::total(results)
}

/// Phase "parse" after decryption: the object streams expanded into a [`Document`]
/// ready for `writer::write`.
pub fn expand(raw: RawFile) -> Result<Document> {
    let mut objects: BTreeMap<u32, (u16, Object)> = BTreeMap::new();
    let mut compressed = BTreeSet::new();
    let mut containers = Vec::new();
    for t in raw.objects {
        if t.object_stream {
            containers.push(t);
        } else {
            objects.insert(t.num, (t.gen_, t.obj));
        }
    }
    let had_object_streams = !containers.is_empty();
    for t in containers {
        let Object::Stream(s) = &t.obj else { continue };
        for (n, o) in parse_object_stream(&s.dict, &s.data, t.num)? {
            // Objects defined at top level win, as in a file's cross-reference data.
            if let std::collections::btree_map::Entry::Vacant(v) = objects.entry(n) {
                v.insert((0, o));
                compressed.insert(n);
            }
        }
    }
    let mut trailer = Dict::new();
    for k in [&b"Root"[..], b"Info", b"ID"] {
        if let Some(v) = raw.trailer.get(k) {
            trailer.set(k, v.clone());
        }
    }
    Ok(Document {
        version: raw.version,
        trailer,
        objects,
        compressed,
        had_object_streams,
        had_xref_stream: true,
        linearized: false,
        warnings: Vec::new(),
        strings_decrypted: 0,
        streams_decrypted: 0,
    })
}
