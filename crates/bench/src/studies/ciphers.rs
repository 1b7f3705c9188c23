//! Which ciphers the studies time, and the `--cipher` filter.

use cipherlab_ciphers::{CipherSpec, Mode, catalogue};

/// The file-features paper's seven ciphers at its "bare minimal parameters": the
/// smallest key of each, ECB with PKCS#5 padding (case studies 1-3).
pub const PAPER_SEVEN: [CipherSpec; 7] = [
    CipherSpec::of(&catalogue::AES, 128, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::DES, 56, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::TDES, 112, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::RC2, 40, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::BLOWFISH, 32, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::SKIPJACK, 80, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::RC4, 40, None),
];

/// The modern ciphers every file study adds to the paper's seven.
pub const MODERN: [CipherSpec; 5] = [
    CipherSpec::of(&catalogue::AES, 128, Some(Mode::Gcm)),
    CipherSpec::aead(&catalogue::CHACHA20_POLY1305),
    CipherSpec::aead(&catalogue::ASCON_AEAD128),
    CipherSpec::aead(&catalogue::XOODYAK),
    CipherSpec::aead(&catalogue::ISAP_A_128A),
];

/// The paper's seven, then the modern ones.
pub fn file_study_ciphers() -> impl Iterator<Item = CipherSpec> {
    PAPER_SEVEN.into_iter().chain(MODERN)
}

/// Every lightweight AEAD of crates/lwc (from the catalogue).
pub fn lwc_aeads() -> impl Iterator<Item = CipherSpec> {
    catalogue::lightweight().map(CipherSpec::aead)
}

/// `--cipher PATTERN`: which ciphers to time. A pattern with `*` or `?` is a glob over
/// the whole canonical name (`aes-*-gcm`); one without matches any name containing it
/// (`aes` matches `aes-128-ecb` and `aes-256-gcm`). Several patterns: any may match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CipherFilter {
    patterns: Vec<String>,
}

impl CipherFilter {
    /// Matches everything.
    pub fn all() -> CipherFilter {
        CipherFilter::default()
    }

    /// Matches any of `patterns` (none: everything).
    pub fn new<S: AsRef<str>>(patterns: &[S]) -> CipherFilter {
        CipherFilter {
            patterns: patterns
                .iter()
                .map(|p| p.as_ref().trim().to_ascii_lowercase())
                .filter(|p| !p.is_empty())
                .collect(),
        }
    }

    /// The patterns, trimmed and lower-cased (none: everything).
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Whether `name` (a canonical catalogue name, or `none` for plaintext baselines) is
    /// wanted. Baselines (`none`) are always kept: they are what the others are read
    /// against.
    pub fn accepts(&self, name: &str) -> bool {
        if self.patterns.is_empty() || name == "none" {
            return true;
        }
        let name = name.to_ascii_lowercase();
        self.patterns.iter().any(|p| {
            if p.contains('*') || p.contains('?') {
                glob(p.as_bytes(), name.as_bytes())
            } else {
                name.contains(p.as_str())
            }
        })
    }

    /// Whether `spec` (by its canonical name) is wanted.
    pub fn accepts_spec(&self, spec: &CipherSpec) -> bool {
        self.accepts(&spec.to_string())
    }

    /// Whether any pattern is set.
    pub fn is_restricted(&self) -> bool {
        !self.patterns.is_empty()
    }
}

/// `*` any run of characters, `?` one character; everything else literal.
fn glob(p: &[u8], s: &[u8]) -> bool {
    // Iterative matching with one backtrack point for the last `*`.
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() && (p[pi] == b'?' || p[pi] == s[si]) {
            pi += 1;
            si += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, si));
            pi += 1;
        } else if let Some((sp, ss)) = star {
            pi = sp + 1;
            si = ss + 1;
            star = Some((sp, ss + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sets_are_what_the_papers_name() {
        let names: Vec<String> = file_study_ciphers().map(|s| s.to_string()).collect();
        assert_eq!(
            names[..7],
            [
                "aes-128-ecb",
                "des-ecb",
                "3des-112-ecb",
                "rc2-40-ecb",
                "blowfish-32-ecb",
                "skipjack-ecb",
                "rc4-40"
            ]
        );
        assert_eq!(lwc_aeads().count(), 9);
    }

    #[test]
    fn filter_globs_and_substrings() {
        let f = CipherFilter::new(&["aes-*-gcm", "rc4"]);
        assert!(f.accepts("aes-128-gcm") && f.accepts("aes-256-gcm"));
        assert!(!f.accepts("aes-128-ecb"));
        assert!(f.accepts("rc4-40") && f.accepts("rc4-2048"));
        assert!(f.accepts("none"), "baselines are always kept");
        let all = CipherFilter::all();
        assert!(all.accepts("skipjack-ecb") && !all.is_restricted());
        let q = CipherFilter::new(&["des-?cb"]);
        assert!(q.accepts("des-ecb") && !q.accepts("3des-112-ecb") && !q.accepts("des-cbc2"));
        assert!(CipherFilter::new(&["*"]).accepts("xoodyak"));
        assert!(!CipherFilter::new(&["a*b"]).accepts("abc"));
    }
}
