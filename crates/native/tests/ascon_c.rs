//! C code written here from SP 800-232 (tests/c/): the correct Ascon-AEAD128 agrees with
//! the official KAT file in every build; a changed round constant differs at the first
//! vector's CT; a decryption that skips the tag check is caught by a forged tag; a file
//! that does not compile shows the compiler's message; wrong sizes are refused.
//!
//! Needs a C compiler: without one the tests print SKIP, unless `CI` is set, where they
//! fail.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::{c_dir, ready};

use cipherlab_ciphers::{CipherSpec, Provider, providers};
use cipherlab_native::{Error, FLAG_SETS, Outcome, check_dir, compilers, identify};

fn ascon() -> CipherSpec {
    CipherSpec::parse("ascon-aead128").unwrap()
}

#[test]
fn the_correct_implementation_agrees_in_every_build() {
    let Some(kat) = ready() else { return };
    let report = check_dir(&c_dir("ascon-aead128"), &ascon(), &kat).unwrap();
    assert_eq!(report.vectors, 1089);
    assert_eq!(report.builds.len(), compilers().len() * FLAG_SETS.len());
    for b in &report.builds {
        match &b.outcome {
            Outcome::Agrees {
                vectors,
                forgeries,
                ns_4k,
            } => {
                assert_eq!(*vectors, 1089);
                assert_eq!(*forgeries, 3 * 1089);
                assert!(ns_4k.is_finite() && *ns_4k > 0.0);
            }
            other => panic!("{} {}: {other:?}", b.build.compiler.program, b.build.flags),
        }
        assert_eq!(b.build.source_hash.len(), 64);
        assert!(!b.build.compiler.version.is_empty());
    }
    // The workshop is private.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let ws = report.workshop.as_ref().unwrap();
        let mode = std::fs::metadata(ws.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }
    // The fastest build registers as a provider that the catalogue then finds by name,
    // and that agrees with cipherlab's own on a fresh message.
    let p: &'static dyn Provider = Box::leak(Box::new(report.provider("c-ascon").unwrap()));
    providers::register(p).unwrap();
    let spec = ascon();
    let key = [3u8; 16];
    let nonce = [4u8; 16];
    let msg: Vec<u8> = (0..1000).map(|i| i as u8).collect();
    let mut ours = msg.clone();
    ours.resize(1016, 0);
    let mut theirs = ours.clone();
    providers::init(&spec, &key, Some("cipherlab"))
        .unwrap()
        .encrypt(&nonce, b"ad", &mut ours, 1000)
        .unwrap();
    let mut c = providers::init(&spec, &key, Some("c-ascon")).unwrap();
    assert_eq!(c.provider(), "c-ascon");
    c.encrypt(&nonce, b"ad", &mut theirs, 1000).unwrap();
    assert_eq!(ours, theirs);
    // Decryption in place, and a forgery wiped and refused.
    let mut back = theirs.clone();
    assert_eq!(c.decrypt(&nonce, b"ad", &mut back).unwrap(), 1000);
    assert_eq!(back[..1000], msg[..]);
    theirs[1015] ^= 0x80;
    let e = c.decrypt(&nonce, b"ad", &mut theirs).unwrap_err();
    assert_eq!(e, cipherlab_ciphers::Error::Authentication);
    assert!(theirs.iter().all(|&b| b == 0));
    // A ciphertext shorter than the tag is refused as a forgery, and wiped.
    let mut short = vec![7u8; 15];
    assert_eq!(
        c.decrypt(&nonce, b"", &mut short).unwrap_err(),
        cipherlab_ciphers::Error::Authentication
    );
    assert!(short.iter().all(|&b| b == 0));
    // Wrong lengths are refused before any C code runs.
    assert!(c.encrypt(&[0; 12], b"", &mut [0; 16], 0).is_err());
    assert!(c.encrypt(&nonce, b"", &mut [0; 20], 10).is_err());
    assert!(providers::init(&spec, &[0; 15], Some("c-ascon")).is_err());
}

#[test]
fn a_changed_round_constant_differs_at_the_first_vector() {
    let Some(kat) = ready() else { return };
    let report = check_dir(&c_dir("wrong-round-constant"), &ascon(), &kat).unwrap();
    assert!(!report.any_agrees());
    for b in &report.builds {
        match &b.outcome {
            Outcome::Differs { count, field, .. } => {
                assert_eq!((*count, field.as_str()), (1, "CT"))
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(report.provider("x").is_err());
}

#[test]
fn a_skipped_tag_check_is_caught_by_a_forged_tag() {
    let Some(kat) = ready() else { return };
    let report = check_dir(&c_dir("no-tag-check"), &ascon(), &kat).unwrap();
    assert!(!report.any_agrees());
    for b in &report.builds {
        match &b.outcome {
            Outcome::Differs {
                count,
                field,
                detail,
            } => {
                assert_eq!((*count, field.as_str()), (1, "tag"));
                assert!(detail.contains("accepted"), "{detail}");
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_build_that_fails_shows_the_compiler_output() {
    let Some(kat) = ready() else { return };
    let report = check_dir(&c_dir("syntax-error"), &ascon(), &kat).unwrap();
    assert!(!report.any_agrees());
    for b in &report.builds {
        match &b.outcome {
            Outcome::BuildFailed { output } => {
                assert!(output.contains("encrypt.c"), "{output}");
                assert!(output.contains("error"), "{output}");
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn sizes_that_are_not_the_algorithms_are_refused() {
    let Some(kat) = ready() else { return };
    // Ascon-80pq has a 20-byte key; the folder's api.h says 16.
    let pq = CipherSpec::parse("ascon-80pq").unwrap();
    let e = check_dir(&c_dir("ascon-aead128"), &pq, &kat).unwrap_err();
    assert!(matches!(e, Error::SizesMismatch { .. }), "{e}");
    assert!(e.to_string().contains("key 16 B"), "{e}");
    // A cipher that is not an AEAD.
    let aes = CipherSpec::parse("aes-128-cbc").unwrap();
    assert!(check_dir(&c_dir("ascon-aead128"), &aes, &kat).is_err());
    // A folder without api.h.
    let empty = tempfile::tempdir().unwrap();
    let e = check_dir(empty.path(), &ascon(), &kat).unwrap_err();
    assert!(e.to_string().contains("api.h"), "{e}");
}

#[test]
fn the_algorithm_is_identified_by_its_kat() {
    let Some(kat) = ready() else { return };
    let report = identify(&c_dir("ascon-aead128"), &kat).unwrap();
    assert_eq!(report.algorithm, "ascon-aead128");
    assert!(report.any_agrees());
    // With no agreement, the candidate it got furthest with: the forged tag, after the
    // CT and PT of Ascon-AEAD128's first vector agreed.
    let report = identify(&c_dir("no-tag-check"), &kat).unwrap();
    assert_eq!(report.algorithm, "ascon-aead128");
    assert!(!report.any_agrees());
}
