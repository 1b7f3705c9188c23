//! What encrypts and decrypts behind the Python classes: one trait, two implementations.
//!
//! * [`Lwc`]: a lightweight AEAD of `cipherlab-lwc`, called through its RustCrypto
//!   `AeadInOut` API, which reads the input and writes the output in one pass (no copy
//!   of the message first) and needs only `&self`, so one object serves any number of
//!   threads at once.
//! * [`Pool`]: any cipher of the catalogue (`providers::init`, the fastest correct
//!   provider), whose [`cipherlab_ciphers::Cipher`] works in place and needs `&mut self`:
//!   a call takes an initialised cipher from a small pool (or schedules the key once more
//!   when every one is busy in another thread) and puts it back after.

use std::sync::Mutex;

use cipherlab_ciphers::{Cipher, CipherSpec, Error, providers};
use cipherlab_lwc::aead::inout::InOutBuf;
use cipherlab_lwc::aead::{AeadInOut, KeyInit, Nonce, Tag};
use zeroize::Zeroizing;

/// Where a call's input is.
#[derive(Clone, Copy)]
pub enum Src<'a> {
    /// A separate slice.
    Slice(&'a [u8]),
    /// Already in the output buffer.
    InPlace,
}

/// One keyed cipher, shared by threads.
pub trait Engine: Send + Sync {
    /// What it is.
    fn spec(&self) -> &CipherSpec;

    /// Encrypts the message (`src`, or `out[..out.len() - overhead]` in place) into `out`,
    /// whose length the caller made [`CipherSpec::output_len`] of the message's; returns
    /// the output length.
    fn seal(
        &self,
        iv: &[u8],
        ad: &[u8],
        src: Src<'_>,
        msg_len: usize,
        out: &mut [u8],
    ) -> Result<usize, Error>;

    /// Decrypts `src` (or the whole of `out`, in place) into the front of `out`; returns
    /// the plaintext length. On failure the output holds no plaintext.
    fn open(&self, iv: &[u8], ad: &[u8], src: Src<'_>, out: &mut [u8]) -> Result<usize, Error>;
}

/// A lightweight AEAD of `cipherlab-lwc` (key zeroized on drop by the type itself).
pub struct Lwc<A> {
    spec: CipherSpec,
    aead: A,
}

impl<A: AeadInOut + KeyInit> Lwc<A> {
    /// Keys it; the spec comes from the class's catalogue descriptor.
    pub fn new(spec: CipherSpec, key: &[u8]) -> Result<Self, Error> {
        let aead = A::new_from_slice(key).map_err(|_| Error::KeyLength {
            cipher: spec.to_string(),
            expected: spec.key_len(),
            got: key.len(),
        })?;
        Ok(Lwc { spec, aead })
    }

    fn nonce(&self, iv: &[u8]) -> Result<Nonce<A>, Error> {
        Nonce::<A>::try_from(iv).map_err(|_| Error::IvLength {
            cipher: self.spec.to_string(),
            expected: self.spec.iv_len(),
            got: iv.len(),
        })
    }
}

impl<A: AeadInOut + KeyInit + Send + Sync> Engine for Lwc<A> {
    fn spec(&self) -> &CipherSpec {
        &self.spec
    }

    fn seal(
        &self,
        iv: &[u8],
        ad: &[u8],
        src: Src<'_>,
        msg_len: usize,
        out: &mut [u8],
    ) -> Result<usize, Error> {
        let nonce = self.nonce(iv)?;
        let tag_len = self.spec.tag_len();
        let (msg, tag_out) = out.split_at_mut(msg_len);
        let buf = match src {
            Src::Slice(input) => {
                InOutBuf::new(input, msg).map_err(|_| room(msg_len + tag_len, msg_len))?
            }
            Src::InPlace => InOutBuf::from(msg),
        };
        let tag = self
            .aead
            .encrypt_inout_detached(&nonce, ad, buf)
            .map_err(|_| Error::Provider {
                provider: "cipherlab",
                message: "message or associated data too long".into(),
            })?;
        tag_out[..tag_len].copy_from_slice(&tag);
        Ok(msg_len + tag_len)
    }

    fn open(&self, iv: &[u8], ad: &[u8], src: Src<'_>, out: &mut [u8]) -> Result<usize, Error> {
        let nonce = self.nonce(iv)?;
        let tag_len = self.spec.tag_len();
        match src {
            Src::Slice(input) => {
                let ct_len = input
                    .len()
                    .checked_sub(tag_len)
                    .ok_or(Error::Authentication)?;
                let (ct, tag) = input.split_at(ct_len);
                let tag = Tag::<A>::try_from(tag).map_err(|_| Error::Authentication)?;
                let have = out.len();
                let out = out.get_mut(..ct_len).ok_or_else(|| room(ct_len, have))?;
                let buf = InOutBuf::new(ct, out).map_err(|_| room(ct_len, ct_len))?;
                self.aead
                    .decrypt_inout_detached(&nonce, ad, buf, &tag)
                    .map_err(|_| Error::Authentication)?;
                Ok(ct_len)
            }
            Src::InPlace => {
                let ct_len = out
                    .len()
                    .checked_sub(tag_len)
                    .ok_or(Error::Authentication)?;
                let (ct, tag) = out.split_at_mut(ct_len);
                let tag = Tag::<A>::try_from(&*tag).map_err(|_| Error::Authentication)?;
                self.aead
                    .decrypt_inout_detached(&nonce, ad, InOutBuf::from(ct), &tag)
                    .map_err(|_| Error::Authentication)?;
                Ok(ct_len)
            }
        }
    }
}

fn room(need: usize, have: usize) -> Error {
    Error::BufferTooSmall { need, have }
}

/// Any catalogue cipher, initialised ciphers pooled for concurrent calls.
pub struct Pool {
    spec: CipherSpec,
    key: Zeroizing<Vec<u8>>,
    provider: Option<String>,
    free: Mutex<Vec<Box<dyn Cipher>>>,
}

/// At most this many idle ciphers are kept (one per thread that used the object at once).
const MAX_IDLE: usize = 16;

impl Pool {
    /// Initialises `spec` with `key` through `provider` (default: the fastest correct one).
    pub fn new(spec: CipherSpec, key: &[u8], provider: Option<&str>) -> Result<Self, Error> {
        let first = providers::init(&spec, key, provider)?;
        Ok(Pool {
            spec,
            key: Zeroizing::new(key.to_vec()),
            provider: provider.map(str::to_string),
            free: Mutex::new(vec![first]),
        })
    }

    /// The provider that serves it.
    pub fn provider(&self) -> String {
        match self.free.lock() {
            Ok(free) => free.first().map(|c| c.provider().to_string()),
            Err(_) => None,
        }
        .or_else(|| self.provider.clone())
        .unwrap_or_else(|| "default".into())
    }

    fn with<T>(&self, work: impl FnOnce(&mut dyn Cipher) -> Result<T, Error>) -> Result<T, Error> {
        let idle = self.free.lock().ok().and_then(|mut free| free.pop());
        let mut cipher = match idle {
            Some(c) => c,
            None => providers::init(&self.spec, &self.key, self.provider.as_deref())?,
        };
        let result = work(cipher.as_mut());
        if let Ok(mut free) = self.free.lock()
            && free.len() < MAX_IDLE
        {
            free.push(cipher);
        }
        result
    }
}

impl Engine for Pool {
    fn spec(&self) -> &CipherSpec {
        &self.spec
    }

    fn seal(
        &self,
        iv: &[u8],
        ad: &[u8],
        src: Src<'_>,
        msg_len: usize,
        out: &mut [u8],
    ) -> Result<usize, Error> {
        if let Src::Slice(input) = src {
            let have = out.len();
            out.get_mut(..msg_len)
                .ok_or_else(|| room(msg_len, have))?
                .copy_from_slice(input);
        }
        self.with(|c| c.encrypt(iv, ad, out, msg_len))
    }

    fn open(&self, iv: &[u8], ad: &[u8], src: Src<'_>, out: &mut [u8]) -> Result<usize, Error> {
        match src {
            Src::InPlace => self.with(|c| c.decrypt(iv, ad, out)),
            Src::Slice(input) => {
                // The catalogue decrypts in place, and ciphertext (with its tag or padding) is
                // longer than the plaintext: decrypt a copy, then hand over the plaintext.
                let mut scratch = Zeroizing::new(input.to_vec());
                let n = self.with(|c| c.decrypt(iv, ad, &mut scratch))?;
                let have = out.len();
                out.get_mut(..n)
                    .ok_or_else(|| room(n, have))?
                    .copy_from_slice(&scratch[..n]);
                Ok(n)
            }
        }
    }
}
