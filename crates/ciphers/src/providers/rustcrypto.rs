//! The `rustcrypto` provider: RustCrypto crates for everything they have (AES with
//! AES-NI/VAES, DES, 3DES, Blowfish, RC2, RC4, AES-GCM, ChaCha20-Poly1305).

use cipher::{KeyInit, StreamCipher};

use super::aead::AeadCipher;
use super::block_modes::BlockModeCipher;
use super::keystream::{Keystream, KeystreamCipher};
use crate::api::{Cipher, Provider, check_key};
use crate::catalogue::AlgorithmId;
use crate::error::Error;
use crate::spec::{CipherSpec, Mode};

/// RustCrypto's crates.
pub struct RustCrypto;

const NAME: &str = "rustcrypto";

fn key_err(spec: &CipherSpec, key: &[u8]) -> Error {
    Error::KeyLength {
        cipher: spec.to_string(),
        expected: spec.key_len(),
        got: key.len(),
    }
}

fn block<C>(spec: &CipherSpec, key: &[u8]) -> Result<Box<dyn Cipher>, Error>
where
    C: KeyInit
        + cipher::BlockCipherEncrypt
        + cipher::BlockCipherDecrypt
        + super::block_modes::StreamModes
        + Send
        + 'static,
{
    let c = C::new_from_slice(key).map_err(|_| key_err(spec, key))?;
    Ok(Box::new(BlockModeCipher::new(*spec, NAME, c)))
}

fn aead<A: KeyInit + aead::AeadInOut + Send + 'static>(
    spec: &CipherSpec,
    key: &[u8],
) -> Result<Box<dyn Cipher>, Error> {
    let a = A::new_from_slice(key).map_err(|_| key_err(spec, key))?;
    Ok(Box::new(AeadCipher::new(*spec, NAME, a)))
}

/// AES-192-GCM has no alias in aes-gcm.
type Aes192Gcm = aes_gcm::AesGcm<aes::Aes192, aes_gcm::aead::consts::U12>;

impl Provider for RustCrypto {
    fn name(&self) -> &'static str {
        NAME
    }

    fn supports(&self, spec: &CipherSpec) -> bool {
        matches!(
            spec.algorithm.id,
            AlgorithmId::Aes
                | AlgorithmId::Des
                | AlgorithmId::Tdes
                | AlgorithmId::Blowfish
                | AlgorithmId::Rc2
                | AlgorithmId::Rc4
                | AlgorithmId::ChaCha20Poly1305
        )
    }

    fn init(&self, spec: &CipherSpec, key: &[u8]) -> Result<Box<dyn Cipher>, Error> {
        check_key(spec, key)?;
        let gcm = spec.mode == Some(Mode::Gcm);
        match (spec.algorithm.id, spec.key_bits) {
            (AlgorithmId::Aes, 128) if gcm => aead::<aes_gcm::Aes128Gcm>(spec, key),
            (AlgorithmId::Aes, 192) if gcm => aead::<Aes192Gcm>(spec, key),
            (AlgorithmId::Aes, 256) if gcm => aead::<aes_gcm::Aes256Gcm>(spec, key),
            (AlgorithmId::Aes, 128) => block::<aes::Aes128>(spec, key),
            (AlgorithmId::Aes, 192) => block::<aes::Aes192>(spec, key),
            (AlgorithmId::Aes, 256) => block::<aes::Aes256>(spec, key),
            (AlgorithmId::Des, _) => block::<des::Des>(spec, key),
            (AlgorithmId::Tdes, 112) => block::<des::TdesEde2>(spec, key),
            (AlgorithmId::Tdes, _) => block::<des::TdesEde3>(spec, key),
            (AlgorithmId::Blowfish, _) => {
                // The crate's KeyInit takes 4..=56 bytes; Eric Young's vectors also key
                // Blowfish with 1..=3 bytes, which the algorithm allows.
                let c = if (4..=56).contains(&key.len()) {
                    blowfish::Blowfish::new_from_slice(key).map_err(|_| key_err(spec, key))?
                } else if (1..4).contains(&key.len()) {
                    let mut c = blowfish::Blowfish::bc_init_state();
                    c.bc_expand_key(key);
                    c
                } else {
                    return Err(key_err(spec, key));
                };
                Ok(Box::new(BlockModeCipher::new(*spec, NAME, c)))
            }
            (AlgorithmId::Rc2, _) => {
                // The rc2 crate indexes out of bounds (panics) on an empty key, a key
                // over 128 bytes, or 0 effective bits; RFC 2268 allows 1..=128 bytes and
                // 1..=1024 bits. A CipherSpec literal can ask for any of them.
                if !(1..=128).contains(&key.len()) {
                    return Err(Error::KeySize {
                        cipher: "rc2",
                        bits: spec.key_bits,
                        accepted: "8 to 1024 (RFC 2268)".into(),
                    });
                }
                let effective = spec.rc2_effective_bits();
                if effective == 0 {
                    return Err(Error::Provider {
                        provider: NAME,
                        message: "RC2 needs 1 to 1024 effective key bits (RFC 2268), got 0".into(),
                    });
                }
                let c = rc2::Rc2::new_with_eff_key_len(key, usize::from(effective));
                Ok(Box::new(BlockModeCipher::new(*spec, NAME, c)))
            }
            (AlgorithmId::Rc4, _) => Ok(Box::new(KeystreamCipher::new(
                *spec,
                NAME,
                Rc4Rekeyed(zeroize::Zeroizing::new(key.to_vec())),
            ))),
            (AlgorithmId::ChaCha20Poly1305, _) => {
                aead::<chacha20poly1305::ChaCha20Poly1305>(spec, key)
            }
            _ => Err(Error::Unsupported {
                provider: NAME.into(),
                cipher: spec.to_string(),
                available: Vec::new(),
            }),
        }
    }
}

/// RC4 from the `rc4` crate. Its state cannot be cloned, so every message runs the key
/// schedule again: this provider's RC4 "encryption" phase includes key set-up. (The
/// `cipherlab` provider's RC4 keeps the scheduled state and copies it per message.)
struct Rc4Rekeyed(zeroize::Zeroizing<Vec<u8>>);

impl Keystream for Rc4Rekeyed {
    fn apply(&self, data: &mut [u8]) -> Result<(), Error> {
        let mut c = rc4::Rc4::new_from_slice(&self.0).map_err(|_| Error::Provider {
            provider: NAME,
            message: format!("rc4 crate refused a {}-byte key", self.0.len()),
        })?;
        c.apply_keystream(data);
        Ok(())
    }
}
