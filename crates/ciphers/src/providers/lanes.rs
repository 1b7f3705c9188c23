//! Ascon-AEAD128 and Ascon-128a with their multi-message path: one message goes through
//! the one-message code ([`AeadCipher`]), a batch through `cipherlab-lwc`'s SIMD lanes
//! (several independent states permuted side by side), with byte-identical results. The
//! container's chunks and a PDF's objects are such batches.

use cipherlab_lwc::batch::{Backend, BatchAead, OpenJob, SealJob};
use zeroize::Zeroize;

use super::aead::AeadCipher;
use crate::api::{BatchFailure, Cipher, Message, check_iv_ad, check_room};
use crate::error::Error;
use crate::spec::CipherSpec;

/// Ascon's nonce and tag length.
const BLOCK: usize = 16;

/// One Ascon AEAD, its single messages and its batches.
pub(crate) struct LanesCipher<A> {
    one: AeadCipher<A>,
    /// The fastest batch path this CPU runs, chosen once.
    backend: Backend,
}

impl<A> LanesCipher<A> {
    pub(crate) fn new(one: AeadCipher<A>) -> Self {
        LanesCipher {
            one,
            backend: chosen_backend(),
        }
    }
}

/// The environment variable that picks a batch path by name (`serial`, `avx2`, `xmm+gpr`,
/// `avx512`) instead of the fastest: `serial` is the one-message code in a loop, so a
/// whole command (`cipherlab encrypt`, `pdf encrypt`) can be timed with and without the
/// lanes. A name this CPU cannot run, or no name, gives the fastest.
pub const BATCH_BACKEND_VAR: &str = "CIPHERLAB_BATCH_BACKEND";

fn chosen_backend() -> Backend {
    std::env::var(BATCH_BACKEND_VAR)
        .ok()
        .and_then(|name| Backend::all().find(|b| b.name() == name))
        .unwrap_or_else(Backend::detect)
}

fn nonce(spec: &CipherSpec, iv: &[u8]) -> Result<[u8; BLOCK], Error> {
    iv.try_into().map_err(|_| Error::IvLength {
        cipher: spec.to_string(),
        expected: spec.iv_len(),
        got: iv.len(),
    })
}

impl<A: aead::AeadInOut + BatchAead + Send> Cipher for LanesCipher<A> {
    fn spec(&self) -> &CipherSpec {
        self.one.spec()
    }

    fn provider(&self) -> &'static str {
        self.one.provider()
    }

    fn encrypt(
        &mut self,
        iv: &[u8],
        ad: &[u8],
        buf: &mut [u8],
        msg_len: usize,
    ) -> Result<usize, Error> {
        self.one.encrypt(iv, ad, buf, msg_len)
    }

    fn decrypt(&mut self, iv: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<usize, Error> {
        self.one.decrypt(iv, ad, buf)
    }

    fn encrypt_batch(&mut self, batch: &mut [Message<'_>]) -> Result<(), Error> {
        let spec = *self.one.spec();
        // Every message is checked before any is touched.
        let mut out_lens = Vec::with_capacity(batch.len());
        for m in batch.iter() {
            check_iv_ad(&spec, m.iv, m.ad)?;
            out_lens.push(check_room(&spec, m.buf, m.len)?);
        }
        let mut jobs = Vec::with_capacity(batch.len());
        let mut tags = Vec::with_capacity(batch.len());
        for m in batch.iter_mut() {
            let (msg, rest) = m.buf.split_at_mut(m.len);
            jobs.push(SealJob::new(nonce(&spec, m.iv)?, m.ad, msg));
            tags.push(&mut rest[..BLOCK]);
        }
        self.backend.encrypt(self.one.aead(), &mut jobs);
        for (job, tag) in jobs.iter().zip(tags) {
            tag.copy_from_slice(job.tag());
        }
        drop(jobs);
        for (m, len) in batch.iter_mut().zip(out_lens) {
            m.len = len;
        }
        Ok(())
    }

    fn decrypt_batch(&mut self, batch: &mut [Message<'_>]) -> Result<(), BatchFailure> {
        let spec = *self.one.spec();
        // A message that cannot be a ciphertext (wrong nonce, no room for a tag) fails as
        // the one-message path would, and so does everything after it.
        let usable = batch
            .iter()
            .position(|m| check_iv_ad(&spec, m.iv, m.ad).is_err() || m.buf.len() < BLOCK)
            .unwrap_or(batch.len());
        let mut jobs = Vec::with_capacity(usable);
        for (index, m) in batch[..usable].iter_mut().enumerate() {
            // Checked above: a 16-byte nonce and room for the tag.
            let fail = |error| BatchFailure { index, error };
            let nonce = nonce(&spec, m.iv).map_err(fail)?;
            let (ct, tag) = m.buf.split_at_mut(m.buf.len() - BLOCK);
            let tag: [u8; BLOCK] = (&*tag)
                .try_into()
                .map_err(|_| fail(Error::Authentication))?;
            jobs.push(OpenJob::new(nonce, m.ad, ct, tag));
        }
        // Whether some failed is read per job below.
        let _ = self.backend.decrypt(self.one.aead(), &mut jobs);
        let failed = jobs.iter().position(|j| !j.is_verified());
        drop(jobs);
        let first_failure = failed.unwrap_or(usable);
        for (index, m) in batch.iter_mut().enumerate() {
            if index < first_failure {
                m.len = m.buf.len() - BLOCK;
                continue;
            }
            if index == first_failure {
                let error = if index < usable {
                    m.buf.zeroize();
                    Error::Authentication
                } else {
                    // What the one-message path says about it (and it wipes the buffer).
                    match self.one.decrypt(m.iv, m.ad, m.buf) {
                        Err(e) => e,
                        Ok(_) => Error::Authentication,
                    }
                };
                return Err(BatchFailure { index, error });
            }
        }
        Ok(())
    }
}
