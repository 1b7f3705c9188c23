//! Audio: 16-bit mono PCM at 44.1 kHz, a chord progression (one chord per half second)
//! with a slow tremolo, plus white noise, in a RIFF/WAVE or a FORM/AIFF container.
//!
//! Only integer arithmetic and IEEE basic operations are used (the sine is a
//! polynomial), so the samples are the same on every platform.

use super::Body;
use cipherlab_harness::rng::Rng;

/// "RIFF" size "WAVE", "fmt " chunk (8 + 16), "data" chunk header (8).
pub(super) const WAV_HEADER: usize = 44;
/// "FORM" size "AIFF", "COMM" chunk (8 + 18), "SSND" chunk header (8) + offset + block.
pub(super) const AIFF_HEADER: usize = 54;

/// Samples per second.
pub const SAMPLE_RATE: u32 = 44_100;

/// Triads in millihertz (A major, F# minor, D major, E major around A3).
const CHORDS: [[u64; 3]; 4] = [
    [220_000, 277_183, 329_628],
    [184_997, 220_000, 277_183],
    [146_832, 184_997, 220_000],
    [164_814, 207_652, 246_942],
];

/// sin(u * pi/2) for u in [0, 1], Taylor series to x^9 (error < 4e-6).
fn quarter_sine(u: f64) -> f64 {
    let x = u * std::f64::consts::FRAC_PI_2;
    let x2 = x * x;
    x * (1.0 - x2 / 6.0 * (1.0 - x2 / 20.0 * (1.0 - x2 / 42.0 * (1.0 - x2 / 72.0))))
}

/// sin(2 pi phase / 2^32).
fn sine(phase: u32) -> f64 {
    let quadrant = phase >> 30;
    let u = f64::from(phase & 0x3FFF_FFFF) / f64::from(1u32 << 30);
    match quadrant {
        0 => quarter_sine(u),
        1 => quarter_sine(1.0 - u),
        2 => -quarter_sine(u),
        _ => -quarter_sine(1.0 - u),
    }
}

/// Phase increment per sample for `millihertz`.
fn increment(millihertz: u64) -> u32 {
    ((u128::from(millihertz) << 32) / (u128::from(SAMPLE_RATE) * 1000)) as u32
}

struct Synth {
    rng: Rng,
    n: u64,
    phases: [u32; 3],
    tremolo: u32,
    first_chord: usize,
}

impl Synth {
    fn new(mut rng: Rng) -> Synth {
        let first_chord = rng.index(CHORDS.len());
        Synth {
            rng,
            n: 0,
            phases: [0; 3],
            tremolo: 0,
            first_chord,
        }
    }

    fn next(&mut self) -> i16 {
        let chord = CHORDS[(self.first_chord + (self.n / u64::from(SAMPLE_RATE / 2)) as usize) % 4];
        let mut tone = 0.0;
        for (phase, mhz) in self.phases.iter_mut().zip(chord) {
            tone += sine(*phase);
            *phase = phase.wrapping_add(increment(mhz));
        }
        let envelope = 0.6 + 0.4 * sine(self.tremolo);
        self.tremolo = self.tremolo.wrapping_add(increment(500)); // 0.5 Hz
        let noise = self.rng.below(4001) as f64 - 2000.0;
        self.n += 1;
        (tone / 3.0 * 20_000.0 * envelope + noise)
            .round()
            .clamp(-32768.0, 32767.0) as i16
    }
}

struct Pcm {
    synth: Synth,
    big_endian: bool,
    /// Bytes of sample data; anything after is a pad byte.
    data_len: u64,
    emitted: u64,
    pending: Option<u8>,
}

impl Body for Pcm {
    fn fill(&mut self, out: &mut [u8], _remaining: u64) {
        for b in out.iter_mut() {
            *b = if self.emitted >= self.data_len {
                0
            } else if let Some(p) = self.pending.take() {
                p
            } else {
                let s = self.synth.next();
                let [first, second] = if self.big_endian {
                    s.to_be_bytes()
                } else {
                    s.to_le_bytes()
                };
                self.pending = Some(second);
                first
            };
            self.emitted += 1;
        }
    }
}

fn sat(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// Sample-data length for a file of `size` bytes after a `header`-byte header: even,
/// at least one sample. An odd remainder becomes one trailing pad byte, inside the
/// container's size (RIFF and IFF chunks are word-aligned).
fn data_len(size: u64, header: usize) -> (u64, u64) {
    let file = size.max(header as u64 + 2);
    (file, (file - header as u64) & !1)
}

/// The WAV header and body.
pub(super) fn wav(size: u64, rng: Rng) -> (Vec<u8>, Box<dyn Body + Send>) {
    let (file, data) = data_len(size, WAV_HEADER);
    let mut h = Vec::with_capacity(WAV_HEADER);
    h.extend_from_slice(b"RIFF");
    h.extend_from_slice(&sat(file - 8).to_le_bytes());
    h.extend_from_slice(b"WAVEfmt ");
    h.extend_from_slice(&16u32.to_le_bytes());
    h.extend_from_slice(&1u16.to_le_bytes()); // PCM
    h.extend_from_slice(&1u16.to_le_bytes()); // mono
    h.extend_from_slice(&SAMPLE_RATE.to_le_bytes());
    h.extend_from_slice(&(SAMPLE_RATE * 2).to_le_bytes()); // bytes per second
    h.extend_from_slice(&2u16.to_le_bytes()); // block align
    h.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    h.extend_from_slice(b"data");
    h.extend_from_slice(&sat(data).to_le_bytes());
    (h, pcm(rng, false, data))
}

fn pcm(rng: Rng, big_endian: bool, data_len: u64) -> Box<dyn Body + Send> {
    Box::new(Pcm {
        synth: Synth::new(rng),
        big_endian,
        data_len,
        emitted: 0,
        pending: None,
    })
}

/// An unsigned integer as an 80-bit IEEE 754 extended float (big-endian), as AIFF's
/// COMM chunk stores the sample rate (Apple, "Audio Interchange File Format", 1989).
pub fn extended80(v: u32) -> [u8; 10] {
    let mut out = [0u8; 10];
    if v == 0 {
        return out;
    }
    let bits = 32 - v.leading_zeros(); // position of the leading one, 1-based
    let exponent = 16383 + bits as u16 - 1;
    let mantissa = u64::from(v) << (64 - bits);
    out[..2].copy_from_slice(&exponent.to_be_bytes());
    out[2..].copy_from_slice(&mantissa.to_be_bytes());
    out
}

/// The AIFF header and body.
pub(super) fn aiff(size: u64, rng: Rng) -> (Vec<u8>, Box<dyn Body + Send>) {
    let (file, data) = data_len(size, AIFF_HEADER);
    let mut h = Vec::with_capacity(AIFF_HEADER);
    h.extend_from_slice(b"FORM");
    h.extend_from_slice(&sat(file - 8).to_be_bytes());
    h.extend_from_slice(b"AIFFCOMM");
    h.extend_from_slice(&18u32.to_be_bytes());
    h.extend_from_slice(&1u16.to_be_bytes()); // channels
    h.extend_from_slice(&sat(data / 2).to_be_bytes()); // sample frames
    h.extend_from_slice(&16u16.to_be_bytes()); // bits per sample
    h.extend_from_slice(&extended80(SAMPLE_RATE));
    h.extend_from_slice(b"SSND");
    h.extend_from_slice(&sat(data + 8).to_be_bytes());
    h.extend_from_slice(&0u32.to_be_bytes()); // offset
    h.extend_from_slice(&0u32.to_be_bytes()); // block size
    (h, pcm(rng, true, data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sine_matches_std_within_tolerance() {
        for k in 0..1000u64 {
            let phase = (k * 4_294_967) as u32;
            let angle = f64::from(phase) / 4_294_967_296.0 * std::f64::consts::TAU;
            assert!((sine(phase) - angle.sin()).abs() < 1e-5, "phase {phase}");
        }
    }

    #[test]
    fn sample_rate_in_extended_precision() {
        assert_eq!(
            extended80(44_100),
            [0x40, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(
            extended80(48_000),
            [0x40, 0x0E, 0xBB, 0x80, 0, 0, 0, 0, 0, 0]
        );
    }
}
