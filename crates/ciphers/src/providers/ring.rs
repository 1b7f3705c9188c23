//! The `ring` provider: `ring` 0.17's AEADs -- AES-128-GCM, AES-256-GCM (AES-NI/VAES +
//! PCLMUL/VPCLMUL assembly from BoringSSL) and ChaCha20-Poly1305 (AVX2 assembly).
//!
//! Also home of [`LessSafeAead`], the adapter shared with the `aws-lc` provider: both
//! crates offer the same `LessSafeKey` API (nonce per call, tag separate), and both keep
//! the expanded key in the key object, so `init` schedules once and every message is a
//! single allocation-free call.

use zeroize::Zeroize;

use crate::api::{Cipher, Provider, check_iv_ad, check_key, check_room};
use crate::catalogue::AlgorithmId;
use crate::error::Error;
use crate::spec::{CipherSpec, Mode};

/// `ring`'s AEADs.
pub struct Ring;

const NAME: &str = "ring";

/// What the adapter needs from a `LessSafeKey`: seal in place returning the 16-byte
/// tag, open in place (ciphertext then tag) returning the plaintext length.
pub(super) trait SealOpen: Send {
    /// Encrypts `msg` in place; returns the tag.
    fn seal(&self, nonce: [u8; 12], ad: &[u8], msg: &mut [u8]) -> Result<[u8; 16], ()>;
    /// Decrypts and verifies `ct_and_tag` in place; returns the plaintext length.
    fn open(&self, nonce: [u8; 12], ad: &[u8], ct_and_tag: &mut [u8]) -> Result<usize, ()>;
}

impl SealOpen for ring::aead::LessSafeKey {
    fn seal(&self, nonce: [u8; 12], ad: &[u8], msg: &mut [u8]) -> Result<[u8; 16], ()> {
        let nonce = ring::aead::Nonce::assume_unique_for_key(nonce);
        let tag = self
            .seal_in_place_separate_tag(nonce, ring::aead::Aad::from(ad), msg)
            .map_err(|_| ())?;
        tag.as_ref().try_into().map_err(|_| ())
    }

    fn open(&self, nonce: [u8; 12], ad: &[u8], ct_and_tag: &mut [u8]) -> Result<usize, ()> {
        let nonce = ring::aead::Nonce::assume_unique_for_key(nonce);
        self.open_in_place(nonce, ring::aead::Aad::from(ad), ct_and_tag)
            .map(|pt| pt.len())
            .map_err(|_| ())
    }
}

/// An initialised `LessSafeKey` behind the catalogue's [`Cipher`] API.
pub(super) struct LessSafeAead<K> {
    spec: CipherSpec,
    provider: &'static str,
    key: K,
}

impl<K> LessSafeAead<K> {
    pub(super) fn new(spec: CipherSpec, provider: &'static str, key: K) -> Self {
        LessSafeAead {
            spec,
            provider,
            key,
        }
    }

    fn nonce(&self, iv: &[u8]) -> Result<[u8; 12], Error> {
        iv.try_into().map_err(|_| Error::IvLength {
            cipher: self.spec.to_string(),
            expected: self.spec.iv_len(),
            got: iv.len(),
        })
    }
}

impl<K: SealOpen> Cipher for LessSafeAead<K> {
    fn spec(&self) -> &CipherSpec {
        &self.spec
    }

    fn provider(&self) -> &'static str {
        self.provider
    }

    fn encrypt(
        &mut self,
        iv: &[u8],
        ad: &[u8],
        buf: &mut [u8],
        msg_len: usize,
    ) -> Result<usize, Error> {
        check_iv_ad(&self.spec, iv, ad)?;
        let out_len = check_room(&self.spec, buf, msg_len)?;
        let nonce = self.nonce(iv)?;
        let (msg, rest) = buf.split_at_mut(msg_len);
        let tag = self
            .key
            .seal(nonce, ad, msg)
            .map_err(|()| Error::Provider {
                provider: self.provider,
                message: "message or associated data too long".into(),
            })?;
        rest[..tag.len()].copy_from_slice(&tag);
        Ok(out_len)
    }

    fn decrypt(&mut self, iv: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<usize, Error> {
        check_iv_ad(&self.spec, iv, ad)?;
        let nonce = self.nonce(iv)?;
        match self.key.open(nonce, ad, buf) {
            Ok(n) => Ok(n),
            Err(()) => {
                buf.zeroize();
                Err(Error::Authentication)
            }
        }
    }
}

fn algorithm(spec: &CipherSpec) -> Option<&'static ring::aead::Algorithm> {
    match (spec.algorithm.id, spec.mode, spec.key_bits) {
        (AlgorithmId::Aes, Some(Mode::Gcm), 128) => Some(&ring::aead::AES_128_GCM),
        (AlgorithmId::Aes, Some(Mode::Gcm), 256) => Some(&ring::aead::AES_256_GCM),
        (AlgorithmId::ChaCha20Poly1305, _, _) => Some(&ring::aead::CHACHA20_POLY1305),
        _ => None,
    }
}

impl Provider for Ring {
    fn name(&self) -> &'static str {
        NAME
    }

    fn supports(&self, spec: &CipherSpec) -> bool {
        algorithm(spec).is_some()
    }

    fn init(&self, spec: &CipherSpec, key: &[u8]) -> Result<Box<dyn Cipher>, Error> {
        check_key(spec, key)?;
        let alg = algorithm(spec).ok_or_else(|| Error::Unsupported {
            provider: NAME.into(),
            cipher: spec.to_string(),
            available: Vec::new(),
        })?;
        let unbound = ring::aead::UnboundKey::new(alg, key).map_err(|_| Error::KeyLength {
            cipher: spec.to_string(),
            expected: alg.key_len(),
            got: key.len(),
        })?;
        Ok(Box::new(LessSafeAead::new(
            *spec,
            NAME,
            ring::aead::LessSafeKey::new(unbound),
        )))
    }
}
