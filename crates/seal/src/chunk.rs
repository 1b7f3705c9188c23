//! The STREAM construction (Hoang, Reyhanitabar, Rogaway, Vizár, "Online
//! Authenticated-Encryption and its Nonce-Reuse Misuse-Resistance", CRYPTO 2015): chunk
//! `i` is sealed with nonce `prefix || i (u32 big-endian) || last`, where `last` is 1 for
//! the final chunk and 0 otherwise. Reordering or duplicating chunks changes `i`,
//! truncating at a chunk boundary leaves a final chunk sealed with `last = 0`, and
//! chunks of another file were sealed under another per-file key: every one of these
//! fails a tag.
//!
//! Also here: [`Source`], a reader that knows whether the input has ended (one byte of
//! look-ahead), which STREAM needs to set the last-chunk flag.

use std::io::{self, IoSliceMut, Read};

use cipherlab_ciphers::{Cipher, CipherSpec, Message, providers};
use zeroize::Zeroize;

use crate::error::{Error, Result};
use crate::format::{Header, TAG_LEN};

/// An initialised AEAD with the file's nonce prefix.
pub(crate) struct ChunkCipher {
    cipher: Box<dyn Cipher>,
    nonce: [u8; 16],
    nonce_len: usize,
}

impl ChunkCipher {
    pub(crate) fn new(header: &Header, key: &[u8], provider: Option<&str>) -> Result<ChunkCipher> {
        let spec: &CipherSpec = &header.cipher;
        let cipher = providers::init(spec, key, provider)?;
        let nonce_len = spec.iv_len();
        let mut nonce = [0u8; 16];
        let p = header.nonce_prefix.len();
        if nonce_len > 16 || p + 5 != nonce_len {
            return Err(Error::Usage(format!(
                "{spec} has a {nonce_len}-byte nonce, which the container cannot build"
            )));
        }
        nonce[..p].copy_from_slice(&header.nonce_prefix);
        Ok(ChunkCipher {
            cipher,
            nonce,
            nonce_len,
        })
    }

    fn set_nonce(&mut self, index: u64, last: bool) -> Result<&[u8]> {
        let counter = u32::try_from(index).map_err(|_| Error::TooLarge)?;
        let n = self.nonce_len;
        self.nonce[n - 5..n - 1].copy_from_slice(&counter.to_be_bytes());
        self.nonce[n - 1] = u8::from(last);
        Ok(&self.nonce[..n])
    }

    /// Seals `buf[..len]` in place as chunk `index`; `buf` needs `len + TAG_LEN` bytes.
    pub(crate) fn seal(
        &mut self,
        index: u64,
        last: bool,
        buf: &mut [u8],
        len: usize,
    ) -> Result<usize> {
        let mut nonce = [0u8; 16];
        let n = self.nonce_len;
        nonce[..n].copy_from_slice(self.set_nonce(index, last)?);
        Ok(self
            .cipher
            .encrypt(&nonce[..n], &[], &mut buf[..len + TAG_LEN], len)?)
    }

    /// The nonce of chunk `index`.
    fn nonce_of(&mut self, index: u64, last: bool) -> Result<[u8; 16]> {
        let mut nonce = [0u8; 16];
        let n = self.nonce_len;
        nonce[..n].copy_from_slice(self.set_nonce(index, last)?);
        Ok(nonce)
    }

    /// Seals consecutive chunks in one call, so a cipher with a multi-message path (Ascon's
    /// SIMD lanes) works on several at once. Slot `j` of `buf` (stride `chunk + TAG_LEN`)
    /// holds chunk `first + j` of `lens[j]` bytes; `last` says whether the final slot is
    /// the stream's final chunk. Each length becomes the sealed length.
    pub(crate) fn seal_batch(
        &mut self,
        first: u64,
        last: bool,
        buf: &mut [u8],
        stride: usize,
        lens: &mut [usize],
    ) -> Result<()> {
        let count = lens.len();
        let mut nonces = Vec::with_capacity(count);
        for j in 0..count {
            nonces.push(self.nonce_of(first + j as u64, last && j + 1 == count)?);
        }
        let n = self.nonce_len;
        let mut batch: Vec<Message<'_>> = buf
            .chunks_mut(stride)
            .zip(&nonces)
            .zip(lens.iter())
            .map(|((slot, nonce), &len)| Message {
                iv: &nonce[..n],
                ad: &[],
                buf: &mut slot[..len + TAG_LEN],
                len,
            })
            .collect();
        self.cipher.encrypt_batch(&mut batch)?;
        for (len, m) in lens.iter_mut().zip(&batch) {
            *len = m.len;
        }
        Ok(())
    }

    /// Opens consecutive middle chunks in one call (see [`ChunkCipher::seal_batch`]);
    /// slot `j` holds `lens[j]` bytes of ciphertext and tag, none of them the stream's final
    /// piece. Each length becomes the plaintext length. On failure, `Err((j, error))`
    /// names the first slot that failed: the slots before it hold verified plaintext, it
    /// is wiped, and the slots after it must not be written out.
    pub(crate) fn open_batch(
        &mut self,
        first: u64,
        buf: &mut [u8],
        stride: usize,
        lens: &mut [usize],
    ) -> Result<(), (usize, Error)> {
        let count = lens.len();
        let mut nonces = Vec::with_capacity(count);
        for j in 0..count {
            nonces.push(self.nonce_of(first + j as u64, false).map_err(|e| (j, e))?);
        }
        let n = self.nonce_len;
        let mut batch: Vec<Message<'_>> = buf
            .chunks_mut(stride)
            .zip(&nonces)
            .zip(lens.iter())
            .map(|((slot, nonce), &len)| Message {
                iv: &nonce[..n],
                ad: &[],
                buf: &mut slot[..len],
                len: 0,
            })
            .collect();
        let result = self.cipher.decrypt_batch(&mut batch);
        for (len, m) in lens.iter_mut().zip(&batch) {
            *len = m.len;
        }
        result.map_err(|f| (f.index, f.error.into()))
    }

    /// Opens chunk `index` in place; `None` if the tag fails (the buffer is then wiped).
    pub(crate) fn open(&mut self, index: u64, last: bool, buf: &mut [u8]) -> Result<Option<usize>> {
        let mut nonce = [0u8; 16];
        let n = self.nonce_len;
        nonce[..n].copy_from_slice(self.set_nonce(index, last)?);
        match self.cipher.decrypt(&nonce[..n], &[], buf) {
            Ok(len) => Ok(Some(len)),
            Err(cipherlab_ciphers::Error::Authentication) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Opens piece `index` of the input (`buf` holds ciphertext and tag), which starts
    /// at input byte `offset`; `final_piece` says whether the input ends after it.
    /// Returns the plaintext length, or the precise error: a final piece that verifies
    /// as a *middle* chunk means the file was cut at a chunk boundary.
    pub(crate) fn open_piece(
        &mut self,
        index: u64,
        offset: u64,
        final_piece: bool,
        buf: &mut [u8],
    ) -> Result<usize> {
        let corrupt = Error::CorruptChunk {
            index,
            offset,
            final_piece,
        };
        if buf.len() < TAG_LEN {
            return Err(if final_piece && buf.is_empty() {
                Error::Truncated(match index {
                    0 => "it ends right after the header".into(),
                    i => format!("it ends after chunk {} without the final chunk", i - 1),
                })
            } else {
                corrupt
            });
        }
        // Keep a copy of the final piece, to tell truncation from corruption if it fails.
        let mut copy = if final_piece {
            Some(buf.to_vec())
        } else {
            None
        };
        let result = match self.open(index, final_piece, buf)? {
            // A final chunk is empty only when the whole plaintext is (one encoding only).
            Some(0) if final_piece && index > 0 => Err(corrupt),
            Some(len) => Ok(len),
            None => {
                if let Some(c) = copy.as_mut()
                    && self.open(index, false, c)?.is_some()
                {
                    c.zeroize();
                    return Err(Error::Truncated(format!(
                        "it ends after chunk {index} without the final chunk"
                    )));
                }
                Err(corrupt)
            }
        };
        if let Some(c) = copy.as_mut() {
            c.zeroize();
        }
        result
    }
}

/// A reader with one byte of look-ahead, so the last chunk can be recognised.
pub(crate) struct Source<R> {
    inner: R,
    peeked: Option<u8>,
    ended: bool,
    /// Bytes handed out so far.
    pub(crate) consumed: u64,
}

impl<R: Read> Source<R> {
    pub(crate) fn new(inner: R) -> Self {
        Source {
            inner,
            peeked: None,
            ended: false,
            consumed: 0,
        }
    }

    /// Fills `buf` as far as the input allows; fewer bytes mean the input has ended.
    pub(crate) fn fill(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        if let (Some(b), Some(first)) = (self.peeked, buf.first_mut()) {
            *first = b;
            self.peeked = None;
            n = 1;
        }
        while n < buf.len() && !self.ended {
            match self.inner.read(&mut buf[n..]) {
                Ok(0) => self.ended = true,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.consumed += n as u64;
        Ok(n)
    }

    /// Fills the slices in order as far as the input allows, in as few system calls as
    /// the input takes (one `readv` per batch for a file: reading a batch's chunk slots
    /// one by one cost 1.6x the CPU time of one large read, measured on 1 GiB); fewer
    /// bytes than the slices hold mean the input has ended.
    pub(crate) fn fill_vectored(&mut self, mut slots: &mut [IoSliceMut<'_>]) -> io::Result<usize> {
        let mut n = 0;
        if let Some(b) = self.peeked {
            while let Some(first) = slots.first_mut() {
                if let Some(x) = first.first_mut() {
                    *x = b;
                    self.peeked = None;
                    n = 1;
                    IoSliceMut::advance_slices(&mut slots, 1);
                    break;
                }
                slots = &mut slots[1..];
            }
        }
        while !slots.is_empty() && !self.ended {
            match self.inner.read_vectored(slots) {
                Ok(0) => self.ended = true,
                Ok(k) => {
                    n += k;
                    IoSliceMut::advance_slices(&mut slots, k);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.consumed += n as u64;
        Ok(n)
    }

    /// Whether the input has ended (reads one byte ahead if it must).
    pub(crate) fn at_end(&mut self) -> io::Result<bool> {
        if self.peeked.is_some() {
            return Ok(false);
        }
        let mut b = [0u8; 1];
        while !self.ended {
            match self.inner.read(&mut b) {
                Ok(0) => self.ended = true,
                Ok(_) => {
                    self.peeked = Some(b[0]);
                    return Ok(false);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }

    pub(crate) fn into_inner(self) -> R {
        self.inner
    }
}
