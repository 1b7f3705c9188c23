//! What each algorithm of this crate is: sizes and parameters, for `cipherlab list`,
//! the vector runner and the benchmarks. One static table, so nothing is typed twice.

/// What kind of primitive an entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Authenticated encryption with associated data.
    Aead,
    /// Fixed-output hash.
    Hash,
    /// Extendable-output function.
    Xof,
    /// Customizable extendable-output function.
    Cxof,
}

/// Sizes and parameters of one algorithm. Sizes are in bytes.
#[derive(Clone, Copy, Debug)]
pub struct AlgorithmInfo {
    /// Command-line name (lower case, as in DESIGN.md).
    pub name: &'static str,
    /// Primitive kind.
    pub kind: Kind,
    /// Key length (0 for hashes).
    pub key_len: usize,
    /// Nonce length (0 for hashes).
    pub nonce_len: usize,
    /// Tag length for AEADs; digest length for hashes; default output for XOFs.
    pub tag_len: usize,
    /// Bytes of data processed per permutation call in the bulk phase (the rate).
    pub rate: usize,
    /// Permutation and round counts, as the specification writes them.
    pub permutation: &'static str,
    /// Specification this implementation follows.
    pub spec: &'static str,
}

const fn aead(
    name: &'static str,
    key_len: usize,
    rate: usize,
    permutation: &'static str,
    spec: &'static str,
) -> AlgorithmInfo {
    AlgorithmInfo {
        name,
        kind: Kind::Aead,
        key_len,
        nonce_len: 16,
        tag_len: 16,
        rate,
        permutation,
        spec,
    }
}

const fn hash(
    name: &'static str,
    kind: Kind,
    out: usize,
    rate: usize,
    permutation: &'static str,
    spec: &'static str,
) -> AlgorithmInfo {
    AlgorithmInfo {
        name,
        kind,
        key_len: 0,
        nonce_len: 0,
        tag_len: out,
        rate,
        permutation,
        spec,
    }
}

const SP800_232: &str = "NIST SP 800-232";
const ASCON_V12: &str = "Ascon v1.2 (NIST LWC final round)";
const XOODYAK: &str = "Xoodyak (NIST LWC final round)";
const ISAP: &str = "ISAP v2.0 (NIST LWC final round)";

/// Every algorithm of this crate.
pub static ALGORITHMS: &[AlgorithmInfo] = &[
    aead("ascon-aead128", 16, 16, "Ascon-p a=12 b=8", SP800_232),
    aead("ascon-128", 16, 8, "Ascon-p a=12 b=6", ASCON_V12),
    aead("ascon-128a", 16, 16, "Ascon-p a=12 b=8", ASCON_V12),
    aead("ascon-80pq", 20, 8, "Ascon-p a=12 b=6", ASCON_V12),
    aead("xoodyak", 16, 24, "Xoodoo[12] (Rkin 44, Rkout 24)", XOODYAK),
    aead("isap-a-128a", 16, 8, "Ascon-p sH=12 sB=1 sE=6 sK=12", ISAP),
    aead("isap-a-128", 16, 8, "Ascon-p sH=12 sB=12 sE=12 sK=12", ISAP),
    aead(
        "isap-k-128a",
        16,
        18,
        "Keccak-p[400] sH=16 sB=1 sE=8 sK=8",
        ISAP,
    ),
    aead(
        "isap-k-128",
        16,
        18,
        "Keccak-p[400] sH=20 sB=12 sE=12 sK=12",
        ISAP,
    ),
    hash("ascon-hash256", Kind::Hash, 32, 8, "Ascon-p 12", SP800_232),
    hash("ascon-xof128", Kind::Xof, 32, 8, "Ascon-p 12", SP800_232),
    hash("ascon-cxof128", Kind::Cxof, 32, 8, "Ascon-p 12", SP800_232),
    hash("ascon-hash", Kind::Hash, 32, 8, "Ascon-p 12", ASCON_V12),
    hash("ascon-hasha", Kind::Hash, 32, 8, "Ascon-p 12/8", ASCON_V12),
    hash("ascon-xof", Kind::Xof, 32, 8, "Ascon-p 12", ASCON_V12),
    hash("ascon-xofa", Kind::Xof, 32, 8, "Ascon-p 12/8", ASCON_V12),
    hash("xoodyak-hash", Kind::Hash, 32, 16, "Xoodoo[12]", XOODYAK),
];

/// Looks an algorithm up by its command-line name (case-insensitive).
pub fn find(name: &str) -> Option<&'static AlgorithmInfo> {
    ALGORITHMS
        .iter()
        .find(|a| a.name.eq_ignore_ascii_case(name))
}
