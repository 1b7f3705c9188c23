//! The platform runners (platforms/): every present runner through a short vector set
//! against cipherlab (`cipherlab platforms check --quick`), and one short timing request
//! each, whose samples and digest are checked. A runtime that is not installed is skipped
//! with its reason (`bash platforms/setup` installs them all).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use cipherlab_ciphers::{CipherSpec, providers};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

fn platforms_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../platforms")
}

fn cipherlab(args: &[&str]) -> (Value, std::process::ExitStatus) {
    let out = Command::new(env!("CARGO_BIN_EXE_cipherlab"))
        .args(args)
        .arg("--dir")
        .arg(platforms_dir())
        .output()
        .expect("run cipherlab");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let value = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "cipherlab {args:?} did not print JSON ({e}): {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (value, out.status)
}

/// The runtimes whose runner is ready; prints SKIP with the reason for the others.
fn ready_runtimes() -> Vec<String> {
    let (doctor, _) = cipherlab(&["platforms", "doctor", "--json"]);
    let mut ready = Vec::new();
    for rt in doctor["runtimes"].as_array().expect("runtimes") {
        let name = rt["runtime"].as_str().expect("name").to_string();
        if rt["ready"] == json!(true) {
            ready.push(name);
        } else {
            eprintln!(
                "SKIP {name}: {} (install: {})",
                rt["problem"].as_str().unwrap_or("?"),
                rt["fix"].as_str().unwrap_or("?")
            );
        }
    }
    ready
}

/// Differences that are known bugs in a runtime's library, found with the official KATs
/// (docs/platforms.md says how). Any other difference fails the test, and so does a
/// known one that went away (then this list and the doc need updating).
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    // BouncyCastle 1.87's XoodyakEngine matches none of the 1,089 NIST LWC final-round
    // Xoodyak AEAD KAT vectors in ../shared/kat/xoodyak (cipherlab matches all).
    ("java-bc", "xoodyak"),
];

#[test]
fn every_present_runner_agrees_with_cipherlab() {
    let ready = ready_runtimes();
    let (check, _) = cipherlab(&[
        "platforms",
        "check",
        "--quick",
        "--json",
        "--seed",
        "20261125",
    ]);
    for s in check["skipped"].as_array().expect("skipped") {
        eprintln!("SKIP {}: {}", s["runtime"], s["reason"]);
    }
    let mut differs = BTreeSet::new();
    let mut seen_runtimes = BTreeSet::new();
    for p in check["providers"].as_array().expect("providers") {
        let provider = p["provider"].as_str().expect("provider").to_string();
        seen_runtimes.insert(p["runtime"].as_str().expect("runtime").to_string());
        let algorithms = p["algorithms"].as_object().expect("algorithms");
        let agreed = algorithms
            .values()
            .filter(|v| v["verdict"] == json!("agree"))
            .count();
        assert!(agreed > 0, "{provider} agreed on nothing: {p}");
        for (alg, verdict) in algorithms {
            if verdict["verdict"] == json!("differ") {
                differs.insert((provider.clone(), alg.clone()));
            }
        }
        // The paper's algorithm agrees on every runtime that has an AES provider.
        if let Some(v) = algorithms.get("aes-128-cbc") {
            assert_eq!(v["verdict"], json!("agree"), "{provider} on aes-128-cbc");
        }
    }
    let ready_set: BTreeSet<String> = ready.into_iter().collect();
    assert_eq!(seen_runtimes, ready_set, "every ready runtime was checked");
    let known: BTreeSet<(String, String)> = KNOWN_DIFFERENCES
        .iter()
        .filter(|(p, _)| seen_runtimes.iter().any(|rt| p.starts_with(rt.as_str())))
        .map(|(p, a)| (p.to_string(), a.to_string()))
        .collect();
    assert_eq!(differs, known, "differences other than the known ones");
}

/// Sends `requests` to a runner and returns its answers.
fn exchange(runtime: &str, requests: &[Value]) -> Vec<Value> {
    let mut child = Command::new(platforms_dir().join(runtime).join("run"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the runner");
    let mut stdin = child.stdin.take().expect("stdin");
    let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer").expect("write");
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("answer is JSON"))
        .collect()
}

#[test]
fn every_present_runner_times_a_short_request() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("4096.bin");
    let plain: Vec<u8> = (0..4096u32).map(|i| (i * 31 % 251) as u8).collect();
    std::fs::write(&input, &plain).expect("write input");
    let key = [0x42u8; 16];
    let iv = [0x17u8; 16];
    // The expected ciphertext, from cipherlab's catalogue.
    let spec = CipherSpec::parse("aes-128-cbc").expect("spec");
    let mut cipher = providers::init(&spec, &key, None).expect("cipher");
    let mut buf = plain.clone();
    buf.resize(spec.output_len(plain.len()), 0);
    let n = cipher
        .encrypt(&iv, &[], &mut buf, plain.len())
        .expect("encrypt");
    let ct_digest = hex::encode(Sha256::digest(&buf[..n]));
    let pt_digest = hex::encode(Sha256::digest(&plain));

    let request = |direction: &str, expect: Option<&str>| {
        let mut r = json!({"op": "time", "alg": "aes-128-cbc", "key": hex::encode(key),
            "iv": hex::encode(iv), "direction": direction, "input": input, "reps": 25, "warmup": 50});
        if let Some(e) = expect {
            r["expect"] = json!(e);
        }
        r
    };
    let wrong = "00".repeat(32);
    for runtime in ready_runtimes() {
        let answers = exchange(
            &runtime,
            &[
                request("encrypt", Some(&ct_digest)),
                request("decrypt", None),
                request("encrypt", Some(&wrong)),
            ],
        );
        assert_eq!(answers.len(), 3, "{runtime}: {answers:?}");
        for (answer, digest, len) in [
            (&answers[0], &ct_digest, n),
            (&answers[1], &pt_digest, plain.len()),
        ] {
            let samples = answer["samples_ns"]
                .as_array()
                .unwrap_or_else(|| panic!("{runtime}: no samples: {answer}"));
            assert_eq!(samples.len(), 25, "{runtime}: one sample per rep");
            assert!(
                samples.iter().all(|s| s.as_u64().is_some_and(|ns| ns > 0)),
                "{runtime}: samples are positive nanoseconds: {samples:?}"
            );
            assert_eq!(answer["digest"], json!(digest), "{runtime}: digest");
            assert_eq!(answer["out_len"], json!(len), "{runtime}: output length");
            assert_eq!(answer["warmup_calls"], json!(50), "{runtime}: warm-up");
            for field in [
                "first_call_ns",
                "warmup_ns",
                "startup_ns",
                "steady",
                "drift",
            ] {
                assert!(answer.get(field).is_some(), "{runtime}: {field} missing");
            }
            assert_eq!(answer["runtime"], json!(runtime));
        }
        // A digest that does not match: refused, nothing timed.
        let refused = &answers[2];
        assert!(
            refused["error"]
                .as_str()
                .is_some_and(|e| e.starts_with("digest mismatch")),
            "{runtime}: a wrong expected digest must be refused: {refused}"
        );
        assert!(
            refused.get("samples_ns").is_none(),
            "{runtime}: timed anyway"
        );
    }
}
