//! The findings say what this run's measurements decide, not what was expected: fed
//! measurements with one outcome and then the opposite one, each verdict flips, and an
//! interval that does not decide says "can't tell".

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use cipherlab_bench::artifact::Table;
use cipherlab_bench::id::Measurement;
use cipherlab_bench::studies::{Config, Scale, by_name};
use cipherlab_ciphers::{CipherSpec, Mode, catalogue};
use cipherlab_harness::machine::MachineInfo;
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
    row[col].as_str().unwrap().to_string()
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
