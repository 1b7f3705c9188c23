//! The PDF Standard Security Handler (ISO 32000-2 §7.6.4): the /Encrypt dictionary and
//! per-object decryption and encryption (Algorithm 1, 1.a) with an authenticated
//! [`Handler`]. Passwords -- authentication and the key algorithms -- are
//! [`crate::password`]'s; making a new /Encrypt dictionary is [`crate::standard`]'s.
//!
//! RC4 is the catalogue's [`cipherlab_ciphers::rc4::Rc4Key`]; AES-CBC comes from the
//! RustCrypto `aes`/`cbc` crates (a file's streams, many chains side by side, are ours
//! on the `aes` block cipher: `aes256_cbc_encrypt_many`), MD5 from `md-5`.

use std::collections::BTreeMap;

use aes::{Aes128, Aes256};
use cipher::array::Array;
use cipher::{
    BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, InnerIvInit, KeyInit, KeyIvInit,
};
use cipherlab_ciphers::rc4::Rc4Key;
use md5::{Digest, Md5};
use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::object::{Dict, ObjId, Object};
use crate::random::Rng;

/// A crypt filter method (/CFM).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cfm {
    /// `/None` or the `/Identity` filter: data is not encrypted.
    Identity,
    /// `/V2`: RC4 with the object key.
    Rc4,
    /// `/AESV2`: AES-128-CBC with the object key (Algorithm 1 with "sAlT").
    AesV2,
    /// `/AESV3`: AES-256-CBC with the file key (Algorithm 1.a).
    AesV3,
}

impl Cfm {
    /// The name written in /CFM.
    pub fn name(self) -> &'static str {
        match self {
            Cfm::Identity => "None",
            Cfm::Rc4 => "V2",
            Cfm::AesV2 => "AESV2",
            Cfm::AesV3 => "AESV3",
        }
    }
}

/// A crypt filter as the /Encrypt dictionary defines it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CryptFilter {
    /// Its name (`StdCF`, `Identity`, or for V < 4 the implicit filter).
    pub name: String,
    /// Its method.
    pub cfm: Cfm,
    /// /Length as written (bytes per the standard, bits in some producers), if any.
    pub length: Option<i64>,
    /// /AuthEvent (`DocOpen` or `EFOpen`).
    pub auth_event: Option<String>,
}

/// The /Encrypt dictionary of the Standard security handler, read and checked.
#[derive(Clone, Debug)]
pub struct EncryptDict {
    /// /V: the algorithm version (1, 2, 4, 5).
    pub v: i64,
    /// /R: the revision of the standard handler (2 .. 6).
    pub r: i64,
    /// /Length in bits (40 when absent).
    pub length_bits: i64,
    /// Whether /Length was present.
    pub length_given: bool,
    /// /O
    pub o: Vec<u8>,
    /// /U
    pub u: Vec<u8>,
    /// /OE (R5, R6)
    pub oe: Vec<u8>,
    /// /UE (R5, R6)
    pub ue: Vec<u8>,
    /// /Perms (R5, R6)
    pub perms: Vec<u8>,
    /// /P as a signed 32-bit value.
    pub p: i32,
    /// /EncryptMetadata (default true).
    pub encrypt_metadata: bool,
    /// Whether /EncryptMetadata was present.
    pub encrypt_metadata_given: bool,
    /// /CF: the named crypt filters (V4, V5).
    pub filters: BTreeMap<String, CryptFilter>,
    /// /StmF (V4, V5; `Identity` when absent).
    pub stmf: String,
    /// /StrF
    pub strf: String,
    /// /EFF (defaults to /StmF).
    pub eff: String,
    /// Whether /EFF was present.
    pub eff_given: bool,
}

fn bytes_of(o: Option<Object>) -> Vec<u8> {
    match o {
        Some(Object::Str(s, _)) => s,
        _ => Vec::new(),
    }
}

fn name_of(o: &Option<Object>) -> Option<String> {
    match o {
        Some(Object::Name(n)) => Some(String::from_utf8_lossy(n).into_owned()),
        _ => None,
    }
}

impl EncryptDict {
    /// Reads `d`; `resolve` dereferences indirect values (an indirect /CF, /O, ...).
    pub fn parse(d: &Dict, resolve: &dyn Fn(&Object) -> Object) -> Result<EncryptDict> {
        let get = |k: &[u8]| d.get(k).map(resolve);
        match name_of(&get(b"Filter")).as_deref() {
            Some("Standard") => {}
            Some(other) => {
                return Err(Error::Unsupported(format!(
                    "security handler /{other}: only the Standard (password) handler is \
                     supported, not public-key or vendor handlers"
                )));
            }
            None => {
                return Err(Error::BadEncrypt(
                    "/Filter is missing; expected /Standard".into(),
                ));
            }
        }
        let int = |k: &[u8]| get(k).and_then(|o| o.as_int());
        let v = int(b"V").unwrap_or(0);
        let Some(r) = int(b"R") else {
            return Err(Error::BadEncrypt("/R (revision) is missing".into()));
        };
        if !matches!(v, 1 | 2 | 4 | 5) {
            return Err(Error::Unsupported(format!(
                "/V {v}: the Standard handler defines V 1, 2, 4 and 5 (V 3 was never published)"
            )));
        }
        if !(2..=6).contains(&r) {
            return Err(Error::Unsupported(format!(
                "/R {r}: the Standard handler defines revisions 2 to 6"
            )));
        }
        let length_given = int(b"Length").is_some();
        let length_bits = int(b"Length").unwrap_or(40);
        let p = match int(b"P") {
            // Some writers store P as an unsigned 32-bit number.
            Some(p) if (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&p) => p as u32 as i32,
            Some(p) => return Err(Error::BadEncrypt(format!("/P {p} is not a 32-bit value"))),
            None => return Err(Error::BadEncrypt("/P (permissions) is missing".into())),
        };
        let em = get(b"EncryptMetadata");
        let encrypt_metadata = !matches!(em, Some(Object::Bool(false)));
        let mut filters = BTreeMap::new();
        if let Some(Object::Dict(cf)) = get(b"CF") {
            for (k, val) in &cf.0 {
                let name = String::from_utf8_lossy(k).into_owned();
                let Object::Dict(f) = resolve(val) else {
                    return Err(Error::BadEncrypt(format!(
                        "/CF /{name} is not a dictionary"
                    )));
                };
                let fget = |k: &[u8]| f.get(k).map(resolve);
                let cfm = match name_of(&fget(b"CFM")).as_deref() {
                    None | Some("None") => Cfm::Identity,
                    Some("V2") => Cfm::Rc4,
                    Some("AESV2") => Cfm::AesV2,
                    Some("AESV3") => Cfm::AesV3,
                    Some(other) => {
                        return Err(Error::Unsupported(format!(
                            "crypt filter /{name} has /CFM /{other}; the Standard handler knows \
                             /None, /V2 (RC4), /AESV2 and /AESV3"
                        )));
                    }
                };
                filters.insert(
                    name.clone(),
                    CryptFilter {
                        name,
                        cfm,
                        length: fget(b"Length").and_then(|o| o.as_int()),
                        auth_event: name_of(&fget(b"AuthEvent")),
                    },
                );
            }
        } else if get(b"CF").is_some() {
            return Err(Error::BadEncrypt("/CF is not a dictionary".into()));
        }
        let stmf = name_of(&get(b"StmF")).unwrap_or_else(|| "Identity".into());
        let strf = name_of(&get(b"StrF")).unwrap_or_else(|| "Identity".into());
        let eff_given = name_of(&get(b"EFF")).is_some();
        let eff = name_of(&get(b"EFF")).unwrap_or_else(|| stmf.clone());
        let e = EncryptDict {
            v,
            r,
            length_bits,
            length_given,
            o: bytes_of(get(b"O")),
            u: bytes_of(get(b"U")),
            oe: bytes_of(get(b"OE")),
            ue: bytes_of(get(b"UE")),
            perms: bytes_of(get(b"Perms")),
            p,
            encrypt_metadata,
            encrypt_metadata_given: matches!(em, Some(Object::Bool(_))),
            filters,
            stmf,
            strf,
            eff,
            eff_given,
        };
        e.check()?;
        Ok(e)
    }

    fn check(&self) -> Result<()> {
        let need = |what: &str, v: &[u8], n: usize| {
            if v.len() < n {
                Err(Error::BadEncrypt(format!(
                    "/{what} has {} bytes; revision {} needs {n}",
                    v.len(),
                    self.r
                )))
            } else {
                Ok(())
            }
        };
        if self.r <= 4 {
            need("O", &self.o, 32)?;
            need("U", &self.u, 16)?;
        } else {
            need("O", &self.o, 48)?;
            need("U", &self.u, 48)?;
            need("OE", &self.oe, 32)?;
            need("UE", &self.ue, 32)?;
        }
        if self.v == 2
            && (self.length_bits < 40 || self.length_bits > 128 || self.length_bits % 8 != 0)
        {
            return Err(Error::BadEncrypt(format!(
                "/Length {} for V 2: must be 40 to 128 bits, a multiple of 8",
                self.length_bits
            )));
        }
        if self.v >= 4 {
            for n in [&self.stmf, &self.strf, &self.eff] {
                if n != "Identity" && !self.filters.contains_key(n.as_str()) {
                    return Err(Error::BadEncrypt(format!(
                        "crypt filter /{n} is used (/StmF, /StrF or /EFF) but not defined in /CF"
                    )));
                }
            }
        }
        Ok(())
    }

    /// The file key length in bytes.
    pub fn key_len(&self) -> usize {
        match self.r {
            2 => 5,
            5 | 6 => 32,
            _ if self.v >= 4 && !self.length_given => {
                // As pdf.js: the default filter's /Length (bytes, or bits when >= 40).
                let l = self
                    .filters
                    .get(&self.stmf)
                    .and_then(|f| f.length)
                    .unwrap_or(16);
                let l = if l >= 40 { l / 8 } else { l };
                l.clamp(5, 16) as usize
            }
            _ => (self.length_bits / 8).clamp(5, 16) as usize,
        }
    }

    /// The filter named `name` (the implicit RC4 filter for V < 4).
    pub fn filter(&self, name: &str) -> CryptFilter {
        if self.v < 4 {
            return CryptFilter {
                name: "(V<4: RC4)".into(),
                cfm: Cfm::Rc4,
                length: Some(self.length_bits),
                auth_event: None,
            };
        }
        self.filters.get(name).cloned().unwrap_or(CryptFilter {
            name: name.to_string(),
            cfm: Cfm::Identity,
            length: None,
            auth_event: None,
        })
    }
}

/// Which password opened the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PasswordKind {
    /// The user (open) password.
    User,
    /// The owner (permissions) password.
    Owner,
}

/// The outcome of authentication.
#[derive(Clone)]
pub struct Auth {
    /// The password is the user password.
    pub user: bool,
    /// The password is the owner password.
    pub owner: bool,
    /// R6: whether /Perms decrypted to the /P and /EncryptMetadata of the dictionary
    /// (`None` for R2-R5, or when /Perms is absent).
    pub perms_ok: Option<bool>,
    /// R2-R4 opened with the owner password: the user password recovered from /O
    /// (Algorithm 7), with its padding removed.
    pub recovered_user_password: Option<Zeroizing<Vec<u8>>>,
    /// The empty password opens the file: anyone can recover its keys, so nothing in it
    /// can say who wrote it. Set when the empty password was the one that opened it; an
    /// LWC payload opened with another password is also tried with the empty one
    /// ([`crate::lwc::keys::LwcKeys::open`]), since there it decides whether the payload is
    /// authenticated. (A Standard-handler file is never authenticated, so it is not tried
    /// twice.)
    pub empty_password: bool,
}

/// Says whether a user password was recovered, never what it is (a `Debug` line can end
/// up in a log).
impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auth")
            .field("user", &self.user)
            .field("owner", &self.owner)
            .field("perms_ok", &self.perms_ok)
            .field("empty_password", &self.empty_password)
            .field(
                "recovered_user_password",
                &self.recovered_user_password.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}

impl Auth {
    /// Owner if the owner password matched (it grants everything), else user.
    pub fn kind(&self) -> PasswordKind {
        if self.owner {
            PasswordKind::Owner
        } else {
            PasswordKind::User
        }
    }
}

/// An authenticated handler: the file key and the filters.
#[derive(Clone)]
pub struct Handler {
    /// The encryption dictionary.
    pub enc: EncryptDict,
    key: Zeroizing<Vec<u8>>,
    /// The AES-256 key schedule of a 32-byte file key, for /AESV3, where every object's
    /// key is the file key: expanded once, not once per string and stream (GeoTopo's
    /// 2,546 strings made the expansion about 1% of `pdf encrypt`). Its round keys are
    /// zeroized on drop (the `aes` crate's `zeroize` feature).
    aes256: Option<Box<Aes256>>,
}

impl std::fmt::Debug for Handler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handler")
            .field("v", &self.enc.v)
            .field("r", &self.enc.r)
            .finish_non_exhaustive()
    }
}

pub(crate) fn md5(parts: &[&[u8]]) -> [u8; 16] {
    let mut h = Md5::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

pub(crate) fn rc4(key: &[u8], data: &mut [u8]) {
    if let Some(k) = Rc4Key::new(key) {
        k.apply_keystream_vartime(data);
    }
}

/// `data` split into 16-byte blocks (the length must be a multiple of 16).
fn blocks(data: &mut [u8]) -> &mut [Array<u8, cipher::consts::U16>] {
    Array::slice_as_chunks_mut(data).0
}

/// AES-CBC decryption in place without padding (`data.len()` a multiple of 16).
pub(crate) fn aes_cbc_decrypt(key: &[u8], iv: &[u8], data: &mut [u8]) {
    match key.len() {
        16 => {
            if let Ok(mut d) = cbc::Decryptor::<Aes128>::new_from_slices(key, iv) {
                d.decrypt_blocks(blocks(data));
            }
        }
        32 => {
            if let Ok(mut d) = cbc::Decryptor::<Aes256>::new_from_slices(key, iv) {
                d.decrypt_blocks(blocks(data));
            }
        }
        _ => {}
    }
}

/// AES-128-CBC encryption without padding (Algorithm 2.B step e).
pub(crate) fn aes128_cbc_encrypt(key: &[u8], iv: &[u8], data: &mut [u8]) {
    if let Ok(mut e) = cbc::Encryptor::<Aes128>::new_from_slices(key, iv) {
        e.encrypt_blocks(blocks(data));
    }
}

/// AES-CBC encryption in place without padding (`data.len()` a multiple of 16), AES-128 or
/// AES-256 by the key's length.
pub(crate) fn aes_cbc_encrypt(key: &[u8], iv: &[u8], data: &mut [u8]) -> Result<()> {
    let bad = || Error::Unsupported(format!("an AES key of {} bytes", key.len()));
    match key.len() {
        16 => cbc::Encryptor::<Aes128>::new_from_slices(key, iv)
            .map_err(|_| bad())?
            .encrypt_blocks(blocks(data)),
        32 => cbc::Encryptor::<Aes256>::new_from_slices(key, iv)
            .map_err(|_| bad())?
            .encrypt_blocks(blocks(data)),
        _ => return Err(bad()),
    }
    Ok(())
}

/// `data` laid out for AES-CBC encryption in place: a fresh random IV, the data, and the
/// padding of §7.6.3 (PKCS #7: 1 to 16 bytes, each the padding's length).
fn cbc_frame(data: &[u8], rng: &mut Rng) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len() + AES_FRAME);
    out.extend_from_slice(data);
    cbc_frame_in_place(&mut out, rng)?;
    Ok(out)
}

/// The most AES-CBC framing adds to data: a 16-byte IV and 16 bytes of padding.
pub(crate) const AES_FRAME: usize = 32;

/// [`cbc_frame`] of `data` in its own buffer: the data moved up by 16 bytes. Stream data
/// is read with [`AES_FRAME`] bytes to spare ([`crate::lexer`]), so this does not
/// reallocate: encrypting a file's streams touches no memory beyond their own.
fn cbc_frame_in_place(data: &mut Vec<u8>, rng: &mut Rng) -> Result<()> {
    let n = data.len();
    let pad = 16 - n % 16;
    data.resize(n + 16 + pad, pad as u8);
    data.copy_within(..n, 16);
    data[16 + n..].fill(pad as u8);
    rng.fill(&mut data[..16])
}

/// How many CBC chains [`aes256_cbc_encrypt_many`] advances side by side.
const CBC_LANES: usize = 8;

/// AES-256-CBC encryption in place of many independent buffers under one key, each
/// `iv || data` with `data` a multiple of 16 bytes (the IV is left as it is).
///
/// Why by hand: CBC encryption is one chain of dependent blocks, so one buffer at a time
/// runs at the latency of 14 AES rounds a block (2.5-3 cycles a byte here), however
/// wide the AES unit. Every stream of a revision 6 file is encrypted with the same file
/// key (Algorithm 1.a) and its own IV, so the chains are independent: advancing
/// [`CBC_LANES`] of them a block each in turn keeps the AES unit busy (the blocks of one
/// step do not depend on each other). The RustCrypto `cbc` crate encrypts one chain; the
/// block cipher is still the `aes` crate's, through its backend.
pub(crate) fn aes256_cbc_encrypt_many(key: &[u8], bufs: &mut [&mut [u8]]) -> Result<()> {
    let cipher = Aes256::new_from_slice(key)
        .map_err(|_| Error::Unsupported(format!("an AES-256 key of {} bytes", key.len())))?;
    if bufs.iter().any(|b| b.len() < 16 || b.len() % 16 != 0) {
        return Err(Error::Unsupported(
            "AES-CBC data that is not an IV and whole blocks".into(),
        ));
    }
    cipher.encrypt_with_backend(ManyCbc { bufs });
    Ok(())
}

/// The chains of [`aes256_cbc_encrypt_many`], run with the block cipher's backend.
struct ManyCbc<'a, 'b> {
    bufs: &'a mut [&'b mut [u8]],
}

impl cipher::BlockSizeUser for ManyCbc<'_, '_> {
    type BlockSize = cipher::consts::U16;
}

impl cipher::BlockCipherEncClosure for ManyCbc<'_, '_> {
    #[inline(always)]
    fn call<B: cipher::BlockCipherEncBackend<BlockSize = Self::BlockSize>>(self, backend: &B) {
        // A lane: a buffer and the offset of its next block (the previous one, at
        // `at - 16`, is the IV or the last ciphertext block).
        let mut queue = self.bufs.iter_mut();
        let mut lanes: Vec<(&mut [u8], usize)> = Vec::with_capacity(CBC_LANES);
        refill(&mut lanes, &mut queue);
        let mut blocks = [Array::<u8, cipher::consts::U16>::default(); CBC_LANES];
        while !lanes.is_empty() {
            for ((buf, at), block) in lanes.iter().zip(blocks.iter_mut()) {
                let (prev, cur) = buf[at - 16..at + 16].split_at(16);
                for ((o, p), c) in block.iter_mut().zip(prev).zip(cur) {
                    *o = p ^ c;
                }
            }
            // Independent blocks: the backend's one-block calls overlap in the pipeline.
            for block in blocks.iter_mut().take(lanes.len()) {
                backend.encrypt_block(block.into());
            }
            let mut i = 0;
            while i < lanes.len() {
                let (buf, at) = &mut lanes[i];
                buf[*at..*at + 16].copy_from_slice(&blocks[i]);
                *at += 16;
                if *at == buf.len() {
                    lanes.swap_remove(i);
                    // The lane moved into `i` has its block in the last slot.
                    let last = lanes.len();
                    blocks.swap(i, last);
                } else {
                    i += 1;
                }
            }
            refill(&mut lanes, &mut queue);
        }
    }
}

/// Fills `lanes` from `queue` (buffers with no block to encrypt are skipped).
fn refill<'a>(
    lanes: &mut Vec<(&'a mut [u8], usize)>,
    queue: &mut std::slice::IterMut<'a, &mut [u8]>,
) {
    while lanes.len() < CBC_LANES {
        match queue.find(|b| b.len() > 16) {
            Some(b) => lanes.push((&mut **b, 16)),
            None => break,
        }
    }
}

/// AES-256 of one block (Algorithm 10's /Perms, which is ECB of a single block).
pub(crate) fn aes256_block(key: &[u8], block: &mut [u8; 16]) -> Result<()> {
    let c = Aes256::new_from_slice(key)
        .map_err(|_| Error::Unsupported(format!("an AES-256 key of {} bytes", key.len())))?;
    let mut b = Array::<u8, cipher::consts::U16>::from(*block);
    c.encrypt_block(&mut b);
    block.copy_from_slice(&b);
    Ok(())
}

impl Handler {
    /// A handler for writing: `enc` as [`crate::standard`] made it, with its file key.
    pub(crate) fn new(enc: EncryptDict, key: Zeroizing<Vec<u8>>) -> Handler {
        let aes256 = Aes256::new_from_slice(&key).ok().map(Box::new);
        Handler { enc, key, aes256 }
    }

    /// The file key (for tests and diagnostics).
    pub fn file_key(&self) -> &[u8] {
        &self.key
    }

    /// Algorithm 1: the key for object `id` under `cfm`.
    fn object_key(&self, cfm: Cfm, id: ObjId) -> Zeroizing<Vec<u8>> {
        if cfm == Cfm::AesV3 {
            return self.key.clone();
        }
        let n = self.key.len();
        let mut h = Md5::new();
        h.update(&self.key);
        h.update(&id.0.to_le_bytes()[..3]);
        h.update(id.1.to_le_bytes());
        if cfm == Cfm::AesV2 {
            h.update(b"sAlT");
        }
        let k = Zeroizing::new(<[u8; 16]>::from(h.finalize()));
        Zeroizing::new(k[..(n + 5).min(16)].to_vec())
    }

    /// Encrypts `data` of object `id` with filter `cf` (Algorithm 1 and 1.a, forwards):
    /// RC4 with the object key; AES-CBC with a fresh random IV from `rng` written before
    /// the ciphertext and PKCS#7 padding (§7.6.3.1); the identity filter copies.
    pub fn encrypt(
        &self,
        cf: &CryptFilter,
        id: ObjId,
        data: &[u8],
        rng: &mut Rng,
    ) -> Result<Vec<u8>> {
        match cf.cfm {
            Cfm::Identity => Ok(data.to_vec()),
            Cfm::Rc4 => {
                let mut out = data.to_vec();
                rc4(&self.object_key(Cfm::Rc4, id), &mut out);
                Ok(out)
            }
            Cfm::AesV2 | Cfm::AesV3 => {
                let mut out = cbc_frame(data, rng)?;
                let (iv, body) = out.split_at_mut(16);
                match (&self.aes256, cf.cfm) {
                    (Some(c), Cfm::AesV3) => {
                        cbc::Encryptor::<Aes256>::inner_iv_slice_init((**c).clone(), iv)
                            .map_err(|_| Error::Unsupported("an AES IV not of 16 bytes".into()))?
                            .encrypt_blocks(blocks(body))
                    }
                    _ => aes_cbc_encrypt(&self.object_key(cf.cfm, id), iv, body)?,
                }
                Ok(out)
            }
        }
    }

    /// [`Handler::encrypt`] of many objects' data with `cf`, each in place. Under /AESV3
    /// every object has the file key, so the CBC chains run side by side
    /// (`aes256_cbc_encrypt_many`); other methods encrypt one at a time.
    pub fn encrypt_many(
        &self,
        cf: &CryptFilter,
        items: &mut [(ObjId, &mut Vec<u8>)],
        rng: &mut Rng,
    ) -> Result<()> {
        if cf.cfm != Cfm::AesV3 {
            for (id, data) in items.iter_mut() {
                **data = self.encrypt(cf, *id, data, rng)?;
            }
            return Ok(());
        }
        for (_, data) in items.iter_mut() {
            cbc_frame_in_place(data, rng)?;
        }
        let mut bufs: Vec<&mut [u8]> = items.iter_mut().map(|(_, d)| d.as_mut_slice()).collect();
        aes256_cbc_encrypt_many(&self.key, &mut bufs)
    }

    /// Decrypts `data` of object `id` with filter `cf`. Returns the plaintext and, when the
    /// data was not well-formed (AES data not a whole number of blocks, bad padding), a
    /// warning saying what was done.
    pub fn decrypt(&self, cf: &CryptFilter, id: ObjId, data: &[u8]) -> (Vec<u8>, Option<String>) {
        let mut out = data.to_vec();
        let warning = self.decrypt_in_place(cf, id, &mut out);
        (out, warning)
    }

    /// [`Handler::decrypt`] in `data`'s own buffer (a stream's data is decrypted where it
    /// is, not copied to a fresh one).
    pub fn decrypt_in_place(
        &self,
        cf: &CryptFilter,
        id: ObjId,
        data: &mut Vec<u8>,
    ) -> Option<String> {
        match cf.cfm {
            Cfm::Identity => None,
            Cfm::Rc4 => {
                rc4(&self.object_key(Cfm::Rc4, id), data);
                None
            }
            Cfm::AesV2 | Cfm::AesV3 => {
                if data.is_empty() {
                    return None;
                }
                if data.len() < 16 {
                    let n = data.len();
                    data.clear();
                    return Some(format!(
                        "AES data of {n} bytes is shorter than its IV; read as empty"
                    ));
                }
                let rest = data.len() - 16;
                let whole = rest / 16 * 16;
                let mut warn = (whole != rest).then(|| {
                    format!(
                        "AES data is not a whole number of blocks ({rest} bytes after the IV); the last {} bytes were dropped",
                        rest - whole
                    )
                });
                data.truncate(16 + whole);
                let (iv, body) = data.split_at_mut(16);
                match (&self.aes256, cf.cfm) {
                    (Some(c), Cfm::AesV3) => {
                        if let Ok(mut d) =
                            cbc::Decryptor::<Aes256>::inner_iv_slice_init((**c).clone(), iv)
                        {
                            d.decrypt_blocks(blocks(body));
                        }
                    }
                    _ => aes_cbc_decrypt(&self.object_key(cf.cfm, id), iv, body),
                }
                data.drain(..16);
                if let Some(&pad) = data.last() {
                    let p = usize::from(pad);
                    if (1..=16).contains(&p)
                        && p <= data.len()
                        && data[data.len() - p..].iter().all(|&b| b == pad)
                    {
                        data.truncate(data.len() - p);
                    } else if warn.is_none() {
                        warn = Some("AES padding is invalid; the data was kept unpadded".into());
                    }
                }
                warn
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Side by side, each chain gives what encrypting it alone gives: buffers of no block
    /// to 300 blocks, more of them than lanes, so lanes finish and are refilled at
    /// different steps.
    #[test]
    fn many_cbc_chains_equal_one_at_a_time() {
        let key: Vec<u8> = (0..32u8).map(|i| i.wrapping_mul(37) ^ 0x5c).collect();
        let sizes = [
            0usize, 1, 2, 300, 3, 16, 5, 1, 7, 64, 2, 9, 33, 1, 128, 4, 11, 2, 0, 70,
        ];
        let mut alone: Vec<Vec<u8>> = sizes
            .iter()
            .enumerate()
            .map(|(k, &n)| (0..16 * (n + 1)).map(|i| (i * 31 + k * 7) as u8).collect())
            .collect();
        let mut together = alone.clone();
        for b in &mut alone {
            let (iv, body) = b.split_at_mut(16);
            aes_cbc_encrypt(&key, iv, body).unwrap();
        }
        let mut bufs: Vec<&mut [u8]> = together.iter_mut().map(Vec::as_mut_slice).collect();
        aes256_cbc_encrypt_many(&key, &mut bufs).unwrap();
        assert_eq!(together, alone);
        // Not an IV and whole blocks, or not an AES-256 key: refused.
        let mut odd = vec![0u8; 40];
        assert!(aes256_cbc_encrypt_many(&key, &mut [odd.as_mut_slice()]).is_err());
        let mut ok = vec![0u8; 32];
        assert!(aes256_cbc_encrypt_many(&key[..16], &mut [ok.as_mut_slice()]).is_err());
    }

    #[test]
    fn debug_never_shows_a_recovered_password() {
        let a = Auth {
            user: false,
            owner: true,
            perms_ok: None,
            recovered_user_password: Some(Zeroizing::new(b"hunter2-secret".to_vec())),
            empty_password: false,
        };
        let shown = format!("{a:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("redacted"), "{shown}");
    }
}
