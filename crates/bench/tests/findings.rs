//! The findings say what this run's measurements decide, not what was expected: fed
//! measurements with one outcome and then the opposite one, each verdict flips, and an
//! interval that does not decide says "can't tell".

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use cipherlab_bench::studies::{Config, Scale, by_name};
use cipherlab_ciphers::{CipherSpec, Mode, catalogue};
use cipherlab_harness::machine::MachineInfo;
use cipherlab_results::artifact::Table;
use cipherlab_results::id::Measurement;
use support::{id, measurement, samples};

const SIZE: u64 = 1 << 16;

fn spec(alg: &'static cipherlab_ciphers::Algorithm, bits: u16) -> String {
    CipherSpec::of(alg, bits, Some(Mode::Ecb)).to_string()
}

/// One measurement of `alg` at `ns` per call; `spread` sets how noisy its samples are.
fn m(study: &str, alg: &str, phase: &str, ns: f64, spread: f64, seed: u64) -> Measurement {
    measurement(
        id(study, alg, phase, SIZE, "bmp"),
        samples(ns, spread, 30, seed),
    )
}

fn tables(study: &str, ms: &[Measurement]) -> Vec<Table> {
    let refs: Vec<&Measurement> = ms.iter().collect();
    by_name(study)
        .unwrap()
        .findings(&Config::new(Scale::Quick), &refs, &MachineInfo::detect())
        .unwrap()
        .iter()
        .filter_map(|a| a.as_table().cloned())
        .collect()
}

fn cell(t: &Table, first: &str, column_starts: &str) -> String {
    let col = t
        .columns
        .iter()
        .position(|c| c.starts_with(column_starts))
        .unwrap_or_else(|| panic!("no column {column_starts}: {:?}", t.columns));
    let row = t
        .rows
        .iter()
        .find(|r| r[0] == first)
        .unwrap_or_else(|| panic!("no row {first}"));
    cipherlab_results::artifact::cell_text(&row[col])
}

#[test]
fn key_size_verdict_follows_the_measurements() {
    let (small, large) = (spec(&catalogue::AES, 128), spec(&catalogue::AES, 256));
    let verdict = |large_ns: f64, spread: f64| {
        let ms = vec![
            m("key-size", &small, "encrypt", 1000.0, spread, 1),
            m("key-size", &large, "encrypt", large_ns, spread, 2),
        ];
        let t = &tables("key-size", &ms)[0];
        (
            cell(t, "aes", "encryption with the largest key"),
            cell(t, "aes", "paper (Fig. 5)"),
            t.note.clone(),
        )
    };
    let (ours, v, note) = verdict(1400.0, 0.01);
    assert_eq!((ours.as_str(), v.as_str()), ("slower", "agrees"));
    assert!(note.contains("1 agree, 0 differ, 0 can't tell"), "{note}");
    let (ours, v, note) = verdict(700.0, 0.01);
    assert_eq!((ours.as_str(), v.as_str()), ("faster", "differs"));
    assert!(note.contains("0 agree, 1 differ"), "{note}");
    let (ours, v, _) = verdict(1000.0, 0.005);
    assert_eq!((ours.as_str(), v.as_str()), ("the same (±5%)", "differs"));
    // Noisy samples whose interval straddles the margin: no verdict.
    let (ours, v, _) = verdict(1060.0, 0.6);
    assert_eq!((ours.as_str(), v.as_str()), ("can't tell", "can't tell"));
}

#[test]
fn data_size_ranking_is_compared_pair_by_pair() {
    let (aes, des) = (spec(&catalogue::AES, 128), spec(&catalogue::DES, 56));
    let note = |des_ns: f64| {
        let ms = vec![
            m("data-size", &aes, "encrypt", 1000.0, 0.01, 3),
            m("data-size", &des, "encrypt", des_ns, 0.01, 4),
        ];
        tables("data-size", &ms)[0].note.clone()
    };
    // The paper's DES took longer than its AES.
    assert!(note(2700.0).contains("1 agree, 0 differ, 0 can't tell"));
    assert!(note(400.0).contains("0 agree, 1 differ, 0 can't tell"));
}

#[test]
fn objects_conclusion_is_measured() {
    let aes = spec(&catalogue::AES, 128);
    let des = spec(&catalogue::DES, 56);
    let note = |des_ns: f64| {
        let ms = vec![
            m("objects", "none", "write", 500.0, 0.01, 5),
            m("objects", &aes, "write", 1000.0, 0.01, 6),
            m("objects", &des, "write", des_ns, 0.01, 7),
        ];
        tables("objects", &ms)[0].note.clone()
    };
    assert!(
        note(3000.0).contains("against DES agrees"),
        "{}",
        note(3000.0)
    );
    assert!(note(300.0).contains("against DES differs"));
    assert!(!note(3000.0).contains("holds here too"));
}

/// One encryption measurement of `alg` on `data_type`.
fn on(study: &str, alg: &str, data_type: &str, ns: f64, spread: f64, seed: u64) -> Measurement {
    measurement(
        id(study, alg, "encrypt", SIZE, data_type),
        samples(ns, spread, 30, seed),
    )
}

#[test]
fn data_type_verdict_follows_the_measurements() {
    let aes = spec(&catalogue::AES, 128);
    let verdict = |bmp_ns: f64, spread: f64| {
        let ms = vec![
            on("data-type", &aes, "ascii-text", 1000.0, spread, 1),
            on("data-type", &aes, "bmp", bmp_ns, spread, 2),
        ];
        let t = &tables("data-type", &ms)[0];
        (
            cell(t, &aes, "ours: slowest"),
            cell(t, &aes, "paper (Fig. 2)"),
            t.note.clone(),
        )
    };
    let (ours, v, note) = verdict(1000.0, 0.005);
    assert_eq!((ours.as_str(), v.as_str()), ("the same (±5%)", "agrees"));
    assert!(note.contains("1 agree, 0 differ, 0 can't tell"), "{note}");
    let (ours, v, note) = verdict(1500.0, 0.01);
    assert_eq!((ours.as_str(), v.as_str()), ("slower", "differs"));
    assert!(note.contains("The type matters for aes-128-ecb"), "{note}");
    let (_, v, note) = verdict(1040.0, 0.6);
    assert_eq!(v, "can't tell");
    assert!(note.contains("0 agree, 0 differ, 1 can't tell"), "{note}");
}

#[test]
fn density_verdict_follows_the_measurements() {
    let des = spec(&catalogue::DES, 56);
    let verdict = |sparse_ns: f64, spread: f64| {
        let ms = vec![
            on("density", &des, "dense", 1000.0, spread, 1),
            on("density", &des, "sparse", sparse_ns, spread, 2),
        ];
        let t = &tables("density", &ms)[0];
        (
            cell(t, &des, "ours: sparse"),
            cell(t, &des, "paper (Table 4)"),
        )
    };
    let (ours, v) = verdict(1000.0, 0.005);
    assert_eq!((ours.as_str(), v.as_str()), ("the same (±5%)", "agrees"));
    // Sparse taking 1.5x the time: a lower rate.
    let (ours, v) = verdict(1500.0, 0.01);
    assert_eq!((ours.as_str(), v.as_str()), ("sparse slower", "differs"));
    let (ours, v) = verdict(700.0, 0.01);
    assert_eq!((ours.as_str(), v.as_str()), ("sparse faster", "differs"));
    let (_, v) = verdict(1040.0, 0.6);
    assert_eq!(v, "can't tell");
}

#[test]
fn modes_claims_follow_the_measurements() {
    let name = |mode: Mode| CipherSpec::of(&catalogue::AES, 128, Some(mode)).to_string();
    let claims = |ofb_ns: f64, cfb_ns: f64| {
        let mut ms = Vec::new();
        for (i, mode) in [Mode::Ecb, Mode::Cbc, Mode::Cfb8, Mode::Cfb1, Mode::Ctr]
            .into_iter()
            .enumerate()
        {
            ms.push(m("modes", &name(mode), "encrypt", 1000.0, 0.01, i as u64));
        }
        ms.push(m("modes", &name(Mode::Ofb), "encrypt", ofb_ns, 0.01, 10));
        ms.push(m("modes", &name(Mode::Cfb), "encrypt", cfb_ns, 0.01, 11));
        let t = tables("modes", &ms)
            .into_iter()
            .find(|t| t.columns[2].starts_with("[4]"))
            .unwrap();
        (
            cell(&t, "aes-128", "[4]: OFB fastest"),
            cell(&t, "aes-128", "[6]: CFB slower"),
        )
    };
    assert_eq!(claims(500.0, 1500.0), ("agrees".into(), "agrees".into()));
    assert_eq!(claims(2000.0, 800.0), ("differs".into(), "differs".into()));
    // OFB as fast as CTR: not the fastest.
    assert_eq!(claims(1000.0, 1000.0), ("differs".into(), "differs".into()));
}

#[test]
fn phases_claims_follow_the_measurements() {
    let aes = CipherSpec::of(&catalogue::AES, 128, Some(Mode::Cbc)).to_string();
    let run = |keygen_ns: f64, rsa_private_ns: f64| {
        let mut ms = vec![
            m("phases", &aes, "keygen", keygen_ns, 0.01, 1),
            m("phases", &aes, "init", 100.0, 0.01, 2),
            m("phases", &aes, "encrypt", 1000.0, 0.01, 3),
            m("phases", &aes, "decrypt", 1000.0, 0.01, 4),
        ];
        ms.push(m("phases", "rsa-2048-oaep", "encrypt", 1000.0, 0.01, 5));
        ms.push(m(
            "phases",
            "rsa-2048-oaep",
            "decrypt",
            rsa_private_ns,
            0.01,
            6,
        ));
        let t = tables("phases", &ms).swap_remove(0);
        (cell(&t, &aes, "paper: keygen"), t.note)
    };
    let (v, note) = run(5000.0, 20_000.0);
    assert_eq!(v, "agrees");
    assert!(
        note.contains("rsa-2048-oaep") && note.contains("(agrees)"),
        "{note}"
    );
    let (v, note) = run(10.0, 500.0);
    assert_eq!(v, "differs");
    assert!(note.contains("(differs)"), "{note}");
}

#[test]
fn providers_default_verdict_follows_the_measurements() {
    use cipherlab_ciphers::providers;
    use cipherlab_results::id::{BenchId, Phase};
    let spec = CipherSpec::of(&catalogue::AES, 128, Some(Mode::Ctr));
    let default = providers::default_at(&spec, SIZE as usize).unwrap();
    let other = providers::PROVIDERS
        .iter()
        .map(|p| p.name())
        .find(|p| *p != default && providers::by_name(p).unwrap().supports(&spec))
        .unwrap();
    let verdict = |default_ns: f64, other_ns: f64, spread: f64| {
        let at = |provider: &str, ns: f64, seed: u64| {
            let id = BenchId::new("providers", spec, provider, Phase::Encrypt, SIZE, "dense");
            measurement(id, samples(ns, spread, 30, seed))
        };
        let ms = vec![at(default, default_ns, 1), at(other, other_ns, 2)];
        let t = tables("providers", &ms).swap_remove(0);
        (cell(&t, &spec.to_string(), "default is fastest?"), t.note)
    };
    assert_eq!(verdict(500.0, 1000.0, 0.01).0, "yes");
    assert_eq!(verdict(1000.0, 1002.0, 0.005).0, "yes (within 5%)");
    let (v, note) = verdict(1500.0, 1000.0, 0.01);
    assert_eq!(v, "no");
    assert!(note.contains(&format!("{other} is faster")), "{note}");
    let (v, note) = verdict(1040.0, 1000.0, 0.6);
    assert_eq!(v, "can't tell");
    assert!(note.contains("do not decide"), "{note}");
}

#[test]
fn table3_compares_like_with_like() {
    let (aes, des) = (spec(&catalogue::AES, 128), spec(&catalogue::DES, 56));
    let at = |alg: &str, data_type: &str, size: u64, ns: f64, seed: u64| {
        measurement(
            id("data-size", alg, "encrypt", size, data_type),
            samples(ns, 0.01, 30, seed),
        )
    };
    let ms = vec![
        at(&aes, "bmp", 1 << 16, 1000.0, 1),
        at(&des, "bmp", 1 << 16, 3000.0, 2),
        at(&aes, "bmp", 1 << 20, 16_000.0, 3),
        at(&des, "bmp", 1 << 20, 48_000.0, 4),
        at(&aes, "compressed", 1 << 20, 16_000.0, 5),
        at(&des, "compressed", 1 << 20, 8_000.0, 6),
    ];
    let t = tables("data-size", &ms).swap_remove(0);
    let input_of = |paper_file: &str| -> Vec<String> {
        t.rows
            .iter()
            .filter(|r| r[0] == paper_file)
            .map(|r| r[3].as_str().unwrap().to_string())
            .collect()
    };
    // Largest with largest, kind with kind; no counterpart, no row.
    assert!(input_of("BMP 100 MB").iter().all(|i| i == "bmp 1048576 B"));
    assert!(input_of("BMP 50 MB").iter().all(|i| i == "bmp 65536 B"));
    assert!(input_of("BMP 10.7 MB").is_empty());
    assert!(
        input_of("FLV 482 MB")
            .iter()
            .all(|i| i == "compressed 1048576 B")
    );
    assert!(!input_of("FLV 482 MB").is_empty());
    // DES slower than AES in both BMP files (agrees), faster in the compressed one.
    assert!(
        t.note.contains("2 agree, 1 differ, 0 can't tell"),
        "{}",
        t.note
    );
}

#[test]
fn isap_orders_follow_the_measurements_both_ways() {
    let a128a = CipherSpec::aead(&catalogue::ISAP_A_128A).to_string();
    let a128 = CipherSpec::aead(&catalogue::ISAP_A_128).to_string();
    let note = |slow_ns: f64| {
        let mut ms = Vec::new();
        for (i, phase) in ["encrypt", "decrypt"].into_iter().enumerate() {
            let at = |alg: &str, ns: f64, seed: u64| {
                measurement(
                    id("lwc", alg, phase, 64, "dense"),
                    samples(ns, 0.01, 30, seed),
                )
            };
            ms.push(at(&a128a, 2000.0, 10 * i as u64));
            ms.push(at(&a128, slow_ns, 10 * i as u64 + 1));
        }
        tables("lwc", &ms).swap_remove(0).note
    };
    // The paper's ISAP-A-128 takes 6.1x (encryption) and 6.4x (decryption) at 64 B.
    assert!(note(12_000.0).contains("2 agree, 0 differ, 0 can't tell"));
    assert!(note(1_000.0).contains("0 agree, 2 differ, 0 can't tell"));
}

#[test]
fn rsa_order_of_magnitude_is_measured() {
    let aes = spec(&catalogue::AES, 128);
    let note = |rsa_ns: f64| {
        let ms = vec![
            m("phases", &aes, "encrypt", 1000.0, 0.01, 1),
            m("phases", "rsa-1024-pkcs1", "encrypt", rsa_ns, 0.01, 2),
        ];
        let ts = tables("phases", &ms);
        let fig10 = ts.iter().find(|t| t.columns[1] == "its key").unwrap();
        assert_eq!(cell_any(fig10, "rsa-1024-pkcs1", 2), "80");
        ts[0].note.clone()
    };
    assert!(
        note(50_000.0).contains("(agrees); 1 agree"),
        "{}",
        note(50_000.0)
    );
    assert!(note(3_000.0).contains("(differs); 0 agree, 1 differ"));
}

fn cell_any(t: &Table, first: &str, col: usize) -> String {
    let row = t.rows.iter().find(|r| r[0] == first).unwrap();
    cipherlab_results::artifact::cell_text(&row[col])
}

/// Checks a study reports in a note are also verdict cells, so the run's claims count
/// them: data-size's Table 3 pairs, phases' footnote 4, objects' AES conclusion.
#[test]
fn checks_told_in_notes_are_counted_among_the_claims() {
    use cipherlab_results::verdict::claims;
    let artifacts = |study: &str, ms: &[Measurement]| {
        let refs: Vec<&Measurement> = ms.iter().collect();
        by_name(study)
            .unwrap()
            .findings(&Config::new(Scale::Quick), &refs, &MachineInfo::detect())
            .unwrap()
    };
    let (aes, des) = (spec(&catalogue::AES, 128), spec(&catalogue::DES, 56));
    // data-size: DES faster than AES here, slower in the paper: one pair, differing.
    let ds = artifacts(
        "data-size",
        &[
            m("data-size", &aes, "encrypt", 1000.0, 0.01, 3),
            m("data-size", &des, "encrypt", 400.0, 0.01, 4),
        ],
    );
    let c = claims(&ds);
    assert_eq!(
        (c.tally.differs, c.differing.len()),
        (1, 1),
        "{}",
        c.to_text()
    );
    assert!(
        c.differing[0].claim.contains("faster than des"),
        "{}",
        c.to_text()
    );
    // phases: RSA 50x AES agrees with footnote 4.
    let ph = artifacts(
        "phases",
        &[
            m("phases", &aes, "encrypt", 1000.0, 0.01, 1),
            m("phases", "rsa-1024-pkcs1", "encrypt", 50_000.0, 0.01, 2),
        ],
    );
    let c = claims(&ph);
    assert!(c.tally.agrees >= 1, "{}", c.to_text());
    assert!(ph.iter().any(|a| a.name == "paper/public-key-claims"));
    // objects: AES slower than DES through the stream differs from the paper.
    let ob = artifacts(
        "objects",
        &[
            m("objects", "none", "write", 500.0, 0.01, 5),
            m("objects", &aes, "write", 1000.0, 0.01, 6),
            m("objects", &des, "write", 300.0, 0.01, 7),
        ],
    );
    let c = claims(&ob);
    assert!(
        c.differing
            .iter()
            .any(|d| d.claim.contains("AES outperformed DES")),
        "{}",
        c.to_text()
    );
}
