//! Public-key encryption for the `phases` study: RSA (1024-4096 bits, OAEP or PKCS#1
//! v1.5) and ECIES over X25519 or P-256, with the same four phases as the symmetric
//! catalogue kept apart — key-pair generation, initialisation (a context bound to a
//! key, done once), encryption with the public key and decryption with the private key.
//!
//! The Java stream-security paper timed RSA's public and private operations beside the
//! symmetric ciphers; these are the algorithms a Java program gets from
//! `Cipher.getInstance("RSA/ECB/OAEPWithSHA-256AndMGF1Padding")` and an ECIES of the
//! kind BouncyCastle offers, through OpenSSL (the system libcrypto). Nothing here is
//! hand-written cryptography: RSA, the key agreements and AES-GCM are OpenSSL's, the
//! key derivation is RustCrypto's `hkdf`.
//!
//! ```
//! use cipherlab_ciphers::asym::{AsymSpec, Decryptor, Encryptor, Keypair};
//!
//! let spec = AsymSpec::parse("x25519-ecies")?;
//! let pair = Keypair::generate(spec)?;                     // phase 1
//! let mut enc = Encryptor::new(&pair.public_key()?)?;     // phase 2 (public side)
//! let mut dec = Decryptor::new(&pair)?;                   // phase 2 (private side)
//! let (mut ct, mut pt) = (Vec::new(), Vec::new());
//! enc.encrypt(b"a session key", &mut ct)?;                // phase 3
//! dec.decrypt(&ct, &mut pt)?;                             // phase 4
//! assert_eq!(pt, b"a session key");
//! # Ok::<(), cipherlab_ciphers::asym::AsymError>(())
//! ```

mod ecies;
mod rsa;

use std::fmt;

use openssl::pkey::{PKey, Private, Public};

/// RSA padding schemes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RsaPadding {
    /// OAEP with SHA-256 and MGF1-SHA-256 (RFC 8017 §7.1): the one to use.
    Oaep,
    /// PKCS#1 v1.5 (RFC 8017 §7.2): legacy, open to Bleichenbacher-style oracles.
    Pkcs1,
}

/// Curves for ECIES.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Curve {
    /// Curve25519 in Montgomery form (RFC 7748).
    X25519,
    /// NIST P-256 (secp256r1).
    P256,
}

/// A public-key encryption scheme by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AsymSpec {
    /// RSA with a modulus of `bits` bits.
    Rsa {
        /// Modulus size: 1024, 2048, 3072 or 4096.
        bits: u32,
        /// Encryption padding.
        padding: RsaPadding,
    },
    /// ECIES: an ephemeral key agreement per message, HKDF-SHA-256, AES-256-GCM.
    Ecies(Curve),
}

/// RSA modulus sizes offered (the Java stream-security paper's range).
pub const RSA_BITS: [u32; 4] = [1024, 2048, 3072, 4096];

/// Everything public-key encryption can refuse.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AsymError {
    /// The name matches no scheme.
    #[error(
        "unknown public-key scheme \"{0}\": use rsa-BITS-oaep or rsa-BITS-pkcs1 (BITS 1024, 2048, 3072, 4096), x25519-ecies or p256-ecies"
    )]
    UnknownName(String),
    /// The message does not fit in one RSA block.
    #[error("{spec} encrypts at most {max} bytes per message, got {got}")]
    MessageTooLong {
        /// The scheme.
        spec: String,
        /// Its limit.
        max: usize,
        /// The message length.
        got: usize,
    },
    /// A ciphertext too short or otherwise malformed for the scheme.
    #[error("{spec}: malformed ciphertext ({why})")]
    Malformed {
        /// The scheme.
        spec: String,
        /// What is wrong.
        why: &'static str,
    },
    /// Decryption failed: wrong key or altered ciphertext (deliberately no detail).
    #[error("decryption failed: wrong key or altered ciphertext")]
    Decryption,
    /// OpenSSL refused an operation.
    #[error("OpenSSL: {0}")]
    Backend(String),
}

impl From<openssl::error::ErrorStack> for AsymError {
    fn from(e: openssl::error::ErrorStack) -> AsymError {
        AsymError::Backend(e.to_string())
    }
}

impl AsymSpec {
    /// Parses `rsa-2048-oaep`, `rsa-2048-pkcs1`, `rsa-2048` (OAEP), `x25519-ecies`,
    /// `p256-ecies`.
    pub fn parse(name: &str) -> Result<AsymSpec, AsymError> {
        let lower = name.trim().to_ascii_lowercase();
        let unknown = || AsymError::UnknownName(name.to_string());
        match lower.as_str() {
            "x25519-ecies" | "ecies-x25519" => return Ok(AsymSpec::Ecies(Curve::X25519)),
            "p256-ecies" | "p-256-ecies" | "ecies-p256" => return Ok(AsymSpec::Ecies(Curve::P256)),
            _ => {}
        }
        let rest = lower.strip_prefix("rsa-").ok_or_else(unknown)?;
        let (bits, padding) = match rest.split_once('-') {
            Some((bits, "oaep")) => (bits, RsaPadding::Oaep),
            Some((bits, "pkcs1")) => (bits, RsaPadding::Pkcs1),
            Some(_) => return Err(unknown()),
            None => (rest, RsaPadding::Oaep),
        };
        let bits: u32 = bits.parse().map_err(|_| unknown())?;
        if !RSA_BITS.contains(&bits) {
            return Err(unknown());
        }
        Ok(AsymSpec::Rsa { bits, padding })
    }

    /// Every scheme: RSA at each size with both paddings, then the two ECIES.
    pub fn all() -> Vec<AsymSpec> {
        let mut all: Vec<AsymSpec> = RSA_BITS
            .iter()
            .flat_map(|&bits| {
                [RsaPadding::Oaep, RsaPadding::Pkcs1].map(|padding| AsymSpec::Rsa { bits, padding })
            })
            .collect();
        all.extend([AsymSpec::Ecies(Curve::X25519), AsymSpec::Ecies(Curve::P256)]);
        all
    }

    /// The longest message one call encrypts (RSA: one block; ECIES: unbounded).
    pub fn max_plaintext_len(&self) -> usize {
        match *self {
            AsymSpec::Rsa { bits, padding } => rsa::max_plaintext_len(bits, padding),
            AsymSpec::Ecies(_) => usize::MAX,
        }
    }

    /// The ciphertext length for a `len`-byte message.
    pub fn ciphertext_len(&self, len: usize) -> usize {
        match *self {
            AsymSpec::Rsa { bits, .. } => bits as usize / 8,
            AsymSpec::Ecies(curve) => ecies::overhead(curve) + len,
        }
    }
}

impl fmt::Display for AsymSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AsymSpec::Rsa { bits, padding } => {
                let p = match padding {
                    RsaPadding::Oaep => "oaep",
                    RsaPadding::Pkcs1 => "pkcs1",
                };
                write!(f, "rsa-{bits}-{p}")
            }
            AsymSpec::Ecies(Curve::X25519) => f.write_str("x25519-ecies"),
            AsymSpec::Ecies(Curve::P256) => f.write_str("p256-ecies"),
        }
    }
}

/// A private key with its public half. OpenSSL clears private key material when it
/// frees the key (`BN_clear_free`), so dropping a `Keypair` zeroizes it.
pub struct Keypair {
    spec: AsymSpec,
    pkey: PKey<Private>,
}

/// A public key.
pub struct PublicKey {
    spec: AsymSpec,
    pkey: PKey<Public>,
}

impl Keypair {
    /// Phase 1: a fresh key pair from OpenSSL's generator (seeded by the OS).
    pub fn generate(spec: AsymSpec) -> Result<Keypair, AsymError> {
        let pkey = match spec {
            AsymSpec::Rsa { bits, .. } => rsa::generate(bits)?,
            AsymSpec::Ecies(curve) => ecies::generate(curve)?,
        };
        Ok(Keypair { spec, pkey })
    }

    /// A key pair made elsewhere (another runtime), from its PKCS#8 DER encoding; it must
    /// be the scheme's kind (an RSA modulus of the scheme's bits, an X25519 key, a P-256
    /// key). For checking another implementation's ciphertexts against ours, not for
    /// storing keys.
    pub fn from_pkcs8_der(spec: AsymSpec, der: &[u8]) -> Result<Keypair, AsymError> {
        let pkey = PKey::private_key_from_pkcs8(der)?;
        let fits = match spec {
            AsymSpec::Rsa { bits, .. } => {
                pkey.rsa().map(|r| r.n().num_bits()).ok() == Some(bits as i32)
            }
            AsymSpec::Ecies(Curve::X25519) => pkey.id() == openssl::pkey::Id::X25519,
            AsymSpec::Ecies(Curve::P256) => {
                pkey.ec_key().ok().and_then(|k| k.group().curve_name())
                    == Some(openssl::nid::Nid::X9_62_PRIME256V1)
            }
        };
        if !fits {
            return Err(AsymError::Backend(format!("not a key of {spec}")));
        }
        Ok(Keypair { spec, pkey })
    }

    /// The scheme.
    pub fn spec(&self) -> AsymSpec {
        self.spec
    }

    /// The public half.
    pub fn public_key(&self) -> Result<PublicKey, AsymError> {
        // Through DER: OpenSSL has no cheaper way to drop the private half.
        let der = self.pkey.public_key_to_der()?;
        Ok(PublicKey {
            spec: self.spec,
            pkey: PKey::public_key_from_der(&der)?,
        })
    }
}

impl PublicKey {
    /// The scheme.
    pub fn spec(&self) -> AsymSpec {
        self.spec
    }
}

/// Phase 2 and 3: a context bound to a public key, then any number of encryptions.
pub struct Encryptor(EncryptorInner);

enum EncryptorInner {
    Rsa(rsa::Encryptor),
    Ecies(ecies::Encryptor),
}

impl Encryptor {
    /// Initialisation: binds the key and the padding (OpenSSL's `EVP_PKEY_encrypt_init`,
    /// Java's `Cipher.init(ENCRYPT_MODE, publicKey)`).
    pub fn new(key: &PublicKey) -> Result<Encryptor, AsymError> {
        Ok(Encryptor(match key.spec {
            AsymSpec::Rsa { bits, padding } => {
                EncryptorInner::Rsa(rsa::Encryptor::new(&key.pkey, bits, padding)?)
            }
            AsymSpec::Ecies(curve) => {
                EncryptorInner::Ecies(ecies::Encryptor::new(&key.pkey, curve)?)
            }
        }))
    }

    /// Encrypts `msg`, replacing the contents of `out`; returns the ciphertext length.
    pub fn encrypt(&mut self, msg: &[u8], out: &mut Vec<u8>) -> Result<usize, AsymError> {
        out.clear();
        match &mut self.0 {
            EncryptorInner::Rsa(e) => e.encrypt(msg, out),
            EncryptorInner::Ecies(e) => e.encrypt(msg, out),
        }
    }
}

/// Phase 2 and 4: a context bound to a private key, then any number of decryptions.
pub struct Decryptor(DecryptorInner);

enum DecryptorInner {
    Rsa(rsa::Decryptor),
    Ecies(ecies::Decryptor),
}

impl Decryptor {
    /// Initialisation with the private key.
    pub fn new(pair: &Keypair) -> Result<Decryptor, AsymError> {
        Ok(Decryptor(match pair.spec {
            AsymSpec::Rsa { padding, .. } => {
                DecryptorInner::Rsa(rsa::Decryptor::new(&pair.pkey, pair.spec, padding)?)
            }
            AsymSpec::Ecies(curve) => {
                DecryptorInner::Ecies(ecies::Decryptor::new(&pair.pkey, curve)?)
            }
        }))
    }

    /// Decrypts `ct`, replacing the contents of `out`; returns the message length.
    /// Nothing is left in `out` when decryption fails.
    pub fn decrypt(&mut self, ct: &[u8], out: &mut Vec<u8>) -> Result<usize, AsymError> {
        out.clear();
        let r = match &mut self.0 {
            DecryptorInner::Rsa(d) => d.decrypt(ct, out),
            DecryptorInner::Ecies(d) => d.decrypt(ct, out),
        };
        if r.is_err() {
            zeroize::Zeroize::zeroize(out);
        }
        r
    }
}

#[cfg(test)]
mod tests;
