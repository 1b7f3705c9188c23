//! The Java runner's chunked `time` (PROTOCOL.md, `chunk`: the input streamed through the
//! cipher piece by piece, for the paper's files of hundreds of MB) gives the same output,
//! by digest and length, as the whole-message call, for a JCA cipher, an AEAD of the JCA
//! and a lightweight AEAD, both directions; and a bad `chunk` is refused. Without the Java
//! runner the test prints SKIP, and fails under CI.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cipherlab_ciphers::CipherSpec;
use cipherlab_platforms::{cipherlab_ciphertext, platforms_dir, ready, runtime};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

#[test]
fn a_chunked_call_streams_the_same_output_as_a_whole_one() {
    let rt = runtime("java").unwrap();
    let (runner, _info) = match ready(rt, &platforms_dir(None)) {
        Ok(r) => r,
        Err(not) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI: the Java runner is not ready: {}",
                not.why
            );
            println!("SKIP: the Java runner is not ready: {}", not.why);
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    // Not a multiple of the chunk, nor of a block.
    let pt: Vec<u8> = (0..100_003u32).map(|i| (i * 7 + i / 251) as u8).collect();
    let input = dir.path().join("in.bin");
    std::fs::write(&input, &pt).unwrap();
    let key = [0x42u8; 16];
    let nonce16 = [0x24u8; 16];
    let nonce12 = [0x24u8; 12];
    for (alg, provider, iv) in [
        ("aes-128-cbc", "java-bc", &nonce16[..]),
        ("aes-128-gcm", "java-sunjce", &nonce12[..]),
        ("ascon-aead128", "java-bc", &nonce16[..]),
    ] {
        let spec = CipherSpec::parse(alg).unwrap();
        let ct = cipherlab_ciphertext(&spec, &key, iv, pt.clone()).unwrap();
        let expect = hex::encode(Sha256::digest(&ct));
        let field = if spec.is_aead() { "nonce" } else { "iv" };
        let ask = |direction: &str, chunk: Option<u64>| -> Value {
            let mut r = json!({"op": "time", "alg": alg, "provider": provider,
                "key": hex::encode(key), field: hex::encode(iv), "direction": direction,
                "input": input, "reps": 3, "warmup": 1, "expect": expect});
            if let Some(c) = chunk {
                r["chunk"] = json!(c);
            }
            runner.exchange(&[r]).unwrap().remove(0)
        };
        for chunk in [None, Some(4096), Some(16)] {
            let enc = ask("encrypt", chunk);
            assert_eq!(enc["digest"], json!(expect), "{alg} {chunk:?}: {enc}");
            assert_eq!(enc["out_len"], json!(ct.len()), "{alg} {chunk:?}");
            assert_eq!(enc["samples_ns"].as_array().unwrap().len(), 3);
            let dec = ask("decrypt", chunk);
            assert_eq!(
                dec["digest"],
                json!(hex::encode(Sha256::digest(&pt))),
                "{alg} {chunk:?}: {dec}"
            );
            assert_eq!(dec["out_len"], json!(pt.len()), "{alg} {chunk:?}");
        }
        let bad = ask("encrypt", Some(3));
        assert!(
            bad["error"].as_str().unwrap().contains("chunk"),
            "{alg}: {bad}"
        );
    }
}
