//! A default made of two providers of the same algorithm: one that is cheapest per call
//! for short messages, one that is fastest per byte for long ones, each message going to
//! the one that is faster at its length.
//!
//! Why: on CPUs with AVX-512 the fastest implementation at 1 MiB and the cheapest per
//! short message are different libraries. On an AMD Zen 4 (docs/BENCHMARKS.md, "Cipher
//! catalogue", 2026-11-25) OpenSSL's AVX-512 ChaCha20-Poly1305 runs at 0.69 ticks/B
//! against ring's 0.96, but costs 1,173 ticks per 64-byte call against ring's 464 (EVP
//! re-initialisation); aws-lc's AVX-512 AES-GCM runs at 0.21 ticks/B against ring's 0.26,
//! but costs 285 per 64-byte call against 215. Either single choice would make one size
//! 1.3-2.5x slower than it needs to be. Both parts pass the same vectors (the provider
//! tests run every vector through every provider), so their outputs are byte-identical
//! and the split is invisible except in speed. The price is two key schedules at `init`.

use crate::api::{Cipher, Provider};
use crate::error::Error;
use crate::spec::CipherSpec;

/// Two providers of one algorithm split at a message length.
pub struct BySize {
    /// `short+long`, e.g. `ring+openssl`.
    pub name: &'static str,
    /// Used for messages shorter than `threshold` bytes.
    pub short: &'static dyn Provider,
    /// Used for messages of `threshold` bytes and more.
    pub long: &'static dyn Provider,
    /// Message length (plaintext bytes) from which `long` is faster, measured.
    pub threshold: usize,
}

impl BySize {
    /// The part that handles a message of `msg_len` plaintext bytes.
    pub fn part_for(&self, msg_len: usize) -> &'static dyn Provider {
        if msg_len >= self.threshold {
            self.long
        } else {
            self.short
        }
    }
}

impl Provider for BySize {
    fn name(&self) -> &'static str {
        self.name
    }

    fn supports(&self, spec: &CipherSpec) -> bool {
        self.short.supports(spec) && self.long.supports(spec)
    }

    fn available(&self, spec: &CipherSpec) -> Result<(), Error> {
        self.short.available(spec)?;
        self.long.available(spec)
    }

    fn init(&self, spec: &CipherSpec, key: &[u8]) -> Result<Box<dyn Cipher>, Error> {
        Ok(Box::new(BySizeCipher {
            name: self.name,
            short: self.short.init(spec, key)?,
            long: self.long.init(spec, key)?,
            threshold: self.threshold,
            tag_len: spec.output_len(0),
        }))
    }
}

/// Both parts initialised with the same key.
struct BySizeCipher {
    name: &'static str,
    short: Box<dyn Cipher>,
    long: Box<dyn Cipher>,
    threshold: usize,
    /// Output bytes beyond the plaintext (the AEAD tag), to size a ciphertext's message.
    tag_len: usize,
}

impl BySizeCipher {
    /// The part for a message of `msg_len` plaintext bytes (the rule of [`BySize::part_for`]).
    fn part(&mut self, msg_len: usize) -> &mut dyn Cipher {
        if msg_len >= self.threshold {
            &mut *self.long
        } else {
            &mut *self.short
        }
    }
}

impl Cipher for BySizeCipher {
    fn spec(&self) -> &CipherSpec {
        self.short.spec()
    }

    fn provider(&self) -> &'static str {
        self.name
    }

    fn encrypt(
        &mut self,
        iv: &[u8],
        ad: &[u8],
        buf: &mut [u8],
        msg_len: usize,
    ) -> Result<usize, Error> {
        self.part(msg_len).encrypt(iv, ad, buf, msg_len)
    }

    fn decrypt(&mut self, iv: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<usize, Error> {
        let msg_len = buf.len().saturating_sub(self.tag_len);
        self.part(msg_len).decrypt(iv, ad, buf)
    }
}
