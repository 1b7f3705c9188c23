//! Cipher names (`aes-192-cfb`, `3des-168-cbc`, `rc4-2048`, `ascon-aead128`) parsed in
//! one place into a [`CipherSpec`]: algorithm, key size, mode and padding.
//!
//! Grammar: `<algorithm>[-<key bits>][-<mode>]`. Block ciphers need a mode (`ecb`, `cbc`,
//! `cfb` = full-block CFB, `cfb8`, `cfb1`, `ofb`, `ctr` = whole IV block as a big-endian
//! counter, and `gcm` for AES). The key size may be left out where the algorithm has a
//! default (OpenSSL's habit: `blowfish-cbc` and `rc2-cbc` are 128-bit, `rc4` is 128-bit,
//! `3des-cbc` is 168-bit); the canonical name always spells it. `rc2-<bits>` uses as many
//! effective key bits as key bits (OpenSSL's `rc2-40-cbc`, BouncyCastle's default).
//!
//! OpenSSL's own spellings are accepted too, as the descriptors' aliases list them
//! ([`crate::catalogue::Alias`]): `des-ede3-cbc` and `des3` (3des-168-cbc), `des-ede-cbc`
//! (3des-112-cbc), `bf-cbc` and `bf` (blowfish-128-cbc), `aes128` (aes-128-cbc), `des`
//! (des-cbc), `rc2` (rc2-128-cbc).
//!
//! Names are parsed here, at the edge (command line, vector files, configuration); code
//! inside passes [`CipherSpec`] values, built for fixed sets with [`CipherSpec::of`],
//! which checks them when the program is compiled.

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
    /// The spec of `algorithm` with a `key_bits` key and `mode` (PKCS#7 padding where the
    /// mode pads). For fixed sets of ciphers: in a `const`, an invalid combination (a key
    /// size the algorithm does not take, a block cipher without a mode, GCM with another
    /// cipher than AES) stops compilation.
    pub const fn of(
        algorithm: &'static Algorithm,
        key_bits: u16,
        mode: Option<Mode>,
    ) -> CipherSpec {
        let k = algorithm.key_bits;
        assert!(
            key_bits >= k.min && key_bits <= k.max && (key_bits - k.min).is_multiple_of(k.step),
            "a key size the algorithm does not take"
        );
        match (algorithm.kind, mode) {
            (Kind::Block, None) => panic!("a block cipher needs a mode"),
            (Kind::Block, Some(Mode::Gcm)) => {
                assert!(
                    matches!(algorithm.id, AlgorithmId::Aes),
                    "GCM is AES's only"
                );
            }
            (Kind::Block, Some(_)) => {}
            (_, Some(_)) => panic!("only block ciphers take a mode"),
            (_, None) => {}
        }
        CipherSpec {
            algorithm,
            key_bits,
            mode,
            padding: Padding::Pkcs7,
            effective_bits: None,
        }
    }

    /// The spec of `algorithm` at its default key size, for ciphers without a mode.
    pub const fn aead(algorithm: &'static Algorithm) -> CipherSpec {
        CipherSpec::of(algorithm, algorithm.key_bits.default, None)
    }

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

    /// The nonce and tag sizes of an authenticating spec (AES-GCM: 12 and 16 bytes, SP
    /// 800-38D's recommended nonce; the AEADs: their descriptor's).
    fn aead_sizes(&self) -> Option<crate::catalogue::AeadSizes> {
        match self.mode {
            Some(Mode::Gcm) => Some(crate::catalogue::AeadSizes { nonce: 12, tag: 16 }),
            _ => self.algorithm.aead,
        }
    }

    /// IV or nonce length in bytes (0 for ECB and RC4).
    pub fn iv_len(&self) -> usize {
        if let Some(a) = self.aead_sizes() {
            return a.nonce;
        }
        match (self.algorithm.kind, self.mode) {
            (Kind::Block, Some(Mode::Ecb)) => 0,
            (Kind::Block, _) => self.algorithm.block_bytes,
            _ => 0,
        }
    }

    /// Whether the spec authenticates (AES-GCM and the AEADs).
    pub fn is_aead(&self) -> bool {
        self.aead_sizes().is_some()
    }

    /// Tag length in bytes (0 without authentication).
    pub fn tag_len(&self) -> usize {
        self.aead_sizes().map_or(0, |a| a.tag)
    }

    /// Its id in the file container (docs/format.md), if it is an AEAD the container
    /// takes.
    pub fn container_id(&self) -> Option<u8> {
        if !self.is_aead() {
            return None;
        }
        self.algorithm.container_id(self.key_bits)
    }

    /// The spec a container id stands for.
    pub fn from_container_id(id: u8) -> Option<CipherSpec> {
        ALGORITHMS.iter().copied().find_map(|a| {
            let c = a.container.iter().find(|c| c.id == id)?;
            let mode = (a.kind == Kind::Block).then_some(Mode::Gcm);
            Some(CipherSpec::of(a, c.key_bits, mode))
        })
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

/// `name` with an OpenSSL alias at its start replaced by the canonical stem (and key size),
/// or, for an alias alone, the canonical name it stands for.
fn unalias(name: &str) -> Option<String> {
    let mut aliases: Vec<(&'static Algorithm, &crate::catalogue::Alias)> = ALGORITHMS
        .iter()
        .flat_map(|a| a.aliases.iter().map(move |x| (*a, x)))
        .collect();
    // Longest first: `des-ede3` before `des-ede` before `des`.
    aliases.sort_by_key(|(_, x)| std::cmp::Reverse(x.name.len()));
    aliases.into_iter().find_map(|(a, x)| {
        let stem = match x.key_bits {
            Some(bits) if a.key_bits.min != a.key_bits.max => format!("{}-{bits}", a.name),
            _ => a.name.to_string(),
        };
        if name == x.name {
            let mode = x.bare_mode?;
            return Some(format!("{stem}-{}", mode.as_str()));
        }
        let rest = name.strip_prefix(x.name)?.strip_prefix('-')?;
        // `des-cbc` is the canonical stem `des` already: only rewrite real aliases.
        (x.name != a.name).then(|| format!("{stem}-{rest}"))
    })
}

/// `None` when no algorithm stem matches; `Some(Err)` for a known algorithm used wrongly.
fn parse_parts(name: &str) -> Option<Result<CipherSpec, Error>> {
    if let Some(canonical) = unalias(name) {
        return parse_canonical(&canonical);
    }
    parse_canonical(name)
}

/// [`parse_parts`] for a name in cipherlab's own grammar.
fn parse_canonical(name: &str) -> Option<Result<CipherSpec, Error>> {
    // Longest stem first, so `ascon-128a` is not read as `ascon-128` + `a`.
    let mut stems: Vec<&'static Algorithm> = ALGORITHMS.to_vec();
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

    /// OpenSSL's spellings name the same ciphers (`openssl enc -list`).
    #[test]
    fn openssl_aliases() {
        for (alias, canonical) in [
            ("des-ede3-cbc", "3des-168-cbc"),
            ("des-ede3", "3des-168-ecb"),
            ("des-ede3-cfb", "3des-168-cfb"),
            ("des-ede-cbc", "3des-112-cbc"),
            ("des-ede", "3des-112-ecb"),
            ("des3", "3des-168-cbc"),
            ("bf-cbc", "blowfish-128-cbc"),
            ("bf-ecb", "blowfish-128-ecb"),
            ("bf", "blowfish-128-cbc"),
            ("aes128", "aes-128-cbc"),
            ("aes256", "aes-256-cbc"),
            ("des", "des-cbc"),
            ("des-ecb", "des-ecb"),
            ("rc2", "rc2-128-cbc"),
            ("rc2-40-cbc", "rc2-40-cbc"),
            ("rc4-40", "rc4-40"),
            ("DES-EDE3-CBC", "3des-168-cbc"),
        ] {
            assert_eq!(canon(alias), canonical, "{alias}");
        }
    }

    #[test]
    fn const_specs_and_container_ids() {
        use crate::catalogue::{AES, ASCON_AEAD128, CHACHA20_POLY1305};
        const GCM: CipherSpec = CipherSpec::of(&AES, 256, Some(Mode::Gcm));
        assert_eq!(GCM.to_string(), "aes-256-gcm");
        assert_eq!(
            (GCM.iv_len(), GCM.tag_len(), GCM.container_id()),
            (12, 16, Some(3))
        );
        let cbc = CipherSpec::of(&AES, 128, Some(Mode::Cbc));
        assert_eq!(
            (cbc.iv_len(), cbc.tag_len(), cbc.container_id()),
            (16, 0, None)
        );
        assert_eq!(CipherSpec::aead(&CHACHA20_POLY1305).iv_len(), 12);
        assert_eq!(CipherSpec::aead(&ASCON_AEAD128).container_id(), Some(5));
        for id in 0..=255u8 {
            if let Some(s) = CipherSpec::from_container_id(id) {
                assert_eq!(s.container_id(), Some(id), "{s}");
            }
        }
        assert_eq!(
            CipherSpec::from_container_id(1)
                .map(|s| s.to_string())
                .as_deref(),
            Some("aes-128-gcm")
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
