//! One API for every cipher, with the phases a study times apart:
//!
//! 1. **key generation** -- [`generate_key`], from the OS random number generator;
//! 2. **initialisation** -- [`Provider::init`]: the key schedule, done once;
//! 3. **encryption / decryption** of many messages with the initialised [`Cipher`], in
//!    place, without allocation on the hot path.
//!
//! Every cipher's output is what OpenSSL and Java's JCE give for the same name, key, IV
//! and input: ECB and CBC padded with PKCS#7 (unless asked not to), stream modes not
//! padded, AEAD tags appended to the ciphertext (as JCE's GCM does).

use zeroize::Zeroizing;

use crate::error::Error;
use crate::spec::CipherSpec;

/// An initialised cipher: the key schedule is done; encrypt and decrypt many messages.
pub trait Cipher: Send {
    /// What this cipher is.
    fn spec(&self) -> &CipherSpec;

    /// Which provider implements it.
    fn provider(&self) -> &'static str;

    /// Encrypts `buf[..msg_len]` in place with `iv` (IV or nonce; empty for ECB and RC4)
    /// and associated data `ad` (AEADs only), and returns the output length. `buf` must
    /// have room for [`CipherSpec::output_len`] bytes.
    fn encrypt(
        &mut self,
        iv: &[u8],
        ad: &[u8],
        buf: &mut [u8],
        msg_len: usize,
    ) -> Result<usize, Error>;

    /// Decrypts `buf` (the whole of it is ciphertext, with the tag last for AEADs) in
    /// place and returns the plaintext length. On authentication failure the buffer is
    /// wiped and [`Error::Authentication`] returned: no unverified plaintext escapes.
    fn decrypt(&mut self, iv: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<usize, Error>;

    /// Encrypts every message of `batch` as [`Cipher::encrypt`] would, byte for byte, and
    /// sets each message's `len` to its output length. A cipher that can work on several
    /// messages at once (Ascon's SIMD lanes) overrides this; the default encrypts them one
    /// after another. On error, the batch's outputs are not to be used.
    fn encrypt_batch(&mut self, batch: &mut [Message<'_>]) -> Result<(), Error> {
        for m in batch.iter_mut() {
            m.len = self.encrypt(m.iv, m.ad, m.buf, m.len)?;
        }
        Ok(())
    }

    /// Decrypts every message of `batch` as [`Cipher::decrypt`] would, setting each
    /// message's `len` to its plaintext length. On failure, [`BatchFailure`] names the
    /// first message, in batch order, that failed: the messages before it are verified
    /// plaintext, it is wiped, and the ones after it must not be used (an override may
    /// have decrypted them; the default stops at the failure).
    fn decrypt_batch(&mut self, batch: &mut [Message<'_>]) -> Result<(), BatchFailure> {
        for (index, m) in batch.iter_mut().enumerate() {
            m.len = self
                .decrypt(m.iv, m.ad, m.buf)
                .map_err(|error| BatchFailure { index, error })?;
        }
        Ok(())
    }
}

/// One message of [`Cipher::encrypt_batch`] or [`Cipher::decrypt_batch`].
#[derive(Debug)]
pub struct Message<'a> {
    /// The IV or nonce.
    pub iv: &'a [u8],
    /// Associated data (AEADs only).
    pub ad: &'a [u8],
    /// The buffer worked in place, as [`Cipher::encrypt`]'s or [`Cipher::decrypt`]'s.
    pub buf: &'a mut [u8],
    /// Encrypting: the message length before, the output length after. Decrypting: the
    /// plaintext length after.
    pub len: usize,
}

/// The first message of a batch that failed to decrypt, and why.
#[derive(Debug)]
pub struct BatchFailure {
    /// Its position in the batch.
    pub index: usize,
    /// Why ([`Error::Authentication`] for a tag that did not verify).
    pub error: Error,
}

/// A family of implementations (RustCrypto, OpenSSL, our own, ...).
pub trait Provider: Sync {
    /// Short name (`rustcrypto`, `openssl`, `cipherlab`, `ring`, `aws-lc`).
    fn name(&self) -> &'static str;

    /// Whether this provider implements `spec`.
    fn supports(&self, spec: &CipherSpec) -> bool;

    /// Whether `spec` can be initialised on this machine right now (e.g. OpenSSL's legacy
    /// module is loadable). The default provider choice skips providers that are not;
    /// asking for one explicitly gets this error, which says how to fix it.
    fn available(&self, _spec: &CipherSpec) -> Result<(), Error> {
        Ok(())
    }

    /// Runs the key schedule and returns the ready cipher.
    fn init(&self, spec: &CipherSpec, key: &[u8]) -> Result<Box<dyn Cipher>, Error>;
}

/// A fresh random key of the spec's length from the OS RNG, wiped when dropped.
///
/// # Panics
/// If the operating system has no working random number generator (nothing safe can
/// be done then).
pub fn generate_key(spec: &CipherSpec) -> Zeroizing<Vec<u8>> {
    random_bytes(spec.key_len())
}

/// A fresh random IV or nonce of the spec's length from the OS RNG.
///
/// # Panics
/// As [`generate_key`].
pub fn generate_iv(spec: &CipherSpec) -> Vec<u8> {
    random_bytes(spec.iv_len()).to_vec()
}

fn random_bytes(n: usize) -> Zeroizing<Vec<u8>> {
    let mut v = Zeroizing::new(vec![0u8; n]);
    #[allow(clippy::expect_used)] // no RNG means no safe key; stopping is the only option
    getrandom::fill(&mut v).expect("the operating system's random number generator failed");
    v
}

/// Checks the lengths every provider checks the same way.
pub(crate) fn check_key(spec: &CipherSpec, key: &[u8]) -> Result<(), Error> {
    if key.len() != spec.key_len() {
        return Err(Error::KeyLength {
            cipher: spec.to_string(),
            expected: spec.key_len(),
            got: key.len(),
        });
    }
    Ok(())
}

/// Checks IV length and that AD is only given to AEADs.
pub(crate) fn check_iv_ad(spec: &CipherSpec, iv: &[u8], ad: &[u8]) -> Result<(), Error> {
    if iv.len() != spec.iv_len() {
        return Err(Error::IvLength {
            cipher: spec.to_string(),
            expected: spec.iv_len(),
            got: iv.len(),
        });
    }
    if !ad.is_empty() && !spec.is_aead() {
        return Err(Error::AdNotSupported {
            cipher: spec.to_string(),
        });
    }
    Ok(())
}

/// Checks `buf` can take the output of a `msg_len`-byte message.
pub(crate) fn check_room(spec: &CipherSpec, buf: &[u8], msg_len: usize) -> Result<usize, Error> {
    let need = spec.output_len(msg_len);
    if buf.len() < need || msg_len > buf.len() {
        return Err(Error::BufferTooSmall {
            need,
            have: buf.len(),
        });
    }
    Ok(need)
}
