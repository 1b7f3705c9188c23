//! `cipherlab vectors` end to end: every official LWC vector through the binary, and
//! the protocol's error handling.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../lwc/tests/common/mod.rs"]
mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// Runs `cipherlab vectors` on `input`; returns the answers and the exit status.
fn run_vectors(input: &str) -> (Vec<Value>, std::process::ExitStatus) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cipherlab"))
        .arg("vectors")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cipherlab");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer thread").expect("write stdin");
    let answers = String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("answer is JSON"))
        .collect();
    (answers, out.status)
}

fn hex(v: &[u8]) -> String {
    hex::encode(v)
}

/// AEAD KAT files and the algorithm that serves them.
const AEAD_FILES: &[(&str, &str)] = &[
    (
        "ascon/sp800-232/asconaead128_LWC_AEAD_KAT_128_128.txt",
        "ascon-aead128",
    ),
    (
        "ascon/sp800-232/asconaead128_v1.3.0-inputs_LWC_AEAD_KAT_128_128.txt",
        "ascon-aead128",
    ),
    (
        "ascon/v1.2/ascon128v12_LWC_AEAD_KAT_128_128.txt",
        "ascon-128",
    ),
    (
        "ascon/v1.2/ascon128av12_LWC_AEAD_KAT_128_128.txt",
        "ascon-128a",
    ),
    (
        "ascon/v1.2/ascon80pqv12_LWC_AEAD_KAT_160_128.txt",
        "ascon-80pq",
    ),
    ("xoodyak/xoodyak_LWC_AEAD_KAT_128_128.txt", "xoodyak"),
    ("isap/isapa128av20_LWC_AEAD_KAT_128_128.txt", "isap-a-128a"),
    ("isap/isapa128v20_LWC_AEAD_KAT_128_128.txt", "isap-a-128"),
    ("isap/isapk128av20_LWC_AEAD_KAT_128_128.txt", "isap-k-128a"),
    ("isap/isapk128v20_LWC_AEAD_KAT_128_128.txt", "isap-k-128"),
];

/// Hash, XOF and CXOF files: (file, algorithm, output bytes).
const HASH_FILES: &[(&str, &str, usize)] = &[
    (
        "ascon/sp800-232/asconhash256_LWC_HASH_KAT_128_256.txt",
        "ascon-hash256",
        32,
    ),
    (
        "ascon/sp800-232/asconxof128_LWC_XOF_KAT_128_512.txt",
        "ascon-xof128",
        64,
    ),
    (
        "ascon/sp800-232/asconcxof128_LWC_CXOF_KAT_128_512.txt",
        "ascon-cxof128",
        64,
    ),
    (
        "ascon/v1.2/asconhashv12_LWC_HASH_KAT_256.txt",
        "ascon-hash",
        32,
    ),
    (
        "ascon/v1.2/asconhashav12_LWC_HASH_KAT_256.txt",
        "ascon-hasha",
        32,
    ),
    (
        "ascon/v1.2/asconxofv12_LWC_HASH_KAT_256.txt",
        "ascon-xof",
        32,
    ),
    (
        "ascon/v1.2/asconxofav12_LWC_HASH_KAT_256.txt",
        "ascon-xofa",
        32,
    ),
    ("xoodyak/xoodyak_LWC_HASH_KAT_256.txt", "xoodyak-hash", 32),
];

#[test]
fn every_official_aead_vector_through_the_cli() {
    let Some(dir) = common::kat_dir() else { return };
    for &(file, alg) in AEAD_FILES {
        let mut requests = String::new();
        let mut expected = Vec::new();
        for mut r in common::parse_lwc(&dir.join(file)) {
            let (key, nonce, pt, ad, ct) = (
                r.bytes("Key"),
                r.bytes("Nonce"),
                r.bytes("PT"),
                r.bytes("AD"),
                r.bytes("CT"),
            );
            let (c, tag) = ct.split_at(ct.len() - 16);
            let mut bad_tag = tag.to_vec();
            bad_tag[0] ^= 1;
            for req in [
                json!({"id": r.count, "alg": alg, "op": "encrypt", "key": hex(&key), "nonce": hex(&nonce), "ad": hex(&ad), "pt": hex(&pt)}),
                json!({"alg": alg, "op": "decrypt", "key": hex(&key), "nonce": hex(&nonce), "ad": hex(&ad), "ct": hex(c), "tag": hex(tag)}),
                json!({"alg": alg, "op": "decrypt", "key": hex(&key), "nonce": hex(&nonce), "ad": hex(&ad), "ct": hex(c), "tag": hex(&bad_tag)}),
            ] {
                requests.push_str(&req.to_string());
                requests.push('\n');
            }
            expected.push(json!({"id": r.count, "ct": hex(c), "tag": hex(tag)}));
            expected.push(json!({"pt": hex(&pt)}));
            expected.push(json!({"error": "authentication failed"}));
        }
        let (answers, status) = run_vectors(&requests);
        assert!(status.success(), "{file}: exit {status}");
        assert_eq!(
            answers.len(),
            expected.len(),
            "{file}: one answer per request"
        );
        for (i, (got, want)) in answers.iter().zip(&expected).enumerate() {
            assert_eq!(got, want, "{file}: answer {i}");
        }
        println!(
            "{file}: {} vectors through `cipherlab vectors` ({alg})",
            expected.len() / 3
        );
    }
}

#[test]
fn every_official_hash_vector_through_the_cli() {
    let Some(dir) = common::kat_dir() else { return };
    for &(file, alg, outlen) in HASH_FILES {
        let mut requests = String::new();
        let mut expected = Vec::new();
        for mut r in common::parse_lwc(&dir.join(file)) {
            let msg = r.bytes("Msg");
            let mut req = json!({"alg": alg, "op": "hash", "msg": hex(&msg), "outlen": outlen});
            if alg == "ascon-cxof128" {
                req["custom"] = hex(&r.bytes("Z")).into();
            }
            requests.push_str(&req.to_string());
            requests.push('\n');
            expected.push(json!({"digest": hex(&r.bytes("MD"))}));
        }
        let (answers, status) = run_vectors(&requests);
        assert!(status.success(), "{file}: exit {status}");
        assert_eq!(answers, expected, "{file}");
        println!(
            "{file}: {} vectors through `cipherlab vectors` ({alg})",
            expected.len()
        );
    }
}

#[test]
fn built_in_vectors_run_without_the_kat_folder() {
    // SP 800-232 KAT Count 1 (new ascon-c inputs), quoted in ../shared/kat/README.md.
    let (a, status) = run_vectors(
        r#"{"id":"x","alg":"ascon-aead128","op":"encrypt","key":"000102030405060708090A0B0C0D0E0F","nonce":"101112131415161718191A1B1C1D1E1F","pt":""}
{"alg":"ascon-hash256","op":"hash","msg":""}
"#,
    );
    assert!(status.success());
    assert_eq!(
        a[0],
        json!({"id": "x", "ct": "", "tag": "4f9c278211bec9316bf68f46ee8b2ec6"})
    );
    // Ascon-Hash256("") from the SP 800-232 hash KAT, Count 1.
    assert!(
        a[1]["digest"]
            .as_str()
            .is_some_and(|d| d.starts_with("0b3be585")),
        "{}",
        a[1]
    );
}

#[test]
fn bad_requests_get_an_error_line_and_the_run_goes_on() {
    let input = [
        r#"{"id":1,"alg":"nope-128","op":"encrypt","key":"00","nonce":"00","pt":""}"#,
        r#"{"id":2,"alg":"ascon-aead128","op":"encrypt","key":"00","nonce":"000102030405060708090a0b0c0d0e0f","pt":""}"#,
        r#"{"id":3,"alg":"ascon-aead128","op":"encrypt","key":"zz","nonce":"00","pt":""}"#,
        r#"{"id":4,"alg":"ascon-aead128","op":"encrypt","key":"00","nonce":"00","pt":"","colour":"red"}"#,
        r#"{"id":5,"alg":"ascon-aead128","op":"hash","msg":""}"#,
        r#"{"id":6,"alg":"ascon-xof128","op":"hash","msg":"","outlen":1000000000000}"#,
        r#"{"id":7,"alg":"ascon-aead128","op":"decrypt","key":"000102030405060708090a0b0c0d0e0f","nonce":"101112131415161718191a1b1c1d1e1f","ct":"","tag":"00"}"#,
        r#"{"id":8,"alg":"ascon-xof128","op":"hash","msg":"","outlen":3}"#,
    ]
    .join("\n");
    let (a, status) = run_vectors(&input);
    assert!(status.success(), "well-formed JSON must not fail the run");
    assert_eq!(a.len(), 8);
    let err = |i: usize| a[i]["error"].as_str().unwrap_or_default().to_string();
    assert!(err(0).contains("unknown cipher"), "{}", err(0));
    assert!(err(1).contains("needs a 16-byte key, got 1"), "{}", err(1));
    assert!(err(2).contains("not hex"), "{}", err(2));
    assert!(err(3).contains("colour"), "{}", err(3));
    assert!(err(4).contains("encrypt, decrypt"), "{}", err(4));
    assert!(err(5).contains("above the limit"), "{}", err(5));
    assert!(err(6).contains("tag must be 16 bytes"), "{}", err(6));
    assert_eq!(
        a[7]["digest"].as_str().map(str::len),
        Some(6),
        "3-byte XOF output"
    );
    for (i, v) in a.iter().enumerate() {
        assert_eq!(v["id"], json!(i + 1), "id echoed");
    }
}

#[test]
fn a_line_that_is_not_json_fails_the_run_but_not_the_other_lines() {
    let (a, status) = run_vectors(
        "this is not json\n{\"alg\":\"ascon-hash256\",\"op\":\"hash\",\"msg\":\"00\"}\n",
    );
    assert_eq!(status.code(), Some(3), "3: the input is not JSON lines");
    assert_eq!(a.len(), 2);
    assert!(
        a[0]["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("not JSON"))
    );
    assert!(a[1]["digest"].is_string());
}

#[test]
fn list_shows_every_algorithm_with_sizes() {
    let out = Command::new(env!("CARGO_BIN_EXE_cipherlab"))
        .args(["list", "--json"])
        .output()
        .expect("run");
    assert!(out.status.success());
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).expect("JSON");
    let names: Vec<&str> = rows.iter().filter_map(|r| r["name"].as_str()).collect();
    for (_, alg) in AEAD_FILES {
        assert!(names.contains(alg), "{alg} listed");
    }
    for (_, alg, _) in HASH_FILES {
        assert!(names.contains(alg), "{alg} listed");
    }
    let pq = rows
        .iter()
        .find(|r| r["name"] == "ascon-80pq")
        .expect("80pq");
    assert_eq!(
        (
            pq["key_bytes"].as_u64(),
            pq["nonce_bytes"].as_u64(),
            pq["tag_bytes"].as_u64()
        ),
        (Some(20), Some(16), Some(16))
    );
    let text = Command::new(env!("CARGO_BIN_EXE_cipherlab"))
        .arg("list")
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("isap-k-128a") && text.contains("RATE"),
        "{text}"
    );
}

#[test]
fn catalogue_ciphers_through_the_protocol() {
    // NIST SP 800-38A F.2.1 (CBC-AES128.Encrypt, first block) and RFC 6229 (40-bit key).
    let input = [
        r#"{"id":1,"alg":"aes-128-cbc","op":"encrypt","key":"2b7e151628aed2a6abf7158809cf4f3c","iv":"000102030405060708090a0b0c0d0e0f","pt":"6bc1bee22e409f96e93d7e117393172a","padding":"none"}"#,
        r#"{"id":2,"alg":"rc4-40","op":"encrypt","key":"0102030405","pt":"00000000000000000000000000000000"}"#,
        r#"{"id":3,"alg":"aes-128-cbc","op":"encrypt","key":"2b7e151628aed2a6abf7158809cf4f3c","iv":"000102030405060708090a0b0c0d0e0f","pt":""}"#,
        r#"{"id":4,"alg":"aes-128-cbd","op":"encrypt","key":"00","pt":""}"#,
        r#"{"id":5,"alg":"aes-128-cbc","op":"encrypt","key":"2b7e151628aed2a6abf7158809cf4f3c","iv":"00","nonce":"00","pt":""}"#,
        r#"{"id":6,"alg":"aes-128-cbc","op":"decrypt","key":"2b7e151628aed2a6abf7158809cf4f3c","iv":"000102030405060708090a0b0c0d0e0f","ct":"7649abac8119b246cee98e9b12e9197d"}"#,
        r#"{"id":7,"alg":"skipjack-ecb","op":"encrypt","key":"00998877665544332211","pt":"33221100ddccbbaa","padding":"none","provider":"cipherlab"}"#,
        r#"{"id":8,"alg":"skipjack-ecb","op":"encrypt","key":"00998877665544332211","pt":"33221100ddccbbaa","padding":"none","provider":"rustcrypto"}"#,
    ]
    .join("\n");
    let (a, status) = run_vectors(&input);
    assert!(status.success());
    assert_eq!(
        a[0],
        json!({"id": 1, "ct": "7649abac8119b246cee98e9b12e9197d"})
    );
    assert_eq!(
        a[1],
        json!({"id": 2, "ct": "b2396305f03dc027ccc3524a0a1118a8"})
    );
    assert_eq!(
        a[2]["ct"].as_str().map(str::len),
        Some(32),
        "empty message pads to one block"
    );
    let err = |i: usize| a[i]["error"].as_str().unwrap_or_default().to_string();
    assert!(
        err(3).contains("did you mean") && err(3).contains("aes-128-cbc"),
        "{}",
        err(3)
    );
    assert!(err(4).contains("not both"), "{}", err(4));
    assert!(err(5).contains("bad padding"), "{}", err(5)); // unpadded block decrypted with padding on
    assert_eq!(a[6], json!({"id": 7, "ct": "2587cae27a12d300"}));
    assert!(
        err(7).contains("rustcrypto does not implement skipjack-ecb")
            && err(7).contains("cipherlab"),
        "{}",
        err(7)
    );
}
