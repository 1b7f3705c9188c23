//! The Java stream experiment of the `objects` study: through the real Java runner when
//! it is ready (conformance byte for byte, then samples for every phase, the ciphertext's
//! histogram; for Ascon-AEAD128 also a tampered stream refused), and its findings
//! computed from intervals: fed opposite outcomes, each verdict flips.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use cipherlab_bench::studies::java_stream::{DATA_TYPE, conforms};
use cipherlab_bench::studies::{CipherFilter, Config, Scale, by_name};
use cipherlab_ciphers::{CipherSpec, Mode, catalogue};
use cipherlab_harness::Settings;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_results::artifact::{Content, Table};
use cipherlab_results::id::{Measurement, Runtime};
use support::{id, measurement, runner_ready, samples, table_named};

const AES_ECB: CipherSpec = CipherSpec::of(&catalogue::AES, 128, Some(Mode::Ecb));
const ASCON: CipherSpec = CipherSpec::aead(&catalogue::ASCON_AEAD128);

#[test]
fn java_streams_agree_with_cipherlab_byte_for_byte_then_give_samples() {
    let study = by_name("objects").unwrap();
    let cfg = Config {
        filter: CipherFilter::new(&[&AES_ECB.to_string(), &ASCON.to_string()]),
        ..Config::new(Scale::Quick)
    };
    let e = study.elsewhere(&cfg, &Settings::quick()).unwrap();
    if !runner_ready("java") {
        assert!(e.measurements.is_empty());
        assert!(e.artifacts.iter().any(|a| a.name == "java/missing"));
        return;
    }
    // Only the Java figures: the filter also picks cipherlab's own Ascon in the study's
    // Rust part, which `elsewhere` does not run.
    assert!(
        e.measurements
            .iter()
            .all(|m| m.id.runtime == Runtime::parse("java").unwrap())
    );
    let proven = table_named(&e.artifacts, "java/conformance");
    // One row per cipher, BouncyCastle only at --quick; Ascon's "yes" also means the
    // runner refused its stream with a flipped tag bit.
    assert_eq!(proven.rows.len(), 2, "{proven:?}");
    for row in &proven.rows {
        assert_eq!(row[3], "yes", "{proven:?}");
    }
    for spec in [AES_ECB, ASCON] {
        for phase in ["keygen", "init", "write", "read"] {
            let m = e
                .measurements
                .iter()
                .find(|m| m.id.is_cipher(&spec) && m.id.phase.as_str() == phase)
                .unwrap_or_else(|| panic!("no {spec} {phase} figure"));
            assert_eq!(m.id.runtime, Runtime::parse("java").unwrap());
            assert_eq!(m.id.implementation, "java-bc");
            assert_eq!(
                m.samples.len(),
                40,
                "{spec} {phase}: the quick load's timed rounds"
            );
            assert!(m.samples.iter().all(|s| s.ns > 0 && s.iterations == 1));
            if matches!(phase, "write" | "read") {
                assert!(m.id.size > 40_000, "10 records of ~5 KB: {}", m.id.size);
            }
        }
    }
    // Both ciphers encrypted the same serialized stream (the stream's bytes are the size).
    let write_size = |spec: &CipherSpec| {
        e.measurements
            .iter()
            .find(|m| m.id.is_cipher(spec) && m.id.phase.as_str() == "write")
            .map(|m| m.id.size)
    };
    assert_eq!(write_size(&AES_ECB), write_size(&ASCON));
    assert!(e.runtimes.contains_key("java") && e.runtimes.contains_key("java-bc"));
    // Java's serialization stream is unevenly spread (the paper's Fig. 1), its ciphertext
    // is not (Fig. 2).
    let histogram = |name: &str| {
        e.artifacts
            .iter()
            .find_map(|a| match &a.content {
                Content::Histogram(h) if a.name == name => Some(h.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no {name}"))
    };
    assert!(histogram("java/histogram/none").uneven());
    for spec in [AES_ECB, ASCON] {
        let ct = histogram(&format!("java/histogram/{spec} (java-bc)"));
        assert!(!ct.uneven(), "{ct:?}");
        assert_eq!(ct.data_type, DATA_TYPE);
    }
    // The findings read the Java figures into their own table.
    let refs: Vec<&Measurement> = e.measurements.iter().collect();
    let arts = study.findings(&cfg, &refs, &MachineInfo::detect()).unwrap();
    let t = table_named(&arts, "java/stream-phases");
    assert_eq!(t.rows.len(), 2);
    let ascon = t.rows.iter().find(|r| r[0] == ASCON.to_string()).unwrap();
    let verdict = t
        .columns
        .iter()
        .position(|c| c.starts_with("paper: keygen"))
        .unwrap();
    assert_eq!(ascon[verdict], "beyond the paper");
}

#[test]
fn a_ciphertext_that_is_not_cipherlabs_is_refused() {
    let key = [7u8; 16];
    let plain = b"\xac\xed\x00\x05 a serialized stream".to_vec();
    let ct = {
        let mut c = cipherlab_ciphers::providers::init(&AES_ECB, &key, None).unwrap();
        let mut buf = plain.clone();
        buf.resize(AES_ECB.output_len(plain.len()), 0);
        let n = c.encrypt(&[], &[], &mut buf, plain.len()).unwrap();
        buf.truncate(n);
        buf
    };
    let answer = |ct: &[u8]| {
        serde_json::json!({
            "plain": hex::encode(&plain),
            "ct_len": ct.len(),
            "ct_digest": hex::encode(<sha2::Sha256 as sha2::Digest>::digest(ct)),
        })
    };
    assert_eq!(conforms(&answer(&ct), &AES_ECB, &key, &[]).unwrap(), plain);
    let mut wrong = ct.clone();
    wrong[3] ^= 1;
    assert!(conforms(&answer(&wrong), &AES_ECB, &key, &[]).is_err());
    assert!(conforms(&answer(&ct), &AES_ECB, &[8u8; 16], &[]).is_err());
}

#[test]
fn an_ascon_stream_is_ciphertext_then_tag_and_needs_a_refused_tamper() {
    let key = [7u8; 16];
    let nonce = [9u8; 16];
    let plain = b"\xac\xed\x00\x05 a serialized stream".to_vec();
    let sealed = {
        let mut c = cipherlab_ciphers::providers::init(&ASCON, &key, None).unwrap();
        let mut buf = plain.clone();
        buf.resize(plain.len() + 16, 0);
        let n = c.encrypt(&nonce, &[], &mut buf, plain.len()).unwrap();
        buf.truncate(n);
        buf
    };
    assert_eq!(
        sealed.len(),
        plain.len() + 16,
        "ciphertext then a 16-byte tag"
    );
    let answer = |ct: &[u8], tamper_refused: bool| {
        serde_json::json!({
            "plain": hex::encode(&plain),
            "ct_len": ct.len(),
            "ct_digest": hex::encode(<sha2::Sha256 as sha2::Digest>::digest(ct)),
            "tamper_refused": tamper_refused,
        })
    };
    assert_eq!(
        conforms(&answer(&sealed, true), &ASCON, &key, &nonce).unwrap(),
        plain
    );
    // Without the tag, under another nonce, or without the tamper check: refused.
    let untagged = &sealed[..plain.len()];
    assert!(conforms(&answer(untagged, true), &ASCON, &key, &nonce).is_err());
    assert!(conforms(&answer(&sealed, true), &ASCON, &key, &[8u8; 16]).is_err());
    assert!(conforms(&answer(&sealed, false), &ASCON, &key, &nonce).is_err());
}

fn java(alg: &str, phase: &str, ns: f64, seed: u64) -> Measurement {
    let size = if matches!(phase, "write" | "read") {
        50_000
    } else {
        0
    };
    let mut m = measurement(
        id("objects", alg, phase, size, DATA_TYPE),
        samples(ns, 0.01, 30, seed),
    );
    m.id = m.id.with_runtime(Runtime::parse("java").unwrap());
    m.id.implementation = "java-bc".into();
    m
}

fn java_table(ms: &[Measurement]) -> Table {
    let refs: Vec<&Measurement> = ms.iter().collect();
    table_named(
        &by_name("objects")
            .unwrap()
            .findings(&Config::new(Scale::Quick), &refs, &MachineInfo::detect())
            .unwrap(),
        "java/stream-phases",
    )
}

fn cell(t: &Table, column: &str) -> String {
    let col = t
        .columns
        .iter()
        .position(|c| c.starts_with(column))
        .unwrap();
    cipherlab_results::artifact::cell_text(&t.rows[0][col])
}

#[test]
fn java_verdicts_follow_the_measurements() {
    let aes = AES_ECB.to_string();
    let run = |keygen_ns: f64, rust_write_ns: f64| {
        let mut ms = vec![
            java(&aes, "keygen", keygen_ns, 1),
            java(&aes, "init", 2_000.0, 2),
            java(&aes, "write", 1_000_000.0, 3),
            java(&aes, "read", 900_000.0, 4),
        ];
        // cipherlab's own write of its graph (runtime rust).
        ms.push(measurement(
            id("objects", &aes, "write", 50_000, "object-graph"),
            samples(rust_write_ns, 0.01, 30, 5),
        ));
        java_table(&ms)
    };
    let slow_keygen = run(5_000_000.0, 200_000.0);
    assert_eq!(cell(&slow_keygen, "paper: keygen"), "agrees");
    assert_eq!(cell(&slow_keygen, "Java against"), "slower");
    let fast_keygen = run(50_000.0, 5_000_000.0);
    assert_eq!(cell(&fast_keygen, "paper: keygen"), "differs");
    assert_eq!(cell(&fast_keygen, "Java against"), "faster");
    // The Rust figure stays in the Rust table, not in Java's.
    assert_eq!(fast_keygen.rows.len(), 1);
}

const PAPER_RSA: &str = "rsa-1024-pkcs1";

#[test]
fn java_rsa_is_decrypted_by_cipherlab_then_timed() {
    java_public_key_is_decrypted_by_cipherlab_then_timed(PAPER_RSA);
}

#[test]
fn java_ecies_is_decrypted_by_cipherlab_then_timed() {
    java_public_key_is_decrypted_by_cipherlab_then_timed("x25519-ecies");
}

fn java_public_key_is_decrypted_by_cipherlab_then_timed(scheme: &str) {
    let study = by_name("phases").unwrap();
    let cfg = Config {
        filter: CipherFilter::new(&[scheme]),
        ..Config::new(Scale::Quick)
    };
    let e = study.elsewhere(&cfg, &Settings::quick()).unwrap();
    if !runner_ready("java") {
        assert!(e.measurements.is_empty());
        return;
    }
    let proven = table_named(&e.artifacts, "java/rsa-conformance");
    assert_eq!(proven.rows.len(), 1, "{proven:?}");
    assert_eq!(proven.rows[0][3], "yes", "{proven:?}");
    for (phase, n) in [
        ("keygen", 3),
        ("init", 20),
        ("encrypt", 20),
        ("decrypt", 20),
    ] {
        let m = e
            .measurements
            .iter()
            .find(|m| m.id.phase.as_str() == phase)
            .unwrap_or_else(|| panic!("no {phase} figure"));
        assert_eq!(m.id.runtime, Runtime::parse("java").unwrap());
        assert_eq!(m.id.algorithm.name(), scheme);
        assert_eq!(m.samples.len(), n, "{phase}");
        assert!(m.samples.iter().all(|s| s.ns > 0));
    }
    let refs: Vec<&Measurement> = e.measurements.iter().collect();
    let arts = study.findings(&cfg, &refs, &MachineInfo::detect()).unwrap();
    assert!(arts.iter().any(|a| a.name == "java/rsa-phases"));
}

#[test]
fn a_java_rsa_ciphertext_cipherlab_cannot_decrypt_is_refused() {
    use cipherlab_ciphers::asym::AsymSpec;
    let spec = AsymSpec::parse(PAPER_RSA).unwrap();
    // Not a key at all, then a key of the wrong size for the scheme: both refused.
    let answer = serde_json::json!({"private_key": "3000", "ct": "00"});
    assert!(cipherlab_bench::studies::java_public_key::conforms(&answer, spec).is_err());
    let missing = serde_json::json!({"ct": "00"});
    assert!(cipherlab_bench::studies::java_public_key::conforms(&missing, spec).is_err());
}

fn java_rsa(phase: &str, ns: f64, seed: u64) -> Measurement {
    let mut m = measurement(
        id("phases", PAPER_RSA, phase, 32, "session-key"),
        samples(ns, 0.01, 30, seed),
    );
    m.id = m.id.with_runtime(Runtime::parse("java").unwrap());
    m.id.implementation = "java-bc".into();
    m
}

#[test]
fn java_rsa_verdict_follows_the_measurements() {
    let table = |decrypt_ns: f64| {
        let ms = [
            java_rsa("encrypt", 60_000.0, 1),
            java_rsa("decrypt", decrypt_ns, 2),
        ];
        let refs: Vec<&Measurement> = ms.iter().collect();
        table_named(
            &by_name("phases")
                .unwrap()
                .findings(&Config::new(Scale::Quick), &refs, &MachineInfo::detect())
                .unwrap(),
            "java/rsa-phases",
        )
    };
    assert_eq!(cell(&table(700_000.0), "paper: private"), "agrees");
    assert_eq!(cell(&table(20_000.0), "paper: private"), "differs");
}
