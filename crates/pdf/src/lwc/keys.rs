//! The keys, the associated data and the /Encrypt dictionary of the LWC crypt filters.
//!
//! The file key is 32 random bytes, wrapped for the two passwords by revision 6's
//! algorithms (the same code as the Standard handler: `password::r6_entries` to
//! write, [`Handler::try_bytes`] to read). From version 2 on, each password is first
//! domain-separated ([`separated`]): the entries are then no valid revision-6 entries for
//! that password, so copied into a Standard-handler file (which anyone can write, with
//! plaintext of their choosing) they open nothing. The cipher's key is
//! `HKDF-SHA-256(salt = "cipherlab-pdf-lwc/<version>", ikm = file key, info = /CFM)`, cut to
//! the cipher's key length: a different cipher named in the file gets a different key, so a
//! changed /CFM is caught by the first tag.

use cipherlab_ciphers::{Cipher, CipherSpec, Message, providers};
use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::Zeroizing;

use super::{HANDLER, LwcCipher, READS, VERSION};
use crate::error::{Error, Result};
use crate::object::{Dict, ObjId, Object, StrForm};
use crate::password::{cut_127, r6_entries, sasl_forms, saslprep};
use crate::random::{self, Rng};
use crate::security::{Auth, EncryptDict, Handler};

/// The HKDF salt and the first bytes of every associated data: the design's name and
/// `version`.
///
/// Each version has its own, so that a payload's /V changed to an older version's gives
/// other keys and every tag fails: no downgrade.
fn label(version: i64) -> &'static [u8] {
    match version {
        1 => b"cipherlab-pdf-lwc/1",
        2 => b"cipherlab-pdf-lwc/2",
        _ => b"cipherlab-pdf-lwc/3",
    }
}

/// What version 2 puts before a password when it separates it ([`separated`]).
const PASSWORD_LABEL: &[u8] = b"cipherlab-pdf-lwc/2 password\0";

/// A password as version 2 gives it to revision 6's Algorithm 2.B: `SHA-256(label ||
/// password)`. Algorithm 2.B's cost is unchanged (it runs on the 32 bytes), but the entries
/// it makes validate only through this function, never as a Standard handler's password;
/// and the whole password counts (revision 6 alone cuts it at 127 bytes).
pub fn separated(password: &[u8]) -> Zeroizing<Vec<u8>> {
    use sha2::Digest;
    let mut h = Sha256::new();
    h.update(PASSWORD_LABEL);
    h.update(password);
    Zeroizing::new(h.finalize().to_vec())
}

/// The byte strings a password may have been written as, best first: SASLprep'd UTF-8 (what
/// the writer uses) and the bytes as given. Version 1 cuts both at 127 bytes, as revision 6
/// does; version 2 separates them ([`separated`]).
fn password_candidates(version: i64, password: &str) -> Vec<Zeroizing<Vec<u8>>> {
    sasl_forms(password)
        .into_iter()
        .map(|b| {
            if version == 1 {
                cut_127(&b)
            } else {
                separated(&b)
            }
        })
        .collect()
}

/// The password the writer uses (SASLprep'd, as revision 6 prepares it), separated.
fn writer_password(password: &str, which: &str) -> Result<Zeroizing<Vec<u8>>> {
    Ok(separated(saslprep(password, which)?.as_bytes()))
}
/// Nonce length of every LWC AEAD here.
pub const NONCE: usize = 16;
/// Tag length.
pub const TAG: usize = 16;
/// The name of the crypt filter in /CF.
const FILTER: &str = "AEAD";

/// What is encrypted, as the associated data says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A string; the associated data adds its index among its object's strings.
    String,
    /// A stream; the associated data adds its dictionary (without /Length).
    Stream,
    /// The manifest (object 0).
    Manifest,
}

impl Kind {
    fn byte(self) -> u8 {
        match self {
            Kind::String => b'S',
            Kind::Stream => b'T',
            Kind::Manifest => b'M',
        }
    }

    /// A word for messages.
    pub fn word(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::Stream => "stream",
            Kind::Manifest => "manifest",
        }
    }
}

/// The payload's /Encrypt dictionary, read and checked.
#[derive(Clone, Debug)]
pub struct LwcDict {
    /// The design's version (/V): 2 is written; 1, whose password entries are also valid
    /// Standard-handler entries, is still read.
    pub version: i64,
    /// The cipher.
    pub cipher: LwcCipher,
    /// /P (the permissions asked for; our reader releases everything to either password).
    pub p: i32,
    /// /U, /UE, /O, /OE, /Perms as the Standard handler's revision 6 reads them.
    pub r6: EncryptDict,
    /// The encrypted manifest.
    pub manifest: Vec<u8>,
}

fn bad(m: impl Into<String>) -> Error {
    Error::BadEncrypt(m.into())
}

fn name_of(d: &Dict, k: &[u8]) -> Option<String> {
    d.name(k).map(|n| String::from_utf8_lossy(n).into_owned())
}

fn bytes_of(d: &Dict, k: &[u8], len: usize) -> Result<Vec<u8>> {
    match d.get(k) {
        Some(Object::Str(s, _)) if s.len() == len => Ok(s.clone()),
        Some(Object::Str(s, _)) => Err(bad(format!(
            "/{} has {} bytes; {HANDLER} needs {len}",
            String::from_utf8_lossy(k),
            s.len()
        ))),
        _ => Err(bad(format!(
            "/{} is missing or not a string",
            String::from_utf8_lossy(k)
        ))),
    }
}

impl LwcDict {
    /// Reads a /CipherlabAEAD /Encrypt dictionary. Anything but what [`LwcKeys::create`]
    /// writes is refused: another version, a crypt filter other than one LWC cipher for
    /// both strings and streams (no /Identity anywhere), metadata left in the clear.
    pub fn parse(d: &Dict) -> Result<LwcDict> {
        match name_of(d, b"Filter").as_deref() {
            Some(HANDLER) => {}
            other => {
                return Err(bad(format!(
                    "/Filter is {}; the encrypted payload needs /{HANDLER}",
                    other.map_or("missing".to_string(), |o| format!("/{o}"))
                )));
            }
        }
        let version = match (d.int(b"V"), d.int(b"R")) {
            (Some(v), Some(6)) if READS.contains(&v) => v,
            (v, r) => {
                return Err(Error::Unsupported(format!(
                    "/{HANDLER} /V {} /R {}: this cipherlab writes /V {VERSION} /R 6 and reads \
                     /V {} with /R 6",
                    v.map_or("missing".into(), |v| v.to_string()),
                    r.map_or("missing".into(), |r| r.to_string()),
                    READS.map(|v| v.to_string()).join(" or ")
                )));
            }
        };
        let strf = name_of(d, b"StrF");
        let stmf = name_of(d, b"StmF");
        let eff = name_of(d, b"EFF");
        let Some(f) = &stmf else {
            return Err(bad("/StmF is missing: every stream must be encrypted"));
        };
        if strf.as_ref() != Some(f) || eff.as_ref().is_some_and(|e| e != f) {
            return Err(bad(format!(
                "/StrF, /StmF and /EFF must all name the one crypt filter (/StmF /{f}, /StrF {}, \
                 /EFF {}); nothing may be left to /Identity",
                strf.map_or("missing".into(), |s| format!("/{s}")),
                eff.map_or("missing".into(), |s| format!("/{s}")),
            )));
        }
        let filter = match d.get(b"CF") {
            Some(Object::Dict(cf)) => match cf.get(f.as_bytes()) {
                Some(Object::Dict(x)) => x.clone(),
                _ => return Err(bad(format!("/CF has no dictionary /{f}"))),
            },
            Some(_) => return Err(bad("/CF is not a dictionary")),
            None => return Err(bad("/CF is missing")),
        };
        let cfm = filter.name(b"CFM").unwrap_or(b"None");
        let Some(cipher) = LwcCipher::from_cfm(cfm) else {
            let known: Vec<&str> = LwcCipher::all().map(|c| c.cfm()).collect();
            return Err(Error::Unsupported(format!(
                "crypt filter /{f} has /CFM /{}; {HANDLER} knows {}",
                String::from_utf8_lossy(cfm),
                known.join(", ")
            )));
        };
        if matches!(d.get(b"EncryptMetadata"), Some(Object::Bool(false))) {
            return Err(bad(
                "/EncryptMetadata false: every object must be encrypted, metadata too",
            ));
        }
        let p = match d.int(b"P") {
            Some(p) if (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&p) => p as u32 as i32,
            _ => return Err(bad("/P is missing or not a 32-bit value")),
        };
        let manifest = match d.get(b"Manifest") {
            Some(Object::Str(s, _)) if s.len() >= NONCE + TAG => s.clone(),
            _ => return Err(bad("/Manifest is missing or too short")),
        };
        let r6 = EncryptDict {
            v: 5,
            r: 6,
            length_bits: 256,
            length_given: true,
            o: bytes_of(d, b"O", 48)?,
            u: bytes_of(d, b"U", 48)?,
            oe: bytes_of(d, b"OE", 32)?,
            ue: bytes_of(d, b"UE", 32)?,
            perms: bytes_of(d, b"Perms", 16)?,
            p,
            encrypt_metadata: true,
            encrypt_metadata_given: true,
            filters: Default::default(),
            stmf: "Identity".into(),
            strf: "Identity".into(),
            eff: "Identity".into(),
            eff_given: false,
        };
        Ok(LwcDict {
            version,
            cipher,
            p,
            r6,
            manifest,
        })
    }
}

/// The keys of one file, ready to encrypt or decrypt its objects.
pub struct LwcKeys {
    version: i64,
    cipher: LwcCipher,
    spec: CipherSpec,
    key: Zeroizing<Vec<u8>>,
    /// The file /ID as bound into every associated data.
    id: Vec<u8>,
}

impl std::fmt::Debug for LwcKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LwcKeys")
            .field("cipher", &self.cipher)
            .finish_non_exhaustive()
    }
}

/// The trailer's /ID as the associated data binds it: each element's length (2 bytes)
/// and bytes; empty when there is none (the writer always makes one).
pub fn id_bytes(trailer: &Dict) -> Vec<u8> {
    let mut out = Vec::new();
    if let Some(Object::Array(a)) = trailer.get(b"ID") {
        for o in a {
            let s = o.as_str().unwrap_or(&[]);
            out.extend_from_slice(&(s.len().min(0xffff) as u16).to_be_bytes());
            out.extend_from_slice(&s[..s.len().min(0xffff)]);
        }
    }
    out
}

fn hex(b: &[u8]) -> Object {
    Object::Str(b.to_vec(), StrForm::Hex)
}

impl LwcKeys {
    fn derive(version: i64, cipher: LwcCipher, file_key: &[u8], id: Vec<u8>) -> Result<LwcKeys> {
        let spec = cipher.spec();
        let mut key = Zeroizing::new(vec![0u8; spec.key_len()]);
        Hkdf::<Sha256>::new(Some(label(version)), file_key)
            .expand(cipher.cfm().as_bytes(), &mut key)
            .map_err(|_| Error::Unsupported(format!("a {}-byte key", spec.key_len())))?;
        Ok(LwcKeys {
            version,
            cipher,
            spec,
            key,
            id,
        })
    }

    /// New keys for a file whose trailer /ID is `id` (see [`id_bytes`]), and the
    /// /Encrypt dictionary without its /Manifest (added by [`super::seal`]).
    pub fn create(
        cipher: LwcCipher,
        user: &str,
        owner: &str,
        p: i32,
        id: Vec<u8>,
    ) -> Result<(LwcKeys, Dict)> {
        if owner.is_empty() {
            return Err(Error::Invalid(
                "the owner password is empty: anyone could open the file as its owner; give a \
                 non-empty --owner-password"
                    .into(),
            ));
        }
        let file_key = random::key::<32>()?;
        let e = r6_entries(
            &writer_password(user, "user")?,
            &writer_password(owner, "owner")?,
            &file_key,
            p,
            true,
        )?;
        let mut d = Dict::new();
        d.set(b"Filter", Object::name(HANDLER));
        d.set(b"V", Object::Int(VERSION));
        d.set(b"R", Object::Int(6));
        d.set(b"Length", Object::Int(256));
        let mut f = Dict::new();
        f.set(b"Type", Object::name("CryptFilter"));
        f.set(b"CFM", Object::name(cipher.cfm()));
        f.set(b"AuthEvent", Object::name("DocOpen"));
        let mut cf = Dict::new();
        cf.set(FILTER.as_bytes(), Object::Dict(f));
        d.set(b"CF", Object::Dict(cf));
        d.set(b"StmF", Object::name(FILTER));
        d.set(b"StrF", Object::name(FILTER));
        d.set(b"EFF", Object::name(FILTER));
        d.set(b"P", Object::Int(i64::from(p)));
        d.set(b"EncryptMetadata", Object::Bool(true));
        d.set(b"O", hex(&e.o));
        d.set(b"U", hex(&e.u));
        d.set(b"OE", hex(&e.oe));
        d.set(b"UE", hex(&e.ue));
        d.set(b"Perms", hex(&e.perms));
        Ok((Self::derive(VERSION, cipher, &file_key[..], id)?, d))
    }

    /// Opens `d` with `password` (user or owner; SASLprep'd as revision 6 does, and from
    /// version 2 on separated: [`separated`]). A /Perms that does not match /P is
    /// tampering, not a warning.
    pub fn open(d: &LwcDict, id: Vec<u8>, password: &str) -> Result<(LwcKeys, Auth)> {
        let opened = password_candidates(d.version, password)
            .iter()
            .find_map(|pw| Handler::try_bytes(&d.r6, &[], pw));
        let Some((h, mut auth)) = opened else {
            return Err(Error::WrongPassword(format!(
                "{HANDLER} payload version {} ({}), {} password, SASLprep'd",
                d.version,
                d.cipher.name(),
                if password.is_empty() {
                    "empty"
                } else {
                    "given"
                }
            )));
        };
        if auth.perms_ok != Some(true) {
            return Err(Error::Tampered(
                "/Perms does not match /P and /EncryptMetadata of the payload's /Encrypt \
                 dictionary"
                    .into(),
            ));
        }
        // Authentication under a password everyone knows proves nothing: whoever opens the
        // payload with the empty password can seal a document of their own under the same
        // entries. So the empty password is tried too, whatever opened the payload.
        auth.empty_password = password.is_empty() || Self::opens_with_empty_password(d);
        Ok((Self::derive(d.version, d.cipher, h.file_key(), id)?, auth))
    }

    /// Whether the empty password opens the payload of `d`, as user or owner password.
    pub fn opens_with_empty_password(d: &LwcDict) -> bool {
        password_candidates(d.version, "")
            .iter()
            .any(|pw| Handler::try_bytes(&d.r6, &[], pw).is_some())
    }

    /// The cipher.
    pub fn cipher(&self) -> LwcCipher {
        self.cipher
    }

    /// The design's version these keys follow.
    pub fn version(&self) -> i64 {
        self.version
    }

    /// An initialised cipher from the catalogue (one per thread).
    pub fn init(&self) -> Result<Box<dyn Cipher>> {
        providers::init(&self.spec, &self.key, None)
            .map_err(|e| Error::Unsupported(format!("{}: {e}", self.cipher.name())))
    }

    /// The associated data of an object's string or stream: the label, the /CFM, the file
    /// /ID, the object number and generation, the kind, and `extra` (a string's index in
    /// its object, or a stream's dictionary).
    pub fn ad(&self, id: ObjId, kind: Kind, extra: &[u8]) -> Vec<u8> {
        let cfm = self.cipher.cfm().as_bytes();
        let label = label(self.version);
        let mut ad = Vec::with_capacity(label.len() + cfm.len() + self.id.len() + extra.len() + 16);
        ad.extend_from_slice(label);
        ad.push(0);
        ad.extend_from_slice(cfm);
        ad.push(0);
        ad.extend_from_slice(&(self.id.len() as u32).to_be_bytes());
        ad.extend_from_slice(&self.id);
        ad.extend_from_slice(&id.0.to_be_bytes());
        ad.extend_from_slice(&id.1.to_be_bytes());
        ad.push(kind.byte());
        ad.extend_from_slice(extra);
        ad
    }

    /// Encrypts `data`: `nonce || ciphertext || tag`, the nonce fresh from `rng`.
    pub fn seal(
        &self,
        c: &mut dyn Cipher,
        rng: &mut Rng,
        id: ObjId,
        kind: Kind,
        extra: &[u8],
        data: &[u8],
    ) -> Result<Vec<u8>> {
        let mut out = vec![0u8; NONCE + data.len() + TAG];
        rng.fill(&mut out[..NONCE])?;
        out[NONCE..NONCE + data.len()].copy_from_slice(data);
        let (nonce, body) = out.split_at_mut(NONCE);
        let n = c
            .encrypt(nonce, &self.ad(id, kind, extra), body, data.len())
            .map_err(|e| Error::Unsupported(format!("{}: {e}", self.cipher.name())))?;
        out.truncate(NONCE + n);
        Ok(out)
    }

    /// Seals several pieces as [`LwcKeys::seal`] seals one (the same format, each nonce
    /// fresh from `rng`), in one call to the cipher: Ascon-AEAD128 runs such a batch in
    /// SIMD lanes. Each piece's data is replaced by its sealed form.
    pub fn seal_many(
        &self,
        c: &mut dyn Cipher,
        rng: &mut Rng,
        pieces: &mut [Piece<'_>],
    ) -> Result<()> {
        let ads: Vec<Vec<u8>> = pieces
            .iter()
            .map(|p| self.ad(p.id, p.kind, &p.extra))
            .collect();
        let mut outs = Vec::with_capacity(pieces.len());
        for p in pieces.iter() {
            let mut out = vec![0u8; NONCE + p.data.len() + TAG];
            rng.fill(&mut out[..NONCE])?;
            out[NONCE..NONCE + p.data.len()].copy_from_slice(p.data);
            outs.push(out);
        }
        let mut batch: Vec<Message<'_>> = outs
            .iter_mut()
            .zip(&ads)
            .zip(pieces.iter())
            .map(|((out, ad), p)| {
                let (nonce, body) = out.split_at_mut(NONCE);
                Message {
                    iv: nonce,
                    ad,
                    buf: body,
                    len: p.data.len(),
                }
            })
            .collect();
        c.encrypt_batch(&mut batch)
            .map_err(|e| Error::Unsupported(format!("{}: {e}", self.cipher.name())))?;
        let lens: Vec<usize> = batch.iter().map(|m| m.len).collect();
        drop(batch);
        for ((p, mut out), len) in pieces.iter_mut().zip(outs).zip(lens) {
            out.truncate(NONCE + len);
            *p.data = out;
        }
        Ok(())
    }

    /// Decrypts what [`LwcKeys::seal`] made; on any failure (short data, wrong tag,
    /// another object's ciphertext) an [`Error::Tampered`] naming the object, and no
    /// plaintext.
    pub fn open_data(
        &self,
        c: &mut dyn Cipher,
        id: ObjId,
        kind: Kind,
        extra: &[u8],
        data: &[u8],
    ) -> Result<Vec<u8>> {
        let fail = || {
            Error::Tampered(if kind == Kind::Manifest {
                "the manifest does not authenticate".to_string()
            } else {
                format!(
                    "object {} {}: its {} does not authenticate",
                    id.0,
                    id.1,
                    kind.word()
                )
            })
        };
        if data.len() < NONCE + TAG {
            return Err(fail());
        }
        let (nonce, body) = data.split_at(NONCE);
        let mut buf = body.to_vec();
        match c.decrypt(nonce, &self.ad(id, kind, extra), &mut buf) {
            Ok(n) => {
                buf.truncate(n);
                Ok(buf)
            }
            Err(_) => Err(fail()),
        }
    }
}

/// One piece of [`LwcKeys::seal_many`]: what it belongs to (as [`LwcKeys::ad`] binds it)
/// and its data, replaced by the sealed form.
pub struct Piece<'a> {
    /// The object.
    pub id: ObjId,
    /// A string or a stream.
    pub kind: Kind,
    /// A string's index, or a stream's canonical dictionary.
    pub extra: Vec<u8>,
    /// The plaintext, then `nonce || ciphertext || tag`.
    pub data: &'a mut Vec<u8>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn seal_open_and_every_binding() {
        for cipher in LwcCipher::all() {
            let (k, d) = LwcKeys::create(cipher, "u", "o", -4, b"id-one".to_vec()).unwrap();
            let mut d = d;
            d.set(b"Manifest", hex(&[0u8; 40]));
            let parsed = LwcDict::parse(&d).unwrap();
            assert_eq!(parsed.cipher, cipher);
            let (ku, a) = LwcKeys::open(&parsed, b"id-one".to_vec(), "u").unwrap();
            assert!(a.user && !a.owner);
            let (ko, a) = LwcKeys::open(&parsed, b"id-one".to_vec(), "o").unwrap();
            assert!(a.owner);
            assert!(matches!(
                LwcKeys::open(&parsed, b"id-one".to_vec(), "x"),
                Err(Error::WrongPassword(_))
            ));
            let mut c = k.init().unwrap();
            let mut rng = Rng::new();
            let ct = k
                .seal(&mut *c, &mut rng, (5, 0), Kind::Stream, b"<<>>", b"secret")
                .unwrap();
            let ct2 = k
                .seal(&mut *c, &mut rng, (5, 0), Kind::Stream, b"<<>>", b"secret")
                .unwrap();
            assert_ne!(ct, ct2, "{cipher:?}: a nonce repeated");
            for keys in [&ku, &ko] {
                let mut c = keys.init().unwrap();
                let pt = keys
                    .open_data(&mut *c, (5, 0), Kind::Stream, b"<<>>", &ct)
                    .unwrap();
                assert_eq!(pt, b"secret");
                // Another object, generation, kind, dictionary: rejected.
                for (id, kind, extra) in [
                    ((6, 0), Kind::Stream, &b"<<>>"[..]),
                    ((5, 1), Kind::Stream, b"<<>>"),
                    ((5, 0), Kind::String, b"<<>>"),
                    ((5, 0), Kind::Stream, b"<</A 1>>"),
                ] {
                    assert!(matches!(
                        keys.open_data(&mut *c, id, kind, extra, &ct),
                        Err(Error::Tampered(_))
                    ));
                }
            }
            // Another file ID: rejected.
            let (kx, _) = LwcKeys::open(&parsed, b"id-two".to_vec(), "u").unwrap();
            let mut c = kx.init().unwrap();
            assert!(
                kx.open_data(&mut *c, (5, 0), Kind::Stream, b"<<>>", &ct)
                    .is_err()
            );
            // A flipped bit anywhere: rejected.
            let mut c = ku.init().unwrap();
            for i in 0..ct.len() {
                let mut bad = ct.clone();
                bad[i] ^= 1;
                assert!(
                    ku.open_data(&mut *c, (5, 0), Kind::Stream, b"<<>>", &bad)
                        .is_err()
                );
            }
            assert!(
                ku.open_data(&mut *c, (5, 0), Kind::Stream, b"<<>>", &ct[..20])
                    .is_err()
            );
        }
    }

    /// Version 2's entries are no revision-6 entries for the same password: the Standard
    /// handler's authentication refuses them (forgery 2 of docs/pdf-lwc.md's threat model).
    #[test]
    fn entries_open_nothing_as_a_standard_handler() {
        let (_, mut d) =
            LwcKeys::create(LwcCipher::ASCON_AEAD128, "u", "o", -4, Vec::new()).unwrap();
        d.set(b"Manifest", hex(&[0u8; 40]));
        let parsed = LwcDict::parse(&d).unwrap();
        assert_eq!(parsed.version, VERSION);
        for pw in ["u", "o"] {
            assert!(LwcKeys::open(&parsed, Vec::new(), pw).is_ok());
            assert!(matches!(
                Handler::authenticate(&parsed.r6, &[], pw),
                Err(Error::WrongPassword(_))
            ));
        }
        // A password longer than revision 6's 127 bytes counts whole.
        let long = "p".repeat(200);
        let (_, mut d) =
            LwcKeys::create(LwcCipher::ASCON_AEAD128, &long, "o", -4, Vec::new()).unwrap();
        d.set(b"Manifest", hex(&[0u8; 40]));
        let parsed = LwcDict::parse(&d).unwrap();
        assert!(LwcKeys::open(&parsed, Vec::new(), &long).is_ok());
        assert!(LwcKeys::open(&parsed, Vec::new(), &long[..127]).is_err());
    }

    #[test]
    fn dictionary_checks() {
        let (_, mut d) = LwcKeys::create(LwcCipher::XOODYAK, "u", "o", -4, Vec::new()).unwrap();
        d.set(b"Manifest", hex(&[0u8; 40]));
        assert!(LwcDict::parse(&d).is_ok());
        let mut e = d.clone();
        e.set(b"StrF", Object::name("Identity"));
        assert!(
            LwcDict::parse(&e)
                .unwrap_err()
                .to_string()
                .contains("Identity")
        );
        let mut e = d.clone();
        e.set(b"EncryptMetadata", Object::Bool(false));
        assert!(LwcDict::parse(&e).is_err());
        for v in [0, 4] {
            let mut e = d.clone();
            e.set(b"V", Object::Int(v));
            assert!(LwcDict::parse(&e).is_err());
        }
        let mut e = d;
        e.remove(b"Manifest");
        assert!(LwcDict::parse(&e).is_err());
    }
}
