//! The corpus: realistic files of any size made from a seed, so every study runs with no
//! input and every run on every machine encrypts the same bytes; and a loader for a
//! user's own folder (`--data DIR`).
//!
//! | [`DataType`] | what it is |
//! |---|---|
//! | `ascii-text` | English-like words, sentences and paragraphs, 72-column lines |
//! | `utf8-text` | paragraphs in Latin with diacritics, Greek, Cyrillic, CJK and emoji (1-4 byte sequences) |
//! | `utf16-text` | the same text in UTF-16LE after a byte-order mark |
//! | `bmp` | a 24-bit Windows bitmap: flat background and large flat shapes (the ECB picture) |
//! | `wav` | RIFF/WAVE, 16-bit mono PCM at 44.1 kHz: a chord with a slow tremolo plus noise |
//! | `aiff` | FORM/AIFF with COMM and SSND chunks, the same audio big-endian |
//! | `compressed` | incompressible bytes (~8 bits/byte), as JPEG, MP3 or ZIP contents are |
//! | `sparse` | mostly zero bytes with short islands of data (~97% zeros) |
//! | `dense` | loud 16-bit noise samples: every byte carries information, no silence |
//!
//! [`generate`] returns exactly `size` bytes; [`Generator`] streams the same bytes
//! through [`std::io::Read`] for sizes that should not sit in memory ([`write()`] copies
//! it to a writer). The same `(kind, size, seed)` always gives the same bytes, on every
//! platform: the generators use only integer arithmetic, IEEE basic operations and
//! [`cipherlab_harness::rng::Rng`]. Headers are valid for sizes from [`DataType::min_valid_size`]
//! up to 4 GiB (their 32-bit length fields saturate above); below the minimum the
//! output is the start of the smallest valid file.

mod audio;
mod image;
mod load;
mod text;

use std::fmt;
use std::io::{self, Read, Write};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub use load::{CorpusError, UserFile, guess_type, load_dir};

use cipherlab_harness::rng::Rng;

/// The kinds of file the corpus makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DataType {
    /// ASCII text.
    AsciiText,
    /// UTF-8 text in several scripts.
    Utf8Text,
    /// UTF-16LE text with a byte-order mark.
    Utf16Text,
    /// A 24-bit BMP image.
    Bmp,
    /// A WAV (RIFF) audio file.
    Wav,
    /// An AIFF audio file.
    Aiff,
    /// Incompressible bytes (compressed media).
    Compressed,
    /// Mostly zero bytes.
    Sparse,
    /// Dense binary data.
    Dense,
}

impl DataType {
    /// Every kind, in documentation order.
    pub const ALL: [DataType; 9] = [
        DataType::AsciiText,
        DataType::Utf8Text,
        DataType::Utf16Text,
        DataType::Bmp,
        DataType::Wav,
        DataType::Aiff,
        DataType::Compressed,
        DataType::Sparse,
        DataType::Dense,
    ];

    /// The name used in benchmark ids and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            DataType::AsciiText => "ascii-text",
            DataType::Utf8Text => "utf8-text",
            DataType::Utf16Text => "utf16-text",
            DataType::Bmp => "bmp",
            DataType::Wav => "wav",
            DataType::Aiff => "aiff",
            DataType::Compressed => "compressed",
            DataType::Sparse => "sparse",
            DataType::Dense => "dense",
        }
    }

    /// A file name extension for it.
    pub fn extension(self) -> &'static str {
        match self {
            DataType::AsciiText | DataType::Utf8Text | DataType::Utf16Text => "txt",
            DataType::Bmp => "bmp",
            DataType::Wav => "wav",
            DataType::Aiff => "aiff",
            DataType::Compressed | DataType::Sparse | DataType::Dense => "bin",
        }
    }

    /// One line saying what it is.
    pub fn description(self) -> &'static str {
        match self {
            DataType::AsciiText => "ASCII text: English-like words in sentences, 72-column lines",
            DataType::Utf8Text => "UTF-8 text: Latin with diacritics, Greek, Cyrillic, CJK, emoji",
            DataType::Utf16Text => "UTF-16LE text with a byte-order mark",
            DataType::Bmp => "24-bit BMP image: flat background and large flat shapes",
            DataType::Wav => "WAV audio: 16-bit mono PCM, 44.1 kHz, a chord plus noise",
            DataType::Aiff => "AIFF audio: 16-bit mono PCM, 44.1 kHz, a chord plus noise",
            DataType::Compressed => "incompressible bytes, like compressed media",
            DataType::Sparse => "sparse data: mostly zero bytes with short islands of data",
            DataType::Dense => "dense data: loud 16-bit noise, every byte informative",
        }
    }

    /// The smallest size at which the output is a complete, valid file of its kind.
    pub fn min_valid_size(self) -> u64 {
        match self {
            DataType::Bmp => image::MIN_SIZE,
            DataType::Wav => audio::WAV_HEADER as u64 + 2,
            DataType::Aiff => audio::AIFF_HEADER as u64 + 2,
            DataType::Utf16Text => 4,
            _ => 1,
        }
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A data type name that is not one of [`DataType::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown data type '{0}': use one of ascii-text, utf8-text, utf16-text, bmp, wav, aiff, compressed, sparse, dense"
)]
pub struct UnknownDataType(pub String);

impl FromStr for DataType {
    type Err = UnknownDataType;

    fn from_str(s: &str) -> Result<DataType, UnknownDataType> {
        DataType::ALL
            .into_iter()
            .find(|d| d.name() == s)
            .ok_or_else(|| UnknownDataType(s.to_string()))
    }
}

/// A sequential source of body bytes.
trait Body {
    /// Fills `out` with the next bytes; `remaining` counts the bytes still due after
    /// `out` (so generators can end the file cleanly).
    fn fill(&mut self, out: &mut [u8], remaining: u64);
}

/// Random bytes, buffered so that any split of reads gives the same stream.
pub(crate) struct ByteStream {
    rng: Rng,
    word: [u8; 8],
    used: usize,
}

impl ByteStream {
    pub(crate) fn new(rng: Rng) -> ByteStream {
        ByteStream {
            rng,
            word: [0; 8],
            used: 8,
        }
    }

    pub(crate) fn fill(&mut self, out: &mut [u8]) {
        let mut i = 0;
        // Drain the buffered word, then whole words, then buffer a fresh one.
        while i < out.len() && self.used < 8 {
            out[i] = self.word[self.used];
            self.used += 1;
            i += 1;
        }
        let mut chunks = out[i..].chunks_exact_mut(8);
        for c in &mut chunks {
            c.copy_from_slice(&self.rng.next_u64().to_le_bytes());
        }
        let rest = chunks.into_remainder();
        if !rest.is_empty() {
            self.word = self.rng.next_u64().to_le_bytes();
            rest.copy_from_slice(&self.word[..rest.len()]);
            self.used = rest.len();
        }
    }
}

struct Compressed(ByteStream);

impl Body for Compressed {
    fn fill(&mut self, out: &mut [u8], _remaining: u64) {
        self.0.fill(out);
    }
}

/// Mostly zeros: islands of 16-255 random bytes, each followed by 1-9 KiB of zeros.
struct Sparse {
    rng: Rng,
    zeros_left: u64,
    data_left: u64,
}

impl Body for Sparse {
    fn fill(&mut self, out: &mut [u8], _remaining: u64) {
        let mut i = 0;
        while i < out.len() {
            if self.zeros_left == 0 && self.data_left == 0 {
                self.data_left = 16 + self.rng.below(240);
                self.zeros_left = 1024 + self.rng.below(8192);
            }
            if self.data_left > 0 {
                out[i] = self.rng.next_u64() as u8;
                self.data_left -= 1;
                i += 1;
            } else {
                let k = (self.zeros_left.min((out.len() - i) as u64)) as usize;
                out[i..i + k].fill(0);
                self.zeros_left -= k as u64;
                i += k;
            }
        }
    }
}

/// Gaussian-ish 16-bit noise (sum of four uniforms, sigma ~ 9500), little-endian.
struct Dense {
    rng: Rng,
    pending: Option<u8>,
}

impl Body for Dense {
    fn fill(&mut self, out: &mut [u8], _remaining: u64) {
        for b in out.iter_mut() {
            *b = match self.pending.take() {
                Some(hi) => hi,
                None => {
                    let r = self.rng.next_u64();
                    let sum: i64 = (0..4).map(|k| ((r >> (16 * k)) & 0xFFFF) as i64).sum();
                    // Sum of 4 uniforms on 0..65536: mean 131070, sd ~37800; scale by 1/4.
                    let v = ((sum - 131_070) / 4).clamp(-32768, 32767) as i16;
                    let [lo, hi] = v.to_le_bytes();
                    self.pending = Some(hi);
                    lo
                }
            };
        }
    }
}

/// Streams a corpus file: `size` bytes of `kind` from `seed`, through [`Read`].
pub struct Generator {
    header: Vec<u8>,
    body: Box<dyn Body + Send>,
    pos: u64,
    size: u64,
}

impl fmt::Debug for Generator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Generator")
            .field("pos", &self.pos)
            .field("size", &self.size)
            .finish()
    }
}

impl Generator {
    /// A generator of `size` bytes of `kind`, seeded with `seed`.
    pub fn new(kind: DataType, size: u64, seed: u64) -> Generator {
        // Each kind draws from its own stream, so equal seeds of different kinds do not
        // share bytes.
        let rng = Rng::new(seed ^ (kind as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let (header, body): (Vec<u8>, Box<dyn Body + Send>) = match kind {
            DataType::AsciiText => (
                Vec::new(),
                Box::new(text::Text::new(rng, text::Flavour::Ascii)),
            ),
            DataType::Utf8Text => (
                Vec::new(),
                Box::new(text::Text::new(rng, text::Flavour::Utf8)),
            ),
            DataType::Utf16Text => (
                vec![0xFF, 0xFE],
                Box::new(text::Text::new(rng, text::Flavour::Utf16)),
            ),
            DataType::Bmp => image::bmp(size, rng),
            DataType::Wav => audio::wav(size, rng),
            DataType::Aiff => audio::aiff(size, rng),
            DataType::Compressed => (Vec::new(), Box::new(Compressed(ByteStream::new(rng)))),
            DataType::Sparse => (
                Vec::new(),
                Box::new(Sparse {
                    rng,
                    zeros_left: 0,
                    data_left: 0,
                }),
            ),
            DataType::Dense => (Vec::new(), Box::new(Dense { rng, pending: None })),
        };
        Generator {
            header,
            body,
            pos: 0,
            size,
        }
    }

    /// Bytes still to come.
    pub fn remaining(&self) -> u64 {
        self.size - self.pos
    }
}

impl Read for Generator {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = (buf.len() as u64).min(self.remaining()) as usize;
        let out = &mut buf[..n];
        let mut i = 0;
        let h = self.header.len() as u64;
        if self.pos < h {
            let k = ((h - self.pos) as usize).min(n);
            let start = self.pos as usize;
            out[..k].copy_from_slice(&self.header[start..start + k]);
            i = k;
        }
        if i < n {
            let after = self.size - self.pos - n as u64;
            self.body.fill(&mut out[i..], after);
        }
        self.pos += n as u64;
        Ok(n)
    }
}

/// Exactly `size` bytes of `kind` from `seed`.
pub fn generate(kind: DataType, size: usize, seed: u64) -> Vec<u8> {
    let mut out = vec![0u8; size];
    let mut g = Generator::new(kind, size as u64, seed);
    let mut filled = 0;
    while filled < size {
        // Reading from a Generator never fails.
        match g.read(&mut out[filled..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => filled += n,
        }
    }
    out
}

/// Writes `size` bytes of `kind` from `seed` to `w`, 64 KiB at a time (the same bytes as
/// [`generate`]).
pub fn write(kind: DataType, size: u64, seed: u64, w: &mut impl Write) -> io::Result<u64> {
    let mut g = Generator::new(kind, size, seed);
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0;
    loop {
        let n = g.read(&mut buf)?;
        if n == 0 {
            return Ok(total);
        }
        w.write_all(&buf[..n])?;
        total += n as u64;
    }
}
