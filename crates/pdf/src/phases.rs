//! The phases of PDF encryption and decryption as separate calls, for a study that times
//! them apart; nothing is timed here.
//!
//! Encryption: [`crate::encrypt()`] is exactly these calls in this order (with checks of
//! what the document must still hold between them), for every cipher:
//!
//! ```no_run
//! use cipherlab_pdf::{Cipher, Limits, StdCipher, phases};
//! # let input = std::fs::read("in.pdf")?;
//! let (cipher, limits) = (Cipher::Standard(StdCipher::Aes256), Limits::default());
//! let mut doc = phases::open(&input, None, &limits)?.doc;     // open
//! phases::prepare(&mut doc, cipher, true, &limits)?;         // prepare
//! let keys = phases::keys(&doc, cipher, "u", "o", -4, true)?; // keys
//! let mut file = phases::pack(doc, &keys);                    // pack
//! phases::encrypt(&mut file, &keys)?;                         // encrypt
//! let bytes = phases::write(&mut file, &keys)?.bytes;         // write
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Decryption: [`crate::decrypt()`] is [`open`] (parse, authenticate, decrypt, repair)
//! then [`write_plain`] (write, read back, check); [`open`] is [`unlock`] (the password
//! checked, the keys recovered) then [`open_unlocked`]:
//!
//! ```no_run
//! use cipherlab_pdf::{Limits, phases};
//! # let input = std::fs::read("in.pdf")?;
//! let limits = Limits::default();
//! let keys = phases::unlock(&input, Some("u"), &limits)?;            // unlock
//! let opened = phases::open_unlocked(&input, &keys, &limits)?;       // open
//! let bytes = phases::write_plain(opened, &limits)?.bytes;           // write
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! For timing decryption apart from parsing there is a strict path
//! for well-formed files: [`read_raw`] (parse: top-level objects as they are in the file,
//! still encrypted, object streams unexpanded), then [`decrypt_standard`] or
//! [`decrypt_lwc`] (every string and stream of the top-level objects, object streams as a
//! whole), then [`expand`] (parse the object streams) and `writer::write`.
//! [`decrypt_standard`] applies the rules of what cipherlab and common producers write
//! (/StrF, /StmF, /Crypt stream filters, /EFF for /Type /EmbeddedFile streams, metadata
//! when /EncryptMetadata is false); [`crate::decrypt()`] is the full-fidelity path for
//! arbitrary files (repair, /EFF found through /EF references, lenient padding).

use std::collections::{BTreeMap, BTreeSet};

use crate::decrypt::Decrypted;
use crate::document::{Document, Pdf, for_strings, parse_object_stream, take_crypt_filter};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::lwc::keys::{LwcKeys, id_bytes};
use crate::lwc::{LwcCipher, seal};
use crate::object::{Dict, Object, StrForm};
use crate::open::{Opened, Unlocked};
use crate::par;
use crate::prepare::{prepare_lwc, prepare_with};
use crate::random::Rng;
use crate::security::Handler;
use crate::standard::{self, StdCipher};
use crate::wrapper;
use crate::writer::{self, Layout, Packed, TopObject};
use crate::xref::Entry;

/// What to encrypt with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cipher {
    /// A cipher of the Standard security handler, which every reader opens.
    Standard(StdCipher),
    /// A lightweight AEAD as an authenticated crypt filter ([`crate::lwc`]), the document
    /// carried in an unencrypted wrapper ([`crate::wrapper`]).
    Lwc(LwcCipher),
}

impl Cipher {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Cipher::Standard(c) => c.name(),
            Cipher::Lwc(c) => c.name(),
        }
    }

    /// The cipher called `name` (`aes-256`, `aes-128`, `rc4-128`, `ascon-aead128`, ...).
    pub fn parse(name: &str) -> Option<Cipher> {
        StdCipher::parse(name)
            .map(Cipher::Standard)
            .or_else(|| LwcCipher::parse(name).map(Cipher::Lwc))
    }

    /// Every cipher's name, the standard ones first.
    pub fn names() -> Vec<&'static str> {
        StdCipher::ALL
            .iter()
            .map(|c| c.name())
            .chain(LwcCipher::all().map(|c| c.name()))
            .collect()
    }
}

/// Phase "open": parses `input` and, if it is encrypted, authenticates `password` and
/// decrypts it ([`crate::open::open_with`]): [`unlock`] then [`open_unlocked`].
pub fn open(input: &[u8], password: Option<&str>, limits: &Limits) -> Result<Opened> {
    crate::open::open_with(input, password, limits)
}

/// Phase "unlock", the first half of [`open`]: the password checked and the file's keys
/// recovered ([`crate::open::unlock`]). Revision 6 and the LWC payloads make this slow
/// on purpose.
pub fn unlock(input: &[u8], password: Option<&str>, limits: &Limits) -> Result<Unlocked> {
    crate::open::unlock(input, password, limits)
}

/// The second half of [`open`]: every object read and decrypted with keys [`unlock`]
/// recovered from `input` ([`crate::open::open_unlocked`]).
pub fn open_unlocked(input: &[u8], unlocked: &Unlocked, limits: &Limits) -> Result<Opened> {
    crate::open::open_unlocked(input, unlocked, limits)
}

/// The bytes a file's objects are in: the LWC payload inside a wrapper document, else
/// `input` itself. [`read_raw`] reads objects from these.
pub fn payload<'a>(input: &'a [u8], limits: &Limits) -> Result<std::borrow::Cow<'a, [u8]>> {
    let pdf = Pdf::parse_with(input, *limits)?;
    if pdf.encrypt_dict().is_ok_and(|e| e.is_some()) || crate::lwc::open::is_payload(&pdf) {
        return Ok(std::borrow::Cow::Borrowed(input));
    }
    let doc = pdf.load(None)?;
    Ok(match wrapper::find(&doc, limits)? {
        Some(p) => std::borrow::Cow::Owned(p.bytes),
        None => std::borrow::Cow::Borrowed(input),
    })
}

/// Phase "decrypt" on the strict path: [`decrypt_standard`] or [`decrypt_lwc`], as the
/// keys [`unlock`] recovered say.
pub fn decrypt_raw(raw: &mut RawFile, unlocked: &Unlocked) -> Result<Counts> {
    match unlocked {
        Unlocked::Standard { handler, .. } => decrypt_standard(raw, handler),
        Unlocked::Lwc { keys, .. } => decrypt_lwc(raw, keys),
        Unlocked::Plain => Err(Error::Invalid(
            "the file is not encrypted: there is nothing to decrypt".into(),
        )),
    }
}

/// Phase "write" of decryption: the opened document written out unencrypted and checked
/// ([`crate::decrypt::write_plain`]).
pub fn write_plain(opened: Opened, limits: &Limits) -> Result<Decrypted> {
    crate::decrypt::write_plain(opened, limits)
}

/// Phase "prepare": makes `doc` ready for `cipher` ([`prepare_with`] for a Standard cipher,
/// [`prepare_lwc`] for a lightweight one); returns remarks.
pub fn prepare(
    doc: &mut Document,
    cipher: Cipher,
    encrypt_metadata: bool,
    limits: &Limits,
) -> Result<Vec<String>> {
    match cipher {
        Cipher::Standard(c) => prepare_with(doc, c, encrypt_metadata, limits).map(|(_, n)| n),
        Cipher::Lwc(_) => prepare_lwc(doc),
    }
}

/// The keys of a new encryption ([`keys`]).
pub struct NewKeys {
    /// The file key and the /Encrypt dictionary, by handler.
    pub kind: KeyKind,
    /// Things the user should know (a password truncated, both passwords equal).
    pub warnings: Vec<String>,
}

/// The keys of a new encryption, by handler.
pub enum KeyKind {
    /// The Standard security handler ([`standard::new_handler`]).
    Standard {
        /// Encrypts strings and streams.
        handler: Handler,
        /// The /Encrypt dictionary to write.
        dict: Dict,
    },
    /// A lightweight cipher ([`LwcKeys::create`]).
    Lwc {
        /// The cipher.
        cipher: LwcCipher,
        /// Seals strings and streams.
        keys: LwcKeys,
        /// The payload's /Encrypt dictionary (its manifest added by [`write()`]).
        dict: Dict,
        /// The payload's own /ID, fresh: [`pack`] puts it in the payload's trailer.
        payload_id: Object,
        /// The document's /ID, sealed in the manifest by [`write()`] and given back on
        /// decryption.
        original_id: Option<Object>,
    },
}

impl NewKeys {
    /// The Standard handler, if that is what these keys are for.
    pub fn handler(&self) -> Option<&Handler> {
        match &self.kind {
            KeyKind::Standard { handler, .. } => Some(handler),
            KeyKind::Lwc { .. } => None,
        }
    }
}

/// Phase "keys": the file key and the /Encrypt dictionary for `cipher` from the two
/// passwords, permissions `p` and /EncryptMetadata, bound to the /ID that [`prepare`] gave
/// `doc`.
pub fn keys(
    doc: &Document,
    cipher: Cipher,
    user: &str,
    owner: &str,
    p: i32,
    encrypt_metadata: bool,
) -> Result<NewKeys> {
    match cipher {
        Cipher::Standard(c) => {
            let id0 = match doc.trailer.get(b"ID") {
                Some(Object::Array(a)) => a.first().and_then(Object::as_str).unwrap_or(&[]),
                _ => &[],
            };
            let new = standard::new_handler(c, user, owner, p, encrypt_metadata, id0)?;
            Ok(NewKeys {
                kind: KeyKind::Standard {
                    handler: new.handler,
                    dict: new.dict,
                },
                warnings: new.warnings,
            })
        }
        Cipher::Lwc(c) => {
            // A fresh /ID, so that the payload cannot be linked to the original document
            // by its permanent identifier.
            let fresh: [u8; 16] = crate::random::bytes()?;
            let payload_id = Object::Array(vec![
                Object::Str(fresh.to_vec(), crate::object::StrForm::Hex),
                Object::Str(fresh.to_vec(), crate::object::StrForm::Hex),
            ]);
            let mut t = Dict::new();
            t.set(b"ID", payload_id.clone());
            let (keys, dict) = LwcKeys::create(c, user, owner, p, id_bytes(&t))?;
            let mut warnings = Vec::new();
            if user == owner {
                warnings.push(
                    "the user and owner passwords are the same: whoever opens the file is its \
                     owner"
                        .into(),
                );
            }
            Ok(NewKeys {
                kind: KeyKind::Lwc {
                    cipher: c,
                    keys,
                    dict,
                    payload_id,
                    original_id: doc.trailer.get(b"ID").cloned(),
                },
                warnings,
            })
        }
    }
}

/// Phase "pack": the layout of the file to write -- object streams as the input had them
/// (Standard handler), or everything but streams in object streams ([`seal::LAYOUT`]).
pub fn pack(mut doc: Document, keys: &NewKeys) -> Packed {
    let layout = match &keys.kind {
        KeyKind::Standard { .. } => Layout::like_input(&doc),
        KeyKind::Lwc { payload_id, .. } => {
            doc.trailer.set(b"ID", payload_id.clone());
            seal::LAYOUT
        }
    };
    writer::pack(doc, layout)
}

/// Phase "encrypt": every string and stream of the top-level objects of `p`
/// ([`encrypt_standard`], or [`seal::seal_objects`] for a lightweight cipher).
pub fn encrypt(p: &mut Packed, keys: &NewKeys) -> Result<Counts> {
    match &keys.kind {
        KeyKind::Standard { handler, .. } => encrypt_standard(p, handler),
        KeyKind::Lwc { keys, .. } => {
            seal::seal_objects(p, keys).map(|(strings, streams)| Counts { strings, streams })
        }
    }
}

/// What [`write()`] wrote.
#[derive(Debug)]
pub struct Written {
    /// The file.
    pub bytes: Vec<u8>,
    /// For a lightweight cipher: the size of the encrypted payload inside the wrapper.
    pub payload_bytes: Option<usize>,
}

/// Phase "write": the /Encrypt dictionary added ([`finish_standard`]; [`seal::finish`] with
/// the manifest), the file serialised, and a lightweight cipher's payload wrapped
/// ([`wrapper::wrap`]).
pub fn write(p: &mut Packed, keys: &NewKeys) -> Result<Written> {
    match &keys.kind {
        KeyKind::Standard { dict, .. } => {
            finish_standard(p, dict.clone());
            Ok(Written {
                bytes: writer::serialize(p),
                payload_bytes: None,
            })
        }
        KeyKind::Lwc {
            cipher,
            keys,
            dict,
            original_id,
            ..
        } => {
            seal::finish(p, keys, dict.clone(), original_id.as_ref())?;
            let payload = writer::serialize(p);
            Ok(Written {
                bytes: wrapper::wrap(&payload, *cipher)?,
                payload_bytes: Some(payload.len()),
            })
        }
    }
}

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
        for t in chunk.iter_mut() {
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
        }
        // The streams all at once, each in place: under /AESV3 their CBC chains run side
        // by side.
        let mut streams: Vec<_> = chunk
            .iter_mut()
            .filter_map(|t| {
                let id = t.id();
                match &mut t.obj {
                    Object::Stream(s) if enc.encrypt_metadata || !s.dict.has_type(b"Metadata") => {
                        Some((id, &mut s.data))
                    }
                    _ => None,
                }
            })
            .collect();
        handler.encrypt_many(&stmf, &mut streams, &mut rng)?;
        counts.streams += streams.len();
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
/// (the lenient path is [`crate::decrypt()`]).
pub fn decrypt_standard(raw: &mut RawFile, h: &Handler) -> Result<Counts> {
    let e = &h.enc;
    let strf = e.filter(&e.strf);
    let results = par::chunks(&mut raw.objects, TopObject::weight, |chunk| {
        let mut c = Counts::default();
        for t in chunk {
            let id = t.id();
            let mut bad = None;
            for_strings(&mut t.obj, &mut |s, _| {
                let w = h.decrypt_in_place(&strf, id, s);
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
                let w = h.decrypt_in_place(&cf, id, &mut s.data);
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
        in_the_clear: Vec::new(),
        strings_decrypted: 0,
        streams_decrypted: 0,
    })
}
