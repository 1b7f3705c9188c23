use super::*;

fn roundtrip(spec: AsymSpec, msg: &[u8]) {
    let pair = Keypair::generate(spec).unwrap();
    let mut enc = Encryptor::new(&pair.public_key().unwrap()).unwrap();
    let mut dec = Decryptor::new(&pair).unwrap();
    let (mut ct, mut pt) = (Vec::new(), Vec::new());
    let n = enc.encrypt(msg, &mut ct).unwrap();
    assert_eq!(n, spec.ciphertext_len(msg.len()), "{spec}");
    assert_eq!(ct.len(), n);
    if !msg.is_empty() {
        let tail = &ct[ct.len() - msg.len().min(ct.len())..];
        assert_ne!(tail, msg, "{spec}: ciphertext holds the message");
    }
    // Randomized: a second encryption of the same message differs.
    let mut ct2 = Vec::new();
    enc.encrypt(msg, &mut ct2).unwrap();
    assert_ne!(ct, ct2, "{spec}: encryption is deterministic");
    assert_eq!(dec.decrypt(&ct, &mut pt).unwrap(), msg.len());
    assert_eq!(pt, msg, "{spec}");
    dec.decrypt(&ct2, &mut pt).unwrap();
    assert_eq!(pt, msg, "{spec}");
}

#[test]
fn names_round_trip_and_unknown_names_are_refused() {
    let all = AsymSpec::all();
    assert_eq!(all.len(), 10);
    for spec in &all {
        assert_eq!(AsymSpec::parse(&spec.to_string()).unwrap(), *spec);
    }
    assert_eq!(
        AsymSpec::parse("RSA-2048").unwrap(),
        AsymSpec::Rsa {
            bits: 2048,
            padding: RsaPadding::Oaep
        }
    );
    for bad in [
        "rsa-512",
        "rsa-2048-pss",
        "rsa",
        "ecies",
        "x448-ecies",
        "aes-128-cbc",
        "",
    ] {
        let e = AsymSpec::parse(bad).unwrap_err();
        assert!(matches!(e, AsymError::UnknownName(_)), "{bad}: {e}");
        assert!(
            e.to_string().contains("x25519-ecies"),
            "the error lists the names"
        );
    }
}

#[test]
fn every_scheme_round_trips() {
    for spec in AsymSpec::all() {
        if let AsymSpec::Rsa { bits, .. } = spec
            && bits > 2048
        {
            continue; // the large sizes: one test below, key generation takes seconds
        }
        roundtrip(spec, b"");
        roundtrip(spec, b"a 32-byte session key, say......");
        let max = spec.max_plaintext_len().min(5000);
        roundtrip(spec, &vec![0xA5; max]);
    }
}

#[test]
fn rsa_4096_round_trips_at_its_block_limit() {
    let spec = AsymSpec::parse("rsa-4096-oaep").unwrap();
    assert_eq!(spec.max_plaintext_len(), 512 - 66);
    roundtrip(spec, &[7; 512 - 66]);
}

#[test]
fn rsa_refuses_a_message_longer_than_its_block() {
    for (name, max) in [("rsa-1024-oaep", 62), ("rsa-1024-pkcs1", 117)] {
        let spec = AsymSpec::parse(name).unwrap();
        assert_eq!(spec.max_plaintext_len(), max);
        let pair = Keypair::generate(spec).unwrap();
        let mut enc = Encryptor::new(&pair.public_key().unwrap()).unwrap();
        let mut ct = Vec::new();
        enc.encrypt(&vec![1; max], &mut ct).unwrap();
        let e = enc.encrypt(&vec![1; max + 1], &mut ct).unwrap_err();
        assert_eq!(
            e,
            AsymError::MessageTooLong {
                spec: name.into(),
                max,
                got: max + 1
            }
        );
    }
}

#[test]
fn altered_ciphertexts_and_wrong_keys_are_refused_without_output() {
    for name in ["rsa-1024-oaep", "x25519-ecies", "p256-ecies"] {
        let spec = AsymSpec::parse(name).unwrap();
        let pair = Keypair::generate(spec).unwrap();
        let other = Keypair::generate(spec).unwrap();
        let mut enc = Encryptor::new(&pair.public_key().unwrap()).unwrap();
        let mut ct = Vec::new();
        enc.encrypt(b"secret message", &mut ct).unwrap();
        let mut pt = Vec::new();
        let mut wrong = Decryptor::new(&other).unwrap();
        assert!(
            wrong.decrypt(&ct, &mut pt).is_err(),
            "{name}: wrong key accepted"
        );
        assert!(pt.is_empty(), "{name}: output left after a failure");
        let mut dec = Decryptor::new(&pair).unwrap();
        // Flip one bit in the body (past an ECIES key, whose change may give an invalid point).
        for at in [ct.len() / 2 + 1, ct.len() - 1] {
            let mut bad = ct.clone();
            bad[at] ^= 0x10;
            assert!(
                dec.decrypt(&bad, &mut pt).is_err(),
                "{name}: altered byte {at} accepted"
            );
            assert!(pt.is_empty());
        }
        let e = dec.decrypt(&ct[..ct.len() - 1], &mut pt).unwrap_err();
        assert!(
            matches!(e, AsymError::Malformed { .. } | AsymError::Decryption),
            "{name}: {e}"
        );
        assert!(dec.decrypt(&[], &mut pt).is_err());
        dec.decrypt(&ct, &mut pt).unwrap();
        assert_eq!(pt, b"secret message");
    }
}

#[test]
fn ecies_rejects_an_ephemeral_key_off_the_curve() {
    let spec = AsymSpec::parse("p256-ecies").unwrap();
    let pair = Keypair::generate(spec).unwrap();
    let mut enc = Encryptor::new(&pair.public_key().unwrap()).unwrap();
    let mut ct = Vec::new();
    enc.encrypt(b"m", &mut ct).unwrap();
    assert_eq!(ct[0], 4, "an uncompressed SEC 1 point");
    ct[40] ^= 1; // y no longer matches x
    let e = Decryptor::new(&pair)
        .unwrap()
        .decrypt(&ct, &mut Vec::new())
        .unwrap_err();
    assert!(matches!(e, AsymError::Malformed { .. }), "{e}");
}

#[test]
fn rsa_oaep_parameters_are_what_openssl_pkeyutl_expects() {
    // The documented parameters (OAEP, SHA-256, MGF1-SHA-256) checked by a second
    // program: the openssl command line decrypts our ciphertext.
    if std::process::Command::new("openssl")
        .arg("version")
        .output()
        .is_err()
    {
        eprintln!("SKIP: no openssl command");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (name, opts) in [
        (
            "rsa-2048-oaep",
            &[
                "rsa_padding_mode:oaep",
                "rsa_oaep_md:sha256",
                "rsa_mgf1_md:sha256",
            ][..],
        ),
        ("rsa-2048-pkcs1", &["rsa_padding_mode:pkcs1"][..]),
    ] {
        let pair = Keypair::generate(AsymSpec::parse(name).unwrap()).unwrap();
        let key = dir.path().join("k.pem");
        let ct_path = dir.path().join("ct");
        std::fs::write(&key, pair.pkey.private_key_to_pem_pkcs8().unwrap()).unwrap();
        let mut ct = Vec::new();
        let mut enc = Encryptor::new(&pair.public_key().unwrap()).unwrap();
        enc.encrypt(b"interoperable", &mut ct).unwrap();
        std::fs::write(&ct_path, &ct).unwrap();
        let mut cmd = std::process::Command::new("openssl");
        cmd.args(["pkeyutl", "-decrypt", "-inkey"])
            .arg(&key)
            .arg("-in")
            .arg(&ct_path);
        for o in opts {
            cmd.args(["-pkeyopt", o]);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.stdout, b"interoperable", "{name}");
    }
}

#[test]
fn a_key_made_elsewhere_decrypts_what_its_public_half_encrypted() {
    let p256 = openssl::ec::EcGroup::from_curve_name(openssl::nid::Nid::X9_62_PRIME256V1).unwrap();
    // Each scheme with a PKCS#8 key as another runtime exports it (made here by OpenSSL
    // directly), and schemes of another size or kind that must refuse it.
    let cases: [(&str, PKey<Private>, &[&str]); 3] = [
        (
            "rsa-1024-pkcs1",
            PKey::from_rsa(openssl::rsa::Rsa::generate(1024).unwrap()).unwrap(),
            &["rsa-2048-pkcs1", "p256-ecies"],
        ),
        (
            "x25519-ecies",
            PKey::generate_x25519().unwrap(),
            &["p256-ecies", "rsa-1024-oaep"],
        ),
        (
            "p256-ecies",
            PKey::from_ec_key(openssl::ec::EcKey::generate(&p256).unwrap()).unwrap(),
            &["x25519-ecies", "rsa-1024-oaep"],
        ),
    ];
    for (name, pkey, refused) in cases {
        let spec = AsymSpec::parse(name).unwrap();
        let der = pkey.private_key_to_pkcs8().unwrap();
        let pair = Keypair::from_pkcs8_der(spec, &der).unwrap();
        let mut ct = Vec::new();
        Encryptor::new(&pair.public_key().unwrap())
            .unwrap()
            .encrypt(b"session key", &mut ct)
            .unwrap();
        let mut pt = Vec::new();
        Decryptor::new(&pair)
            .unwrap()
            .decrypt(&ct, &mut pt)
            .unwrap();
        assert_eq!(pt, b"session key", "{name}");
        for other in refused {
            let other_spec = AsymSpec::parse(other).unwrap();
            assert!(
                Keypair::from_pkcs8_der(other_spec, &der).is_err(),
                "{name} read as {other}"
            );
        }
        // Not a key at all: cut short.
        assert!(
            Keypair::from_pkcs8_der(spec, &der[..40]).is_err(),
            "{name} cut short"
        );
    }
}
