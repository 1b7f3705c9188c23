//! Object streams: [`SealWriter`] and [`SealReader`], `Write` and `Read` adapters that
//! encrypt and decrypt any byte stream in the container format, one chunk at a time
//! (what Java's `CipherOutputStream`/`CipherInputStream` do, with authentication).

use std::io::{self, Read, Write};

use cipherlab_ciphers::CipherSpec;
use zeroize::{Zeroize, Zeroizing};

use crate::chunk::{ChunkCipher, Source};
use crate::error::{Error, Result};
use crate::format::{self, Argon2Params, DEFAULT_CHUNK_LOG2, Header, Kdf, TAG_LEN};
use crate::keys::{self, Secret};

/// Choices for sealing; `Default` is what `cipherlab encrypt` does without options.
#[derive(Clone, Debug)]
pub struct SealOptions {
    /// The AEAD; `None` means the key file's cipher, or [`format::default_cipher`] for a
    /// passphrase.
    pub cipher: Option<CipherSpec>,
    /// log2 of the chunk size (16 = 64 KiB).
    pub chunk_log2: u8,
    /// Argon2id cost, for passphrases.
    pub argon2: Argon2Params,
    /// Write Argon2id parameters below [`format::ARGON2_FLOOR`] (for tests and slow
    /// machines; the caller should warn).
    pub allow_weak_argon2: bool,
    /// The most Argon2id cost opening a file may run ([`format::ARGON2_OPEN_LIMIT`] by
    /// default): the header asks before it can be authenticated.
    pub argon2_limit: Argon2Params,
    /// Catalogue provider (`None`: the fastest correct one).
    pub provider: Option<String>,
    /// Worker threads for [`crate::encrypt`]/[`crate::decrypt`] (0: one per core; at
    /// most 64).
    pub threads: usize,
}

impl Default for SealOptions {
    fn default() -> Self {
        SealOptions {
            cipher: None,
            chunk_log2: DEFAULT_CHUNK_LOG2,
            argon2: Argon2Params::default(),
            allow_weak_argon2: false,
            argon2_limit: format::ARGON2_OPEN_LIMIT,
            provider: None,
            threads: 0,
        }
    }
}

/// A new header for `secret`, its bytes (MAC included) and the payload key.
pub(crate) fn new_header(
    secret: Secret<'_>,
    opts: &SealOptions,
) -> Result<(Header, Vec<u8>, Zeroizing<Vec<u8>>)> {
    let (cipher, kdf) = match secret {
        Secret::Key(k) => {
            if let Some(c) = opts.cipher
                && c != *k.spec()
            {
                return Err(Error::Usage(format!(
                    "--cipher {c} does not match the key file's cipher {}: leave \
                     --cipher out, or make a key for {c} with `cipherlab keygen`",
                    k.spec()
                )));
            }
            (*k.spec(), Kdf::KeyFile)
        }
        Secret::Passphrase(_) => {
            let floor = format::ARGON2_FLOOR;
            if !opts.allow_weak_argon2 && !opts.argon2.at_least(&floor) {
                return Err(Error::Usage(format!(
                    "Argon2id with {} MiB and {} passes is below the floor of {} MiB and {} \
                     passes (OWASP's minimum): a stolen file's passphrase would be cheap to \
                     guess; raise --argon2-memory/--argon2-passes, or allow it explicitly with \
                     --argon2-allow-weak",
                    opts.argon2.memory_kib / 1024,
                    opts.argon2.passes,
                    floor.memory_kib / 1024,
                    floor.passes
                )));
            }
            (
                opts.cipher.unwrap_or_else(format::default_cipher),
                Kdf::Argon2id(opts.argon2),
            )
        }
    };
    let header = Header::new(cipher, opts.chunk_log2, kdf)?;
    let (bytes, key) = header_bytes(&header, secret)?;
    Ok((header, bytes, key))
}

/// The header's bytes, MAC included, and the payload key.
fn header_bytes(header: &Header, secret: Secret<'_>) -> Result<(Vec<u8>, Zeroizing<Vec<u8>>)> {
    format::algorithm_id(&header.cipher)?;
    if !(format::MIN_CHUNK_LOG2..=format::MAX_CHUNK_LOG2).contains(&header.chunk_log2) {
        return Err(Error::Usage(format!(
            "chunk size 2^{} is outside 2^{} to 2^{}",
            header.chunk_log2,
            format::MIN_CHUNK_LOG2,
            format::MAX_CHUNK_LOG2
        )));
    }
    if let Kdf::Argon2id(p) = header.kdf {
        p.check()?;
    }
    if header.nonce_prefix.len() != format::prefix_len(&header.cipher) {
        return Err(Error::Usage(format!(
            "{} needs a {}-byte nonce prefix",
            header.cipher,
            format::prefix_len(&header.cipher)
        )));
    }
    let body = header.body();
    let keys = keys::derive(header, &body, secret)?;
    let mut bytes = body;
    let mac = keys::header_mac(&keys, &bytes)?;
    bytes.extend_from_slice(&mac);
    Ok((bytes, keys.payload))
}

/// Reads and authenticates a header; returns it with the payload key. A passphrase
/// header asking for more Argon2id cost than `limit` is refused before Argon2id runs.
pub(crate) fn read_header<R: Read>(
    r: &mut R,
    secret: Secret<'_>,
    limit: &Argon2Params,
) -> Result<(Header, Zeroizing<Vec<u8>>, u64)> {
    let (header, body, mac) = Header::read(r)?;
    if let (Kdf::Argon2id(p), Secret::Passphrase(_)) = (header.kdf, secret)
        && !p.within(limit)
    {
        return Err(Error::CostLimit(format!(
            "the file asks Argon2id for {} KiB, {} passes and {} lanes, more than the limit of \
             {} KiB, {} passes and {} lanes; its header cannot be authenticated before that \
             work is done, so a hostile file could use this to exhaust memory -- if you trust \
             it, raise the limit with --argon2-max-memory MIB / --argon2-max-passes N",
            p.memory_kib, p.passes, p.lanes, limit.memory_kib, limit.passes, limit.lanes
        )));
    }
    let keys = keys::derive(&header, &body, secret)?;
    keys::verify_header(&keys, &body, &mac, secret)?;
    let len = (body.len() + mac.len()) as u64;
    Ok((header, keys.payload, len))
}

/// Encrypts everything written to it into `W` in the container format.
///
/// Call [`SealWriter::finish`] at the end: it seals the final chunk. A writer dropped
/// without `finish` leaves a stream that decrypts to an error ("truncated"), never to
/// a silently shortened plaintext.
pub struct SealWriter<W: Write> {
    inner: W,
    cipher: ChunkCipher,
    buf: Zeroizing<Vec<u8>>,
    len: usize,
    chunk: usize,
    index: u64,
    header: Header,
}

impl<W: Write> SealWriter<W> {
    /// Writes the header to `inner` and returns the writer.
    pub fn new(mut inner: W, secret: Secret<'_>, opts: &SealOptions) -> Result<Self> {
        let (header, bytes, key) = new_header(secret, opts)?;
        let cipher = ChunkCipher::new(&header, &key, opts.provider.as_deref())?;
        inner
            .write_all(&bytes)
            .map_err(|e| Error::io("writing the header", e))?;
        let chunk = header.chunk_size();
        Ok(SealWriter {
            inner,
            cipher,
            buf: Zeroizing::new(vec![0u8; chunk + TAG_LEN]),
            len: 0,
            chunk,
            index: 0,
            header,
        })
    }

    /// Seals with a header given by the caller, for reproducible tests and fuzzing only:
    /// reusing a salt and nonce prefix with the same secret repeats nonces, which breaks
    /// the AEAD. It exists only with the `insecure-fixed-header` feature, which this
    /// crate's tests and the fuzz targets turn on and nothing else may. Use
    /// [`SealWriter::new`], which draws them from the OS RNG.
    #[cfg(feature = "insecure-fixed-header")]
    pub fn with_fixed_header(mut inner: W, header: Header, secret: Secret<'_>) -> Result<Self> {
        let (bytes, key) = header_bytes(&header, secret)?;
        let cipher = ChunkCipher::new(&header, &key, None)?;
        inner
            .write_all(&bytes)
            .map_err(|e| Error::io("writing the header", e))?;
        let chunk = header.chunk_size();
        Ok(SealWriter {
            inner,
            cipher,
            buf: Zeroizing::new(vec![0u8; chunk + TAG_LEN]),
            len: 0,
            chunk,
            index: 0,
            header,
        })
    }

    /// The header written (cipher, chunk size, KDF).
    pub fn header(&self) -> &Header {
        &self.header
    }

    fn seal_buffer(&mut self, last: bool) -> io::Result<()> {
        let n = self
            .cipher
            .seal(self.index, last, &mut self.buf, self.len)
            .map_err(Error::into_io)?;
        self.inner.write_all(&self.buf[..n])?;
        self.buf[..self.len].zeroize();
        self.len = 0;
        self.index += 1;
        Ok(())
    }

    /// Seals the final chunk, flushes, and returns the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.seal_buffer(true)?;
        self.inner.flush()?;
        Ok(self.inner)
    }
}

impl<W: Write> Write for SealWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if data.is_empty() {
            return Ok(0);
        }
        // A full chunk is sealed only once more data comes: the final chunk may be full.
        if self.len == self.chunk {
            self.seal_buffer(false)?;
        }
        let n = data.len().min(self.chunk - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&data[..n]);
        self.len += n;
        Ok(n)
    }

    /// Flushes the inner writer; data of the current chunk stays buffered until the
    /// chunk is full or [`SealWriter::finish`] is called.
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Decrypts a container from `R`; reads return plaintext only after its chunk verified.
///
/// A failed chunk returns an `io::Error` (kind `InvalidData`, or `UnexpectedEof` for a
/// truncated file) whose inner error is a [`crate::Error`]; every later read fails too.
pub struct SealReader<R: Read> {
    src: Source<R>,
    cipher: ChunkCipher,
    header: Header,
    buf: Zeroizing<Vec<u8>>,
    pos: usize,
    end: usize,
    index: u64,
    offset: u64,
    done: bool,
    failed: Option<String>,
}

impl<R: Read> SealReader<R> {
    /// Reads and authenticates the header (runs Argon2id for a passphrase).
    pub fn new(inner: R, secret: Secret<'_>) -> Result<Self> {
        Self::with_provider(inner, secret, None)
    }

    /// As [`SealReader::new`], with a chosen catalogue provider.
    pub fn with_provider(inner: R, secret: Secret<'_>, provider: Option<&str>) -> Result<Self> {
        let opts = SealOptions {
            provider: provider.map(str::to_string),
            ..SealOptions::default()
        };
        Self::with_options(inner, secret, &opts)
    }

    /// As [`SealReader::new`], with `opts`' provider and Argon2id limit.
    pub fn with_options(mut inner: R, secret: Secret<'_>, opts: &SealOptions) -> Result<Self> {
        let (header, key, offset) = read_header(&mut inner, secret, &opts.argon2_limit)?;
        let cipher = ChunkCipher::new(&header, &key, opts.provider.as_deref())?;
        let stride = header.chunk_size() + TAG_LEN;
        Ok(SealReader {
            src: Source::new(inner),
            cipher,
            header,
            buf: Zeroizing::new(vec![0u8; stride]),
            pos: 0,
            end: 0,
            index: 0,
            offset,
            done: false,
            failed: None,
        })
    }

    /// The file's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The inner reader.
    pub fn into_inner(self) -> R {
        self.src.into_inner()
    }

    fn next_chunk(&mut self) -> Result<()> {
        let stride = self.buf.len();
        let n = self
            .src
            .fill(&mut self.buf)
            .map_err(|e| Error::io("reading the input", e))?;
        let final_piece = n < stride
            || self
                .src
                .at_end()
                .map_err(|e| Error::io("reading the input", e))?;
        let len =
            self.cipher
                .open_piece(self.index, self.offset, final_piece, &mut self.buf[..n])?;
        self.index += 1;
        self.offset += n as u64;
        self.pos = 0;
        self.end = len;
        self.done = final_piece;
        Ok(())
    }
}

impl<R: Read> Read for SealReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if let Some(msg) = &self.failed {
            return Err(io::Error::new(io::ErrorKind::InvalidData, msg.clone()));
        }
        while self.pos == self.end {
            if self.done {
                return Ok(0);
            }
            if let Err(e) = self.next_chunk() {
                self.failed = Some(format!("an earlier read failed: {e}"));
                return Err(e.into_io());
            }
        }
        let n = out.len().min(self.end - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}
