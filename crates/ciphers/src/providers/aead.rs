//! Any RustCrypto `aead` 0.6 type behind the catalogue's [`Cipher`] API: the tag is
//! appended to the ciphertext, and a failed tag wipes the whole buffer.

use aead::{AeadInOut, Nonce, Tag};
use zeroize::Zeroize;

use crate::api::{Cipher, check_iv_ad, check_room};
use crate::error::Error;
use crate::spec::CipherSpec;

/// An initialised AEAD (the key schedule lives inside `A`).
pub(crate) struct AeadCipher<A> {
    spec: CipherSpec,
    provider: &'static str,
    aead: A,
}

impl<A> AeadCipher<A> {
    pub(crate) fn new(spec: CipherSpec, provider: &'static str, aead: A) -> Self {
        AeadCipher {
            spec,
            provider,
            aead,
        }
    }

    /// The initialised AEAD.
    pub(crate) fn aead(&self) -> &A {
        &self.aead
    }
}

impl<A: AeadInOut + Send> Cipher for AeadCipher<A> {
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
        let nonce = Nonce::<A>::try_from(iv).map_err(|_| Error::IvLength {
            cipher: self.spec.to_string(),
            expected: self.spec.iv_len(),
            got: iv.len(),
        })?;
        let (msg, rest) = buf.split_at_mut(msg_len);
        let tag = self
            .aead
            .encrypt_inout_detached(&nonce, ad, msg.into())
            .map_err(|_| Error::Provider {
                provider: self.provider,
                message: "message or associated data too long".into(),
            })?;
        rest[..tag.len()].copy_from_slice(&tag);
        Ok(out_len)
    }

    fn decrypt(&mut self, iv: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<usize, Error> {
        check_iv_ad(&self.spec, iv, ad)?;
        let nonce = Nonce::<A>::try_from(iv).map_err(|_| Error::IvLength {
            cipher: self.spec.to_string(),
            expected: self.spec.iv_len(),
            got: iv.len(),
        })?;
        let tag_len = self.spec.tag_len();
        let Some(ct_len) = buf.len().checked_sub(tag_len) else {
            buf.zeroize();
            return Err(Error::Authentication);
        };
        let (ct, tag) = buf.split_at_mut(ct_len);
        let tag = Tag::<A>::try_from(&*tag).map_err(|_| Error::Authentication)?;
        match self
            .aead
            .decrypt_inout_detached(&nonce, ad, ct.into(), &tag)
        {
            Ok(()) => Ok(ct_len),
            Err(_) => {
                buf.zeroize();
                Err(Error::Authentication)
            }
        }
    }
}
