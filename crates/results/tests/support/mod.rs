//! Synthetic runs for the report and compare tests: measurements summarized by the real
//! code from samples whose distribution the test chooses. The lab's tests include this
//! file too (`crates/bench/tests/support`).
#![allow(dead_code)]

use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::rng::Rng;
use cipherlab_harness::{RawSample, Settings, Validity};
use cipherlab_results::artifact::{Artifact, Table};
use cipherlab_results::id::{BenchId, Measurement, Phase, Subject};
use cipherlab_results::store::{NewRun, Run, Store};

pub fn validity() -> Validity {
    Validity {
        timer: "wall-clock".to_string(),
        resolution_ns: 20,
        timer_overhead_ns: 18.5,
        counter: None,
        counter_resolution: None,
        counter_invariant: None,
        counter_ticks_per_ns: None,
        empty_op_ns: 0.3,
        empty_call_ns: 40.0,
        steadiness: None,
        keep_awake: None,
        steal: None,
    }
}

/// `n` samples of `batch` calls each, with per-call time `ns_per_op` times
/// (1 + `spread` x a standard normal draw), seeded.
pub fn samples(ns_per_op: f64, spread: f64, n: usize, seed: u64) -> Vec<RawSample> {
    let mut rng = Rng::new(seed);
    let batch = 100u64;
    (0..n)
        .map(|_| {
            let x = ns_per_op * (1.0 + spread * rng.normal()).max(0.1);
            RawSample {
                fork: 0,
                iterations: batch,
                ns: (x * batch as f64).round() as u64,
                ticks: None,
            }
        })
        .collect()
}

pub fn measurement(id: BenchId, samples: Vec<RawSample>) -> Measurement {
    let bytes = (id.size > 0).then_some(id.size);
    Measurement::from_samples(id, &Settings::quick(), &validity(), bytes, 100, samples).unwrap()
}

/// An identity from names, as the store gives them back (test edge: names parsed here).
pub fn id(study: &str, alg: &str, phase: &str, size: u64, data_type: &str) -> BenchId {
    let phase = Phase::parse(phase).unwrap_or_else(|| panic!("no phase {phase}"));
    BenchId::new(
        study,
        Subject::parse(alg),
        "rustcrypto",
        phase,
        size,
        data_type,
    )
}

pub fn new_run(machine: MachineInfo, command: &str) -> NewRun {
    NewRun {
        started_ms: 1_700_000_000_000,
        command_line: command.to_string(),
        machine,
        settings: Settings::quick(),
        validity: validity(),
        load_start: Some(0.5),
        load_end: Some(0.7),
    }
}

/// Saves a run and reads it back as the report and compare see it.
pub fn saved(
    store: &mut Store,
    machine: MachineInfo,
    ms: &[Measurement],
    artifacts: &[Artifact],
) -> Run {
    let id = store
        .save_run(
            &new_run(machine, "cipherlab bench --quick (synthetic)"),
            ms,
            1_700_000_100_000,
        )
        .unwrap();
    for a in artifacts {
        store.add_artifact(id, a).unwrap();
    }
    store.load_run(id).unwrap()
}

/// The table artifact called `name`; panics, naming it, when there is none.
pub fn table_named(artifacts: &[Artifact], name: &str) -> Table {
    artifacts
        .iter()
        .find(|a| a.name == name)
        .and_then(|a| a.as_table().cloned())
        .unwrap_or_else(|| panic!("no table {name}"))
}
