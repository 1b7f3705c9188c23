//! `--impl NAME=DIR` through the lab's pipeline: the C Ascon-AEAD128 written for
//! cipherlab-native's tests is built, checked, registered and timed by the lwc study
//! beside cipherlab's own, with its builds in the "Native builds" table; a folder whose
//! builds disagree stops the run before anything is measured.
//!
//! Needs a C compiler and the KAT folder: without them it prints SKIP (and fails when
//! `CI` is set).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use cipherlab_bench::native::Impl;
use cipherlab_bench::pipeline::{self, Plan};
use cipherlab_bench::studies::{CipherFilter, Config, Scale, by_name};
use cipherlab_ciphers::ErrorKind;
use cipherlab_harness::Settings;
use cipherlab_results::artifact::{Content, cell_text};
use cipherlab_results::store::Location;

fn c_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../native/tests/c")
        .join(name)
}

fn ready() -> bool {
    if cipherlab_native::compilers().is_empty() {
        assert!(
            std::env::var_os("CI").is_none(),
            "no C compiler and CI is set"
        );
        println!("SKIP: no C compiler (gcc, clang or cc) on PATH");
        return false;
    }
    cipherlab_testkit::kat::kat_dir().is_some()
}

fn plan(impls: Vec<Impl>, db: &Path) -> Plan {
    Plan {
        settings: Settings {
            warmup_iterations: 1,
            warmup_time: Duration::from_millis(1),
            iterations: 5,
            sample_time: Duration::from_millis(1),
            rounds: 1,
            ..pipeline::settings_for(Scale::Quick, None)
        },
        keep_awake: false,
        impls,
        ..Plan::new(
            vec![by_name("lwc").unwrap()],
            Config {
                filter: CipherFilter::new(&["ascon-aead128"]),
                ..Config::new(Scale::Quick)
            },
            Location::File(db.to_path_buf()),
        )
    }
}

#[test]
fn an_impl_is_timed_beside_cipherlab_and_its_builds_are_stored() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let good: Impl = format!("c-ascon={}", c_dir("ascon-aead128").display())
        .parse()
        .unwrap();
    let run = pipeline::run(&plan(vec![good], &dir.path().join("r.sqlite")), &mut |_| {}).unwrap();
    // Both providers timed at every size, both phases.
    for provider in ["cipherlab", "c-ascon"] {
        let n = run
            .measurements
            .iter()
            .filter(|m| m.id.implementation == provider && m.id.algorithm.name() == "ascon-aead128")
            .count();
        assert_eq!(n, 3 * 2, "{provider}");
    }
    let table = |name: &str| {
        run.artifacts
            .iter()
            .find(|a| a.study == "lwc" && a.name == name)
            .and_then(|a| match &a.content {
                Content::Table(t) => Some(t.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no {name} table"))
    };
    let builds = table("native-builds");
    assert_eq!(
        builds.rows.len(),
        cipherlab_native::compilers().len() * cipherlab_native::FLAG_SETS.len()
    );
    let col = |c: &str| builds.columns.iter().position(|x| x == c).unwrap();
    for r in &builds.rows {
        assert!(cell_text(&r[col("check")]).starts_with("agrees"));
        assert_eq!(cell_text(&r[col("source sha256")]).len(), 64);
        assert_eq!(cell_text(&r[col("algorithm")]), "ascon-aead128");
    }
    assert_eq!(
        builds
            .rows
            .iter()
            .filter(|r| cell_text(&r[col("chosen")]) == "yes")
            .count(),
        1
    );
    let against = table("native");
    assert_eq!(against.rows.len(), 6);

    // A folder none of whose builds agrees stops the run, with the exit kind of a failed
    // KAT, before anything is measured.
    let bad: Impl = format!("bad={}", c_dir("no-tag-check").display())
        .parse()
        .unwrap();
    let e = pipeline::run(&plan(vec![bad], &dir.path().join("s.sqlite")), &mut |_| {})
        .err()
        .unwrap();
    match e {
        pipeline::Error::Native(n) => {
            assert_eq!(n.kind(), ErrorKind::Nonconforming);
            assert!(n.to_string().contains("no build agrees"), "{n}");
        }
        other => panic!("{other}"),
    }
    // A name a built-in provider has is refused.
    let clash: Impl = format!("openssl={}", c_dir("ascon-aead128").display())
        .parse()
        .unwrap();
    assert!(
        pipeline::run(
            &plan(vec![clash], &dir.path().join("t.sqlite")),
            &mut |_| {}
        )
        .is_err()
    );
}

/// A fork child does not build: without its parent's choice in the environment it
/// refuses (here, in a process that is no fork child, the variable is not set).
#[test]
fn a_child_without_its_parents_libraries_refuses() {
    assert!(std::env::var_os(cipherlab_bench::native::LIBS_VAR).is_none());
    let good: Impl = format!("c-ascon-child={}", c_dir("ascon-aead128").display())
        .parse()
        .unwrap();
    match cipherlab_bench::native::prepare(&[good], true) {
        Err(e) => assert!(e.to_string().contains("CIPHERLAB_NATIVE_LIBS"), "{e}"),
        Ok(_) => panic!("a child loaded a library nobody chose"),
    }
}

#[test]
fn impl_arguments_are_parsed() {
    let i: Impl = "x=/a/b".parse().unwrap();
    assert_eq!((i.name.as_str(), i.dir.as_path()), ("x", Path::new("/a/b")));
    assert!("noequals".parse::<Impl>().is_err());
    assert!("=dir".parse::<Impl>().is_err());
    assert!("a b=dir".parse::<Impl>().is_err());
    assert!("x=".parse::<Impl>().is_err());
}
