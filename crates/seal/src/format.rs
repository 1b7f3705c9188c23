//! The container header: what it holds, how it is written and read (docs/format.md).
//!
//! ```text
//! magic       8  89 43 4C 53 0D 0A 1A 0A   ("\x89CLS\r\n\x1a\n")
//! version     1  1
//! algorithm   1  stable id (the catalogue's container ids: container_ciphers())
//! chunk       1  log2 of the plaintext chunk size, 10..=24 (16 = 64 KiB)
//! kdf         1  0 = key file, 1 = Argon2id
//! salt       16  random: Argon2id salt and HKDF salt
//! [argon2     9  memory KiB u32 LE, passes u32 LE, lanes u8]   only when kdf = 1
//! prefix  n - 5  random nonce prefix (n = the AEAD's nonce length: 7 or 11 bytes)
//! mac        32  HMAC-SHA256 of all the bytes above, under a key derived from the secret
//! ```

use std::io::Read;

use cipherlab_ciphers::{CipherSpec, Mode, catalogue};

use crate::error::{Error, Result};

/// The first eight bytes of every container (PNG's pattern: a high-bit byte, the name,
/// CR LF, ^Z, LF, so text-mode mangling and 7-bit channels are detected).
pub const MAGIC: [u8; 8] = *b"\x89CLS\r\n\x1a\n";
/// The container version this crate writes and reads.
pub const VERSION: u8 = 1;
/// Tag bytes appended to every chunk (every AEAD of the catalogue has 16).
pub const TAG_LEN: usize = 16;
/// Random salt bytes.
pub const SALT_LEN: usize = 16;
/// Header MAC bytes (HMAC-SHA256).
pub const MAC_LEN: usize = 32;
/// Nonce bytes the STREAM construction takes from the prefix's end: a 4-byte
/// big-endian chunk counter and the last-chunk flag.
pub const COUNTER_AND_FLAG: usize = 5;
/// Default chunk size: 2^16 = 64 KiB of plaintext.
pub const DEFAULT_CHUNK_LOG2: u8 = 16;
/// Smallest chunk: 1 KiB.
pub const MIN_CHUNK_LOG2: u8 = 10;
/// Largest chunk: 16 MiB (bounds what a hostile header can make the reader allocate).
pub const MAX_CHUNK_LOG2: u8 = 24;

/// Every cipher the container takes, with its id, in id order. The ids are the
/// catalogue's ([`cipherlab_ciphers::catalogue::ContainerId`]): a fact of each AEAD, kept
/// in its descriptor; files carry them, so they are never renumbered.
pub fn container_ciphers() -> Vec<(u8, CipherSpec)> {
    let mut v: Vec<(u8, CipherSpec)> = (0..=u8::MAX)
        .filter_map(|id| CipherSpec::from_container_id(id).map(|s| (id, s)))
        .collect();
    v.sort_by_key(|(id, _)| *id);
    v
}

/// The id of `spec`, or an error naming the ciphers the container takes.
pub fn algorithm_id(spec: &CipherSpec) -> Result<u8> {
    spec.container_id().ok_or_else(|| {
        Error::Usage(format!(
            "{spec} cannot be used in the container: it needs an AEAD ({}); for \
             unauthenticated legacy output use --raw",
            container_ciphers()
                .iter()
                .map(|(_, s)| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

/// The spec of an algorithm id.
pub fn spec_of(id: u8) -> Result<CipherSpec> {
    CipherSpec::from_container_id(id).ok_or(Error::UnknownAlgorithm(id))
}

/// The container's default cipher on this machine: AES-256-GCM where the CPU has AES
/// and carry-less multiply instructions (fast and constant-time there), otherwise
/// ChaCha20-Poly1305 (fast and constant-time in software). docs/format.md explains.
pub fn default_cipher() -> CipherSpec {
    if hardware_aes() {
        CipherSpec::of(&catalogue::AES, 256, Some(Mode::Gcm))
    } else {
        CipherSpec::aead(&catalogue::CHACHA20_POLY1305)
    }
}

/// Whether AES-GCM runs on dedicated instructions here.
pub fn hardware_aes() -> bool {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        std::arch::is_x86_feature_detected!("aes")
            && std::arch::is_x86_feature_detected!("pclmulqdq")
    }
    #[cfg(target_arch = "aarch64")]
    {
        std::arch::is_aarch64_feature_detected!("aes")
            && std::arch::is_aarch64_feature_detected!("pmull")
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64")))]
    {
        false
    }
}

/// Whether `spec` can be used in the container.
pub fn is_container_cipher(spec: &CipherSpec) -> bool {
    spec.container_id().is_some()
}

/// Argon2id cost parameters (RFC 9106).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Argon2Params {
    /// Memory in KiB.
    pub memory_kib: u32,
    /// Passes over the memory (time cost).
    pub passes: u32,
    /// Lanes (parallelism).
    pub lanes: u8,
}

impl Default for Argon2Params {
    /// RFC 9106 section 4, second recommended option: 64 MiB, 3 passes, 4 lanes.
    fn default() -> Self {
        Argon2Params {
            memory_kib: 64 * 1024,
            passes: 3,
            lanes: 4,
        }
    }
}

/// The most memory a header may ask Argon2id for (4 GiB): a hostile file cannot make
/// the reader allocate more.
pub const MAX_ARGON2_MEMORY_KIB: u32 = 4 * 1024 * 1024;
/// The most passes a header may ask for.
pub const MAX_ARGON2_PASSES: u32 = 64;

/// The least Argon2id cost `cipherlab encrypt` writes unless weak parameters are allowed
/// explicitly: 19 MiB and 2 passes, OWASP's minimum for Argon2id (Password Storage Cheat
/// Sheet). Below it a stolen file's passphrase is cheap to guess.
pub const ARGON2_FLOOR: Argon2Params = Argon2Params {
    memory_kib: 19 * 1024,
    passes: 2,
    lanes: 1,
};

/// The most Argon2id cost opening a file runs by default, before the header's MAC can
/// be checked (the MAC key comes out of Argon2id): 1 GiB and 10 passes -- sixteen times the
/// default's memory. A header asking for more is refused unless the caller raises the
/// limit (`--argon2-max-memory`), so a hostile file cannot make a reader allocate 4 GiB.
pub const ARGON2_OPEN_LIMIT: Argon2Params = Argon2Params {
    memory_kib: 1024 * 1024,
    passes: 10,
    lanes: 64,
};

impl Argon2Params {
    /// Whether these parameters cost at least `floor` in memory and passes.
    pub fn at_least(&self, floor: &Argon2Params) -> bool {
        self.memory_kib >= floor.memory_kib && self.passes >= floor.passes
    }

    /// Whether these parameters cost at most `limit` in memory, passes and lanes.
    pub fn within(&self, limit: &Argon2Params) -> bool {
        self.memory_kib <= limit.memory_kib
            && self.passes <= limit.passes
            && self.lanes <= limit.lanes
    }

    /// Checks the parameters are within what Argon2 accepts and this reader allows.
    pub fn check(&self) -> Result<()> {
        let min_memory = 8 * u32::from(self.lanes);
        if self.lanes == 0 {
            return Err(Error::Usage("Argon2id needs at least 1 lane".into()));
        }
        if self.memory_kib < min_memory || self.memory_kib > MAX_ARGON2_MEMORY_KIB {
            return Err(Error::Usage(format!(
                "Argon2id memory must be {min_memory} KiB to 4 GiB, got {} KiB",
                self.memory_kib
            )));
        }
        if self.passes == 0 || self.passes > MAX_ARGON2_PASSES {
            return Err(Error::Usage(format!(
                "Argon2id passes must be 1 to {MAX_ARGON2_PASSES}, got {}",
                self.passes
            )));
        }
        Ok(())
    }
}

/// How the payload key is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kdf {
    /// A key file's key, through HKDF.
    KeyFile,
    /// A passphrase, through Argon2id then HKDF.
    Argon2id(Argon2Params),
}

/// A parsed header (the MAC is checked separately, once the secret is known).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The AEAD.
    pub cipher: CipherSpec,
    /// log2 of the plaintext chunk size.
    pub chunk_log2: u8,
    /// Key derivation.
    pub kdf: Kdf,
    /// Random salt.
    pub salt: [u8; SALT_LEN],
    /// Random nonce prefix (nonce length - 5 bytes).
    pub nonce_prefix: Vec<u8>,
}

impl Header {
    /// A fresh header with random salt and nonce prefix.
    pub fn new(cipher: CipherSpec, chunk_log2: u8, kdf: Kdf) -> Result<Header> {
        algorithm_id(&cipher)?;
        check_chunk_log2(chunk_log2).map_err(Error::Usage)?;
        if let Kdf::Argon2id(p) = kdf {
            p.check()?;
        }
        let mut salt = [0u8; SALT_LEN];
        random(&mut salt);
        let mut nonce_prefix = vec![0u8; prefix_len(&cipher)];
        random(&mut nonce_prefix);
        Ok(Header {
            cipher,
            chunk_log2,
            kdf,
            salt,
            nonce_prefix,
        })
    }

    /// Plaintext bytes per chunk.
    pub fn chunk_size(&self) -> usize {
        1 << self.chunk_log2
    }

    /// The header bytes the MAC covers (everything but the MAC).
    pub fn body(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(64);
        v.extend_from_slice(&MAGIC);
        v.push(VERSION);
        // The id exists: `new` and `read` only build headers of known ciphers.
        v.push(algorithm_id(&self.cipher).unwrap_or(0));
        v.push(self.chunk_log2);
        match self.kdf {
            Kdf::KeyFile => {
                v.push(0);
                v.extend_from_slice(&self.salt);
            }
            Kdf::Argon2id(p) => {
                v.push(1);
                v.extend_from_slice(&self.salt);
                v.extend_from_slice(&p.memory_kib.to_le_bytes());
                v.extend_from_slice(&p.passes.to_le_bytes());
                v.push(p.lanes);
            }
        }
        v.extend_from_slice(&self.nonce_prefix);
        v
    }

    /// Reads a header and its MAC from `r`; checks everything but the MAC.
    pub fn read<R: Read>(r: &mut R) -> Result<(Header, Vec<u8>, [u8; MAC_LEN])> {
        let mut fixed = [0u8; 12];
        let got = read_full(r, &mut fixed)?;
        if got < MAGIC.len() || fixed[..MAGIC.len()] != MAGIC {
            if got < MAGIC.len() && got > 0 && fixed[..got] == MAGIC[..got] {
                return Err(Error::Truncated(format!(
                    "it ends after {got} bytes, inside the header"
                )));
            }
            return Err(Error::NotSealed {
                hint: looks_like(&fixed[..got]),
            });
        }
        if got < fixed.len() {
            return Err(truncated_header(got));
        }
        let version = fixed[8];
        if version != VERSION {
            return Err(Error::UnsupportedVersion {
                found: version,
                supported: VERSION,
            });
        }
        let cipher = spec_of(fixed[9])?;
        let chunk_log2 = fixed[10];
        check_chunk_log2(chunk_log2).map_err(Error::BadHeader)?;
        let mut body = fixed.to_vec();
        let mut salt = [0u8; SALT_LEN];
        read_part(r, &mut salt, &mut body)?;
        let kdf = match fixed[11] {
            0 => Kdf::KeyFile,
            1 => {
                let mut p = [0u8; 9];
                read_part(r, &mut p, &mut body)?;
                let params = Argon2Params {
                    memory_kib: u32::from_le_bytes([p[0], p[1], p[2], p[3]]),
                    passes: u32::from_le_bytes([p[4], p[5], p[6], p[7]]),
                    lanes: p[8],
                };
                params
                    .check()
                    .map_err(|e| Error::BadHeader(format!("Argon2id parameters: {e}")))?;
                Kdf::Argon2id(params)
            }
            k => {
                return Err(Error::BadHeader(format!(
                    "unknown key derivation id {k} (0 = key file, 1 = Argon2id)"
                )));
            }
        };
        let mut nonce_prefix = vec![0u8; prefix_len(&cipher)];
        read_part(r, &mut nonce_prefix, &mut body)?;
        let mut mac = [0u8; MAC_LEN];
        let before = body.len();
        let got = read_full(r, &mut mac)?;
        if got < MAC_LEN {
            return Err(truncated_header(before + got));
        }
        let header = Header {
            cipher,
            chunk_log2,
            kdf,
            salt,
            nonce_prefix,
        };
        Ok((header, body, mac))
    }
}

/// Nonce prefix length for `spec`.
pub fn prefix_len(spec: &CipherSpec) -> usize {
    spec.iv_len().saturating_sub(COUNTER_AND_FLAG)
}

fn check_chunk_log2(log2: u8) -> std::result::Result<(), String> {
    if (MIN_CHUNK_LOG2..=MAX_CHUNK_LOG2).contains(&log2) {
        Ok(())
    } else {
        Err(format!(
            "chunk size 2^{log2} is outside 2^{MIN_CHUNK_LOG2} (1 KiB) to 2^{MAX_CHUNK_LOG2} (16 MiB)"
        ))
    }
}

fn truncated_header(got: usize) -> Error {
    Error::Truncated(format!("it ends after {got} bytes, inside the header"))
}

fn read_part<R: Read>(r: &mut R, buf: &mut [u8], body: &mut Vec<u8>) -> Result<()> {
    let got = read_full(r, buf)?;
    if got < buf.len() {
        return Err(truncated_header(body.len() + got));
    }
    body.extend_from_slice(buf);
    Ok(())
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
pub(crate) fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io("reading the input", e)),
        }
    }
    Ok(n)
}

/// A hint about what a non-container input is.
fn looks_like(start: &[u8]) -> String {
    if start.is_empty() {
        " (the input is empty)".into()
    } else if start.starts_with(b"age-encr") || start.starts_with(b"-----BEG") {
        " (it looks like an age file or another armored format)".into()
    } else if start.starts_with(b"Salted__") {
        " (it looks like `openssl enc` output with a salt)".into()
    } else {
        String::new()
    }
}

/// Fills `buf` from the operating system's random number generator.
///
/// # Panics
/// If the OS has no working RNG (no safe salt, nonce or key is possible then).
pub(crate) fn random(buf: &mut [u8]) {
    #[allow(clippy::expect_used)] // no RNG means no safe key; stopping is the only option
    getrandom::fill(buf).expect("the operating system's random number generator failed");
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use cipherlab_ciphers::{ALGORITHMS, AlgorithmId, Kind};

    /// Every AEAD of the catalogue (AES-GCM at every key size included) has an id, so a
    /// new catalogue AEAD fails here until it is given one.
    #[test]
    fn every_catalogue_aead_has_an_id() {
        let mut n = 0;
        for a in ALGORITHMS {
            let specs: Vec<CipherSpec> = match a.kind {
                Kind::Aead => vec![CipherSpec::aead(a)],
                Kind::Block if a.id == AlgorithmId::Aes => a
                    .key_bits
                    .all()
                    .map(|b| CipherSpec::of(a, b, Some(Mode::Gcm)))
                    .collect(),
                _ => continue,
            };
            for s in specs {
                let id = algorithm_id(&s).unwrap();
                assert_eq!(spec_of(id).unwrap(), s);
                assert!(is_container_cipher(&s));
                assert!(matches!(prefix_len(&s), 7 | 11), "{s}");
                n += 1;
            }
        }
        println!("{n} AEADs have container ids");
        assert_eq!(n, container_ciphers().len());
        assert!(algorithm_id(&CipherSpec::parse("aes-128-cbc").unwrap()).is_err());
        assert!(is_container_cipher(&default_cipher()));
    }

    /// Files carry the ids: these must never change (a new AEAD takes a new number).
    #[test]
    fn ids_are_stable() {
        let got: Vec<(u8, String)> = container_ciphers()
            .into_iter()
            .map(|(id, s)| (id, s.to_string()))
            .collect();
        let want = [
            (1, "aes-128-gcm"),
            (2, "aes-192-gcm"),
            (3, "aes-256-gcm"),
            (4, "chacha20-poly1305"),
            (5, "ascon-aead128"),
            (6, "ascon-128"),
            (7, "ascon-128a"),
            (8, "ascon-80pq"),
            (9, "xoodyak"),
            (10, "isap-a-128a"),
            (11, "isap-a-128"),
            (12, "isap-k-128a"),
            (13, "isap-k-128"),
        ];
        for (id, name) in want {
            assert!(
                got.contains(&(id, name.to_string())),
                "{id} {name}: {got:?}"
            );
        }
    }

    #[test]
    fn header_round_trip_and_layout() {
        let h = Header::new(
            CipherSpec::parse("chacha20-poly1305").unwrap(),
            16,
            Kdf::Argon2id(Argon2Params::default()),
        )
        .unwrap();
        let body = h.body();
        assert_eq!(body.len(), 12 + 16 + 9 + 7);
        let mut bytes = body.clone();
        bytes.extend_from_slice(&[0xAA; MAC_LEN]);
        let (h2, body2, mac) = Header::read(&mut bytes.as_slice()).unwrap();
        assert_eq!((h2, body2, mac), (h, body, [0xAA; MAC_LEN]));
    }
}
