//! The `openssl` provider: the system's libcrypto (OpenSSL 3, Debian `libssl-dev`) through
//! the `openssl` crate, for everything OpenSSL has in the catalogue: AES-128/192/256 in
//! ECB, CBC, CFB, CFB8, CFB1, OFB, CTR and GCM; DES (ECB, CBC, CFB, CFB8, CFB1, OFB);
//! 3DES with 168-bit keys (the same modes) and 112-bit keys (ECB, CBC, CFB, OFB);
//! Blowfish and RC2 (ECB, CBC, CFB, OFB) with any key length; RC4; ChaCha20-Poly1305.
//!
//! OpenSSL 3 keeps DES, Blowfish, RC2 and RC4 in its *legacy* provider. It is loaded once,
//! with the *default* provider beside it (loading any provider explicitly turns off the
//! implicit default), and both handles live for the rest of the process. If the legacy
//! provider cannot be loaded, those four algorithms fail at `init` with an error that says
//! so and how to fix it; the rest keep working.
//!
//! Phases: `init` fetches the cipher and runs the key schedule once, into two
//! `EVP_CIPHER_CTX`s (one per direction: AES decryption in ECB/CBC uses another key
//! schedule). Each message re-initialises its context with the IV only
//! (`EVP_CipherInit_ex` with a NULL key keeps the key schedule), so the hot path neither
//! schedules keys nor allocates. ECB and CBC run with OpenSSL's padding switched off and
//! the catalogue's PKCS#7 applied around it -- the same bytes OpenSSL's own padding gives
//! (PKCS#7 both), but it keeps the data in place: EVP's padded decryption holds the last
//! block back and the crate's safe in-place call wants a block of slack after the data.
//! RC4 is the exception to "key schedule once": OpenSSL's RC4 state *is* the keystream
//! position, and the catalogue starts every message at keystream offset 0, so each RC4
//! message re-runs the (allocation-free) key schedule, as the `rustcrypto` provider does.

use std::ffi::c_int;
use std::sync::OnceLock;

use openssl::cipher::Cipher as OsslAlg;
use openssl::cipher_ctx::{CipherCtx, CipherCtxRef};
use openssl::error::ErrorStack;
use openssl::provider::Provider as OsslProvider;
use zeroize::{Zeroize, Zeroizing};

use crate::api::{Cipher, Provider, check_iv_ad, check_key, check_room};
use crate::catalogue::AlgorithmId;
use crate::error::Error;
use crate::padding;
use crate::spec::{CipherSpec, Mode};

/// OpenSSL's libcrypto.
pub struct OpenSsl;

const NAME: &str = "openssl";

/// `EVP_CTRL_SET_RC2_KEY_BITS` from `<openssl/evp.h>` (not exported by `openssl-sys`).
const EVP_CTRL_SET_RC2_KEY_BITS: c_int = 0x3;

/// The provider handles, loaded once and never unloaded.
struct Loaded {
    default: Result<OsslProvider, String>,
    legacy: Result<OsslProvider, String>,
}

fn loaded() -> &'static Loaded {
    static LOADED: OnceLock<Loaded> = OnceLock::new();
    LOADED.get_or_init(|| {
        openssl::init();
        let load = |name: &str| OsslProvider::load(None, name).map_err(|e| e.to_string());
        // Default first: once any provider is loaded explicitly, OpenSSL no longer loads
        // the default one on its own.
        let default = load("default");
        let legacy = load("legacy");
        Loaded { default, legacy }
    })
}

/// Whether OpenSSL 3 keeps the algorithm in its legacy provider.
fn needs_legacy(id: AlgorithmId) -> bool {
    matches!(
        id,
        AlgorithmId::Des | AlgorithmId::Blowfish | AlgorithmId::Rc2 | AlgorithmId::Rc4
    )
}

/// Checks the OpenSSL provider `spec` lives in was loaded, with a fix in the error.
fn ensure_loaded(spec: &CipherSpec) -> Result<(), Error> {
    let l = loaded();
    let (which, result) = if needs_legacy(spec.algorithm.id) {
        ("legacy", &l.legacy)
    } else {
        ("default", &l.default)
    };
    match result {
        Ok(_) => Ok(()),
        Err(e) => Err(Error::Provider {
            provider: NAME,
            message: format!(
                "OpenSSL's {which} provider could not be loaded ({e}), and {spec} needs it. \
                 Install it (Debian: package libssl3, file ossl-modules/{which}.so), or set \
                 OPENSSL_MODULES to the folder that holds {which}.so, or choose another \
                 provider (--provider rustcrypto)"
            ),
        }),
    }
}

/// OpenSSL's name for `spec`, if OpenSSL has it.
fn openssl_name(spec: &CipherSpec) -> Option<String> {
    let mode = spec.mode;
    let m = |mode: Mode| match mode {
        Mode::Ecb => "ECB",
        Mode::Cbc => "CBC",
        Mode::Cfb => "CFB",
        Mode::Cfb8 => "CFB8",
        Mode::Cfb1 => "CFB1",
        Mode::Ofb => "OFB",
        Mode::Ctr => "CTR",
        Mode::Gcm => "GCM",
    };
    let feistel_modes = |mode: Mode| matches!(mode, Mode::Ecb | Mode::Cbc | Mode::Cfb | Mode::Ofb);
    let name = match (spec.algorithm.id, mode) {
        (AlgorithmId::Aes, Some(mode)) if matches!(spec.key_bits, 128 | 192 | 256) => {
            format!("AES-{}-{}", spec.key_bits, m(mode))
        }
        (AlgorithmId::Des, Some(mode)) if mode != Mode::Ctr && mode != Mode::Gcm => {
            format!("DES-{}", m(mode))
        }
        (AlgorithmId::Tdes, Some(mode)) if spec.key_bits == 168 && mode != Mode::Ctr => {
            match mode {
                Mode::Ecb => "DES-EDE3".into(),
                Mode::Gcm => return None,
                _ => format!("DES-EDE3-{}", m(mode)),
            }
        }
        (AlgorithmId::Tdes, Some(mode)) if spec.key_bits == 112 && feistel_modes(mode) => {
            match mode {
                Mode::Ecb => "DES-EDE".into(),
                _ => format!("DES-EDE-{}", m(mode)),
            }
        }
        (AlgorithmId::Blowfish, Some(mode)) if feistel_modes(mode) => format!("BF-{}", m(mode)),
        (AlgorithmId::Rc2, Some(mode)) if feistel_modes(mode) => format!("RC2-{}", m(mode)),
        (AlgorithmId::Rc4, None) => "RC4".into(),
        (AlgorithmId::ChaCha20Poly1305, None) => "ChaCha20-Poly1305".into(),
        _ => return None,
    };
    Some(name)
}

fn ossl_err(e: ErrorStack) -> Error {
    Error::Provider {
        provider: NAME,
        message: format!("libcrypto: {e}"),
    }
}

/// Sets RC2's effective key bits (RFC 2268) on a context whose cipher is set and whose
/// key is not yet: the `openssl` crate has no wrapper for this control.
#[allow(unsafe_code)]
fn set_rc2_key_bits(ctx: &mut CipherCtxRef, bits: u16) -> Result<(), ErrorStack> {
    use foreign_types::ForeignTypeRef;
    // SAFETY: `ctx.as_ptr()` is the live EVP_CIPHER_CTX owned by `ctx` (borrowed mutably
    // for the call), already initialised with an RC2 cipher. EVP_CTRL_SET_RC2_KEY_BITS
    // reads only the integer argument; the pointer argument is unused and may be NULL.
    let r = unsafe {
        openssl_sys::EVP_CIPHER_CTX_ctrl(
            ctx.as_ptr(),
            EVP_CTRL_SET_RC2_KEY_BITS,
            c_int::from(bits),
            std::ptr::null_mut(),
        )
    };
    if r > 0 {
        Ok(())
    } else {
        Err(ErrorStack::get())
    }
}

impl Provider for OpenSsl {
    fn name(&self) -> &'static str {
        NAME
    }

    fn supports(&self, spec: &CipherSpec) -> bool {
        openssl_name(spec).is_some()
    }

    fn available(&self, spec: &CipherSpec) -> Result<(), Error> {
        ensure_loaded(spec)
    }

    fn init(&self, spec: &CipherSpec, key: &[u8]) -> Result<Box<dyn Cipher>, Error> {
        check_key(spec, key)?;
        let Some(name) = openssl_name(spec) else {
            return Err(Error::Unsupported {
                provider: NAME.into(),
                cipher: spec.to_string(),
                available: Vec::new(),
            });
        };
        check_variable_key(spec, key)?;
        ensure_loaded(spec)?;
        let alg = OsslAlg::fetch(None, &name, None).map_err(|e| Error::Provider {
            provider: NAME,
            message: format!(
                "libcrypto has no {name} ({e}); is the OpenSSL 3 legacy provider installed?"
            ),
        })?;
        let kind = match spec.mode {
            Some(Mode::Ecb | Mode::Cbc) => Kind::Blocks,
            _ if spec.is_aead() => Kind::Aead,
            _ if spec.algorithm.id == AlgorithmId::Rc4 => Kind::Rc4,
            _ => Kind::Stream,
        };
        let enc = new_ctx(spec, &alg, key, true)?;
        // RC4 uses one context for both directions (the same keystream).
        let dec = if kind == Kind::Rc4 {
            None
        } else {
            Some(new_ctx(spec, &alg, key, false)?)
        };
        let rc4_key = if kind == Kind::Rc4 {
            Zeroizing::new(key.to_vec())
        } else {
            Zeroizing::new(Vec::new())
        };
        Ok(Box::new(OsslCipher {
            spec: *spec,
            kind,
            enc,
            dec,
            rc4_key,
        }))
    }
}

/// A context with the cipher and key set (IV later, per message).
fn new_ctx(
    spec: &CipherSpec,
    alg: &OsslAlg,
    key: &[u8],
    encrypt: bool,
) -> Result<CipherCtx, Error> {
    let mut ctx = CipherCtx::new().map_err(ossl_err)?;
    let init = |ctx: &mut CipherCtxRef, alg: Option<&OsslAlg>, key: Option<&[u8]>| {
        let alg = alg.map(|a| &**a);
        if encrypt {
            ctx.encrypt_init(alg, key, None)
        } else {
            ctx.decrypt_init(alg, key, None)
        }
    };
    init(&mut ctx, Some(alg), None).map_err(ossl_err)?;
    if ctx.key_length() != key.len() {
        // Blowfish, RC2 and RC4 take keys of any length; the others reject this.
        ctx.set_key_length(key.len()).map_err(|e| Error::Provider {
            provider: NAME,
            message: format!(
                "libcrypto refuses a {}-byte key for {spec} ({e})",
                key.len()
            ),
        })?;
    }
    if spec.algorithm.id == AlgorithmId::Rc2 {
        set_rc2_key_bits(&mut ctx, spec.rc2_effective_bits()).map_err(ossl_err)?;
    }
    init(&mut ctx, None, Some(key)).map_err(ossl_err)?;
    // ECB/CBC padding is the catalogue's (see the module doc).
    ctx.set_padding(false);
    Ok(ctx)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// ECB and CBC: whole blocks, padded by us.
    Blocks,
    /// CFB, CFB8, CFB1, OFB, CTR: any length, IV per message.
    Stream,
    /// GCM and ChaCha20-Poly1305: nonce and AD per message, tag appended.
    Aead,
    /// RC4: re-keyed per message.
    Rc4,
}

struct OsslCipher {
    spec: CipherSpec,
    kind: Kind,
    enc: CipherCtx,
    dec: Option<CipherCtx>,
    rc4_key: Zeroizing<Vec<u8>>,
}

/// Re-initialises `ctx` for a new message with only the IV: the key schedule stays.
fn reiv(ctx: &mut CipherCtxRef, iv: &[u8], encrypt: bool) -> Result<(), Error> {
    if encrypt {
        ctx.encrypt_init(None, None, Some(iv))
    } else {
        ctx.decrypt_init(None, None, Some(iv))
    }
    .map_err(ossl_err)
}

/// The most one libcrypto call is given: its lengths are C `int`s (and the crate panics
/// past `i32::MAX`), so longer input goes in pieces. A multiple of every block size.
const MAX_CALL: usize = 1 << 30;

/// Runs `data` through `ctx` in place. For block modes (`bs > 1`) `data` is whole
/// blocks: all but the last go in place; the last goes through a stack buffer, because
/// the crate's safe in-place call wants a block of room after the input.
fn update(ctx: &mut CipherCtxRef, data: &mut [u8], bs: usize) -> Result<(), Error> {
    let len = data.len();
    if len == 0 {
        return Ok(());
    }
    let head = if bs <= 1 { len } else { len - bs };
    let mut written = 0;
    let mut off = 0;
    while off < head {
        let n = (head - off).min(MAX_CALL);
        // `data[off..]` holds at least `n + bs` bytes, the room the call checks for.
        written += ctx
            .cipher_update_inplace(&mut data[off..], n)
            .map_err(ossl_err)?;
        off += n;
    }
    if bs > 1 {
        let mut last = [0u8; 32];
        last[..bs].copy_from_slice(&data[head..]);
        written += ctx.cipher_update_inplace(&mut last, bs).map_err(ossl_err)?;
        data[head..].copy_from_slice(&last[..bs]);
        last.zeroize();
    }
    if written != len {
        return Err(Error::Provider {
            provider: NAME,
            message: format!("libcrypto returned {written} bytes for {len}"),
        });
    }
    Ok(())
}

/// Feeds associated data to an AEAD context, in pieces libcrypto's `int` can count.
fn aad(ctx: &mut CipherCtxRef, ad: &[u8]) -> Result<(), Error> {
    for piece in ad.chunks(MAX_CALL) {
        ctx.cipher_update(piece, None).map_err(ossl_err)?;
    }
    Ok(())
}

/// Refuses key lengths libcrypto would misbehave on (an empty RC4 key divides by zero,
/// an empty Blowfish or RC2 key is read past its end) or silently truncate, keeping the
/// limits the other providers keep.
fn check_variable_key(spec: &CipherSpec, key: &[u8]) -> Result<(), Error> {
    let (range, accepted) = match spec.algorithm.id {
        AlgorithmId::Blowfish => (1..=56, "8 to 448"),
        AlgorithmId::Rc2 => (1..=128, "8 to 1024 (RFC 2268)"),
        AlgorithmId::Rc4 => (1..=256, "8 to 2048"),
        _ => return Ok(()),
    };
    if !range.contains(&key.len()) {
        return Err(Error::KeySize {
            cipher: spec.algorithm.name,
            bits: spec.key_bits,
            accepted: accepted.into(),
        });
    }
    if spec.algorithm.id == AlgorithmId::Rc2 && spec.rc2_effective_bits() == 0 {
        return Err(Error::Provider {
            provider: NAME,
            message: format!("{spec}: 0 effective key bits; RC2 takes 1 to 1024 (RFC 2268)"),
        });
    }
    Ok(())
}

impl OsslCipher {
    fn dec_ctx(&mut self) -> &mut CipherCtxRef {
        match &mut self.dec {
            Some(d) => d,
            None => &mut self.enc,
        }
    }

    fn rc4(&mut self, data: &mut [u8]) -> Result<(), Error> {
        self.enc
            .encrypt_init(None, Some(&self.rc4_key), None)
            .map_err(ossl_err)?;
        update(&mut self.enc, data, 1)
    }
}

impl Cipher for OsslCipher {
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
        match self.kind {
            Kind::Blocks => {
                let bs = self.spec.algorithm.block_bytes;
                let n = if self.spec.pads() {
                    padding::pad(buf, msg_len, bs)
                } else if msg_len.is_multiple_of(bs) {
                    msg_len
                } else {
                    return Err(Error::NotBlockAligned {
                        len: msg_len,
                        block: bs,
                    });
                };
                // ECB keeps no state between messages (whole blocks, no padding in EVP).
                if !iv.is_empty() {
                    reiv(&mut self.enc, iv, true)?;
                }
                update(&mut self.enc, &mut buf[..n], bs)?;
                Ok(n)
            }
            Kind::Stream => {
                reiv(&mut self.enc, iv, true)?;
                update(&mut self.enc, &mut buf[..msg_len], 1)?;
                Ok(out_len)
            }
            Kind::Rc4 => {
                self.rc4(&mut buf[..msg_len])?;
                Ok(out_len)
            }
            Kind::Aead => {
                let ctx = &mut self.enc;
                reiv(ctx, iv, true)?;
                aad(ctx, ad)?;
                let (msg, rest) = buf.split_at_mut(msg_len);
                update(ctx, msg, 1)?;
                let mut none = [0u8; 16];
                ctx.cipher_final(&mut none).map_err(ossl_err)?;
                let tag_len = self.spec.tag_len();
                ctx.tag(&mut rest[..tag_len]).map_err(ossl_err)?;
                Ok(out_len)
            }
        }
    }

    fn decrypt(&mut self, iv: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<usize, Error> {
        check_iv_ad(&self.spec, iv, ad)?;
        match self.kind {
            Kind::Blocks => {
                let bs = self.spec.algorithm.block_bytes;
                if !buf.len().is_multiple_of(bs) || (self.spec.pads() && buf.is_empty()) {
                    return Err(Error::NotBlockAligned {
                        len: buf.len(),
                        block: bs,
                    });
                }
                let ctx = self.dec_ctx();
                if !iv.is_empty() {
                    reiv(ctx, iv, false)?;
                }
                update(ctx, buf, bs)?;
                if self.spec.pads() {
                    padding::unpad(buf, bs)
                } else {
                    Ok(buf.len())
                }
            }
            Kind::Stream => {
                let ctx = self.dec_ctx();
                reiv(ctx, iv, false)?;
                update(ctx, buf, 1)?;
                Ok(buf.len())
            }
            Kind::Rc4 => {
                self.rc4(buf)?;
                Ok(buf.len())
            }
            Kind::Aead => {
                let tag_len = self.spec.tag_len();
                let Some(ct_len) = buf.len().checked_sub(tag_len) else {
                    buf.zeroize();
                    return Err(Error::Authentication);
                };
                let ctx = self.dec_ctx();
                let result = (|| {
                    reiv(ctx, iv, false)?;
                    let (ct, tag) = buf.split_at_mut(ct_len);
                    ctx.set_tag(tag).map_err(ossl_err)?;
                    aad(ctx, ad)?;
                    update(ctx, ct, 1)?;
                    let mut none = [0u8; 16];
                    ctx.cipher_final(&mut none)
                        .map_err(|_| Error::Authentication)
                })();
                match result {
                    Ok(_) => Ok(ct_len),
                    Err(e) => {
                        buf.zeroize();
                        // Anything failing here (a bad tag, or libcrypto refusing the
                        // input) releases no plaintext; only a bad tag is reported as such.
                        Err(e)
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::example_names;

    /// Every name `supports` claims resolves in libcrypto (legacy provider included).
    #[test]
    fn every_supported_name_fetches() {
        let mut n = 0;
        for name in example_names() {
            let Ok(spec) = CipherSpec::parse(&name) else {
                continue;
            };
            if let Some(ossl) = openssl_name(&spec) {
                assert!(ensure_loaded(&spec).is_ok(), "{spec}: provider not loaded");
                assert!(OsslAlg::fetch(None, &ossl, None).is_ok(), "{spec}: {ossl}");
                n += 1;
            }
        }
        println!("openssl: {n} catalogue names resolve in libcrypto");
        assert!(n > 60, "{n}");
    }
}
