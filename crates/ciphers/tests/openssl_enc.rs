//! Byte-identity with OpenSSL's `openssl enc` and with Java's JCE, on random keys, IVs
//! and inputs of lengths 0, 1, 15, 16, 17 and 1000, through every provider of the
//! catalogue that supports the spec: the output must be the same bytes, and the
//! catalogue must decrypt the other tool's output back to the input.
//!
//! The tools come from Debian packages (`openssl`, `default-jdk-headless`; `.ci/setup`
//! installs them); a missing tool prints a SKIP line. Set `CIPHERLAB_TEST_SEED` to replay
//! a run's random inputs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::process::{Child, Command, Stdio};

use cipherlab_ciphers::providers::{by_name, supporting};
use cipherlab_ciphers::{CipherSpec, Padding};
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};

use common::{dec, enc, spec};

const LENGTHS: [usize; 6] = [0, 1, 15, 16, 17, 1000];

fn rng(what: &str) -> StdRng {
    let seed = match std::env::var("CIPHERLAB_TEST_SEED") {
        Ok(s) => s.parse().unwrap_or(0),
        Err(_) => rand::rng().next_u64(),
    };
    println!("{what}: seed {seed} (set CIPHERLAB_TEST_SEED to replay)");
    StdRng::seed_from_u64(seed)
}

fn random(rng: &mut StdRng, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
    v
}

/// Encrypts `msg` with every provider supporting `spec`; each must give `want`, and
/// decrypt `want` back to `msg`. Returns the providers' names.
fn agree(
    label: &str,
    spec: &CipherSpec,
    key: &[u8],
    iv: &[u8],
    ad: &[u8],
    msg: &[u8],
    want: &[u8],
) -> Vec<&'static str> {
    let names = supporting(spec);
    assert!(!names.is_empty(), "{label}: no provider supports {spec}");
    for name in &names {
        let mut c = by_name(name)
            .and_then(|p| p.init(spec, key))
            .unwrap_or_else(|e| panic!("{label}: {name} {spec}: {e}"));
        let got =
            enc(c.as_mut(), iv, ad, msg).unwrap_or_else(|e| panic!("{label}: {name} encrypt: {e}"));
        assert!(
            got == want,
            "{label}: {name} {spec} differs on {} bytes:\n  ours   {}\n  theirs {}",
            msg.len(),
            hex::encode(&got),
            hex::encode(want)
        );
        let back = dec(c.as_mut(), iv, ad, want)
            .unwrap_or_else(|e| panic!("{label}: {name} cannot decrypt the other's output: {e}"));
        assert!(back == msg, "{label}: {name} {spec}: decryption differs");
    }
    names
}

// ---------------------------------------------------------------------------
// OpenSSL

/// (OpenSSL's cipher name, the catalogue's name). Key and IV lengths are the spec's.
const OPENSSL_CASES: &[(&str, &str)] = &[
    ("aes-128-ecb", "aes-128-ecb"),
    ("aes-128-cbc", "aes-128-cbc"),
    ("aes-128-cfb", "aes-128-cfb"),
    ("aes-128-cfb8", "aes-128-cfb8"),
    ("aes-128-cfb1", "aes-128-cfb1"),
    ("aes-128-ofb", "aes-128-ofb"),
    ("aes-128-ctr", "aes-128-ctr"),
    ("aes-192-ecb", "aes-192-ecb"),
    ("aes-192-cbc", "aes-192-cbc"),
    ("aes-192-cfb", "aes-192-cfb"),
    ("aes-192-cfb8", "aes-192-cfb8"),
    ("aes-192-cfb1", "aes-192-cfb1"),
    ("aes-192-ofb", "aes-192-ofb"),
    ("aes-192-ctr", "aes-192-ctr"),
    ("aes-256-ecb", "aes-256-ecb"),
    ("aes-256-cbc", "aes-256-cbc"),
    ("aes-256-cfb", "aes-256-cfb"),
    ("aes-256-cfb8", "aes-256-cfb8"),
    ("aes-256-cfb1", "aes-256-cfb1"),
    ("aes-256-ofb", "aes-256-ofb"),
    ("aes-256-ctr", "aes-256-ctr"),
    ("des-ecb", "des-ecb"),
    ("des-cbc", "des-cbc"),
    ("des-cfb", "des-cfb"),
    ("des-cfb8", "des-cfb8"),
    ("des-ofb", "des-ofb"),
    ("des-ede", "3des-112-ecb"),
    ("des-ede-cbc", "3des-112-cbc"),
    ("des-ede-ofb", "3des-112-ofb"),
    ("des-ede3", "3des-168-ecb"),
    ("des-ede3-cbc", "3des-168-cbc"),
    ("des-ede3-cfb", "3des-168-cfb"),
    ("des-ede3-cfb8", "3des-168-cfb8"),
    ("des-ede3-cfb1", "3des-168-cfb1"),
    ("des-ede3-ofb", "3des-168-ofb"),
    ("bf-ecb", "blowfish-128-ecb"),
    ("bf-cbc", "blowfish-128-cbc"),
    ("bf-cfb", "blowfish-128-cfb"),
    ("bf-ofb", "blowfish-128-ofb"),
    // OpenSSL's bf-cbc with a 56-byte key: `openssl enc` 3.0 cuts -K to the cipher's
    // default 16 bytes ("hex string is too long"); then this case prints SKIP.
    ("bf-cbc", "blowfish-448-cbc"),
    ("rc2-40-cbc", "rc2-40-cbc"),
    ("rc2-64-cbc", "rc2-64-cbc"),
    ("rc2-cbc", "rc2-128-cbc"),
    ("rc2-ecb", "rc2-128-ecb"),
    ("rc4-40", "rc4-40"),
    ("rc4", "rc4-128"),
];

/// Starts `openssl enc -e` on `msg` (at most a pipe buffer, so writing cannot block).
fn openssl_start(name: &str, key: &[u8], iv: &[u8], msg: &[u8]) -> Result<Child, String> {
    let mut cmd = Command::new("openssl");
    cmd.args([
        "enc",
        "-e",
        &format!("-{name}"),
        "-nosalt",
        "-K",
        &hex::encode(key),
    ]);
    if !iv.is_empty() {
        cmd.args(["-iv", &hex::encode(iv)]);
    }
    if !name.starts_with("aes") {
        cmd.args(["-provider", "legacy", "-provider", "default"]);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run openssl: {e}"))?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(msg)
        .map_err(|e| e.to_string())?;
    Ok(child)
}

/// Waits for [`openssl_start`]; `Err` carries OpenSSL's message (any stderr output,
/// such as "hex string is too long, ignoring excess", counts as an error).
fn openssl_finish(name: &str, child: Child) -> Result<Vec<u8>, String> {
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    if !out.status.success() || !stderr.is_empty() {
        return Err(format!("openssl enc -{name}: {}: {stderr}", out.status));
    }
    Ok(out.stdout)
}

/// Runs `openssl enc -e` on `msg`.
fn openssl_enc(name: &str, key: &[u8], iv: &[u8], msg: &[u8]) -> Result<Vec<u8>, String> {
    openssl_finish(name, openssl_start(name, key, iv, msg)?)
}

fn have(cmd: &str, arg: &str) -> bool {
    Command::new(cmd)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn openssl_enc_byte_identical() {
    if !have("openssl", "version") {
        println!("SKIP: no `openssl` command (Debian package openssl; see .ci/setup)");
        return;
    }
    // Is the legacy provider (DES, Blowfish, RC2, RC4) loadable?
    let legacy = openssl_enc("des-ecb", &[1; 8], &[], &[]);
    if let Err(e) = &legacy {
        println!("SKIP: OpenSSL's legacy provider does not load ({e}); AES only");
    }
    let mut rng = rng("openssl enc");
    let (mut runs, mut cases) = (0, 0);
    for &(ossl, ours) in OPENSSL_CASES {
        if legacy.is_err() && !ossl.starts_with("aes") {
            continue;
        }
        let s = spec(ours, Padding::Pkcs7);
        // All lengths at once: the processes run while the next ones start.
        let jobs: Vec<_> = LENGTHS
            .iter()
            .map(|&len| {
                let key = random(&mut rng, s.key_len());
                let iv = random(&mut rng, s.iv_len());
                let msg = random(&mut rng, len);
                let child = openssl_start(ossl, &key, &iv, &msg)
                    .unwrap_or_else(|e| panic!("openssl -{ossl}: {e}"));
                (key, iv, msg, child)
            })
            .collect();
        let mut providers = Vec::new();
        let mut skipped = None;
        for (key, iv, msg, child) in jobs {
            let label = format!("openssl -{ossl} vs {ours}, {} bytes", msg.len());
            match openssl_finish(ossl, child) {
                Ok(theirs) => {
                    providers = agree(&label, &s, &key, &iv, &[], &msg, &theirs);
                    runs += providers.len();
                }
                Err(e) if e.contains("too long") => skipped = Some((key.len(), e)),
                Err(e) => panic!("{label}: {e}"),
            }
        }
        if let Some((n, e)) = skipped {
            println!("SKIP {ours}: `openssl enc -{ossl}` cannot take a {n}-byte key ({e})");
            continue;
        }
        cases += 1;
        println!("openssl -{ossl} = {ours}: lengths {LENGTHS:?}, providers {providers:?}");
    }
    println!("openssl enc: {cases} ciphers, {runs} comparisons, all byte-identical");
}

/// Blowfish with a 56-byte key and RC2 with 1024-bit keys cannot go through `openssl
/// enc` 3.0 (it cuts -K to the default key length), so here every provider that supports
/// them must agree with every other (OpenSSL's through the `openssl` provider once it is
/// registered), and with the JCE below for Blowfish.
#[test]
fn providers_agree_on_long_keys() {
    let mut rng = rng("long keys");
    for name in [
        "blowfish-448-cbc",
        "blowfish-448-ofb",
        "rc2-1024-cbc",
        "rc4-2048",
        "aes-256-gcm",
    ] {
        let s = spec(name, Padding::Pkcs7);
        let names = supporting(&s);
        for len in LENGTHS {
            let key = random(&mut rng, s.key_len());
            let iv = random(&mut rng, s.iv_len());
            let ad = if s.is_aead() {
                random(&mut rng, len % 20)
            } else {
                Vec::new()
            };
            let msg = random(&mut rng, len);
            let mut first = by_name(names[0]).and_then(|p| p.init(&s, &key)).unwrap();
            let want = enc(first.as_mut(), &iv, &ad, &msg).unwrap();
            agree(
                &format!("{name} {len} bytes"),
                &s,
                &key,
                &iv,
                &ad,
                &msg,
                &want,
            );
        }
        println!("{name}: providers {names:?} agree");
    }
}

// ---------------------------------------------------------------------------
// Java

/// (JCE transformation, the catalogue's name, JCE key from ours). 3DES-112's JCE key is
/// K1 || K2 || K1 (SunJCE's DESede takes 24 bytes).
type JceCase = (&'static str, &'static str, fn(&[u8]) -> Vec<u8>);
const JCE_CASES: &[JceCase] = &[
    ("DES/ECB/PKCS5Padding", "des-ecb", <[u8]>::to_vec),
    ("DES/CBC/PKCS5Padding", "des-cbc", <[u8]>::to_vec),
    ("AES/CBC/PKCS5Padding", "aes-128-cbc", <[u8]>::to_vec),
    ("AES/CBC/PKCS5Padding", "aes-256-cbc", <[u8]>::to_vec),
    ("AES/ECB/PKCS5Padding", "aes-192-ecb", <[u8]>::to_vec),
    ("DESede/CBC/PKCS5Padding", "3des-168-cbc", <[u8]>::to_vec),
    ("DESede/CBC/PKCS5Padding", "3des-112-cbc", |k| {
        [k, &k[..8]].concat()
    }),
    (
        "Blowfish/CBC/PKCS5Padding",
        "blowfish-128-cbc",
        <[u8]>::to_vec,
    ),
    (
        "Blowfish/CBC/PKCS5Padding",
        "blowfish-448-cbc",
        <[u8]>::to_vec,
    ),
    ("AES/GCM/NoPadding", "aes-128-gcm", <[u8]>::to_vec),
    ("AES/GCM/NoPadding", "aes-256-gcm", <[u8]>::to_vec),
];

#[test]
fn jce_byte_identical() {
    if !have("java", "-version") {
        println!("SKIP: no `java` command (Debian package default-jdk-headless; see .ci/setup)");
        return;
    }
    let mut rng = rng("JCE");
    let hx = |b: &[u8]| {
        if b.is_empty() {
            "-".to_string()
        } else {
            hex::encode(b)
        }
    };
    // (label, spec, key, iv, ad, msg), one JVM for all of them.
    let mut jobs = Vec::new();
    let mut input = String::new();
    for &(jce, ours, jce_key) in JCE_CASES {
        let s = spec(ours, Padding::Pkcs7);
        for len in LENGTHS {
            let key = random(&mut rng, s.key_len());
            let iv = random(&mut rng, s.iv_len());
            let ad_len = if s.is_aead() {
                rng.random_range(0..40)
            } else {
                0
            };
            let ad = random(&mut rng, ad_len);
            let msg = random(&mut rng, len);
            input += &format!(
                "{jce} {} {} {} {}\n",
                hx(&jce_key(&key)),
                hx(&iv),
                hx(&ad),
                hx(&msg)
            );
            jobs.push((
                format!("JCE {jce} vs {ours}, {len} bytes"),
                s,
                key,
                iv,
                ad,
                msg,
            ));
        }
    }
    let program = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/java/JceVectors.java");
    let mut child = Command::new("java")
        .arg(program)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "java {program}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines.len(),
        jobs.len(),
        "one output line per input:\n{stdout}"
    );
    let mut runs = 0;
    for ((label, s, key, iv, ad, msg), line) in jobs.iter().zip(lines) {
        assert!(!line.starts_with("ERR"), "{label}: {line}");
        let theirs = if line == "-" {
            Vec::new()
        } else {
            hex::decode(line).unwrap()
        };
        runs += agree(label, s, key, iv, ad, msg, &theirs).len();
    }
    println!(
        "JCE: {} transformations x {} lengths, {runs} comparisons, all byte-identical",
        JCE_CASES.len(),
        LENGTHS.len()
    );
}

/// CTR's counter is the whole IV block and wraps modulo 2^128 as OpenSSL's does: an
/// all-ones IV must not be an error.
#[test]
fn ctr_counter_wraps_like_openssl() {
    if !have("openssl", "version") {
        println!("SKIP: no `openssl` command (Debian package openssl; see .ci/setup)");
        return;
    }
    let mut rng = rng("CTR wrap");
    for bits in [128, 256] {
        let s = spec(&format!("aes-{bits}-ctr"), Padding::None);
        let key = random(&mut rng, s.key_len());
        let msg = random(&mut rng, 50);
        for iv in [[0xff; 16], {
            let mut v = [0u8; 16];
            v[8..].fill(0xff);
            v
        }] {
            let theirs = openssl_enc(&format!("aes-{bits}-ctr"), &key, &iv, &msg).unwrap();
            agree(
                &format!("aes-{bits}-ctr wrap"),
                &s,
                &key,
                &iv,
                &[],
                &msg,
                &theirs,
            );
        }
    }
    println!("CTR counter wrap (IV ff..ff and 00..00ff..ff): byte-identical with openssl");
}
