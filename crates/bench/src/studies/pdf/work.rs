//! What the study times for one cipher, built through `cipherlab_pdf::phases`:
//!
//! | phase | what runs | input made outside the timed region |
//! |---|---|---|
//! | `encrypt` | every string and stream of each file: `encrypt_standard`, or `seal_objects` (LWC) | a fresh copy of the file laid out for writing (`Packed`) |
//! | `decrypt` | every string and stream of each encrypted file: `decrypt_standard` / `decrypt_lwc` | a fresh copy of its objects as read (`RawFile`) |
//! | `encrypt-job` | what `cipherlab pdf encrypt` does but key derivation: parse, prepare (drop unreachable objects, compress streams, /ID), lay out, encrypt, the /Encrypt dictionary (and the LWC manifest), write (and the LWC wrapper) | nothing: it starts from the file's bytes |
//! | `decrypt-job` | what `cipherlab pdf decrypt` does but key derivation: `phases::open_unlocked` (parse; for LWC the wrapper, then the payload with every object and the manifest authenticated; repair where needed) and `phases::write_plain` (write, read back, check) | nothing: it starts from the file's bytes |
//! | `keys` | the file key and /Encrypt entries from the passwords (`new_handler`; `LwcKeys::create`) | nothing |
//! | `unlock` | a password checked and the file key recovered from /Encrypt (`Handler::authenticate`; `LwcKeys::open`) | the /Encrypt dictionary, read |
//!
//! Key derivation is timed apart because revision 6 (AES-256, and every LWC file, whose
//! passwords use revision 6's algorithm) is slow by design: a chain of at least 64
//! SHA-256/384/512 rounds per password, against guessing. The job figures use keys made
//! beforehand, as a program that opens many files with one password would.
//!
//! Nothing is timed before it is proven ([`Work::build`]): every file's encrypted output
//! is decrypted by the one-call `cipherlab_pdf::decrypt` (its own parsing and decryption
//! path) and by the timed decryption job, and both must give back the prepared document,
//! object for object; the decryption phase's output must too, and the encryption phase
//! must change every stream.

use std::sync::Arc;

use cipherlab_pdf::lexer::Lexer;
use cipherlab_pdf::lwc::keys::{LwcDict, LwcKeys, NONCE, TAG};
use cipherlab_pdf::lwc::seal;
use cipherlab_pdf::object::{Dict, Object, StrForm, write_object};
use cipherlab_pdf::phases::{self, RawFile};
use cipherlab_pdf::security::{EncryptDict, Handler};
use cipherlab_pdf::standard;
use cipherlab_pdf::writer::{self, Layout, Packed};
use cipherlab_pdf::{Cipher, Document, Error, Limits, LwcCipher, Pdf, Result, StdCipher, Unlocked};

/// The user password of every file the study writes.
pub const USER: &str = "study-user";
/// The owner password.
pub const OWNER: &str = "study-owner";
/// Permissions: everything allowed (-4, as qpdf writes it).
pub const PERMISSIONS: i32 = -4;

/// The /ID the key benchmarks use (revision 4 mixes it into the key).
const KEY_ID: [u8; 16] = *b"cipherlab-pdf-id";

/// What the encryption phase of a file covers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Payload {
    /// Strings encrypted one by one (for LWC: those of stream dictionaries; the others
    /// travel inside object streams).
    pub strings: usize,
    /// Streams (object streams included).
    pub streams: usize,
    /// Plaintext bytes of those strings and streams: what the cipher processes.
    pub bytes: u64,
}

impl Payload {
    /// The sum of two.
    pub fn plus(self, o: Payload) -> Payload {
        Payload {
            strings: self.strings + o.strings,
            streams: self.streams + o.streams,
            bytes: self.bytes + o.bytes,
        }
    }
}

/// The strings and streams `p`'s top-level objects hold, as the encryptors see them (the
/// /Contents of a signature is never encrypted).
pub fn payload(p: &Packed) -> Payload {
    let mut out = Payload::default();
    for t in &p.objects {
        count(&t.obj, &mut out);
        if let Object::Stream(s) = &t.obj {
            out.streams += 1;
            out.bytes += s.data.len() as u64;
        }
    }
    out
}

fn count(o: &Object, out: &mut Payload) {
    match o {
        Object::Str(s, _) => {
            out.strings += 1;
            out.bytes += s.len() as u64;
        }
        Object::Array(a) => a.iter().for_each(|x| count(x, out)),
        Object::Dict(d) => count_dict(d, out),
        Object::Stream(s) => count_dict(&s.dict, out),
        _ => {}
    }
}

fn count_dict(d: &Dict, out: &mut Payload) {
    let sig = d.has_type(b"Sig") || d.has_type(b"DocTimeStamp");
    for (k, v) in &d.0 {
        if !(sig && k == b"Contents") {
            count(v, out);
        }
    }
}

/// The keys a file is encrypted with (made before any timing), through the library's
/// phase API: the same calls `cipherlab pdf encrypt` makes.
struct EncKeys {
    cipher: Cipher,
    keys: phases::NewKeys,
    /// The /ID the keys were made for (revision 4 and the LWC ciphers bind it in).
    id: Object,
}

/// The /ID `prepare` gave `doc`.
fn id_of(doc: &Document) -> Result<Object> {
    doc.trailer
        .get(b"ID")
        .cloned()
        .ok_or_else(|| Error::Invalid("preparing the document left no /ID".into()))
}

/// A file opened and made ready for `cipher`: the document to encrypt and its keys.
fn prepare(cipher: Cipher, plain: &[u8]) -> Result<(Document, EncKeys)> {
    let limits = Limits::default();
    let mut doc = phases::open(plain, None, &limits)?.doc;
    phases::prepare(&mut doc, cipher, true, &limits)?;
    let keys = phases::keys(&doc, cipher, USER, OWNER, PERMISSIONS, true)?;
    let id = id_of(&doc)?;
    Ok((doc, EncKeys { cipher, keys, id }))
}

/// Phase `encrypt`: every string and stream of `p`.
fn encrypt_packed(keys: &EncKeys, p: &mut Packed) -> Result<()> {
    phases::encrypt(p, &keys.keys).map(|_| ())
}

/// Phase `encrypt-job`: the whole encryption of `plain` with keys made beforehand, the
/// phases of `cipherlab pdf encrypt` in order.
fn encrypt_job(keys: &EncKeys, plain: &[u8]) -> Result<Vec<u8>> {
    let limits = Limits::default();
    let mut doc = phases::open(plain, None, &limits)?.doc;
    phases::prepare(&mut doc, keys.cipher, true, &limits)?;
    // prepare keeps the input's first /ID element and makes a new second one, or makes
    // both when the input has none; the keys were made for the first run's /ID (revision
    // 4 mixes it into the key, the LWC ciphers bind it into every associated data): put it
    // back, as `cipherlab pdf encrypt` uses one /ID throughout.
    doc.trailer.set(b"ID", keys.id.clone());
    let mut p = phases::pack(doc, &keys.keys);
    phases::encrypt(&mut p, &keys.keys)?;
    Ok(phases::write(&mut p, &keys.keys)?.bytes)
}

/// What the decryption phases start from: the objects as read, and the keys, both
/// through the library's phases.
fn unlock_file(sealed: &[u8]) -> Result<(RawFile, Unlocked)> {
    let limits = Limits::default();
    let unlocked = phases::unlock(sealed, Some(USER), &limits)?;
    let raw = phases::read_raw(&phases::payload(sealed, &limits)?)?;
    Ok((raw, unlocked))
}

/// Phase `decrypt`: every string and stream of `raw`.
fn decrypt_raw(keys: &Unlocked, raw: &mut RawFile) -> Result<()> {
    phases::decrypt_raw(raw, keys).map(|_| ())
}

/// Phase `decrypt-job`: what `cipherlab pdf decrypt` does with keys recovered
/// beforehand: the phases of `cipherlab_pdf::decrypt` after `unlock`.
fn decrypt_job(keys: &Unlocked, sealed: &[u8]) -> Result<Vec<u8>> {
    let limits = Limits::default();
    let opened = phases::open_unlocked(sealed, keys, &limits)?;
    Ok(phases::write_plain(opened, &limits)?.bytes)
}

/// One file made ready for one cipher.
struct Prepared {
    label: String,
    plain: Arc<Vec<u8>>,
    /// Input of `encrypt`.
    packed: Packed,
    enc: EncKeys,
    /// Our encrypted file (for LWC, the wrapper): input of `decrypt-job`.
    sealed: Vec<u8>,
    /// Input of `decrypt`.
    raw: RawFile,
    dec: Unlocked,
}

impl Prepared {
    /// Prepares `plain` and proves the round trip (see the module doc).
    fn new(cipher: Cipher, label: &str, plain: Arc<Vec<u8>>) -> Result<Prepared> {
        let (doc, enc) = prepare(cipher, &plain)?;
        let reference = doc.clone();
        let packed = phases::pack(doc, &enc.keys);
        let sealed = encrypt_job(&enc, &plain)?;
        let (raw, dec) = unlock_file(&sealed)?;
        let p = Prepared {
            label: label.to_string(),
            plain,
            packed,
            enc,
            sealed,
            raw,
            dec,
        };
        p.prove(&reference)?;
        Ok(p)
    }

    fn prove(&self, reference: &Document) -> Result<()> {
        let fail = |what: &str, why: String| {
            Err(Error::Invalid(format!(
                "{what} does not give the document back ({why})"
            )))
        };
        let one_call = cipherlab_pdf::decrypt(&self.sealed, Some(USER))?;
        if let Err(why) = same_objects(reference, &loaded(&one_call.bytes)?) {
            return fail("cipherlab_pdf::decrypt of our output", why);
        }
        if let Err(why) = same_objects(reference, &loaded(&decrypt_job(&self.dec, &self.sealed)?)?)
        {
            return fail("the decryption job", why);
        }
        let mut raw = self.raw.clone();
        decrypt_raw(&self.dec, &mut raw)?;
        if let Err(why) = same_objects(reference, &phases::expand(raw)?) {
            return fail("the decryption phase", why);
        }
        let mut p = self.packed.clone();
        encrypt_packed(&self.enc, &mut p)?;
        let unchanged = p
            .objects
            .iter()
            .zip(&self.packed.objects)
            .filter(|(a, b)| match (&a.obj, &b.obj) {
                (Object::Stream(a), Object::Stream(b)) => !b.data.is_empty() && a.data == b.data,
                _ => false,
            })
            .count();
        if unchanged > 0 {
            return Err(Error::Invalid(format!(
                "the encryption phase left {unchanged} streams as they were"
            )));
        }
        Ok(())
    }
}

fn loaded(bytes: &[u8]) -> Result<Document> {
    Pdf::parse(bytes)?.load(None)
}

/// Whether `got` has the objects of `want`: the same numbers, and each object the same
/// once strings are put in one form (encryption writes ciphertext as literal strings), a
/// stream's /Length left out (the writer sets it) and both serialised the way a reader
/// of the file would see them (parsed back once: `-0.0` is written `0`, for instance).
fn same_objects(want: &Document, got: &Document) -> std::result::Result<(), String> {
    let a: Vec<u32> = want.objects.keys().copied().collect();
    let b: Vec<u32> = got.objects.keys().copied().collect();
    if a != b {
        let missing: Vec<&u32> = a.iter().filter(|n| !b.contains(n)).take(5).collect();
        let extra: Vec<&u32> = b.iter().filter(|n| !a.contains(n)).take(5).collect();
        return Err(format!(
            "object numbers differ: missing {missing:?}, added {extra:?}"
        ));
    }
    for (n, (_, o)) in &want.objects {
        let g = got.objects.get(n).map(|(_, o)| o);
        if g.map(fingerprint) != Some(fingerprint(o)) {
            return Err(format!("object {n} differs"));
        }
    }
    Ok(())
}

fn fingerprint(o: &Object) -> Vec<u8> {
    let (head, data) = match o {
        Object::Stream(s) => {
            let d = Dict(
                s.dict
                    .0
                    .iter()
                    .filter(|(k, _)| k != b"Length")
                    .cloned()
                    .collect(),
            );
            (Object::Dict(d), Some(&s.data))
        }
        other => (other.clone(), None),
    };
    let mut b = Vec::new();
    write_object(&mut b, &hexed(&head));
    if let Ok(again) = Lexer::new(&b, 0).object(0) {
        b.clear();
        write_object(&mut b, &hexed(&again));
    }
    if let Some(d) = data {
        b.extend_from_slice(b"\nstream\n");
        b.extend_from_slice(d);
    }
    b
}

fn hexed(o: &Object) -> Object {
    match o {
        Object::Str(s, _) => Object::Str(s.clone(), StrForm::Hex),
        Object::Array(a) => Object::Array(a.iter().map(hexed).collect()),
        Object::Dict(d) => Object::Dict(Dict(
            d.0.iter().map(|(k, v)| (k.clone(), hexed(v))).collect(),
        )),
        other => other.clone(),
    }
}

/// One cipher's work on a list of files: each prepared and proven.
pub struct Work {
    files: Vec<Prepared>,
}

impl Work {
    /// Prepares and proves every file (see the module doc); the first failure, naming
    /// the file, is an error and nothing of this cipher is timed.
    pub fn build(
        cipher: Cipher,
        files: &[(String, Arc<Vec<u8>>)],
    ) -> std::result::Result<Work, String> {
        let files = files
            .iter()
            .map(|(label, plain)| {
                Prepared::new(cipher, label, Arc::clone(plain)).map_err(|e| {
                    format!(
                        "{} on {label}: {e}; not timed (run `cargo test -p cipherlab-pdf`)",
                        cipher.name()
                    )
                })
            })
            .collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(Work { files })
    }

    /// Names of the files, for messages.
    pub fn labels(&self) -> Vec<&str> {
        self.files.iter().map(|f| f.label.as_str()).collect()
    }

    /// Bytes the copies of one call's inputs take (for the harness's batches).
    pub fn input_bytes(&self) -> u64 {
        self.files.iter().map(|f| f.plain.len() as u64).sum()
    }

    /// Fresh copies of the encryption phase's inputs.
    pub fn packs(&self) -> Vec<Packed> {
        self.files.iter().map(|f| f.packed.clone()).collect()
    }

    /// Fresh copies of the decryption phase's inputs.
    pub fn raws(&self) -> Vec<RawFile> {
        self.files.iter().map(|f| f.raw.clone()).collect()
    }

    /// Phase `encrypt` of every file, on `packs` (from [`Work::packs`]).
    pub fn encrypt(&self, packs: &mut [Packed]) -> Result<()> {
        for (f, p) in self.files.iter().zip(packs) {
            encrypt_packed(&f.enc, p)?;
        }
        Ok(())
    }

    /// Phase `decrypt` of every file, on `raws` (from [`Work::raws`]).
    pub fn decrypt(&self, raws: &mut [RawFile]) -> Result<()> {
        for (f, r) in self.files.iter().zip(raws) {
            decrypt_raw(&f.dec, r)?;
        }
        Ok(())
    }

    /// Phase `encrypt-job` of every file; returns the bytes written.
    pub fn encrypt_jobs(&self) -> Result<usize> {
        let mut n = 0;
        for f in &self.files {
            n += encrypt_job(&f.enc, &f.plain)?.len();
        }
        Ok(n)
    }

    /// Phase `decrypt-job` of every file; returns the bytes written.
    pub fn decrypt_jobs(&self) -> Result<usize> {
        let mut n = 0;
        for f in &self.files {
            n += decrypt_job(&f.dec, &f.sealed)?.len();
        }
        Ok(n)
    }
}

/// Whether `plain` goes through the round trip with AES-128 (the Standard handler) and
/// Ascon-AEAD128 (the LWC handler): why not, if it does not.
pub fn check_file(label: &str, plain: &Arc<Vec<u8>>) -> std::result::Result<(), String> {
    for c in [
        Cipher::Standard(StdCipher::Aes128),
        Cipher::Lwc(LwcCipher::ASCON_AEAD128),
    ] {
        Prepared::new(c, label, Arc::clone(plain)).map_err(|e| {
            format!(
                "cipherlab's own round trip with {} fails on it ({e}): a bug in cipherlab-pdf; \
                 please report it with the file",
                c.name()
            )
        })?;
    }
    Ok(())
}

/// Phase `keys`: a new file key and the /Encrypt entries from the two passwords.
pub fn derive_keys(cipher: Cipher) -> Result<()> {
    match cipher {
        Cipher::Standard(c) => {
            standard::new_handler(c, USER, OWNER, PERMISSIONS, true, &KEY_ID).map(|_| ())
        }
        Cipher::Lwc(c) => LwcKeys::create(c, USER, OWNER, PERMISSIONS, KEY_ID.to_vec()).map(|_| ()),
    }
}

/// An /Encrypt dictionary as a reader has it, for [`unlock`].
pub enum Lock {
    /// Standard handler.
    Std(Box<EncryptDict>),
    /// LWC payload.
    Lwc(Box<LwcDict>),
}

/// Makes the /Encrypt dictionary of a new file and reads it back (setup of `unlock`).
pub fn lock(cipher: Cipher) -> Result<Lock> {
    match cipher {
        Cipher::Standard(c) => {
            let new = standard::new_handler(c, USER, OWNER, PERMISSIONS, true, &KEY_ID)?;
            let enc = EncryptDict::parse(&new.dict, &|o: &Object| o.clone())?;
            Ok(Lock::Std(Box::new(enc)))
        }
        Cipher::Lwc(c) => {
            let (_, mut d) = LwcKeys::create(c, USER, OWNER, PERMISSIONS, KEY_ID.to_vec())?;
            // `unlock` does not open the manifest; the reader wants one there.
            d.set(
                b"Manifest",
                Object::Str(
                    vec![0; NONCE + TAG + seal::manifest_len(cipherlab_pdf::lwc::VERSION)],
                    StrForm::Hex,
                ),
            );
            Ok(Lock::Lwc(Box::new(LwcDict::parse(&d)?)))
        }
    }
}

/// Phase `unlock`: the user password checked and the file key recovered.
pub fn unlock(lock: &Lock) -> Result<()> {
    match lock {
        Lock::Std(enc) => Handler::authenticate(enc, &KEY_ID, USER).map(|_| ()),
        Lock::Lwc(d) => LwcKeys::open(d, KEY_ID.to_vec(), USER).map(|_| ()),
    }
}

/// The payloads of `plain` under the Standard handler's layout and under the LWC layout
/// (which puts every non-stream object in an object stream), without encrypting.
pub fn payloads(plain: &[u8]) -> Result<(Payload, Payload)> {
    let limits = Limits::default();
    let mut doc = phases::open(plain, None, &limits)?.doc;
    let mut lwc_doc = doc.clone();
    phases::prepare(&mut doc, Cipher::Standard(StdCipher::Aes128), true, &limits)?;
    let l = Layout::like_input(&doc);
    let std = payload(&writer::pack(doc, l));
    phases::prepare(
        &mut lwc_doc,
        Cipher::Lwc(LwcCipher::ASCON_AEAD128),
        true,
        &limits,
    )?;
    let lwc = payload(&writer::pack(lwc_doc, seal::LAYOUT));
    Ok((std, lwc))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::builtin;
    use super::*;

    fn every_cipher() -> Vec<Cipher> {
        super::super::CIPHERS.to_vec()
    }

    #[test]
    fn every_cipher_round_trips_the_built_in_files_and_the_phases_run() {
        let files: Vec<(String, Arc<Vec<u8>>)> = builtin::files()
            .into_iter()
            .map(|(n, b)| (n, Arc::new(b)))
            .collect();
        for c in every_cipher() {
            let w = Work::build(c, &files).unwrap_or_else(|e| panic!("{e}"));
            let mut packs = w.packs();
            w.encrypt(&mut packs).unwrap();
            let mut raws = w.raws();
            w.decrypt(&mut raws).unwrap();
            assert!(w.encrypt_jobs().unwrap() > 0);
            assert!(w.decrypt_jobs().unwrap() > 0);
            derive_keys(c).unwrap();
            unlock(&lock(c).unwrap()).unwrap();
        }
    }

    #[test]
    fn a_wrong_key_or_a_changed_byte_is_caught_by_the_proof() {
        let (_, plain) = builtin::files().remove(0);
        let plain = Arc::new(plain);
        let c = Cipher::Lwc(LwcCipher::ASCON_AEAD128);
        let mut p = Prepared::new(c, "x", Arc::clone(&plain)).unwrap();
        let (doc, _) = prepare(c, &plain).unwrap();
        p.prove(&doc).unwrap();
        // Flip one ciphertext byte of the encrypted file: authentication must fail.
        let at = p.sealed.len() / 2;
        p.sealed[at] ^= 1;
        assert!(p.prove(&doc).is_err());
        // The standard handler has no tag, but a changed document is not the same.
        let c = Cipher::Standard(StdCipher::Aes128);
        let p = Prepared::new(c, "x", Arc::clone(&plain)).unwrap();
        let (mut doc, _) = prepare(c, &plain).unwrap();
        if let Some((_, Object::Dict(d))) = doc.objects.values_mut().next() {
            d.set(b"Extra", Object::Int(1));
        }
        assert!(p.prove(&doc).is_err());
    }

    #[test]
    fn a_file_without_an_id_round_trips() {
        // prepare gives such a file a new random /ID on every run: the timed job must
        // still write a file its keys open (revision 4 mixes the /ID into the key).
        let (_, bytes) = builtin::files().remove(2);
        let mut doc = Pdf::parse(&bytes).unwrap().load(None).unwrap();
        assert!(doc.trailer.remove(b"ID").is_some());
        let l = Layout::like_input(&doc);
        let plain = writer::write(doc, l);
        assert!(Pdf::parse(&plain).unwrap().id0().is_none());
        let files = [("no-id.pdf".to_string(), Arc::new(plain))];
        for c in every_cipher() {
            let w = Work::build(c, &files).unwrap_or_else(|e| panic!("{e}"));
            assert!(w.decrypt_jobs().unwrap() > 0);
        }
    }

    #[test]
    fn payloads_count_strings_and_streams() {
        let (_, form) = builtin::files().remove(1);
        let (std, lwc) = payloads(&form).unwrap();
        // Classic layout: each field's strings are encrypted one by one ...
        assert!(std.strings >= 4 * 120, "{std:?}");
        // ... the LWC layout puts them in object streams, sealed whole.
        assert!(lwc.strings < 10, "{lwc:?}");
        assert!(lwc.streams > 120 && std.streams >= 120);
        assert!(std.bytes > 0 && lwc.bytes > 0);
    }
}
