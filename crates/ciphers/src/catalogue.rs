//! The algorithms of the catalogue as static descriptors: what each one is (the
//! file-features paper's Table 1 columns, plus status and source). Every table cipherlab
//! prints about algorithms is printed from here, never typed by hand.

/// How the cipher is built (the file-features paper's "Structure" column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Structure {
    /// Substitution-permutation network (AES).
    Spn,
    /// Balanced Feistel network (DES).
    BalancedFeistel,
    /// Feistel network (3DES, Blowfish).
    Feistel,
    /// Source-heavy Feistel network (RC2).
    SourceHeavyFeistel,
    /// Unbalanced Feistel network (Skipjack).
    UnbalancedFeistel,
    /// Byte-permutation keystream generator (RC4; the paper leaves this cell empty).
    KeystreamGenerator,
    /// Add-rotate-xor stream cipher with a polynomial MAC (ChaCha20-Poly1305).
    Arx,
    /// Permutation-based duplex or sponge (Ascon, Xoodyak, ISAP).
    Sponge,
}

impl Structure {
    /// Words for tables.
    pub fn describe(self) -> &'static str {
        match self {
            Structure::Spn => "substitution-permutation network",
            Structure::BalancedFeistel => "balanced Feistel network",
            Structure::Feistel => "Feistel network",
            Structure::SourceHeavyFeistel => "source-heavy Feistel network",
            Structure::UnbalancedFeistel => "unbalanced Feistel network",
            Structure::KeystreamGenerator => "keystream generator",
            Structure::Arx => "ARX stream cipher + Poly1305",
            Structure::Sponge => "permutation-based duplex",
        }
    }
}

/// What the primitive does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Block cipher, used through a mode.
    Block,
    /// Stream cipher without authentication.
    Stream,
    /// Authenticated encryption with associated data.
    Aead,
}

/// Whether the algorithm may still protect data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Recommended today.
    Modern,
    /// No practical break, but small blocks or keys: for old data and measurement.
    Legacy,
    /// Practically broken: for measurement and old data only.
    Broken,
}

impl Status {
    /// Lower-case word for tables and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Modern => "modern",
            Status::Legacy => "legacy",
            Status::Broken => "broken",
        }
    }
}

/// The key sizes an algorithm accepts, in bits: `min..=max` in steps of `step`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyBits {
    /// Smallest key.
    pub min: u16,
    /// Largest key.
    pub max: u16,
    /// Distance between accepted sizes.
    pub step: u16,
    /// Size used when a name gives none (OpenSSL's habit for `bf-cbc`, `rc2-cbc`, `rc4`).
    pub default: u16,
}

impl KeyBits {
    const fn one(bits: u16) -> Self {
        KeyBits {
            min: bits,
            max: bits,
            step: 8,
            default: bits,
        }
    }

    /// Whether `bits` is an accepted size.
    pub fn accepts(&self, bits: u16) -> bool {
        (self.min..=self.max).contains(&bits) && (bits - self.min).is_multiple_of(self.step)
    }

    /// Every accepted size (for the key-size study and `list`).
    pub fn all(&self) -> impl Iterator<Item = u16> + '_ {
        (self.min..=self.max).step_by(self.step as usize)
    }

    /// "128, 192, 256" or "40 to 2048" for tables.
    pub fn describe(&self) -> String {
        let n = (self.max - self.min) / self.step + 1;
        if n <= 3 {
            self.all()
                .map(|b| b.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        } else {
            format!("{} to {}", self.min, self.max)
        }
    }
}

/// Identifies an algorithm in code (the name is for people).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // the names are the algorithms'
pub enum AlgorithmId {
    Aes,
    Des,
    Tdes,
    Blowfish,
    Rc2,
    Skipjack,
    Rc4,
    ChaCha20Poly1305,
    AsconAead128,
    Ascon128,
    Ascon128a,
    Ascon80pq,
    Xoodyak,
    IsapA128a,
    IsapA128,
    IsapK128a,
    IsapK128,
}

/// One algorithm of the catalogue.
#[derive(Debug)]
pub struct Algorithm {
    /// Code identity.
    pub id: AlgorithmId,
    /// Name stem on the command line (`aes`, `3des`, `rc4`, `ascon-aead128`).
    pub name: &'static str,
    /// Name in prose and tables ("Triple DES").
    pub title: &'static str,
    /// How it is built.
    pub structure: Structure,
    /// Accepted key sizes.
    pub key_bits: KeyBits,
    /// Block size in bytes (1 for stream ciphers, the rate for sponge AEADs).
    pub block_bytes: usize,
    /// Rounds as the paper's Table 1 gives them ("10, 12, 14").
    pub rounds: &'static str,
    /// Block, stream or AEAD.
    pub kind: Kind,
    /// Modern, legacy or broken.
    pub status: Status,
    /// Where cipherlab's default implementation comes from.
    pub source: &'static str,
    /// One of the seven ciphers of the file-features paper's Table 1.
    pub in_paper_table1: bool,
}

const fn lwc(
    id: AlgorithmId,
    name: &'static str,
    title: &'static str,
    key_bits: u16,
    rate: usize,
    rounds: &'static str,
) -> Algorithm {
    Algorithm {
        id,
        name,
        title,
        structure: Structure::Sponge,
        key_bits: KeyBits::one(key_bits),
        block_bytes: rate,
        rounds,
        kind: Kind::Aead,
        status: Status::Modern,
        source: "cipherlab-lwc (our own)",
        in_paper_table1: false,
    }
}

/// Every algorithm, in the order tables list them: the paper's seven first.
pub static ALGORITHMS: &[Algorithm] = &[
    Algorithm {
        id: AlgorithmId::Aes,
        name: "aes",
        title: "AES",
        structure: Structure::Spn,
        key_bits: KeyBits {
            min: 128,
            max: 256,
            step: 64,
            default: 128,
        },
        block_bytes: 16,
        rounds: "10, 12, 14",
        kind: Kind::Block,
        status: Status::Modern,
        source: "RustCrypto aes (AES-NI/VAES), OpenSSL, aws-lc; GCM also ring",
        in_paper_table1: true,
    },
    Algorithm {
        id: AlgorithmId::Des,
        name: "des",
        title: "DES",
        structure: Structure::BalancedFeistel,
        key_bits: KeyBits::one(56),
        block_bytes: 8,
        rounds: "16",
        kind: Kind::Block,
        status: Status::Broken,
        source: "RustCrypto des, OpenSSL (legacy provider)",
        in_paper_table1: true,
    },
    Algorithm {
        id: AlgorithmId::Tdes,
        name: "3des",
        title: "Triple DES",
        structure: Structure::Feistel,
        key_bits: KeyBits {
            min: 112,
            max: 168,
            step: 56,
            default: 168,
        },
        block_bytes: 8,
        rounds: "48",
        kind: Kind::Block,
        status: Status::Legacy,
        source: "RustCrypto des, OpenSSL",
        in_paper_table1: true,
    },
    Algorithm {
        id: AlgorithmId::Rc2,
        name: "rc2",
        title: "RC2",
        structure: Structure::SourceHeavyFeistel,
        key_bits: KeyBits {
            min: 40,
            max: 1024,
            step: 8,
            default: 128,
        },
        block_bytes: 8,
        rounds: "18",
        kind: Kind::Block,
        status: Status::Broken,
        source: "RustCrypto rc2, OpenSSL (legacy provider)",
        in_paper_table1: true,
    },
    Algorithm {
        id: AlgorithmId::Blowfish,
        name: "blowfish",
        title: "Blowfish",
        structure: Structure::Feistel,
        key_bits: KeyBits {
            min: 32,
            max: 448,
            step: 8,
            default: 128,
        },
        block_bytes: 8,
        rounds: "16",
        kind: Kind::Block,
        status: Status::Legacy,
        source: "RustCrypto blowfish, OpenSSL (legacy provider)",
        in_paper_table1: true,
    },
    Algorithm {
        id: AlgorithmId::Skipjack,
        name: "skipjack",
        title: "Skipjack",
        structure: Structure::UnbalancedFeistel,
        key_bits: KeyBits::one(80),
        block_bytes: 8,
        rounds: "32",
        kind: Kind::Block,
        status: Status::Broken,
        source: "cipherlab (our own)",
        in_paper_table1: true,
    },
    Algorithm {
        id: AlgorithmId::Rc4,
        name: "rc4",
        title: "RC4",
        structure: Structure::KeystreamGenerator,
        key_bits: KeyBits {
            min: 40,
            max: 2048,
            step: 8,
            default: 128,
        },
        block_bytes: 1,
        rounds: "256",
        kind: Kind::Stream,
        status: Status::Broken,
        source: "RustCrypto rc4, OpenSSL (legacy provider)",
        in_paper_table1: true,
    },
    Algorithm {
        id: AlgorithmId::ChaCha20Poly1305,
        name: "chacha20-poly1305",
        title: "ChaCha20-Poly1305",
        structure: Structure::Arx,
        key_bits: KeyBits::one(256),
        block_bytes: 64,
        rounds: "20",
        kind: Kind::Aead,
        status: Status::Modern,
        source: "RustCrypto chacha20poly1305, OpenSSL, ring, aws-lc-rs",
        in_paper_table1: false,
    },
    lwc(
        AlgorithmId::AsconAead128,
        "ascon-aead128",
        "Ascon-AEAD128",
        128,
        16,
        "12 / 8",
    ),
    lwc(
        AlgorithmId::Ascon128,
        "ascon-128",
        "Ascon-128 (v1.2)",
        128,
        8,
        "12 / 6",
    ),
    lwc(
        AlgorithmId::Ascon128a,
        "ascon-128a",
        "Ascon-128a (v1.2)",
        128,
        16,
        "12 / 8",
    ),
    lwc(
        AlgorithmId::Ascon80pq,
        "ascon-80pq",
        "Ascon-80pq (v1.2)",
        160,
        8,
        "12 / 6",
    ),
    lwc(AlgorithmId::Xoodyak, "xoodyak", "Xoodyak", 128, 24, "12"),
    lwc(
        AlgorithmId::IsapA128a,
        "isap-a-128a",
        "ISAP-A-128A",
        128,
        8,
        "12 / 1 / 6 / 12",
    ),
    lwc(
        AlgorithmId::IsapA128,
        "isap-a-128",
        "ISAP-A-128",
        128,
        8,
        "12 / 12 / 12 / 12",
    ),
    lwc(
        AlgorithmId::IsapK128a,
        "isap-k-128a",
        "ISAP-K-128A",
        128,
        18,
        "16 / 1 / 8 / 8",
    ),
    lwc(
        AlgorithmId::IsapK128,
        "isap-k-128",
        "ISAP-K-128",
        128,
        18,
        "20 / 12 / 12 / 12",
    ),
];

/// The descriptor of `id`.
pub fn algorithm(id: AlgorithmId) -> &'static Algorithm {
    // The table holds every id exactly once (checked by a test).
    ALGORITHMS
        .iter()
        .find(|a| a.id == id)
        .unwrap_or(&ALGORITHMS[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_once_and_names_unique() {
        let mut names: Vec<_> = ALGORITHMS.iter().map(|a| a.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ALGORITHMS.len());
        for a in ALGORITHMS {
            assert_eq!(algorithm(a.id).name, a.name);
            assert!(a.key_bits.accepts(a.key_bits.default), "{}", a.name);
        }
    }

    #[test]
    fn key_sizes_as_the_paper_gives_them() {
        let aes = algorithm(AlgorithmId::Aes);
        assert_eq!(aes.key_bits.describe(), "128, 192, 256");
        assert_eq!(algorithm(AlgorithmId::Tdes).key_bits.describe(), "112, 168");
        assert_eq!(
            algorithm(AlgorithmId::Rc4).key_bits.describe(),
            "40 to 2048"
        );
        assert!(!aes.key_bits.accepts(160));
        assert!(algorithm(AlgorithmId::Blowfish).key_bits.accepts(448));
        assert!(!algorithm(AlgorithmId::Blowfish).key_bits.accepts(452));
    }
}
