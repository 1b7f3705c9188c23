//! The NIST LWC KAT format (F1 of ../shared/kat/README.md) as typed vectors: AEAD files
//! (`Count`, `Key`, `Nonce`, `PT`, `AD`, `CT` = ciphertext || tag) and hash, XOF and CXOF
//! files (`Count`, `Msg`, `MD`, and `Z` in CXOF files).
//!
//! The `for_each_*` functions run a check on every vector of a KAT file's built-in excerpt
//! and of the whole file ([`sources`]) and print the counts.

use crate::kat::{Source, sources};
use crate::record::{Record, parse};

/// One record of an AEAD file.
#[derive(Clone, Debug)]
pub struct AeadVector {
    /// "file:line Count = n", for messages.
    pub id: String,
    /// `Count`.
    pub count: usize,
    /// `Key`.
    pub key: Vec<u8>,
    /// `Nonce`.
    pub nonce: Vec<u8>,
    /// `PT`.
    pub pt: Vec<u8>,
    /// `AD`.
    pub ad: Vec<u8>,
    /// `CT`: the ciphertext followed by the tag.
    pub ct: Vec<u8>,
}

impl AeadVector {
    /// Reads every field of an AEAD record (a field it does not know stays unread, so the
    /// runner fails the record).
    pub fn read(rec: &Record) -> Result<AeadVector, String> {
        let v = AeadVector {
            id: rec.id(),
            count: rec.count()?,
            key: rec.hex("Key")?,
            nonce: rec.hex("Nonce")?,
            pt: rec.hex("PT")?,
            ad: rec.hex("AD")?,
            ct: rec.hex("CT")?,
        };
        if v.ct.len() <= v.pt.len() {
            return Err(format!("{}: CT is not longer than PT (no tag)", v.id));
        }
        Ok(v)
    }

    /// The ciphertext without the tag.
    pub fn ciphertext(&self) -> &[u8] {
        &self.ct[..self.pt.len()]
    }

    /// The tag (the bytes of `CT` after the ciphertext).
    pub fn tag(&self) -> &[u8] {
        &self.ct[self.pt.len()..]
    }
}

/// One record of a hash, XOF or CXOF file.
#[derive(Clone, Debug)]
pub struct HashVector {
    /// "file:line Count = n", for messages.
    pub id: String,
    /// `Count`.
    pub count: usize,
    /// `Msg`.
    pub msg: Vec<u8>,
    /// `Z`, the customization string of a CXOF file.
    pub custom: Option<Vec<u8>>,
    /// `MD`: the digest, as long as the output asked for.
    pub md: Vec<u8>,
}

impl HashVector {
    /// Reads every field of a hash, XOF or CXOF record.
    pub fn read(rec: &Record) -> Result<HashVector, String> {
        Ok(HashVector {
            id: rec.id(),
            count: rec.count()?,
            msg: rec.hex("Msg")?,
            custom: rec.opt_hex("Z")?,
            md: rec.hex("MD")?,
        })
    }
}

/// Records in a whole KAT file, from its name (the inventory of ../shared/kat/README.md):
/// 1,089 in AEAD and CXOF files (33 x 33 lengths), 1,025 in hash and XOF files.
pub fn inventory(rel: &str) -> Option<usize> {
    if rel.contains("_LWC_AEAD_KAT_") || rel.contains("_LWC_CXOF_KAT_") {
        Some(1089)
    } else if rel.contains("_LWC_HASH_KAT_") || rel.contains("_LWC_XOF_KAT_") {
        Some(1025)
    } else {
        None
    }
}

/// The record count `src` must have: the inventory for a whole file, else any.
pub fn expect(src: &Source) -> Option<usize> {
    if src.whole { inventory(&src.rel) } else { None }
}

fn records(src: &Source) -> Vec<Record> {
    let recs = parse(&src.path(), &src.label()).unwrap_or_else(|e| panic!("{e}"));
    if let Some(n) = expect(src) {
        assert_eq!(recs.len(), n, "{}: records (the inventory)", src.label());
    }
    assert!(!recs.is_empty(), "{}: no records", src.label());
    recs
}

/// Every AEAD vector of `src` (panics on a malformed file or a field the format does not
/// have).
pub fn aead_vectors(src: &Source) -> Vec<AeadVector> {
    records(src)
        .iter()
        .map(|r| read_all(r, AeadVector::read))
        .collect()
}

/// Every hash, XOF or CXOF vector of `src`.
pub fn hash_vectors(src: &Source) -> Vec<HashVector> {
    records(src)
        .iter()
        .map(|r| read_all(r, HashVector::read))
        .collect()
}

/// Reads a record with `read`, which must consume every field.
fn read_all<T>(rec: &Record, read: fn(&Record) -> Result<T, String>) -> T {
    let v = read(rec).unwrap_or_else(|e| panic!("{e}"));
    let unread = rec.unread();
    assert!(
        unread.is_empty(),
        "{}: fields this format does not have: {unread:?}",
        rec.id()
    );
    v
}

/// Runs `check` on every AEAD vector of `rel` (excerpt and whole file, as [`sources`]
/// finds them); prints one count line per file. Returns the number of vectors checked.
pub fn for_each_aead(rel: &str, mut check: impl FnMut(&AeadVector)) -> usize {
    let mut n = 0;
    for src in sources(rel) {
        let vectors = aead_vectors(&src);
        vectors.iter().for_each(&mut check);
        println!("{}: {} vectors passed", src.label(), vectors.len());
        n += vectors.len();
    }
    n
}

/// Runs `check` on every hash, XOF or CXOF vector of `rel`, as [`for_each_aead`].
pub fn for_each_hash(rel: &str, mut check: impl FnMut(&HashVector)) -> usize {
    let mut n = 0;
    for src in sources(rel) {
        let vectors = hash_vectors(&src);
        vectors.iter().for_each(&mut check);
        println!("{}: {} vectors passed", src.label(), vectors.len());
        n += vectors.len();
    }
    n
}

/// The counting sequence 00 01 02 .. of length `n` (the KAT files' inputs).
pub fn counting(n: usize) -> Vec<u8> {
    (0..n).map(|i| i as u8).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::record::parse_str;

    #[test]
    fn aead_and_hash_records_are_read_whole() {
        let recs = parse_str(
            "Count = 1\nKey = 00\nNonce = 01\nPT = 02\nAD = \nCT = 0AFF\n",
            "a",
        )
        .unwrap();
        let v = AeadVector::read(&recs[0]).unwrap();
        assert_eq!((v.ciphertext(), v.tag()), (&[0x0a][..], &[0xff][..]));
        assert!(recs[0].unread().is_empty());

        let recs = parse_str("Count = 2\nMsg = 00\nZ = 10\nMD = AA\n", "c").unwrap();
        let v = HashVector::read(&recs[0]).unwrap();
        assert_eq!((v.count, v.custom), (2, Some(vec![0x10])));

        // A tagless CT, and a field the format does not have, are errors.
        let recs = parse_str(
            "Count = 1\nKey = 00\nNonce = 01\nPT = 02\nAD = \nCT = 0A\n",
            "a",
        );
        assert!(AeadVector::read(&recs.unwrap()[0]).is_err());
        let recs = parse_str("Count = 1\nMsg = 00\nMD = AA\nExtra = 1\n", "h").unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            read_all(&recs[0], HashVector::read)
        }));
        assert!(r.is_err());
    }

    #[test]
    fn inventory_from_the_file_name() {
        assert_eq!(
            inventory("x/ascon80pqv12_LWC_AEAD_KAT_160_128.txt"),
            Some(1089)
        );
        assert_eq!(
            inventory("x/asconcxof128_LWC_CXOF_KAT_128_512.txt"),
            Some(1089)
        );
        assert_eq!(
            inventory("x/asconxof128_LWC_XOF_KAT_128_512.txt"),
            Some(1025)
        );
        assert_eq!(inventory("x/xoodyak_LWC_HASH_KAT_256.txt"), Some(1025));
        assert_eq!(inventory("aes/gcm/gcmDecrypt128.rsp"), None);
    }
}
