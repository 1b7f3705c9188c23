//! Cipher names (`aes-192-cfb`, `3des-168-cbc`, `rc4-2048`, `ascon-aead128`) parsed in
//! one place into a [`CipherSpec`]: algorithm, key size, mode and padding.
//!
//! Grammar: `<algorithm>[-<key bits>][-<mode>]`. Block ciphers need a mode (`ecb`, `cbc`,
//! `cfb` = full-block CFB, `cfb8`, `cfb1`, `ofb`, `ctr` = whole IV block as a big-endian
//! counter, and `gcm` for AES). The key size may be left out where the algorithm has a
//! default (OpenSSL's habit: `blowfish-cbc` and `rc2-cbc` are 128-bit, `rc4` is 128-bit,
//! `3des-cbc` is 168-bit); the canonical name always spells it. `rc2-<bits>` uses as many
//! effective key bits as key bits (OpenSSL's `rc2-40-cbc`, BouncyCastle's default).

use std::fmt;
use std::str::FromStr;

use crate::catalogue::{ALGORITHMS, Algorithm, AlgorithmId, Kind};
use crate::error::Error;

/// Mode of operation for a block cipher.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Electronic codebook (padded).
    Ecb,
    /// Cipher block chaining (padded).
    Cbc,
    /// Full-block cipher feedback (no padding).
    Cfb,
    /// 8-bit cipher feedback.
    Cfb8,
    /// 1-bit cipher feedback.
    Cfb1,
    /// Output feedback.
    Ofb,
    /// Counter mode over the whole IV block, big-endian.
    Ctr,
    /// Galois/counter mode (AES only; 12-byte nonce, 16-byte tag).
    Gcm,
}

impl Mode {
    /// Every mode, in the order tables list them.
    pub const ALL: [Mode; 8] = [
        Mode::Ecb,
        Mode::Cbc,
        Mode::Cfb,
        Mode::Cfb8,
        Mode::Cfb1,
        Mode::Ofb,
        Mode::Ctr,
        Mode::Gcm,
    ];

    /// Name suffix.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Ecb => "ecb",
            Mode::Cbc => "cbc",
            Mode::Cfb => "cfb",
            Mode::Cfb8 => "cfb8",
            Mode::Cfb1 => "cfb1",
            Mode::Ofb => "ofb",
            Mode::Ctr => "ctr",
            Mode::Gcm => "gcm",
        }
    }

    fn parse(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.as_str() == s)
    }

    /// Whether the mode works on whole blocks and so pads.
    pub fn pads(self) -> bool {
        matches!(self, Mode::Ecb | Mode::Cbc)
    }
}

/// Padding for ECB and CBC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub enum Padding {
    /// PKCS#7 (PKCS#5 for 8-byte blocks): what JCE's `PKCS5Padding` and OpenSSL do.
    #[default]
    Pkcs7,
    /// No padding: the input must be a whole number of blocks.
    None,
}

/// A fully determined cipher: what a provider is asked to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CipherSpec {
    /// The algorithm.
    pub algorithm: &'static Algorithm,
    /// Key size in bits (56 for DES, whose key is 8 bytes with parity).
    pub key_bits: u16,
    /// Mode, for block ciphers.
    pub mode: Option<Mode>,
    /// Padding (meaningful for ECB and CBC only).
    pub padding: Padding,
    /// RC2's effective key bits (RFC 2268); `None` means as many as key bits.
    pub effective_bits: Option<u16>,
}

impl PartialEq for Algorithm {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}
impl Eq for Algorithm {}
impl std::hash::Hash for Algorithm {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

impl CipherSpec {
    /// Parses a name; see the module doc for the grammar.
    pub fn parse(name: &str) -> Result<CipherSpec, Error> {
        let lower = name.trim().to_ascii_lowercase();
        parse_parts(&lower).ok_or_else(|| Error::UnknownCipher {
            name: name.to_string(),
            suggestions: suggest(&lower),
        })?
    }

    /// The same spec with another padding.
    pub fn with_padding(mut self, padding: Padding) -> CipherSpec {
        self.padding = padding;
        self
    }

    /// RC2's effective key bits: as given, else the key bits (at most 1024).
    pub fn rc2_effective_bits(&self) -> u16 {
        self.effective_bits.unwrap_or(self.key_bits).min(1024)
    }

    /// Key length in bytes.
    pub fn key_len(&self) -> usize {
        match self.algorithm.id {
            AlgorithmId::Des => 8,
            AlgorithmId::Tdes => self.key_bits as usize / 7, // 112 -> 16, 168 -> 24 (with parity)
            _ => self.key_bits as usize / 8,
        }
    }

    /// IV or nonce length in bytes (0 for ECB and RC4).
    pub fn iv_len(&self) -> usize {
        match (self.algorithm.kind, self.mode) {
            (Kind::Block, Some(Mode::Ecb)) => 0,
            (Kind::Block, Some(Mode::Gcm)) => 12,
            (Kind::Block, _) => self.algorithm.block_bytes,
            (Kind::Stream, _) => 0,
            (Kind::Aead, _) => match self.algorithm.id {
                AlgorithmId::ChaCha20Poly1305 => 12,
                _ => 16,
            },
        }
    }

    /// Whether the spec authenticates (AES-GCM and the AEADs).
    pub fn is_aead(&self) -> bool {
        self.algorithm.kind == Kind::Aead || self.mode == Some(Mode::Gcm)
    }

    /// Tag length in bytes (0 without authentication).
    pub fn tag_len(&self) -> usize {
        if self.is_aead() { 16 } else { 0 }
    }

    /// Whether the output is padded to whole blocks.
    pub fn pads(&self) -> bool {
        self.padding == Padding::Pkcs7 && self.mode.is_some_and(Mode::pads)
    }

    /// Output length for a message of `len` bytes.
    pub fn output_len(&self, len: usize) -> usize {
        if self.pads() {
            let b = self.algorithm.block_bytes;
            (len / b + 1) * b
        } else {
            len + self.tag_len()
        }
    }

    /// The largest extra room encryption needs beyond the message.
    pub fn overhead(&self) -> usize {
        if self.pads() {
            self.algorithm.block_bytes
        } else {
            self.tag_len()
        }
    }
}

impl fmt::Display for CipherSpec {
    /// The canonical name: key bits spelled out where the algorithm has several sizes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = self.algorithm;
        f.write_str(a.name)?;
        if a.key_bits.min != a.key_bits.max {
            write!(f, "-{}", self.key_bits)?;
        }
        if let Some(m) = self.mode {
            write!(f, "-{}", m.as_str())?;
        }
        Ok(())
    }
}

impl FromStr for CipherSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        CipherSpec::parse(s)
    }
}

/// `None` when no algorithm stem matches; `Some(Err)` for a known algorithm used wrongly.
fn parse_parts(name: &str) -> Option<Result<CipherSpec, Error>> {
    // Longest stem first, so `ascon-128a` is not read as `ascon-128` + `a`.
    let mut stems: Vec<&'static Algorithm> = ALGORITHMS.iter().collect();
    stems.sort_by_key(|a| std::cmp::Reverse(a.name.len()));
    let algorithm = stems
        .into_iter()
        .find(|a| name == a.name || name.starts_with(&format!("{}-", a.name)))?;
    let rest = name[algorithm.name.len()..].trim_start_matches('-');
    let mut parts: Vec<&str> = if rest.is_empty() {
        Vec::new()
    } else {
        rest.split('-').collect()
    };
    let mut key_bits = algorithm.key_bits.default;
    if let Some(bits) = parts.first().and_then(|p| p.parse::<u16>().ok()) {
        if !algorithm.key_bits.accepts(bits) {
            return Some(Err(Error::KeySize {
                cipher: algorithm.name,
                bits,
                accepted: algorithm.key_bits.describe(),
            }));
        }
        key_bits = bits;
        parts.remove(0);
    }
    let mode = match (algorithm.kind, parts.as_slice()) {
        (Kind::Block, [m]) => match Mode::parse(m) {
            Some(Mode::Gcm) if algorithm.id != AlgorithmId::Aes => return None,
            Some(mode) => Some(mode),
            None => return None,
        },
        (Kind::Block, []) => {
            return Some(Err(Error::ModeMissing {
                name: name.to_string(),
                examples: Mode::ALL
                    .iter()
                    .filter(|m| **m != Mode::Gcm || algorithm.id == AlgorithmId::Aes)
                    .map(|m| format!("{name}-{}", m.as_str()))
                    .collect(),
            }));
        }
        (_, []) => None,
        _ => return None,
    };
    Some(Ok(CipherSpec {
        algorithm,
        key_bits,
        mode,
        padding: Padding::Pkcs7,
        effective_bits: None,
    }))
}

/// Every canonical name at default key sizes plus every AES/3DES size: the list
/// suggestions are drawn from.
pub fn example_names() -> Vec<String> {
    let mut out = Vec::new();
    for a in ALGORITHMS {
        let sizes: Vec<u16> = if a.key_bits.all().count() <= 3 {
            a.key_bits.all().collect()
        } else {
            vec![a.key_bits.min, a.key_bits.default, a.key_bits.max]
        };
        for bits in sizes {
            let modes: Vec<Option<Mode>> = if a.kind == Kind::Block {
                Mode::ALL
                    .iter()
                    .filter(|m| **m != Mode::Gcm || a.id == AlgorithmId::Aes)
                    .map(|m| Some(*m))
                    .collect()
            } else {
                vec![None]
            };
            for mode in modes {
                out.push(
                    CipherSpec {
                        algorithm: a,
                        key_bits: bits,
                        mode,
                        padding: Padding::Pkcs7,
                        effective_bits: None,
                    }
                    .to_string(),
                );
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Up to five known names closest to `name` (Jaro-Winkler similarity).
fn suggest(name: &str) -> Vec<String> {
    let mut scored: Vec<(f64, String)> = example_names()
        .into_iter()
        .map(|n| (strsim::jaro_winkler(name, &n), n))
        .filter(|(s, _)| *s > 0.75)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().take(5).map(|(_, n)| n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(name: &str) -> String {
        CipherSpec::parse(name)
            .map(|s| s.to_string())
            .unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn names_from_design_md_parse_to_themselves() {
        for n in [
            "aes-192-cfb",
            "3des-168-cbc",
            "blowfish-448-ecb",
            "rc2-40-cbc",
            "rc4-2048",
            "skipjack-ofb",
            "aes-256-gcm",
            "aes-128-cfb8",
            "des-cbc",
            "chacha20-poly1305",
            "ascon-aead128",
            "ascon-128a",
            "ascon-128",
            "isap-k-128a",
            "xoodyak",
        ] {
            assert_eq!(canon(n), n);
        }
    }

    #[test]
    fn defaults_and_sizes() {
        assert_eq!(canon("Blowfish-CBC"), "blowfish-128-cbc");
        assert_eq!(canon("rc4"), "rc4-128");
        assert_eq!(canon("3des-cbc"), "3des-168-cbc");
        let s = CipherSpec::parse("3des-112-ecb").expect("parses");
        assert_eq!(
            (s.key_len(), s.iv_len(), s.output_len(8), s.output_len(7)),
            (16, 0, 16, 8)
        );
        let s = CipherSpec::parse("aes-128-gcm").expect("parses");
        assert_eq!(
            (s.key_len(), s.iv_len(), s.tag_len(), s.output_len(5)),
            (16, 12, 16, 21)
        );
        let s = CipherSpec::parse("ascon-80pq").expect("parses");
        assert_eq!((s.key_len(), s.iv_len()), (20, 16));
        assert_eq!(
            CipherSpec::parse("des-ecb").map(|s| s.key_len()).ok(),
            Some(8)
        );
    }

    #[test]
    fn helpful_errors() {
        let e = canon("aes-129-cbc");
        assert!(e.contains("128, 192, 256"), "{e}");
        let e = canon("aes-128");
        assert!(e.contains("aes-128-cbc"), "{e}");
        let e = canon("aes-128-cbd");
        assert!(e.contains("aes-128-cbc"), "{e}");
        let e = canon("blowfsh-ecb");
        assert!(e.contains("blowfish-128-ecb"), "{e}");
        assert!(canon("des-gcm").starts_with("error"));
        assert!(canon("rc4-36").contains("40 to 2048"));
    }
}
