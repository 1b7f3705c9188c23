//! RSA encryption through OpenSSL's EVP_PKEY interface.

use openssl::md::Md;
use openssl::pkey::{PKey, PKeyRef, Private, Public};
use openssl::pkey_ctx::PkeyCtx;
use openssl::rsa::{Padding, Rsa};

use super::{AsymError, AsymSpec, RsaPadding};

/// OAEP with SHA-256 spends 2 x 32 + 2 bytes of the block (RFC 8017 §7.1.1); PKCS#1
/// v1.5 spends 11 (§7.2.1).
pub(super) fn max_plaintext_len(bits: u32, padding: RsaPadding) -> usize {
    let k = bits as usize / 8;
    match padding {
        RsaPadding::Oaep => k - 2 * 32 - 2,
        RsaPadding::Pkcs1 => k - 11,
    }
}

/// A key with public exponent 65537, as every toolkit's default.
pub(super) fn generate(bits: u32) -> Result<PKey<Private>, AsymError> {
    Ok(PKey::from_rsa(Rsa::generate(bits)?)?)
}

fn set_padding<T>(ctx: &mut PkeyCtx<T>, padding: RsaPadding) -> Result<(), AsymError> {
    match padding {
        RsaPadding::Oaep => {
            ctx.set_rsa_padding(Padding::PKCS1_OAEP)?;
            ctx.set_rsa_oaep_md(Md::sha256())?;
            ctx.set_rsa_mgf1_md(Md::sha256())?;
        }
        RsaPadding::Pkcs1 => ctx.set_rsa_padding(Padding::PKCS1)?,
    }
    Ok(())
}

pub(super) struct Encryptor {
    ctx: PkeyCtx<Public>,
    spec: AsymSpec,
    max: usize,
}

impl Encryptor {
    pub(super) fn new(
        key: &PKeyRef<Public>,
        bits: u32,
        padding: RsaPadding,
    ) -> Result<Encryptor, AsymError> {
        let mut ctx = PkeyCtx::new(key)?;
        ctx.encrypt_init()?;
        set_padding(&mut ctx, padding)?;
        Ok(Encryptor {
            ctx,
            spec: AsymSpec::Rsa { bits, padding },
            max: max_plaintext_len(bits, padding),
        })
    }

    pub(super) fn encrypt(&mut self, msg: &[u8], out: &mut Vec<u8>) -> Result<usize, AsymError> {
        if msg.len() > self.max {
            return Err(AsymError::MessageTooLong {
                spec: self.spec.to_string(),
                max: self.max,
                got: msg.len(),
            });
        }
        Ok(self.ctx.encrypt_to_vec(msg, out)?)
    }
}

pub(super) struct Decryptor {
    ctx: PkeyCtx<Private>,
    spec: AsymSpec,
}

impl Decryptor {
    pub(super) fn new(
        key: &PKeyRef<Private>,
        spec: AsymSpec,
        padding: RsaPadding,
    ) -> Result<Decryptor, AsymError> {
        let mut ctx = PkeyCtx::new(key)?;
        ctx.decrypt_init()?;
        set_padding(&mut ctx, padding)?;
        Ok(Decryptor { ctx, spec })
    }

    pub(super) fn decrypt(&mut self, ct: &[u8], out: &mut Vec<u8>) -> Result<usize, AsymError> {
        let AsymSpec::Rsa { bits, .. } = self.spec else {
            unreachable!("an RSA decryptor holds an RSA spec")
        };
        if ct.len() != bits as usize / 8 {
            return Err(AsymError::Malformed {
                spec: self.spec.to_string(),
                why: "length is not the modulus size",
            });
        }
        // OpenSSL's error text would say which padding check failed; keep it opaque.
        self.ctx
            .decrypt_to_vec(ct, out)
            .map_err(|_| AsymError::Decryption)
    }
}
