//! The hashes and extendable-output functions of `cipherlab-lwc` as catalogue descriptors,
//! with one byte-slice interface over the `digest` traits: `cipherlab list` shows them and
//! `cipherlab vectors` runs them from here.

use cipherlab_lwc as lwc;
use lwc::digest::{Digest, ExtendableOutput, Update};

use crate::catalogue::Status;
use crate::error::Error;

/// What a hash descriptor is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashKind {
    /// Fixed-output hash.
    Hash,
    /// Extendable-output function.
    Xof,
    /// Customizable extendable-output function.
    Cxof,
}

impl HashKind {
    /// Word for tables and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            HashKind::Hash => "hash",
            HashKind::Xof => "xof",
            HashKind::Cxof => "cxof",
        }
    }
}

/// Computes a digest: message, output length (XOFs; `None`: the default), customization
/// (CXOFs).
pub type DigestFn = fn(&[u8], Option<usize>, &[u8]) -> Result<Vec<u8>, Error>;

/// One hash of the catalogue.
#[derive(Debug)]
pub struct HashAlgorithm {
    /// Command-line name.
    pub name: &'static str,
    /// Hash, XOF or CXOF.
    pub kind: HashKind,
    /// Output length in bytes (the default for XOFs).
    pub output_len: usize,
    /// Bytes absorbed per permutation call.
    pub rate: usize,
    /// Permutation and rounds.
    pub permutation: &'static str,
    /// The specification followed.
    pub reference: &'static str,
    /// Its known-answer test file in the NIST LWC format, relative to the KAT directory.
    pub lwc_kat: &'static str,
    /// Modern or legacy.
    pub status: Status,
    /// The implementation.
    pub digest: DigestFn,
}

/// The largest output a request may ask for (a guard against absurd lengths).
pub const MAX_OUTPUT: usize = 1 << 24;

fn fixed<D: Digest>(msg: &[u8], outlen: Option<usize>, custom: &[u8]) -> Result<Vec<u8>, Error> {
    if !custom.is_empty() {
        return Err(Error::Hash(
            "this hash takes no customization string".into(),
        ));
    }
    let out = D::digest(msg);
    match outlen {
        Some(n) if n != out.len() => Err(Error::Hash(format!(
            "this hash gives exactly {} bytes",
            out.len()
        ))),
        _ => Ok(out.to_vec()),
    }
}

fn xof_len(outlen: Option<usize>) -> Result<usize, Error> {
    match outlen.unwrap_or(32) {
        n if n > MAX_OUTPUT => Err(Error::Hash(format!(
            "an output of {n} bytes is above the limit of {MAX_OUTPUT}"
        ))),
        n => Ok(n),
    }
}

fn xof<X: Default + Update + ExtendableOutput>(
    msg: &[u8],
    outlen: Option<usize>,
    custom: &[u8],
) -> Result<Vec<u8>, Error> {
    if !custom.is_empty() {
        return Err(Error::Hash(
            "this XOF takes no customization string (use ascon-cxof128)".into(),
        ));
    }
    let mut h = X::default();
    h.update(msg);
    let mut out = vec![0u8; xof_len(outlen)?];
    h.finalize_xof_into(&mut out);
    Ok(out)
}

fn cxof(msg: &[u8], outlen: Option<usize>, custom: &[u8]) -> Result<Vec<u8>, Error> {
    let mut h = lwc::AsconCxof128::new(custom).map_err(|e| Error::Hash(e.to_string()))?;
    h.update(msg);
    let mut out = vec![0u8; xof_len(outlen)?];
    h.finalize_xof_into(&mut out);
    Ok(out)
}

const SP800_232: &str = "NIST SP 800-232 (2025)";
const ASCON_V12: &str = "Ascon v1.2 (NIST LWC final round)";

/// Every hash, in table order.
pub static HASHES: &[HashAlgorithm] = &[
    HashAlgorithm {
        name: "ascon-hash256",
        kind: HashKind::Hash,
        output_len: 32,
        rate: 8,
        permutation: "Ascon-p 12",
        reference: SP800_232,
        lwc_kat: "ascon/sp800-232/asconhash256_LWC_HASH_KAT_128_256.txt",
        status: Status::Modern,
        digest: fixed::<lwc::AsconHash256>,
    },
    HashAlgorithm {
        name: "ascon-xof128",
        kind: HashKind::Xof,
        output_len: 32,
        rate: 8,
        permutation: "Ascon-p 12",
        reference: SP800_232,
        lwc_kat: "ascon/sp800-232/asconxof128_LWC_XOF_KAT_128_512.txt",
        status: Status::Modern,
        digest: xof::<lwc::AsconXof128>,
    },
    HashAlgorithm {
        name: "ascon-cxof128",
        kind: HashKind::Cxof,
        output_len: 32,
        rate: 8,
        permutation: "Ascon-p 12",
        reference: SP800_232,
        lwc_kat: "ascon/sp800-232/asconcxof128_LWC_CXOF_KAT_128_512.txt",
        status: Status::Modern,
        digest: cxof,
    },
    HashAlgorithm {
        name: "ascon-hash",
        kind: HashKind::Hash,
        output_len: 32,
        rate: 8,
        permutation: "Ascon-p 12",
        reference: ASCON_V12,
        lwc_kat: "ascon/v1.2/asconhashv12_LWC_HASH_KAT_256.txt",
        status: Status::Modern,
        digest: fixed::<lwc::AsconHash>,
    },
    HashAlgorithm {
        name: "ascon-hasha",
        kind: HashKind::Hash,
        output_len: 32,
        rate: 8,
        permutation: "Ascon-p 12/8",
        reference: ASCON_V12,
        lwc_kat: "ascon/v1.2/asconhashav12_LWC_HASH_KAT_256.txt",
        status: Status::Modern,
        digest: fixed::<lwc::AsconHasha>,
    },
    HashAlgorithm {
        name: "ascon-xof",
        kind: HashKind::Xof,
        output_len: 32,
        rate: 8,
        permutation: "Ascon-p 12",
        reference: ASCON_V12,
        lwc_kat: "ascon/v1.2/asconxofv12_LWC_HASH_KAT_256.txt",
        status: Status::Modern,
        digest: xof::<lwc::AsconXof>,
    },
    HashAlgorithm {
        name: "ascon-xofa",
        kind: HashKind::Xof,
        output_len: 32,
        rate: 8,
        permutation: "Ascon-p 12/8",
        reference: ASCON_V12,
        lwc_kat: "ascon/v1.2/asconxofav12_LWC_HASH_KAT_256.txt",
        status: Status::Modern,
        digest: xof::<lwc::AsconXofa>,
    },
    HashAlgorithm {
        name: "xoodyak-hash",
        kind: HashKind::Hash,
        output_len: 32,
        rate: 16,
        permutation: "Xoodoo[12]",
        reference: "Xoodyak (NIST LWC final round)",
        lwc_kat: "xoodyak/xoodyak_LWC_HASH_KAT_256.txt",
        status: Status::Modern,
        digest: fixed::<lwc::XoodyakHash>,
    },
];

/// The hash called `name` (case-insensitive).
pub fn find(name: &str) -> Option<&'static HashAlgorithm> {
    HASHES
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case(name.trim()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn known_answers_and_limits() {
        // SP 800-232 Ascon-Hash256 of the empty message (its KAT file, Count = 1).
        let h = find("ASCON-HASH256").unwrap();
        assert_eq!(
            (h.digest)(b"", None, b"").unwrap(),
            [
                0x0b, 0x3b, 0xe5, 0x85, 0x0f, 0x2f, 0x6b, 0x98, 0xca, 0xf2, 0x9f, 0x8f, 0xde, 0xa8,
                0x9b, 0x64, 0xa1, 0xfa, 0x70, 0xaa, 0x24, 0x9b, 0x8f, 0x83, 0x9b, 0xd5, 0x3b, 0xaa,
                0x30, 0x4d, 0x92, 0xb2
            ]
        );
        assert!((h.digest)(b"", Some(16), b"").is_err());
        assert!((h.digest)(b"", None, b"x").is_err());
        let x = find("ascon-xof128").unwrap();
        assert_eq!((x.digest)(b"abc", Some(100), b"").unwrap().len(), 100);
        assert!((x.digest)(b"", Some(MAX_OUTPUT + 1), b"").is_err());
        let c = find("ascon-cxof128").unwrap();
        assert_ne!(
            (c.digest)(b"m", None, b"a").unwrap(),
            (c.digest)(b"m", None, b"b").unwrap()
        );
    }
}
