//! C code written here from SP 800-232 (tests/c/) under the `crypto_hash` API: the
//! correct Ascon-Hash256 agrees with the official KAT file in every build; a changed IV
//! differs at the first vector's MD; api.h of the other API, a digest length that is not
//! the hash's, and a customizable XOF are refused before anything is built; the hash is
//! found by its KAT without `--algorithm`; a hash is never made a provider.
//!
//! Needs a C compiler: without one the tests print SKIP, unless `CI` is set, where they
//! fail.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::{c_dir, ready};

use cipherlab_native::{
    Api, Error, FLAG_SETS, Library, Outcome, Target, check_target, compilers, identify,
};

fn hash256() -> Target {
    Target::parse("ascon-hash256").unwrap()
}

#[test]
fn the_correct_hash_agrees_in_every_build() {
    let Some(kat) = ready() else { return };
    let report = check_target(&c_dir("ascon-hash256"), &hash256(), &kat).unwrap();
    assert_eq!(report.algorithm, "ascon-hash256");
    assert_eq!(report.api, Api::Hash { bytes: 32 });
    assert_eq!(report.vectors, 1025);
    assert_eq!(report.builds.len(), compilers().len() * FLAG_SETS.len());
    for b in &report.builds {
        match &b.outcome {
            Outcome::Agrees {
                vectors,
                forgeries,
                ns_4k,
            } => {
                assert_eq!((*vectors, *forgeries), (1025, 0));
                assert!(ns_4k.is_finite() && *ns_4k > 0.0);
            }
            other => panic!("{} {}: {other:?}", b.build.compiler.program, b.build.flags),
        }
    }
    // A hash is checked, never timed as a provider.
    let e = report.provider("c-hash").unwrap_err();
    assert!(matches!(e, Error::HashNotTimed(_)), "{e}");
    assert!(
        e.to_string().contains(
            "`--impl` times AEADs in the lwc study; hashes are checked by `impl check` only"
        ),
        "{e}"
    );
    // The library agrees with cipherlab's own on a fresh message, and the output
    // buffer's guard refuses a length that is not CRYPTO_BYTES before calling.
    let best = report.fastest().unwrap().build.library.clone().unwrap();
    let lib = Library::load(&best, report.api).unwrap();
    let msg: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
    let ours = cipherlab_ciphers::hashes::find("ascon-hash256")
        .unwrap()
        .digest(&msg, None, b"")
        .unwrap();
    assert_eq!(lib.hash(&msg, 32).unwrap(), ours);
    assert!(lib.hash(&msg, 64).unwrap_err().contains("CRYPTO_BYTES 32"));
}

#[test]
fn a_changed_iv_differs_at_the_first_vector() {
    let Some(kat) = ready() else { return };
    let report = check_target(&c_dir("wrong-hash-iv"), &hash256(), &kat).unwrap();
    assert!(!report.any_agrees());
    for b in &report.builds {
        match &b.outcome {
            Outcome::Differs { count, field, .. } => {
                assert_eq!((*count, field.as_str()), (1, "MD"))
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn the_wrong_api_length_or_kind_is_refused() {
    let Some(kat) = ready() else { return };
    // A hash's folder checked as an AEAD, and an AEAD's as a hash.
    let aead = Target::parse("ascon-aead128").unwrap();
    let e = check_target(&c_dir("ascon-hash256"), &aead, &kat).unwrap_err();
    assert!(matches!(e, Error::ApiMismatch { .. }), "{e}");
    let e = check_target(&c_dir("ascon-aead128"), &hash256(), &kat).unwrap_err();
    assert!(matches!(e, Error::ApiMismatch { .. }), "{e}");
    // An XOF whose KAT file has 64-byte digests, against CRYPTO_BYTES 32.
    let xof = Target::parse("ascon-xof128").unwrap();
    let e = check_target(&c_dir("ascon-hash256"), &xof, &kat).unwrap_err();
    assert!(
        matches!(
            e,
            Error::DigestMismatch {
                bytes: 32,
                want: 64,
                ..
            }
        ),
        "{e}"
    );
    // A customizable XOF: crypto_hash has no customization string.
    let cxof = Target::parse("ascon-cxof128").unwrap();
    let e = check_target(&c_dir("ascon-hash256"), &cxof, &kat).unwrap_err();
    assert!(matches!(e, Error::Unsupported(_)), "{e}");
    // A digest length no catalogue hash has.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("api.h"), "#define CRYPTO_BYTES 17\n").unwrap();
    std::fs::copy(
        c_dir("ascon-hash256").join("hash.c"),
        dir.path().join("hash.c"),
    )
    .unwrap();
    let e = check_target(dir.path(), &hash256(), &kat).unwrap_err();
    assert!(matches!(e, Error::DigestMismatch { bytes: 17, .. }), "{e}");
}

#[test]
fn the_hash_is_identified_by_its_kat() {
    let Some(kat) = ready() else { return };
    let report = identify(&c_dir("ascon-hash256"), &kat).unwrap();
    assert_eq!(report.algorithm, "ascon-hash256");
    assert!(report.any_agrees());
    // With no agreement, the first candidate (all differ at Count 1).
    let report = identify(&c_dir("wrong-hash-iv"), &kat).unwrap();
    assert_eq!(report.algorithm, "ascon-hash256");
    assert!(!report.any_agrees());
}
