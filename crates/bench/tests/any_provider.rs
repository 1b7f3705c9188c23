//! Every study on every provider (`--provider`), and the file-features paper on its own
//! platform: data-size times `java-bc` beside cipherlab when the Java runner is ready,
//! and its findings (Table 3 and the claims) are made once per platform.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeSet;
use std::time::Duration;

use cipherlab_bench::pipeline::{self, Plan};
use cipherlab_bench::studies::{self, CipherFilter, Config, Scale};
use cipherlab_harness::Settings;
use cipherlab_results::artifact::Content;
use cipherlab_results::id::Suite;
use cipherlab_results::store::Location;

fn tiny_settings() -> Settings {
    Settings {
        iterations: 5,
        warmup_time: Duration::from_millis(2),
        sample_time: Duration::from_millis(5),
        ..Settings::quick()
    }
}

#[test]
fn named_in_process_providers_each_get_their_figures() {
    let cfg = Config {
        filter: CipherFilter::new(&["aes-128-ecb", "des-ecb"]),
        providers: vec!["openssl".into(), "rustcrypto".into()],
        ..Config::new(Scale::Quick)
    };
    for study in ["data-type", "data-size", "density", "key-size", "modes"] {
        let mut suite = Suite::new();
        studies::by_name(study)
            .unwrap()
            .plan(&cfg, &mut suite)
            .unwrap();
        let planned: BTreeSet<(String, String)> = suite
            .ids()
            .filter(|id| id.cipher().is_some())
            .map(|id| (id.algorithm.to_string(), id.implementation.clone()))
            .collect();
        for alg in ["aes-128-ecb", "des-ecb"] {
            for p in ["openssl", "rustcrypto"] {
                if study == "key-size" && alg == "des-ecb" {
                    continue; // DES has one key size: key-size does not time it
                }
                assert!(
                    planned.contains(&(alg.to_string(), p.to_string())),
                    "{study}: {alg} through {p} not planned: {planned:?}"
                );
            }
        }
        // Only the providers named: no default provider besides them.
        assert!(
            planned
                .iter()
                .all(|(_, p)| p == "openssl" || p == "rustcrypto"),
            "{study}: {planned:?}"
        );
    }
}

#[test]
fn a_runner_provider_no_runner_has_is_listed_and_the_study_goes_on() {
    let cfg = Config {
        filter: CipherFilter::new(&["aes-128-ecb"]),
        providers: vec!["no-such-provider".into()],
        ..Config::new(Scale::Quick)
    };
    let study = studies::by_name("density").unwrap();
    // Nothing of this process was named: nothing is planned here.
    let mut suite = Suite::new();
    study.plan(&cfg, &mut suite).unwrap();
    assert!(suite.ids().all(|id| id.cipher().is_none()));
    let e = study.elsewhere(&cfg, &Settings::quick()).unwrap();
    let t = support::table_named(&e.artifacts, "providers-not-found");
    assert_eq!(t.rows.len(), 1);
    assert_eq!(t.rows[0][0].as_str(), Some("no-such-provider"));
    assert!(e.measurements.is_empty());
}

#[test]
fn data_size_shows_table_3_for_java_bc_beside_rust_with_computed_verdicts() {
    if !support::runner_ready("java") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let plan = Plan {
        settings: tiny_settings(),
        keep_awake: false,
        ..Plan::new(
            vec![studies::by_name("data-size").unwrap()],
            Config {
                filter: CipherFilter::new(&["aes-128-ecb", "des-ecb", "3des-112-ecb"]),
                ..Config::new(Scale::Quick)
            },
            Location::File(dir.path().join("lab.sqlite")),
        )
    };
    let run = pipeline::run(&plan, &mut |_| {}).unwrap();
    let java: Vec<_> = run
        .measurements
        .iter()
        .filter(|m| m.id.implementation == "java-bc")
        .collect();
    for alg in ["aes-128-ecb", "des-ecb", "3des-112-ecb"] {
        assert!(
            java.iter()
                .any(|m| m.id.algorithm.name() == alg && m.id.size == 1 << 20),
            "no java-bc figure of {alg} at 1 MiB"
        );
    }
    let named = |name: &str| {
        run.artifacts
            .iter()
            .find(|a| a.name == name)
            .unwrap_or_else(|| {
                panic!(
                    "no {name}: {:?}",
                    run.artifacts.iter().map(|a| &a.name).collect::<Vec<_>>()
                )
            })
    };
    // Table 3 once for cipherlab and once for the paper's own platform, each with its
    // verdicts computed from that platform's intervals.
    for name in ["paper/table-3-pairs", "paper/table-3-pairs@java-bc (java)"] {
        let Content::Table(t) = &named(name).content else {
            panic!("{name} is not a table")
        };
        assert!(t.verdicts().count() > 0, "{name} has no verdict");
    }
    let Content::Table(across) = &named("claims/by-platform").content else {
        panic!("not a table")
    };
    assert_eq!(
        across.columns,
        [
            "the paper's claim",
            "cipherlab (Rust)",
            "java-bc (java)",
            "where it holds"
        ]
    );
    assert!(!across.rows.is_empty());
    for row in &across.rows {
        for cell in &row[1..3] {
            let word = cell.as_str().unwrap();
            assert!(
                ["agrees", "differs", "can't tell", "-"].contains(&word),
                "{word}"
            );
        }
    }
}
