//! Legacy ciphers' known answers through every provider of the catalogue that supports
//! the spec: Blowfish (all of Eric Young's table, the 1- to 3-byte keys, CBC, CFB64 and
//! OFB64), RC2 (RFC 2268, with effective key bits), RC4 (RFC 6229 at every offset) and
//! Skipjack's specification vector through `skipjack-ecb`. The built-in excerpts of these
//! files (cipherlab-testkit's `kat-excerpts/`) run first, also without the KAT folder.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cipherlab_ciphers::{CipherSpec, Padding};
use cipherlab_testkit::{Ctx, Record, Totals, run_kat, same};
use common::{check_vector, dec, each_provider, enc, in_catalogue, spec};

/// `base` with a key of `key_len` bytes, whether or not the catalogue offers that size
/// (Eric Young's table keys Blowfish with 1 to 3 bytes; RFC 2268 keys RC2 with 1 byte).
fn sized(base: &str, key_len: usize) -> CipherSpec {
    let mut s = spec(base, Padding::None);
    s.key_bits = (key_len * 8) as u16;
    s
}

// ---------------------------------------------------------------------------
// Blowfish

fn blowfish_ecb_record(rec: &Record, ctx: &mut Ctx) -> Result<(), String> {
    rec.decrypting()?;
    let key = rec.hex("KEY")?;
    let s = sized("blowfish-128-ecb", key.len());
    if !in_catalogue(&s) {
        ctx.note(&format!(
            "{}-byte key (below the catalogue's sizes)",
            key.len()
        ));
    }
    let pt = rec.hex("PLAINTEXT")?;
    let ct = rec.hex("CIPHERTEXT")?;
    check_vector(&rec.id(), &s, &key, &[], &pt, &ct, ctx)
}

#[test]
fn blowfish_ecb() {
    let mut totals = Totals::default();
    for (rel, count) in [
        ("blowfish/bf-ecb.txt", 55),
        ("blowfish/bf-ecb-short-keys.txt", 3),
    ] {
        if let Some(r) = run_kat(rel, Some(count), blowfish_ecb_record) {
            totals.add(&r);
        }
    }
    totals.print("Blowfish ECB");
}

/// Eric Young's chaining-mode data: CBC over the zero-padded 32 bytes (so no padding
/// here), CFB64 and OFB64 over 29 bytes.
#[test]
fn blowfish_chaining_modes() {
    let mut totals = Totals::default();
    for (rel, mode) in [
        ("blowfish/bf-cbc.txt", "cbc"),
        ("blowfish/bf-cfb.txt", "cfb"),
        ("blowfish/bf-ofb.txt", "ofb"),
    ] {
        let r = run_kat(rel, Some(1), |rec, ctx| {
            rec.decrypting()?;
            let key = rec.hex("KEY")?;
            let s = sized(&format!("blowfish-128-{mode}"), key.len());
            let iv = rec.hex("IV")?;
            let pt = rec.hex("PLAINTEXT")?;
            let ct = rec.hex("CIPHERTEXT")?;
            check_vector(&rec.id(), &s, &key, &iv, &pt, &ct, ctx)
        });
        if let Some(r) = r {
            totals.add(&r);
        }
    }
    totals.print("Blowfish CBC/CFB64/OFB64");
}

// ---------------------------------------------------------------------------
// RC2

/// RFC 2268 section 5: key lengths 1 to 33 bytes, effective key bits 63 to 129.
#[test]
fn rc2_rfc2268() {
    run_kat("rc2/rfc2268_ecb.txt", Some(8), |rec, ctx| {
        rec.decrypting()?;
        let key = rec.hex("KEY")?;
        let mut s = sized("rc2-128-ecb", key.len());
        s.effective_bits = Some(rec.num("EFFECTIVE_BITS")? as u16);
        let pt = rec.hex("PLAINTEXT")?;
        let ct = rec.hex("CIPHERTEXT")?;
        check_vector(&rec.id(), &s, &key, &[], &pt, &ct, ctx)
    });
}

// ---------------------------------------------------------------------------
// RC4

/// RFC 6229 tables for 40- to 256-bit keys, 36 records each (two keys, 18 offsets).
const RC4_FILES: [&str; 8] = [
    "rc4/rfc-6229-40.txt",
    "rc4/rfc-6229-56.txt",
    "rc4/rfc-6229-64.txt",
    "rc4/rfc-6229-80.txt",
    "rc4/rfc-6229-128.txt",
    "rc4/arc4.txt",
    "rc4/rfc-6229-192.txt",
    "rc4/rfc-6229-256.txt",
];

/// Every message starts the keystream afresh, so the vector at OFFSET is the last 16
/// bytes of encrypting OFFSET + 16 bytes (zeros, then the vector's plaintext).
fn rc4_record(rec: &Record, ctx: &mut Ctx) -> Result<(), String> {
    rec.decrypting()?;
    let id = rec.id();
    let key = rec.hex("KEY")?;
    let offset = rec.num("OFFSET")?;
    let pt = rec.hex("PLAINTEXT")?;
    let ct = rec.hex("CIPHERTEXT")?;
    let s = spec(&format!("rc4-{}", key.len() * 8), Padding::None);
    let mut msg = vec![0u8; offset];
    msg.extend_from_slice(&pt);
    let mut cmsg = vec![0u8; offset];
    cmsg.extend_from_slice(&ct);
    each_provider(&id, &s, &key, ctx, |_, c| {
        for round in ["encrypt", "encrypt again"] {
            let out = enc(c, &[], &[], &msg).map_err(|e| format!("{id}: {e}"))?;
            same(&id, round, &out[offset..], &ct)?;
        }
        let out = dec(c, &[], &[], &cmsg).map_err(|e| format!("{id}: {e}"))?;
        same(&id, "decrypt", &out[offset..], &pt)
    })
}

#[test]
fn rc4_rfc6229() {
    let mut totals = Totals::default();
    for rel in RC4_FILES {
        if let Some(r) = run_kat(rel, Some(36), rc4_record) {
            totals.add(&r);
        }
    }
    totals.print("RC4");
    assert!(
        totals.files == 0 || totals.records == 288,
        "the inventory says 288"
    );
}

// ---------------------------------------------------------------------------
// Skipjack

/// Skipjack's specification vector through the catalogue. The round states of the file's
/// `[INTERMEDIATE]` section are tests/skipjack.rs's (they need the cipher's internals).
#[test]
fn skipjack_ecb_spec_vector() {
    let s = spec("skipjack-ecb", Padding::None);
    run_kat("skipjack/skipjack_nist_kat.txt", Some(33), |rec, ctx| {
        if rec.section() == Some("INTERMEDIATE") {
            ctx.skip("round state (tests/skipjack.rs)");
            return Ok(());
        }
        rec.decrypting()?;
        let key = rec.hex("KEY")?;
        let pt = rec.hex("PLAINTEXT")?;
        let ct = rec.hex("CIPHERTEXT")?;
        check_vector(&rec.id(), &s, &key, &[], &pt, &ct, ctx)
    });
}

// ---------------------------------------------------------------------------
// robustness

/// Any `CipherSpec` a caller can write (key sizes 0 to 4096 bits, RC2 effective bits 0
/// to 1025, every mode, both paddings), any IV length and message length: every
/// provider answers with a value or an error, never a panic. (The rc2 crate panicked on
/// empty or over-128-byte keys and on 0 effective bits before the provider checked them.)
#[test]
fn odd_specs_error_instead_of_panicking() {
    use cipherlab_ciphers::providers::PROVIDERS;
    use cipherlab_ciphers::{ALGORITHMS, Kind, Mode};
    use std::panic::{AssertUnwindSafe, catch_unwind};
    let mut panics = Vec::new();
    let mut tried = 0;
    for a in ALGORITHMS {
        let modes: Vec<Option<Mode>> = match a.kind {
            Kind::Block => Mode::ALL.iter().map(|m| Some(*m)).collect(),
            _ => vec![None],
        };
        let sizes = [
            0,
            8,
            24,
            a.key_bits.min,
            a.key_bits.max,
            a.key_bits.max + 8,
            4096,
        ];
        for mode in modes {
            for key_bits in sizes {
                for effective_bits in [None, Some(0), Some(1), Some(1025)] {
                    for padding in [Padding::Pkcs7, Padding::None] {
                        let s = CipherSpec {
                            algorithm: a,
                            key_bits,
                            mode,
                            padding,
                            effective_bits,
                        };
                        for p in PROVIDERS.iter().filter(|p| p.supports(&s)) {
                            tried += 1;
                            let key = vec![7u8; s.key_len()];
                            let r = catch_unwind(AssertUnwindSafe(|| {
                                let Ok(mut c) = p.init(&s, &key) else { return };
                                for iv_len in [0, 1, s.iv_len(), 17] {
                                    let iv = vec![0xff; iv_len];
                                    for len in [0, 1, 8, 33] {
                                        let mut buf = vec![0u8; len + 40];
                                        let _ = c.encrypt(&iv, &[], &mut buf, len);
                                        let _ = c.encrypt(&iv, &[1], &mut buf[..len], len);
                                        let _ = c.decrypt(&iv, &[], &mut buf[..len]);
                                    }
                                }
                            }));
                            if r.is_err() {
                                panics.push(format!("{} {s} key_bits {key_bits} effective {effective_bits:?} {padding:?}", p.name()));
                            }
                        }
                    }
                }
            }
        }
    }
    println!("odd specs: {tried} (spec, provider) pairs tried");
    assert!(
        panics.is_empty(),
        "{} panics, e.g.:\n  {}",
        panics.len(),
        panics[..panics.len().min(10)].join("\n  ")
    );
}
