//! A byte histogram and its statistics: what the `distribution` study shows of a
//! plaintext or a ciphertext (Java stream-security paper, Fig. 3).

use cipherlab_harness::stats::{self, byte_histogram, chi_square_uniform};
use serde::{Deserialize, Deserializer, Serialize};

/// Counts of the 256 byte values of one input, with the statistics the paper used.
/// Statistics that cannot be computed are NaN (stored as JSON `null`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    /// `aes-128-ecb of bmp`.
    pub label: String,
    /// The cipher's name, `none` for the plaintext.
    pub algorithm: String,
    /// The input's data type.
    pub data_type: String,
    /// Bytes counted.
    pub bytes: u64,
    /// How often each byte value occurs.
    pub counts: Vec<u64>,
    /// Shannon entropy, bits per byte.
    #[serde(deserialize_with = "nan_if_null")]
    pub entropy_bits: f64,
    /// Chi-square statistic against the uniform distribution.
    #[serde(deserialize_with = "nan_if_null")]
    pub chi_square: f64,
    /// Its p-value.
    #[serde(deserialize_with = "nan_if_null")]
    pub p_value: f64,
    /// The means of the 16 groups of 16 byte values.
    pub group_means: Vec<f64>,
    /// Their mean.
    #[serde(deserialize_with = "nan_if_null")]
    pub group_mean: f64,
    /// Their standard deviation (the paper's Fig. 3 statistic).
    #[serde(deserialize_with = "nan_if_null")]
    pub group_std_dev: f64,
    /// What a uniform source of the same length would give.
    #[serde(deserialize_with = "nan_if_null")]
    pub ideal_group_std_dev: f64,
}

impl Histogram {
    /// Counts and statistics of `data`, the output of `algorithm` (`none`: a plaintext).
    pub fn of(algorithm: &str, data_type: &str, data: &[u8]) -> Histogram {
        Histogram::from_counts(algorithm, data_type, &byte_histogram(data))
    }

    /// The statistics of byte `counts` (a stream counted piece by piece).
    pub fn from_counts(algorithm: &str, data_type: &str, counts: &[u64; 256]) -> Histogram {
        let bytes: u64 = counts.iter().sum();
        let (chi_square, p_value) = chi_square_uniform(counts).unwrap_or((f64::NAN, f64::NAN));
        let group_means: Vec<f64> = counts
            .chunks(16)
            .map(|g| g.iter().sum::<u64>() as f64 / 16.0)
            .collect();
        let (group_mean, group_std_dev) = match stats::Sample::new(group_means.clone()) {
            Ok(s) => (s.mean(), s.std_dev()),
            Err(_) => (f64::NAN, f64::NAN),
        };
        let lambda = bytes as f64 / 256.0;
        Histogram {
            label: format!("{algorithm} of {data_type}"),
            algorithm: algorithm.to_string(),
            data_type: data_type.to_string(),
            bytes,
            counts: counts.to_vec(),
            entropy_bits: entropy(counts, bytes),
            chi_square,
            p_value,
            group_means,
            group_mean,
            group_std_dev,
            ideal_group_std_dev: (lambda * (1.0 - 1.0 / 256.0)).sqrt() / 4.0,
        }
    }

    /// Whether the bytes are unevenly spread, as a ciphertext's should not be: a uniform
    /// source would almost never give this chi-square (p < 0.001) and the 16 group means
    /// deviate over twice as much as a uniform source's would. One test, used by the
    /// `distribution` study and by `cipherlab analyze`.
    pub fn uneven(&self) -> bool {
        self.p_value < 1e-3 && self.group_std_dev > 2.0 * self.ideal_group_std_dev
    }
}

/// Shannon entropy in bits per byte of `bytes` bytes with these `counts`.
fn entropy(counts: &[u64; 256], bytes: u64) -> f64 {
    if bytes == 0 {
        return 0.0;
    }
    let n = bytes as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// JSON has no NaN: serde_json writes it as `null`, and this reads `null` back as NaN.
fn nan_if_null<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_of_random_and_of_zeros() {
        let mut rng = cipherlab_harness::rng::Rng::new(9);
        let mut data = vec![0u8; 256 * 1000];
        rng.fill_bytes(&mut data);
        let h = Histogram::of("des-ecb", "dense", &data);
        assert_eq!(h.counts.iter().sum::<u64>(), data.len() as u64);
        assert!((h.group_mean - 1000.0).abs() < 1e-9);
        // The ideal is sqrt(1000 * 255/256) / 4 = 7.890; a sample lands within a factor 2.
        assert!((h.ideal_group_std_dev - 7.89022).abs() < 1e-4);
        assert!(h.group_std_dev > 7.9 / 2.0 && h.group_std_dev < 7.9 * 2.0);
        assert!(h.entropy_bits > 7.99 && h.p_value > 1e-4);
        let zeros = Histogram::of("none", "sparse", &[0u8; 4096]);
        assert_eq!(zeros.counts[0], 4096);
        assert!(zeros.entropy_bits == 0.0 && zeros.p_value < 1e-100);
    }

    #[test]
    fn counted_in_pieces_is_counted_whole() {
        let mut rng = cipherlab_harness::rng::Rng::new(3);
        let mut data = vec![0u8; 10_000];
        rng.fill_bytes(&mut data);
        let whole = Histogram::of("x", "y", &data);
        let mut counts = [0u64; 256];
        for piece in data.chunks(777) {
            for (c, n) in counts.iter_mut().zip(byte_histogram(piece)) {
                *c += n;
            }
        }
        assert_eq!(Histogram::from_counts("x", "y", &counts), whole);
        assert!((whole.entropy_bits - stats::byte_entropy(&data)).abs() < 1e-12);
        assert!(!whole.uneven());
        assert!(Histogram::of("none", "zeros", &[0u8; 4096]).uneven());
    }

    #[test]
    fn nan_statistics_survive_the_stored_form() {
        let empty = Histogram::of("none", "empty", &[]);
        let json = serde_json::to_vec(&empty).unwrap();
        let back: Histogram = serde_json::from_slice(&json).unwrap();
        assert!(back.p_value.is_nan() || back.p_value == empty.p_value);
        assert_eq!(back.counts, empty.counts);
    }
}
