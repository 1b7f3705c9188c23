//! The catalogue against the NIST LWC KAT files its descriptors name. Every algorithm whose
//! descriptor has an `lwc_kat` file runs it through every provider that supports it
//! (encryption, decryption, and a flipped tag bit rejected with the buffer wiped); every
//! hash of `HASHES` runs its file through its `digest` function. The built-in excerpts
//! (cipherlab-testkit's `kat-excerpts/`) run first, also without the KAT folder.
//!
//! So a new lightweight AEAD is covered by adding its module, its descriptor and its KAT
//! file: this test needs no edit, and fails for a lightweight AEAD without a KAT file.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cipherlab_ciphers::catalogue::lightweight;
use cipherlab_ciphers::{ALGORITHMS, CipherSpec, HASHES, HashKind};
use cipherlab_testkit::kat::sources;
use cipherlab_testkit::lwc::{AeadVector, HashVector, expect};
use cipherlab_testkit::{Totals, run_file, same};
use common::{dec, each_provider, enc, must_reject};

#[test]
fn every_lightweight_aead_has_a_kat_file() {
    let missing: Vec<&str> = lightweight()
        .filter(|a| a.lwc_kat.is_none())
        .map(|a| a.name)
        .collect();
    assert!(
        missing.is_empty(),
        "lightweight AEADs without an lwc_kat file in their descriptor: {missing:?}"
    );
}

#[test]
fn every_aead_with_a_kat_file_passes_it_through_every_provider() {
    let mut totals = Totals::default();
    let mut names = Vec::new();
    for &alg in ALGORITHMS {
        let Some(rel) = alg.lwc_kat else { continue };
        names.push(alg.name);
        let spec = CipherSpec::aead(alg);
        for src in sources(rel) {
            let r = run_file(&src.dir, &src.rel, expect(&src), |rec, ctx| {
                let v = AeadVector::read(rec)?;
                let id = format!("{} ({})", v.id, alg.name);
                each_provider(&id, &spec, &v.key, ctx, |_, c| {
                    let got = enc(c, &v.nonce, &v.ad, &v.pt)
                        .map_err(|e| format!("{id}: encrypt: {e}"))?;
                    same(&id, "encrypt", &got, &v.ct)?;
                    let got = dec(c, &v.nonce, &v.ad, &v.ct)
                        .map_err(|e| format!("{id}: decrypt: {e}"))?;
                    same(&id, "decrypt", &got, &v.pt)?;
                    // One tag bit, a different one per record.
                    let mut bad = v.ct.clone();
                    let bit = v.count * 7 % (8 * v.tag().len());
                    bad[v.pt.len() + bit / 8] ^= 1 << (bit % 8);
                    must_reject(&id, "flipped tag bit", c, &v.nonce, &v.ad, &bad)
                })
            });
            if src.whole {
                totals.add(&r);
            }
        }
    }
    println!("AEADs with a KAT file: {}", names.join(", "));
    totals.print("lightweight AEAD KAT files through the catalogue");
}

#[test]
fn every_hash_passes_its_kat_file() {
    let mut totals = Totals::default();
    for h in HASHES {
        for src in sources(h.lwc_kat) {
            let r = run_file(&src.dir, &src.rel, expect(&src), |rec, ctx| {
                let v = HashVector::read(rec)?;
                let id = format!("{} ({})", v.id, h.name);
                if v.custom.is_some() != (h.kind == HashKind::Cxof) {
                    return Err(format!("{id}: a Z field goes with a CXOF, and only there"));
                }
                // A fixed hash gives its one length; an XOF the length asked for.
                let outlen = match h.kind {
                    HashKind::Hash => None,
                    HashKind::Xof | HashKind::Cxof => Some(v.md.len()),
                };
                let custom = v.custom.as_deref().unwrap_or_default();
                let got = h
                    .digest(&v.msg, outlen, custom)
                    .map_err(|e| format!("{id}: {e}"))?;
                same(&id, "digest", &got, &v.md)?;
                ctx.ran(h.name);
                Ok(())
            });
            if src.whole {
                totals.add(&r);
            }
        }
    }
    totals.print("hash KAT files through the catalogue");
}
