//! The results store: a run written to a file reads back equal; the schema is versioned;
//! a newer schema is refused with a clear error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cipherlab_bench::id::{BenchId, Measurement};
use cipherlab_bench::store::{Artifact, ArtifactKind, NewRun, SCHEMA_VERSION, Store, StoreError};
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::{Mode, RawSample, Settings, Validity};

fn validity() -> Validity {
    Validity {
        timer: "wall-clock".to_string(),
        resolution_ns: 20,
        timer_overhead_ns: 18.5,
        counter: Some("tsc".to_string()),
        counter_resolution: Some(30),
        counter_invariant: Some(true),
        counter_ticks_per_ns: Some(2.45),
        empty_op_ns: 0.31,
        empty_call_ns: 41.0,
    }
}

/// A measurement built from synthetic samples by the real summarizer.
fn measurement(algorithm: &str, mode: Mode, with_ticks: bool, n: u64, spread: u64) -> Measurement {
    let settings = Settings::quick().with_mode(mode);
    let samples: Vec<RawSample> = (0..n)
        .map(|i| RawSample {
            fork: (i % 3) as u32,
            iterations: 1000,
            ns: 1_000_000 + (i * 7919) % spread + if i == 5 { 5_000_000 } else { 0 },
            ticks: with_ticks.then_some(2_450_000 + i),
        })
        .collect();
    Measurement::from_samples(
        BenchId::new(
            "data-type",
            algorithm,
            "rustcrypto",
            "encrypt",
            16_384,
            "bmp",
        ),
        &settings,
        &validity(),
        Some(16_384),
        1000,
        samples,
    )
    .unwrap()
}

fn new_run(machine: MachineInfo) -> NewRun {
    NewRun {
        started_ms: 1_700_000_000_123,
        command_line: "cipherlab bench --quick --study data-type".to_string(),
        machine,
        settings: Settings::quick(),
        validity: validity(),
        load_start: None,
        load_end: None,
    }
}

#[test]
fn a_run_reads_back_equal_from_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.sqlite");
    let mut machine = MachineInfo::detect();
    machine
        .runtimes
        .insert("java".to_string(), "21.0.2".to_string());
    let ms = vec![
        measurement("aes-128-ecb", Mode::AverageTime, true, 30, 50_000),
        measurement("des-ecb", Mode::Throughput, false, 15, 900_000),
        measurement("rc4-128", Mode::Sample, true, 200, 10),
    ];
    assert!(!ms[1].warnings.is_empty(), "want a warning to round-trip");
    let run = new_run(machine.clone());
    let id = {
        let mut store = Store::open(&path).unwrap();
        store.save_run(&run, &ms, 1_700_000_009_999).unwrap()
    };
    // A fresh connection: everything comes from the file.
    let store = Store::open(&path).unwrap();
    let loaded = store.load_run(id).unwrap();
    assert_eq!(loaded.info.id, id);
    assert_eq!(loaded.info.started_ms, run.started_ms);
    assert_eq!(loaded.info.finished_ms, Some(1_700_000_009_999));
    assert_eq!(loaded.info.command_line, run.command_line);
    assert_eq!(loaded.info.cipherlab_version, env!("CARGO_PKG_VERSION"));
    assert_eq!(loaded.info.cpu_model, machine.cpu_model);
    assert_eq!(loaded.info.measurements, 3);
    assert_eq!(loaded.machine, machine);
    assert_eq!(loaded.settings, run.settings);
    assert_eq!(loaded.validity, run.validity);
    assert_eq!(loaded.measurements.len(), ms.len());
    for (got, want) in loaded.measurements.iter().zip(&ms) {
        assert_eq!(got, want, "measurement {}", want.id);
    }
    let samples: usize = loaded.measurements.iter().map(|m| m.samples.len()).sum();
    println!(
        "round trip: 1 run, {} measurements, {samples} samples, machine {}",
        loaded.measurements.len(),
        loaded.machine.cpu_model
    );

    // Columns a report would query directly hold what the docs say.
    let (median, unit, size): (f64, String, i64) = store
        .connection()
        .query_row(
            "SELECT median, unit, size_bytes FROM measurements WHERE algorithm = 'aes-128-ecb'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(
        (median, unit.as_str(), size),
        (ms[0].summary.median, "ns/op", 16_384)
    );
}

#[test]
fn incremental_writes_and_listing() {
    let mut store = Store::open_in_memory().unwrap();
    let machine = MachineInfo::detect();
    let a = store.begin_run(&new_run(machine.clone())).unwrap();
    store
        .add_measurement(
            a,
            &measurement("aes-128-ctr", Mode::AverageTime, true, 20, 1000),
        )
        .unwrap();
    // The same benchmark twice in one run is refused (the id must be unique).
    let dup = store.add_measurement(
        a,
        &measurement("aes-128-ctr", Mode::AverageTime, true, 20, 1000),
    );
    assert!(matches!(dup, Err(StoreError::Sqlite { .. })), "{dup:?}");
    let b = store.begin_run(&new_run(machine)).unwrap();
    store.finish_run_at(b, 1_700_000_100_000).unwrap();
    let runs = store.list_runs().unwrap();
    assert_eq!(runs.iter().map(|r| r.id).collect::<Vec<_>>(), vec![a, b]);
    assert_eq!(runs[0].finished_ms, None, "run a was never finished");
    assert_eq!(runs[0].measurements, 1);
    assert_eq!(runs[1].measurements, 0);
    assert_eq!(store.latest_run().unwrap(), Some(b));
    // One machine row for both runs.
    let machines: i64 = store
        .connection()
        .query_row("SELECT count(*) FROM machines", [], |r| r.get(0))
        .unwrap();
    assert_eq!(machines, 1);
    let e = store.load_run(999).unwrap_err();
    assert!(matches!(e, StoreError::RunNotFound { id: 999, .. }));
    assert!(e.to_string().contains("no run 999"), "{e}");
    assert!(store.finish_run(999).is_err());
}

#[test]
fn schema_is_versioned_and_newer_schemas_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.sqlite");
    {
        let store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        let (v, description): (u32, String) = store
            .connection()
            .query_row(
                "SELECT version, description FROM schema_version ORDER BY version DESC",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        assert!(!description.is_empty());
    }
    // Reopening does not migrate twice.
    {
        let store = Store::open(&path).unwrap();
        let rows: i64 = store
            .connection()
            .query_row("SELECT count(*) FROM schema_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, i64::from(SCHEMA_VERSION));
    }
    // A future cipherlab wrote version 99.
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
    }
    let e = Store::open(&path).unwrap_err();
    let msg = e.to_string();
    println!("newer schema: {msg}");
    assert!(matches!(
        e,
        StoreError::NewerSchema {
            found: 99,
            supported: SCHEMA_VERSION,
            ..
        }
    ));
    assert!(
        msg.contains("99") && msg.contains("upgrade cipherlab"),
        "{msg}"
    );
    assert!(msg.contains(path.to_str().unwrap()), "{msg}");
    // ... and the file was not touched.
    let conn = rusqlite::Connection::open(&path).unwrap();
    let v: u32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, 99);
}

#[test]
fn a_file_that_is_not_a_database_gives_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(
        &path,
        "these are not the results you are looking for\n".repeat(100),
    )
    .unwrap();
    let e = Store::open(&path).unwrap_err();
    let msg = e.to_string();
    println!("not a database: {msg}");
    assert!(
        msg.contains("notes.txt") && msg.contains("CIPHERLAB_DB"),
        "{msg}"
    );
}

#[test]
fn default_path_follows_the_environment() {
    let p = Store::default_path();
    match std::env::var_os("CIPHERLAB_DB") {
        Some(v) if !v.is_empty() => assert_eq!(p, std::path::PathBuf::from(v)),
        _ => assert_eq!(p, std::path::PathBuf::from("cipherlab-results.sqlite")),
    }
}

#[test]
fn artifacts_read_back_with_their_run() {
    let mut store = Store::open_in_memory().unwrap();
    let id = store
        .save_run(
            &new_run(MachineInfo::detect()),
            &[measurement(
                "aes-128-ecb",
                Mode::AverageTime,
                false,
                12,
                1000,
            )],
            1_700_000_001_000,
        )
        .unwrap();
    let png = vec![0x89, b'P', b'N', b'G', 0, 255, 7];
    let artifacts = vec![
        Artifact {
            study: "distribution".into(),
            name: "histogram/aes-128-ecb/bmp".into(),
            kind: ArtifactKind::Histogram,
            title: "AES-128-ECB of a BMP".into(),
            data: br#"{"counts":[1,2,3]}"#.to_vec(),
        },
        Artifact {
            study: "distribution".into(),
            name: "ecb-picture/aes-128-ecb".into(),
            kind: ArtifactKind::Image,
            title: "ECB leaks the picture".into(),
            data: png.clone(),
        },
    ];
    for a in &artifacts {
        store.add_artifact(id, a).unwrap();
    }
    // A name is unique within a run and study.
    assert!(store.add_artifact(id, &artifacts[0]).is_err());
    let run = store.load_run(id).unwrap();
    assert_eq!(run.artifacts, artifacts);
    assert_eq!(run.artifacts[1].data, png);
    let media: String = store
        .connection()
        .query_row(
            "SELECT media_type FROM artifacts WHERE kind = 'image'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(media, "image/png");
}

#[test]
fn a_version_1_file_is_migrated_and_keeps_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.sqlite");
    // Build a version-1 file by hand with the first migration only.
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        let v1 = &cipherlab_bench::store::MIGRATIONS[0];
        assert_eq!(v1.version, 1);
        conn.execute_batch(v1.sql).unwrap();
        conn.execute(
            "INSERT INTO schema_version VALUES (1, '2026-11-01T00:00:00.000Z', 'v1')",
            [],
        )
        .unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
    }
    // Write a run with today's code after migrating, then check both tables work.
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let id = store
        .save_run(
            &new_run(MachineInfo::detect()),
            &[measurement("des-ecb", Mode::AverageTime, false, 12, 1000)],
            1_700_000_001_000,
        )
        .unwrap();
    store
        .add_artifact(
            id,
            &Artifact {
                study: "x".into(),
                name: "n".into(),
                kind: ArtifactKind::Note,
                title: "t".into(),
                data: b"hello".to_vec(),
            },
        )
        .unwrap();
    let run = store.load_run(id).unwrap();
    assert_eq!(run.measurements.len(), 1);
    assert_eq!(run.artifacts.len(), 1);
}

/// A version-2 file with a run in it: after migration its measurement reads as timed on
/// the wall clock (the only clock before version 3), its run has no load average, and a
/// new run keeps each measurement's own timer and the load at start and end.
#[test]
fn a_version_2_run_migrates_with_the_wall_clock_and_new_runs_keep_their_timer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v2.sqlite");
    let old = {
        let mut store = Store::open(&path).unwrap();
        store
            .save_run(
                &new_run(MachineInfo::detect()),
                &[measurement("des-ecb", Mode::AverageTime, false, 12, 1000)],
                1_700_000_001_000,
            )
            .unwrap()
    };
    // Turn the file back into version 2: drop what version 3 added.
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "ALTER TABLE measurements DROP COLUMN timer;
             ALTER TABLE runs DROP COLUMN load_start;
             ALTER TABLE runs DROP COLUMN load_end;
             DELETE FROM schema_version WHERE version = 3;",
        )
        .unwrap();
        conn.pragma_update(None, "user_version", 2).unwrap();
    }
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let back = store.load_run(old).unwrap();
    assert_eq!(back.measurements[0].timer, "wall-clock");
    assert_eq!((back.info.load_start, back.info.load_end), (None, None));

    let mut m = measurement("des-ecb", Mode::AverageTime, false, 12, 1000);
    m.timer = "thread-cpu".into();
    let run = NewRun {
        load_start: Some(1.5),
        load_end: Some(2.25),
        ..new_run(MachineInfo::detect())
    };
    let id = store.save_run(&run, &[m], 1_700_000_002_000).unwrap();
    let back = store.load_run(id).unwrap();
    assert_eq!(back.measurements[0].timer, "thread-cpu");
    assert_eq!(
        (back.info.load_start, back.info.load_end),
        (Some(1.5), Some(2.25))
    );
}
