//! The `cipherlab` provider: what we wrote ourselves -- the lightweight AEADs of
//! `cipherlab-lwc`, Skipjack, and RC4 with a reusable key schedule.

use cipher::KeyInit;

use super::aead::AeadCipher;
use super::block_modes::BlockModeCipher;
use super::keystream::{Keystream, KeystreamCipher};
use crate::api::{Cipher, Provider, check_key};
use crate::catalogue::AlgorithmId;
use crate::error::Error;
use crate::rc4::Rc4Key;
use crate::spec::CipherSpec;

/// Our own implementations.
pub struct Cipherlab;

const NAME: &str = "cipherlab";

fn lwc<A: aead::KeyInit + aead::AeadInOut + Send + 'static>(
    spec: &CipherSpec,
    key: &[u8],
) -> Result<Box<dyn Cipher>, Error> {
    let a = A::new_from_slice(key).map_err(|_| Error::KeyLength {
        cipher: spec.to_string(),
        expected: spec.key_len(),
        got: key.len(),
    })?;
    Ok(Box::new(AeadCipher::new(*spec, NAME, a)))
}

impl Provider for Cipherlab {
    fn name(&self) -> &'static str {
        NAME
    }

    fn supports(&self, spec: &CipherSpec) -> bool {
        !matches!(
            spec.algorithm.id,
            AlgorithmId::Aes
                | AlgorithmId::Des
                | AlgorithmId::Tdes
                | AlgorithmId::Blowfish
                | AlgorithmId::Rc2
                | AlgorithmId::ChaCha20Poly1305
        )
    }

    fn init(&self, spec: &CipherSpec, key: &[u8]) -> Result<Box<dyn Cipher>, Error> {
        check_key(spec, key)?;
        use cipherlab_lwc as l;
        match spec.algorithm.id {
            AlgorithmId::AsconAead128 => lwc::<l::AsconAead128>(spec, key),
            AlgorithmId::Ascon128 => lwc::<l::Ascon128>(spec, key),
            AlgorithmId::Ascon128a => lwc::<l::Ascon128a>(spec, key),
            AlgorithmId::Ascon80pq => lwc::<l::Ascon80pq>(spec, key),
            AlgorithmId::Xoodyak => lwc::<l::Xoodyak>(spec, key),
            AlgorithmId::IsapA128a => lwc::<l::IsapA128a>(spec, key),
            AlgorithmId::IsapA128 => lwc::<l::IsapA128>(spec, key),
            AlgorithmId::IsapK128a => lwc::<l::IsapK128a>(spec, key),
            AlgorithmId::IsapK128 => lwc::<l::IsapK128>(spec, key),
            AlgorithmId::Skipjack => {
                let c = crate::skipjack::Skipjack::new_from_slice(key).map_err(|_| {
                    Error::KeyLength {
                        cipher: spec.to_string(),
                        expected: 10,
                        got: key.len(),
                    }
                })?;
                Ok(Box::new(BlockModeCipher::new(*spec, NAME, c)))
            }
            AlgorithmId::Rc4 => {
                let k = Rc4Key::new(key).ok_or_else(|| Error::KeyLength {
                    cipher: spec.to_string(),
                    expected: spec.key_len(),
                    got: key.len(),
                })?;
                Ok(Box::new(KeystreamCipher::new(*spec, NAME, k)))
            }
            _ => Err(Error::Unsupported {
                provider: NAME.into(),
                cipher: spec.to_string(),
                available: Vec::new(),
            }),
        }
    }
}

/// RC4 with its key scheduled once; each message starts from a copy of the schedule.
impl Keystream for Rc4Key {
    fn apply(&self, data: &mut [u8]) -> Result<(), Error> {
        self.apply_keystream_vartime(data);
        Ok(())
    }
}
