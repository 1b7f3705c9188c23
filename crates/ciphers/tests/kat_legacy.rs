//! Legacy ciphers' known answers through every provider of the catalogue that supports
//! the spec: Blowfish (all of Eric Young's table, the 1- to 3-byte keys, CBC, CFB64 and
//! OFB64), RC2 (RFC 2268, with effective key bits), RC4 (RFC 6229 at every offset) and
//! Skipjack's specification vector through `skipjack-ecb`. Also the runner's own checks:
//! that it fails on a field nobody read, a wrong answer, or a wrong record count.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use cipherlab_ciphers::{CipherSpec, Padding};
use common::{
    Ctx, Totals, check_vector, dec, each_provider, enc, kat_dir, parse, run_file, same, spec,
    try_run_file,
};

/// `base` with a key of `key_len` bytes, whether or not the catalogue offers that size
/// (Eric Young's table keys Blowfish with 1 to 3 bytes; RFC 2268 keys RC2 with 1 byte).
fn sized(base: &str, key_len: usize) -> CipherSpec {
    let mut s = spec(base, Padding::None);
    s.key_bits = (key_len * 8) as u16;
    s
}

// ---------------------------------------------------------------------------
// Blowfish

#[test]
fn blowfish_ecb() {
    let Some(kat) = kat_dir() else { return };
    let mut totals = Totals::default();
    for (rel, count) in [
        ("blowfish/bf-ecb.txt", 55),
        ("blowfish/bf-ecb-short-keys.txt", 3),
    ] {
        let r = run_file(&kat, rel, Some(count), |rec, ctx| {
            rec.decrypting()?;
            let key = rec.hex("KEY")?;
            let s = sized("blowfish-128-ecb", key.len());
            if !common::in_catalogue(&s) {
                ctx.note(&format!(
                    "{}-byte key (below the catalogue's sizes)",
                    key.len()
                ));
            }
            let pt = rec.hex("PLAINTEXT")?;
            let ct = rec.hex("CIPHERTEXT")?;
            check_vector(&rec.id(), &s, &key, &[], &pt, &ct, ctx)
        });
        totals.add(&r);
    }
    totals.print("Blowfish ECB");
}

/// Eric Young's chaining-mode data: CBC over the zero-padded 32 bytes (so no padding
/// here), CFB64 and OFB64 over 29 bytes.
#[test]
fn blowfish_chaining_modes() {
    let Some(kat) = kat_dir() else { return };
    let mut totals = Totals::default();
    for (rel, mode) in [
        ("blowfish/bf-cbc.txt", "cbc"),
        ("blowfish/bf-cfb.txt", "cfb"),
        ("blowfish/bf-ofb.txt", "ofb"),
    ] {
        let r = run_file(&kat, rel, Some(1), |rec, ctx| {
            rec.decrypting()?;
            let key = rec.hex("KEY")?;
            let s = sized(&format!("blowfish-128-{mode}"), key.len());
            let iv = rec.hex("IV")?;
            let pt = rec.hex("PLAINTEXT")?;
            let ct = rec.hex("CIPHERTEXT")?;
            check_vector(&rec.id(), &s, &key, &iv, &pt, &ct, ctx)
        });
        totals.add(&r);
    }
    totals.print("Blowfish CBC/CFB64/OFB64");
}

// ---------------------------------------------------------------------------
// RC2

/// RFC 2268 section 5: key lengths 1 to 33 bytes, effective key bits 63 to 129.
#[test]
fn rc2_rfc2268() {
    let Some(kat) = kat_dir() else { return };
    run_file(&kat, "rc2/rfc2268_ecb.txt", Some(8), |rec, ctx| {
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
fn check_rc4(
    id: &str,
    key: &[u8],
    offset: usize,
    pt: &[u8],
    ct: &[u8],
    ctx: &mut Ctx,
) -> Result<(), String> {
    let s = spec(&format!("rc4-{}", key.len() * 8), Padding::None);
    let mut msg = vec![0u8; offset];
    msg.extend_from_slice(pt);
    let mut cmsg = vec![0u8; offset];
    cmsg.extend_from_slice(ct);
    each_provider(id, &s, key, ctx, |_, c| {
        for round in ["encrypt", "encrypt again"] {
            let out = enc(c, &[], &[], &msg).map_err(|e| format!("{id}: {e}"))?;
            same(id, round, &out[offset..], ct)?;
        }
        let out = dec(c, &[], &[], &cmsg).map_err(|e| format!("{id}: {e}"))?;
        same(id, "decrypt", &out[offset..], pt)
    })
}

#[test]
fn rc4_rfc6229() {
    let Some(kat) = kat_dir() else { return };
    let mut totals = Totals::default();
    for rel in RC4_FILES {
        let r = run_file(&kat, rel, Some(36), |rec, ctx| {
            rec.decrypting()?;
            check_rc4(
                &rec.id(),
                &rec.hex("KEY")?,
                rec.num("OFFSET")?,
                &rec.hex("PLAINTEXT")?,
                &rec.hex("CIPHERTEXT")?,
                ctx,
            )
        });
        totals.add(&r);
    }
    totals.print("RC4");
    assert_eq!(totals.records, 288);
}

// ---------------------------------------------------------------------------
// Skipjack, and built-in vectors

/// Skipjack's specification vector through the catalogue (the KAT file and the round
/// states are tests/skipjack.rs's).
#[test]
fn skipjack_ecb_spec_vector() {
    let h = |s: &str| hex::decode(s).unwrap();
    let mut ctx = Ctx::default();
    let s = spec("skipjack-ecb", Padding::None);
    let (key, pt, ct) = (
        h("00998877665544332211"),
        h("33221100ddccbbaa"),
        h("2587cae27a12d300"),
    );
    check_vector("skipjack spec", &s, &key, &[], &pt, &ct, &mut ctx).unwrap();
    println!("skipjack-ecb spec vector: {:?}", ctx.runs);
}

/// Written into the source so they run without the KAT folder: Eric Young's first
/// Blowfish entries and the 1-byte-key one, RFC 2268's first and 1-byte-key vectors,
/// and RFC 6229's 40-bit key at offsets 0 and 4096.
#[test]
fn builtin_vectors() {
    let h = |s: &str| hex::decode(s).unwrap();
    let mut ctx = Ctx::default();
    for (key, pt, ct) in [
        ("0000000000000000", "0000000000000000", "4ef997456198dd78"),
        ("ffffffffffffffff", "ffffffffffffffff", "51866fd5b85ecb8a"),
        ("f0", "fedcba9876543210", "f9ad597c49db005e"),
    ] {
        let s = sized("blowfish-128-ecb", key.len() / 2);
        check_vector("blowfish", &s, &h(key), &[], &h(pt), &h(ct), &mut ctx).unwrap();
    }
    for (key, bits, ct) in [
        ("0000000000000000", 63, "ebb773f993278eff"),
        ("88", 64, "61a8a244adacccf0"),
    ] {
        let mut s = sized("rc2-128-ecb", key.len() / 2);
        s.effective_bits = Some(bits);
        let pt = [0u8; 8];
        check_vector("rc2", &s, &h(key), &[], &pt, &h(ct), &mut ctx).unwrap();
    }
    let zero = [0u8; 16];
    for (offset, ct) in [
        (0, "b2396305f03dc027ccc3524a0a1118a8"),
        (4096, "ff25b58995996707e51fbdf08b34d875"),
    ] {
        check_rc4("rc4", &h("0102030405"), offset, &zero, &h(ct), &mut ctx).unwrap();
    }
    println!("built-in legacy vectors: {:?}", ctx.runs);
}

// ---------------------------------------------------------------------------
// the runner's own checks

const SAMPLE: &str = "# comment\r\n\r\n[DECRYPT]\r\nCOUNT = 0\r\nKEYs = 0101010101010101\r\n\
CIPHERTEXT = 8ca64de9c1b123a7\r\nPLAINTEXT = 0000000000000000\r\n\r\n\
[Taglen = 32]\r\n\r\nCOUNT = 1\r\nKEYs = 0101010101010101\r\n\
CIPHERTEXT = 8CA64DE9C1B123A7\r\nFAIL\r\n";

fn sample_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cipherlab-kat-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("s.rsp"), SAMPLE).unwrap();
    dir
}

/// Runs the sample file with `check`; returns whether the runner failed the test.
fn runner_fails(
    name: &str,
    expect: usize,
    check: impl FnMut(&common::Record, &mut Ctx) -> Result<(), String>,
) -> bool {
    let dir = sample_dir(name);
    let r = try_run_file(&dir, "s.rsp", Some(expect), check);
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = &r {
        println!("runner failed as it should: {e}");
    }
    r.is_err()
}

#[test]
fn runner_catches_unread_wrong_and_missing() {
    let des = spec("des-ecb", Padding::None);
    // Reading everything and checking it passes (DES with the all-01 key encrypts zero
    // to 8ca64de9c1b123a7; the second record is only parsed).
    let full = |rec: &common::Record, ctx: &mut Ctx| {
        assert!(rec.decrypting()?);
        let key = rec.hex("KEYs")?;
        let ct = rec.hex("CIPHERTEXT")?;
        if rec.has("FAIL") {
            assert_eq!(rec.param("Taglen")?, 32);
            ctx.skip("flagged");
            return Ok(());
        }
        check_vector(&rec.id(), &des, &key, &[], &rec.hex("PLAINTEXT")?, &ct, ctx)
    };
    assert!(!runner_fails("ok", 2, full));
    // A record whose PLAINTEXT nobody read fails.
    assert!(runner_fails("unread", 2, |rec, ctx| {
        rec.hex("KEYs")?;
        rec.hex("CIPHERTEXT")?;
        rec.has("FAIL");
        ctx.ran("nobody");
        Ok(())
    }));
    // A record that no provider checked fails.
    assert!(runner_fails("unchecked", 2, |rec, _| {
        for f in ["KEYs", "CIPHERTEXT", "PLAINTEXT", "FAIL"] {
            rec.opt_text(f);
        }
        Ok(())
    }));
    // A wrong answer fails.
    assert!(runner_fails("wrong", 2, |rec, ctx| {
        let key = rec.hex("KEYs")?;
        let mut ct = rec.hex("CIPHERTEXT")?;
        ct[0] ^= 1;
        let pt = rec.opt_hex("PLAINTEXT")?.unwrap_or_default();
        rec.has("FAIL");
        check_vector(&rec.id(), &des, &key, &[], &pt, &ct, ctx)
    }));
    // A file holding another number of records than its inventory fails.
    assert!(runner_fails("count", 3, full));
    // The parser: CRLF, sections, parameter headers and flag lines.
    let dir = sample_dir("parse");
    let recs = parse(&dir.join("s.rsp"), "s.rsp").unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[1].section(), Some("DECRYPT"));
    assert!(recs[1].has("FAIL") && recs[1].param("Taglen") == Ok(32));
    assert_eq!(recs[0].hex("CIPHERTEXT"), recs[1].hex("CIPHERTEXT"));
    assert!(recs[0].param("Taglen").is_err());
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
