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

/// Identifies an algorithm in code (the name is for people). Providers match on it to
/// say positively what they implement.
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

/// Another spelling of an algorithm, OpenSSL's (`des-ede3-cbc`, `bf-cbc`, `aes128`): it
/// stands for the algorithm's stem with `key_bits` (the default when `None`), and alone
/// (no mode after it) for `bare_mode`, as in `openssl enc -des3`.
#[derive(Clone, Copy, Debug)]
pub struct Alias {
    /// The spelling.
    pub name: &'static str,
    /// The key size it implies.
    pub key_bits: Option<u16>,
    /// The mode it means when nothing follows it (`None`: a mode must follow).
    pub bare_mode: Option<crate::spec::Mode>,
}

const fn alias(name: &'static str, key_bits: Option<u16>, bare_mode: Option<Mode>) -> Alias {
    Alias {
        name,
        key_bits,
        bare_mode,
    }
}

/// An AEAD's sizes, in bytes (AES-GCM's come from its mode, [`crate::spec::Mode::Gcm`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AeadSizes {
    /// Nonce length.
    pub nonce: usize,
    /// Tag length.
    pub tag: usize,
}

/// The id a key size of an AEAD has in cipherlab's file container (docs/format.md). Files
/// carry these: never renumber one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContainerId {
    /// The key size (AES: in GCM mode).
    pub key_bits: u16,
    /// The id byte.
    pub id: u8,
}

/// Our own implementation of an algorithm (the `cipherlab` provider's): builds the cipher
/// for a spec of it and a key of the right length.
pub type Ours = fn(&CipherSpec, &[u8]) -> Result<Box<dyn Cipher>, Error>;

/// One algorithm of the catalogue: everything that is a fact of it. Tables, name parsing,
/// the container's ids, the PDF crypt filters, the studies' cipher sets and the
/// `cipherlab` provider are derived from these.
#[derive(Debug)]
pub struct Algorithm {
    /// Code identity.
    pub id: AlgorithmId,
    /// Name stem on the command line (`aes`, `3des`, `rc4`, `ascon-aead128`).
    pub name: &'static str,
    /// OpenSSL's spellings of it.
    pub aliases: &'static [Alias],
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
    /// Nonce and tag sizes of an AEAD.
    pub aead: Option<AeadSizes>,
    /// Modern, legacy or broken.
    pub status: Status,
    /// Where cipherlab's implementations come from.
    pub source: &'static str,
    /// The specification followed.
    pub reference: &'static str,
    /// One of the seven ciphers of the file-features paper's Table 1.
    pub in_paper_table1: bool,
    /// Its ids in the file container (AEADs only).
    pub container: &'static [ContainerId],
    /// Its crypt filter method (/CFM) in authenticated PDFs (docs/pdf-lwc.md).
    pub pdf_cfm: Option<&'static str>,
    /// Its known-answer test file in the NIST LWC format, relative to the KAT directory.
    pub lwc_kat: Option<&'static str>,
    /// Our own implementation, which the `cipherlab` provider offers.
    pub ours: Option<Ours>,
}

impl Algorithm {
    /// The id of its `key_bits` key in the file container.
    pub fn container_id(&self, key_bits: u16) -> Option<u8> {
        self.container
            .iter()
            .find(|c| c.key_bits == key_bits)
            .map(|c| c.id)
    }

    /// Whether it is one of the lightweight AEADs of `cipherlab-lwc`.
    pub fn is_lightweight(&self) -> bool {
        self.kind == Kind::Aead && self.structure == Structure::Sponge
    }
}

/// The lightweight AEADs: a descriptor with everything they share.
#[allow(clippy::too_many_arguments)]
const fn lwc(
    id: AlgorithmId,
    name: &'static str,
    title: &'static str,
    key_bits: u16,
    rate: usize,
    rounds: &'static str,
    reference: &'static str,
    container: &'static [ContainerId],
    pdf_cfm: &'static str,
    lwc_kat: &'static str,
    ours: Ours,
) -> Algorithm {
    Algorithm {
        id,
        name,
        aliases: &[],
        title,
        structure: Structure::Sponge,
        key_bits: KeyBits::one(key_bits),
        block_bytes: rate,
        rounds,
        kind: Kind::Aead,
        aead: Some(AeadSizes { nonce: 16, tag: 16 }),
        status: Status::Modern,
        source: "cipherlab-lwc (our own)",
        reference,
        in_paper_table1: false,
        container,
        pdf_cfm: Some(pdf_cfm),
        lwc_kat: Some(lwc_kat),
        ours: Some(ours),
    }
}

const fn id(key_bits: u16, id: u8) -> ContainerId {
    ContainerId { key_bits, id }
}

const SP800_232: &str = "NIST SP 800-232 (2025)";
const ASCON_V12: &str = "Ascon v1.2 (NIST LWC final round)";
const XOODYAK_SPEC: &str = "Xoodyak (NIST LWC final round)";
const ISAP_SPEC: &str = "ISAP v2.0 (NIST LWC final round)";

use crate::providers::ours;
use crate::spec::Mode;
use crate::{Cipher, CipherSpec, Error};

/// AES (FIPS 197).
pub static AES: Algorithm = Algorithm {
    id: AlgorithmId::Aes,
    name: "aes",
    aliases: &[
        alias("aes128", Some(128), Some(Mode::Cbc)),
        alias("aes192", Some(192), Some(Mode::Cbc)),
        alias("aes256", Some(256), Some(Mode::Cbc)),
    ],
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
    aead: None,
    status: Status::Modern,
    source: "RustCrypto aes (AES-NI/VAES), OpenSSL, aws-lc; GCM also ring",
    reference: "FIPS 197; SP 800-38A (modes), SP 800-38D (GCM)",
    in_paper_table1: true,
    // AES-GCM.
    container: &[id(128, 1), id(192, 2), id(256, 3)],
    pdf_cfm: None,
    lwc_kat: None,
    ours: None,
};

/// DES (FIPS 46-3, withdrawn).
pub static DES: Algorithm = Algorithm {
    id: AlgorithmId::Des,
    name: "des",
    aliases: &[alias("des", None, Some(Mode::Cbc))],
    title: "DES",
    structure: Structure::BalancedFeistel,
    key_bits: KeyBits::one(56),
    block_bytes: 8,
    rounds: "16",
    kind: Kind::Block,
    aead: None,
    status: Status::Broken,
    source: "RustCrypto des, OpenSSL (legacy provider)",
    reference: "FIPS 46-3 (withdrawn 2005)",
    in_paper_table1: true,
    container: &[],
    pdf_cfm: None,
    lwc_kat: None,
    ours: None,
};

/// Triple DES (SP 800-67, withdrawn).
pub static TDES: Algorithm = Algorithm {
    id: AlgorithmId::Tdes,
    name: "3des",
    aliases: &[
        alias("des-ede3", Some(168), Some(Mode::Ecb)),
        alias("des-ede", Some(112), Some(Mode::Ecb)),
        alias("des3", Some(168), Some(Mode::Cbc)),
    ],
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
    aead: None,
    status: Status::Legacy,
    source: "RustCrypto des, OpenSSL",
    reference: "NIST SP 800-67 Rev. 2 (withdrawn 2024)",
    in_paper_table1: true,
    container: &[],
    pdf_cfm: None,
    lwc_kat: None,
    ours: None,
};

/// RC2 (RFC 2268).
pub static RC2: Algorithm = Algorithm {
    id: AlgorithmId::Rc2,
    name: "rc2",
    aliases: &[alias("rc2", None, Some(Mode::Cbc))],
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
    aead: None,
    status: Status::Broken,
    source: "RustCrypto rc2, OpenSSL (legacy provider)",
    reference: "RFC 2268",
    in_paper_table1: true,
    container: &[],
    pdf_cfm: None,
    lwc_kat: None,
    ours: None,
};

/// Blowfish (Schneier, 1993).
pub static BLOWFISH: Algorithm = Algorithm {
    id: AlgorithmId::Blowfish,
    name: "blowfish",
    aliases: &[alias("bf", None, Some(Mode::Cbc))],
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
    aead: None,
    status: Status::Legacy,
    source: "RustCrypto blowfish, OpenSSL (legacy provider)",
    reference: "Schneier, Fast Software Encryption 1993",
    in_paper_table1: true,
    container: &[],
    pdf_cfm: None,
    lwc_kat: None,
    ours: None,
};

/// Skipjack (NSA, declassified 1998).
pub static SKIPJACK: Algorithm = Algorithm {
    id: AlgorithmId::Skipjack,
    name: "skipjack",
    aliases: &[],
    title: "Skipjack",
    structure: Structure::UnbalancedFeistel,
    key_bits: KeyBits::one(80),
    block_bytes: 8,
    rounds: "32",
    kind: Kind::Block,
    aead: None,
    status: Status::Broken,
    source: "cipherlab (our own)",
    reference: "SKIPJACK and KEA Algorithm Specifications v2.0 (1998)",
    in_paper_table1: true,
    container: &[],
    pdf_cfm: None,
    lwc_kat: None,
    ours: Some(ours::skipjack),
};

/// RC4.
pub static RC4: Algorithm = Algorithm {
    id: AlgorithmId::Rc4,
    name: "rc4",
    aliases: &[],
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
    aead: None,
    status: Status::Broken,
    source: "RustCrypto rc4, OpenSSL (legacy provider), cipherlab (reusable key schedule)",
    reference: "RFC 6229 (test vectors); RFC 7465 prohibits it in TLS",
    in_paper_table1: true,
    container: &[],
    pdf_cfm: None,
    lwc_kat: None,
    ours: Some(ours::rc4),
};

/// ChaCha20-Poly1305 (RFC 8439).
pub static CHACHA20_POLY1305: Algorithm = Algorithm {
    id: AlgorithmId::ChaCha20Poly1305,
    name: "chacha20-poly1305",
    aliases: &[],
    title: "ChaCha20-Poly1305",
    structure: Structure::Arx,
    key_bits: KeyBits::one(256),
    block_bytes: 64,
    rounds: "20",
    kind: Kind::Aead,
    aead: Some(AeadSizes { nonce: 12, tag: 16 }),
    status: Status::Modern,
    source: "RustCrypto chacha20poly1305, OpenSSL, ring, aws-lc-rs",
    reference: "RFC 8439",
    in_paper_table1: false,
    container: &[id(256, 4)],
    pdf_cfm: None,
    lwc_kat: None,
    ours: None,
};

/// Ascon-AEAD128 (NIST SP 800-232).
pub static ASCON_AEAD128: Algorithm = lwc(
    AlgorithmId::AsconAead128,
    "ascon-aead128",
    "Ascon-AEAD128",
    128,
    16,
    "12 / 8",
    SP800_232,
    &[id(128, 5)],
    "AsconAEAD128",
    "ascon/sp800-232/asconaead128_LWC_AEAD_KAT_128_128.txt",
    ours::lwc_lanes::<cipherlab_lwc::AsconAead128>,
);

/// Ascon-128 (v1.2).
pub static ASCON_128: Algorithm = lwc(
    AlgorithmId::Ascon128,
    "ascon-128",
    "Ascon-128 (v1.2)",
    128,
    8,
    "12 / 6",
    ASCON_V12,
    &[id(128, 6)],
    "Ascon128",
    "ascon/v1.2/ascon128v12_LWC_AEAD_KAT_128_128.txt",
    ours::lwc::<cipherlab_lwc::Ascon128>,
);

/// Ascon-128a (v1.2).
pub static ASCON_128A: Algorithm = lwc(
    AlgorithmId::Ascon128a,
    "ascon-128a",
    "Ascon-128a (v1.2)",
    128,
    16,
    "12 / 8",
    ASCON_V12,
    &[id(128, 7)],
    "Ascon128a",
    "ascon/v1.2/ascon128av12_LWC_AEAD_KAT_128_128.txt",
    ours::lwc_lanes::<cipherlab_lwc::Ascon128a>,
);

/// Ascon-80pq (v1.2), 160-bit key.
pub static ASCON_80PQ: Algorithm = lwc(
    AlgorithmId::Ascon80pq,
    "ascon-80pq",
    "Ascon-80pq (v1.2)",
    160,
    8,
    "12 / 6",
    ASCON_V12,
    &[id(160, 8)],
    "Ascon80pq",
    "ascon/v1.2/ascon80pqv12_LWC_AEAD_KAT_160_128.txt",
    ours::lwc::<cipherlab_lwc::Ascon80pq>,
);

/// Xoodyak.
pub static XOODYAK: Algorithm = lwc(
    AlgorithmId::Xoodyak,
    "xoodyak",
    "Xoodyak",
    128,
    24,
    "12",
    XOODYAK_SPEC,
    &[id(128, 9)],
    "Xoodyak",
    "xoodyak/xoodyak_LWC_AEAD_KAT_128_128.txt",
    ours::lwc::<cipherlab_lwc::Xoodyak>,
);

/// ISAP-A-128A.
pub static ISAP_A_128A: Algorithm = lwc(
    AlgorithmId::IsapA128a,
    "isap-a-128a",
    "ISAP-A-128A",
    128,
    8,
    "12 / 1 / 6 / 12",
    ISAP_SPEC,
    &[id(128, 10)],
    "ISAPA128a",
    "isap/isapa128av20_LWC_AEAD_KAT_128_128.txt",
    ours::lwc::<cipherlab_lwc::IsapA128a>,
);

/// ISAP-A-128.
pub static ISAP_A_128: Algorithm = lwc(
    AlgorithmId::IsapA128,
    "isap-a-128",
    "ISAP-A-128",
    128,
    8,
    "12 / 12 / 12 / 12",
    ISAP_SPEC,
    &[id(128, 11)],
    "ISAPA128",
    "isap/isapa128v20_LWC_AEAD_KAT_128_128.txt",
    ours::lwc::<cipherlab_lwc::IsapA128>,
);

/// ISAP-K-128A.
pub static ISAP_K_128A: Algorithm = lwc(
    AlgorithmId::IsapK128a,
    "isap-k-128a",
    "ISAP-K-128A",
    128,
    18,
    "16 / 1 / 8 / 8",
    ISAP_SPEC,
    &[id(128, 12)],
    "ISAPK128a",
    "isap/isapk128av20_LWC_AEAD_KAT_128_128.txt",
    ours::lwc::<cipherlab_lwc::IsapK128a>,
);

/// ISAP-K-128.
pub static ISAP_K_128: Algorithm = lwc(
    AlgorithmId::IsapK128,
    "isap-k-128",
    "ISAP-K-128",
    128,
    18,
    "20 / 12 / 12 / 12",
    ISAP_SPEC,
    &[id(128, 13)],
    "ISAPK128",
    "isap/isapk128v20_LWC_AEAD_KAT_128_128.txt",
    ours::lwc::<cipherlab_lwc::IsapK128>,
);

/// Writes [`ALGORITHMS`] and [`algorithm`] from one list of `AlgorithmId => descriptor`
/// pairs, so that the two cannot disagree: `algorithm`'s match is exhaustive, so an
/// [`AlgorithmId`] left out of the list does not compile, and every one in it is in
/// `ALGORITHMS`.
macro_rules! catalogue {
    ($($id:ident => $descriptor:ident),* $(,)?) => {
        /// Every algorithm, in the order tables list them: the paper's seven first.
        pub static ALGORITHMS: &[&Algorithm] = &[$(&$descriptor),*];

        /// The descriptor of `id`.
        pub fn algorithm(id: AlgorithmId) -> &'static Algorithm {
            match id {
                $(AlgorithmId::$id => &$descriptor),*
            }
        }
    };
}

catalogue! {
    Aes => AES,
    Des => DES,
    Tdes => TDES,
    Rc2 => RC2,
    Blowfish => BLOWFISH,
    Skipjack => SKIPJACK,
    Rc4 => RC4,
    ChaCha20Poly1305 => CHACHA20_POLY1305,
    AsconAead128 => ASCON_AEAD128,
    Ascon128 => ASCON_128,
    Ascon128a => ASCON_128A,
    Ascon80pq => ASCON_80PQ,
    Xoodyak => XOODYAK,
    IsapA128a => ISAP_A_128A,
    IsapA128 => ISAP_A_128,
    IsapK128a => ISAP_K_128A,
    IsapK128 => ISAP_K_128,
}

/// The lightweight AEADs of `cipherlab-lwc`, in table order.
pub fn lightweight() -> impl Iterator<Item = &'static Algorithm> {
    ALGORITHMS.iter().copied().filter(|a| a.is_lightweight())
}

/// The algorithm whose PDF crypt filter method (/CFM) is `cfm`.
pub fn by_pdf_cfm(cfm: &[u8]) -> Option<&'static Algorithm> {
    ALGORITHMS
        .iter()
        .copied()
        .find(|a| a.pdf_cfm.is_some_and(|c| c.as_bytes() == cfm))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each descriptor is listed once and under its own id (the list pairs them by hand).
    #[test]
    fn every_id_once_and_names_unique() {
        let mut ids: Vec<String> = ALGORITHMS.iter().map(|a| format!("{:?}", a.id)).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), ALGORITHMS.len(), "an id listed twice");
        let mut names: Vec<_> = ALGORITHMS.iter().map(|a| a.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ALGORITHMS.len());
        for a in ALGORITHMS {
            assert_eq!(algorithm(a.id).name, a.name);
            assert!(a.key_bits.accepts(a.key_bits.default), "{}", a.name);
            assert_eq!(a.kind == Kind::Aead, a.aead.is_some(), "{}", a.name);
            for c in a.container {
                assert!(a.key_bits.accepts(c.key_bits), "{}", a.name);
            }
        }
    }

    /// Container ids and PDF crypt filter names are unique: files carry them.
    #[test]
    fn container_ids_and_pdf_filters_unique() {
        let mut ids: Vec<u8> = ALGORITHMS
            .iter()
            .flat_map(|a| a.container.iter().map(|c| c.id))
            .collect();
        let n = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), n);
        let mut cfms: Vec<&str> = ALGORITHMS.iter().filter_map(|a| a.pdf_cfm).collect();
        let n = cfms.len();
        cfms.sort();
        cfms.dedup();
        assert_eq!(cfms.len(), n);
        for a in lightweight() {
            assert!(a.pdf_cfm.is_some() && a.ours.is_some() && !a.container.is_empty());
            assert_eq!(
                by_pdf_cfm(a.pdf_cfm.unwrap_or("").as_bytes()).map(|b| b.id),
                Some(a.id)
            );
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
