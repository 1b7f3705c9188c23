//! The constructors of our own implementations, which the catalogue's descriptors name
//! ([`crate::catalogue::Algorithm::ours`]) and the `cipherlab` provider calls.

use cipher::KeyInit;

use super::aead::AeadCipher;
use super::block_modes::BlockModeCipher;
use super::cipherlab::NAME;
use super::keystream::{Keystream, KeystreamCipher};
use crate::api::Cipher;
use crate::error::Error;
use crate::rc4::Rc4Key;
use crate::spec::CipherSpec;

fn key_length(spec: &CipherSpec, got: usize) -> Error {
    Error::KeyLength {
        cipher: spec.to_string(),
        expected: spec.key_len(),
        got,
    }
}

/// A lightweight AEAD of `cipherlab-lwc`.
pub(crate) fn lwc<A: aead::KeyInit + aead::AeadInOut + Send + 'static>(
    spec: &CipherSpec,
    key: &[u8],
) -> Result<Box<dyn Cipher>, Error> {
    let a = A::new_from_slice(key).map_err(|_| key_length(spec, key.len()))?;
    Ok(Box::new(AeadCipher::new(*spec, NAME, a)))
}

/// Skipjack in any block mode.
pub(crate) fn skipjack(spec: &CipherSpec, key: &[u8]) -> Result<Box<dyn Cipher>, Error> {
    let c =
        crate::skipjack::Skipjack::new_from_slice(key).map_err(|_| key_length(spec, key.len()))?;
    Ok(Box::new(BlockModeCipher::new(*spec, NAME, c)))
}

/// RC4, its key scheduled once.
pub(crate) fn rc4(spec: &CipherSpec, key: &[u8]) -> Result<Box<dyn Cipher>, Error> {
    let k = Rc4Key::new(key).ok_or_else(|| key_length(spec, key.len()))?;
    Ok(Box::new(KeystreamCipher::new(*spec, NAME, k)))
}

/// RC4 with its key scheduled once; each message starts from a copy of the schedule.
impl Keystream for Rc4Key {
    fn apply(&self, data: &mut [u8]) -> Result<(), Error> {
        self.apply_keystream_vartime(data);
        Ok(())
    }
}
