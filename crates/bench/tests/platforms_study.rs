//! The `platforms` study's runner path, short: AES-128-CBC at the `--quick` sizes on every
//! runtime whose runner is ready (conformance first, then one timing exchange per
//! runtime), its samples summarized by the harness, the versions for the machine block,
//! and the findings built from them. A runtime that is not installed must be listed with
//! the command that installs it, not fail the run.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use cipherlab_bench::studies::{self, CipherFilter, Config, Scale};
use cipherlab_harness::Settings;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_platforms::runtimes;

#[test]
fn the_platforms_study_times_every_ready_runtime_after_conformance() {
    let ready = support::ready_runtimes();
    let study = studies::by_name("platforms").unwrap();
    let cfg = Config {
        filter: CipherFilter::new(&["aes-128-cbc"]),
        ..Config::new(Scale::Quick)
    };
    let e = study.elsewhere(&cfg, &Settings::quick()).unwrap();

    let missing_table = support::table_named(&e.artifacts, "missing-runtimes");
    assert_eq!(missing_table.rows.len(), runtimes().len() - ready.len());
    for row in &missing_table.rows {
        assert!(row[2].as_str().unwrap().contains("setup"), "{row:?}");
    }
    for rt in &ready {
        assert!(e.runtimes.contains_key(*rt), "no version for {rt}");
        for phase in ["encrypt", "decrypt"] {
            for size in [145, 1 << 10, 56 << 10, 1 << 20] {
                let m = e
                    .measurements
                    .iter()
                    .find(|m| {
                        m.id.runtime.as_str() == *rt
                            && m.id.phase.as_str() == phase
                            && m.id.size == size
                            && m.id.algorithm.name() == "aes-128-cbc"
                    })
                    .unwrap_or_else(|| panic!("{rt} {phase} {size}: no figure"));
                // 20 planned; an undecided figure gets more in the extra passes.
                assert!(m.samples.len() >= 20, "{rt} {phase} {size}");
                assert!(m.samples.iter().all(|s| s.ns > 0 && s.iterations == 1));
                assert_ne!(m.timer, "", "{rt}: the runner's clock is kept");
                assert!(
                    e.runtimes.contains_key(&m.id.implementation),
                    "no library version for {}",
                    m.id.implementation
                );
            }
        }
    }
    // The findings read the runners' figures (cipherlab's own come from the suite).
    let refs: Vec<_> = e.measurements.iter().collect();
    let machine = MachineInfo::detect();
    let artifacts = study.findings(&cfg, &refs, &machine).unwrap();
    if ready.is_empty() {
        println!("SKIP: no runtime ready (bash platforms/setup)");
        return;
    }
    let table2 = support::table_named(&artifacts, "table-2");
    assert_eq!(table2.rows.len(), 4);
    assert_eq!(table2.columns.len(), 2 + 2 * ready.len());
}

#[test]
fn the_providers_study_adds_the_java_providers_through_the_runner() {
    if !support::runner_ready("java") {
        return;
    }
    let study = studies::by_name("providers").unwrap();
    let cfg = Config {
        filter: CipherFilter::new(&["aes-128-cbc"]),
        ..Config::new(Scale::Quick)
    };
    let e = study.elsewhere(&cfg, &Settings::quick()).unwrap();
    for provider in ["java-sunjce", "java-bc"] {
        for size in [64, 16 << 10] {
            let m = e
                .measurements
                .iter()
                .find(|m| m.id.implementation == provider && m.id.size == size)
                .unwrap_or_else(|| panic!("{provider} {size}: no figure"));
            assert_eq!(m.id.runtime.as_str(), "java");
            assert_eq!(m.id.study, "providers");
            assert_eq!(m.id.phase.as_str(), "encrypt");
            assert!(m.samples.len() >= 20, "{provider} {size}");
        }
    }
    assert!(e.runtimes.contains_key("java-bc"));
}
