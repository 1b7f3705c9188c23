//! The `aws-lc` provider: `aws-lc-rs` 1.x over AWS-LC (BoringSSL's descendant, built from
//! C by `aws-lc-sys`). AEADs: AES-128/192/256-GCM and ChaCha20-Poly1305 through the same
//! `LessSafeKey` adapter as `ring`. Unauthenticated AES: ECB, CBC, CFB, CFB8, CFB1, OFB
//! and CTR through `aws_lc_rs::cipher`, whose keys hold the expanded AES key schedules
//! (both directions) and call AWS-LC's `AES_*_encrypt` functions directly: no context,
//! no allocation per message. ECB/CBC padding is the catalogue's PKCS#7 around AWS-LC's
//! unpadded modes.
//!
//! Not offered here: DES and 3DES (behind aws-lc-rs's `legacy-des` feature), because
//! aws-lc-rs rejects weak DES keys and 3DES keys whose parts repeat, which the NIST
//! vectors and OpenSSL accept -- a provider that refuses valid vectors would break the
//! rule that every provider passes the same vectors. It would not be faster either: it
//! is the same C DES code as OpenSSL's.

use aws_lc_rs::cipher::{
    AES_128, AES_192, AES_256, DecryptingKey, DecryptionContext, EncryptingKey, EncryptionContext,
    UnboundCipherKey,
};

use super::ring::{LessSafeAead, SealOpen};
use crate::api::{Cipher, Provider, check_iv_ad, check_key, check_room};
use crate::catalogue::AlgorithmId;
use crate::error::Error;
use crate::padding;
use crate::spec::{CipherSpec, Mode};

/// `aws-lc-rs`.
pub struct AwsLc;

const NAME: &str = "aws-lc";

impl SealOpen for aws_lc_rs::aead::LessSafeKey {
    fn seal(&self, nonce: [u8; 12], ad: &[u8], msg: &mut [u8]) -> Result<[u8; 16], ()> {
        let nonce = aws_lc_rs::aead::Nonce::assume_unique_for_key(nonce);
        let tag = self
            .seal_in_place_separate_tag(nonce, aws_lc_rs::aead::Aad::from(ad), msg)
            .map_err(|_| ())?;
        tag.as_ref().try_into().map_err(|_| ())
    }

    fn open(&self, nonce: [u8; 12], ad: &[u8], ct_and_tag: &mut [u8]) -> Result<usize, ()> {
        let nonce = aws_lc_rs::aead::Nonce::assume_unique_for_key(nonce);
        self.open_in_place(nonce, aws_lc_rs::aead::Aad::from(ad), ct_and_tag)
            .map(|pt| pt.len())
            .map_err(|_| ())
    }
}

fn aead_algorithm(spec: &CipherSpec) -> Option<&'static aws_lc_rs::aead::Algorithm> {
    match (spec.algorithm.id, spec.mode, spec.key_bits) {
        (AlgorithmId::Aes, Some(Mode::Gcm), 128) => Some(&aws_lc_rs::aead::AES_128_GCM),
        (AlgorithmId::Aes, Some(Mode::Gcm), 192) => Some(&aws_lc_rs::aead::AES_192_GCM),
        (AlgorithmId::Aes, Some(Mode::Gcm), 256) => Some(&aws_lc_rs::aead::AES_256_GCM),
        (AlgorithmId::ChaCha20Poly1305, _, _) => Some(&aws_lc_rs::aead::CHACHA20_POLY1305),
        _ => None,
    }
}

fn aes_algorithm(spec: &CipherSpec) -> Option<&'static aws_lc_rs::cipher::Algorithm> {
    match (spec.algorithm.id, spec.mode, spec.key_bits) {
        (AlgorithmId::Aes, Some(Mode::Gcm), _) => None,
        (AlgorithmId::Aes, Some(_), 128) => Some(&AES_128),
        (AlgorithmId::Aes, Some(_), 192) => Some(&AES_192),
        (AlgorithmId::Aes, Some(_), 256) => Some(&AES_256),
        _ => None,
    }
}

fn refused(spec: &CipherSpec) -> Error {
    Error::Provider {
        provider: NAME,
        message: format!("aws-lc-rs refused the key for {spec}"),
    }
}

impl Provider for AwsLc {
    fn name(&self) -> &'static str {
        NAME
    }

    fn supports(&self, spec: &CipherSpec) -> bool {
        aead_algorithm(spec).is_some() || aes_algorithm(spec).is_some()
    }

    fn init(&self, spec: &CipherSpec, key: &[u8]) -> Result<Box<dyn Cipher>, Error> {
        check_key(spec, key)?;
        if let Some(alg) = aead_algorithm(spec) {
            let unbound = aws_lc_rs::aead::UnboundKey::new(alg, key).map_err(|_| refused(spec))?;
            return Ok(Box::new(LessSafeAead::new(
                *spec,
                NAME,
                aws_lc_rs::aead::LessSafeKey::new(unbound),
            )));
        }
        let (Some(alg), Some(mode)) = (aes_algorithm(spec), spec.mode) else {
            return Err(Error::Unsupported {
                provider: NAME.into(),
                cipher: spec.to_string(),
                available: Vec::new(),
            });
        };
        let unbound = || UnboundCipherKey::new(alg, key).map_err(|_| refused(spec));
        let (enc, dec) = match mode {
            Mode::Ecb => (
                EncryptingKey::ecb(unbound()?),
                DecryptingKey::ecb(unbound()?),
            ),
            Mode::Cbc => (
                EncryptingKey::cbc(unbound()?),
                DecryptingKey::cbc(unbound()?),
            ),
            Mode::Cfb => (
                EncryptingKey::cfb128(unbound()?),
                DecryptingKey::cfb128(unbound()?),
            ),
            Mode::Cfb8 => (
                EncryptingKey::cfb8(unbound()?),
                DecryptingKey::cfb8(unbound()?),
            ),
            Mode::Cfb1 => (
                EncryptingKey::cfb1(unbound()?),
                DecryptingKey::cfb1(unbound()?),
            ),
            Mode::Ofb => (
                EncryptingKey::ofb(unbound()?),
                DecryptingKey::ofb(unbound()?),
            ),
            Mode::Ctr => (
                EncryptingKey::ctr(unbound()?),
                DecryptingKey::ctr(unbound()?),
            ),
            Mode::Gcm => return Err(refused(spec)),
        };
        Ok(Box::new(AesCipher {
            spec: *spec,
            enc: enc.map_err(|_| refused(spec))?,
            dec: dec.map_err(|_| refused(spec))?,
        }))
    }
}

/// AES in an unauthenticated mode, both key schedules expanded at `init`.
struct AesCipher {
    spec: CipherSpec,
    enc: EncryptingKey,
    dec: DecryptingKey,
}

fn failed(what: &str) -> Error {
    Error::Provider {
        provider: NAME,
        message: format!("AWS-LC refused to {what}"),
    }
}

impl AesCipher {
    fn iv128(&self, iv: &[u8]) -> Result<Option<[u8; 16]>, Error> {
        if self.spec.mode == Some(Mode::Ecb) {
            return Ok(None);
        }
        iv.try_into().map(Some).map_err(|_| Error::IvLength {
            cipher: self.spec.to_string(),
            expected: 16,
            got: iv.len(),
        })
    }
}

impl Cipher for AesCipher {
    fn spec(&self) -> &CipherSpec {
        &self.spec
    }

    fn provider(&self) -> &'static str {
        NAME
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
        let n = if self.spec.pads() {
            padding::pad(buf, msg_len, 16)
        } else if self.spec.mode.is_some_and(Mode::pads) && !msg_len.is_multiple_of(16) {
            return Err(Error::NotBlockAligned {
                len: msg_len,
                block: 16,
            });
        } else {
            msg_len
        };
        debug_assert_eq!(n, out_len);
        let ctx = match self.iv128(iv)? {
            Some(iv) => EncryptionContext::Iv128(iv.into()),
            None => EncryptionContext::None,
        };
        self.enc
            .less_safe_encrypt(&mut buf[..n], ctx)
            .map_err(|_| failed("encrypt"))?;
        Ok(n)
    }

    fn decrypt(&mut self, iv: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<usize, Error> {
        check_iv_ad(&self.spec, iv, ad)?;
        let block_mode = self.spec.mode.is_some_and(Mode::pads);
        if block_mode && (!buf.len().is_multiple_of(16) || (self.spec.pads() && buf.is_empty())) {
            return Err(Error::NotBlockAligned {
                len: buf.len(),
                block: 16,
            });
        }
        let ctx = match self.iv128(iv)? {
            Some(iv) => DecryptionContext::Iv128(iv.into()),
            None => DecryptionContext::None,
        };
        self.dec.decrypt(buf, ctx).map_err(|_| failed("decrypt"))?;
        if self.spec.pads() {
            padding::unpad(buf, 16)
        } else {
            Ok(buf.len())
        }
    }
}
