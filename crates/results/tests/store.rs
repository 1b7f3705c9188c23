//! The results store on both engines: the same suite of cases runs on SQLite files and
//! on a throw-away PostgreSQL server (`store_suite_on_sqlite`, `store_suite_on_postgres`):
//! a run reads back equal from a fresh connection; runs are listed and finished; the
//! schema is versioned; artifacts round-trip; imports of SQLite files and JSON exports
//! from another machine are idempotent. SQLite-only cases follow (old files migrate, a
//! newer schema is refused, a file that is not a database), then the concurrency test:
//! several writer processes on PostgreSQL, one killed mid-run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::steadiness::Steadiness;
use cipherlab_harness::{Mode, RawSample, Settings, Validity};
use cipherlab_results::artifact::{Artifact, Content, Histogram};
use cipherlab_results::id::{BenchId, Measurement, Phase, Subject};
use cipherlab_results::report::export::{Exporter, JsonExporter};
use cipherlab_results::store::{
    EngineKind, Location, NewRun, SCHEMA_VERSION, Store, StoreError, Value,
};
use cipherlab_testkit::postgres::TempCluster;

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
        // Stored in the run's validity JSON and read back whole.
        steadiness: Some(Steadiness {
            readings: 120,
            median_ns: 150_000.0,
            low_ns: 148_000.0,
            high_ns: 171_000.0,
        }),
        keep_awake: Some(1),
        steal: Some(0.02),
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
            Subject::parse(algorithm),
            "rustcrypto",
            Phase::Encrypt,
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

/// Saves a run of this machine holding `m`, finished at `finished_ms`; returns its id.
fn save_one(store: &mut Store, m: Measurement, finished_ms: i64) -> i64 {
    store
        .save_run(&new_run(MachineInfo::detect()), &[m], finished_ms)
        .unwrap()
}

/// Where a case's fresh, empty stores are made: SQLite files in a directory, or new
/// databases on a PostgreSQL server.
trait Stores {
    /// A new empty store's location, named after `case`.
    fn fresh(&self, case: &str) -> Location;
}

struct SqliteFiles(tempfile::TempDir);

impl Stores for SqliteFiles {
    fn fresh(&self, case: &str) -> Location {
        Location::File(self.0.path().join(format!("{case}.sqlite")))
    }
}

impl Stores for TempCluster {
    fn fresh(&self, case: &str) -> Location {
        Location::Postgres(self.create_database(&case.replace('-', "_")))
    }
}

type Case = fn(&dyn Stores, &Path);

/// Every case of the suite, run on each engine.
const CASES: &[(&str, Case)] = &[
    ("round-trip", a_run_reads_back_equal),
    ("incremental", incremental_writes_and_listing),
    ("schema", schema_is_versioned),
    ("artifacts", artifacts_read_back_with_their_run),
    ("import", importing_twice_changes_nothing),
    ("salt", host_names_are_salted_per_store),
];

fn run_suite(stores: &dyn Stores) {
    let scratch = tempfile::tempdir().unwrap();
    for (name, case) in CASES {
        println!("case {name}");
        case(stores, scratch.path());
    }
}

#[test]
fn store_suite_on_sqlite() {
    run_suite(&SqliteFiles(tempfile::tempdir().unwrap()));
}

#[test]
fn store_suite_on_postgres() {
    let Some(cluster) = TempCluster::start() else {
        return;
    };
    let started = std::time::Instant::now();
    run_suite(&cluster);
    println!(
        "PostgreSQL suite: {} cases in {:.2} s",
        CASES.len(),
        started.elapsed().as_secs_f64()
    );
}

fn count(store: &Store, sql: &str) -> i64 {
    store.query(sql, &[]).unwrap()[0].int(0).unwrap()
}

fn a_run_reads_back_equal(stores: &dyn Stores, _: &Path) {
    let location = stores.fresh("round-trip");
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
        let mut store = Store::open_location(&location).unwrap();
        store.save_run(&run, &ms, 1_700_000_009_999).unwrap()
    };
    // A fresh connection: everything comes from the database.
    let store = Store::open_location(&location).unwrap();
    let loaded = store.load_run(id).unwrap();
    assert_eq!(loaded.info.id, id);
    assert_eq!(loaded.info.started_ms, run.started_ms);
    assert_eq!(loaded.info.finished_ms, Some(1_700_000_009_999));
    assert_eq!(loaded.info.command_line, run.command_line);
    assert_eq!(loaded.info.cipherlab_version, env!("CARGO_PKG_VERSION"));
    assert_eq!(loaded.info.cpu_model, machine.cpu_model);
    assert_eq!(loaded.info.measurements, 3);
    // The machine block as stored: the host-name hash salted, the rest as detected.
    assert_ne!(loaded.machine.hostname_hash, machine.hostname_hash);
    assert_eq!(loaded.machine, store.salted(&machine).unwrap());
    assert_eq!(
        loaded.info.machine_fingerprint,
        loaded.machine.fingerprint()
    );
    assert_eq!(
        uuid::Uuid::parse_str(&loaded.info.uuid)
            .unwrap()
            .get_version_num(),
        4
    );
    assert_eq!(store.run_by_uuid(&loaded.info.uuid).unwrap(), Some(id));
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
    let rows = store
        .query(
            "SELECT median, unit, size_bytes FROM measurements WHERE algorithm = ?1",
            &["aes-128-ecb".into()],
        )
        .unwrap();
    assert_eq!(
        (
            rows[0].real(0).unwrap(),
            rows[0].text(1).unwrap(),
            rows[0].int(2).unwrap()
        ),
        (ms[0].summary.median, "ns/op".to_string(), 16_384)
    );
}

fn incremental_writes_and_listing(stores: &dyn Stores, _: &Path) {
    let mut store = Store::open_location(&stores.fresh("incremental")).unwrap();
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
    assert!(dup.as_ref().is_err_and(StoreError::is_duplicate), "{dup:?}");
    let b = store.begin_run(&new_run(machine)).unwrap();
    store.finish_run_at(b, 1_700_000_100_000).unwrap();
    let runs = store.list_runs().unwrap();
    assert_eq!(runs.iter().map(|r| r.id).collect::<Vec<_>>(), vec![a, b]);
    assert_eq!(runs[0].finished_ms, None, "run a was never finished");
    assert_eq!(runs[0].measurements, 1);
    assert_eq!(runs[1].measurements, 0);
    assert_eq!(store.latest_run().unwrap(), Some(b));
    // One machine row for both runs.
    assert_eq!(count(&store, "SELECT count(*) FROM machines"), 1);
    // ... and two distinct UUIDs.
    assert_ne!(runs[0].uuid, runs[1].uuid);
    let e = store.load_run(999).unwrap_err();
    assert!(matches!(e, StoreError::RunNotFound { id: 999, .. }));
    assert!(e.to_string().contains("no run 999"), "{e}");
    assert!(store.finish_run(999).is_err());
}

fn schema_is_versioned(stores: &dyn Stores, _: &Path) {
    let location = stores.fresh("schema");
    {
        let store = Store::open_location(&location).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        let rows = store
            .query(
                "SELECT version, description FROM schema_version ORDER BY version DESC",
                &[],
            )
            .unwrap();
        assert_eq!(rows[0].int(0).unwrap(), i64::from(SCHEMA_VERSION));
        assert!(!rows[0].text(1).unwrap().is_empty());
    }
    // Reopening does not migrate twice.
    let store = Store::open_location(&location).unwrap();
    assert_eq!(
        count(&store, "SELECT count(*) FROM schema_version"),
        i64::from(SCHEMA_VERSION)
    );
    assert_eq!(count(&store, "SELECT count(*) FROM store_meta"), 1);
}

#[test]
fn newer_schemas_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.sqlite");
    drop(Store::open(&path).unwrap());
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

fn artifacts_read_back_with_their_run(stores: &dyn Stores, _: &Path) {
    let mut store = Store::open_location(&stores.fresh("artifacts")).unwrap();
    let id = save_one(
        &mut store,
        measurement("aes-128-ecb", Mode::AverageTime, false, 12, 1000),
        1_700_000_001_000,
    );
    let png = b"\x89PNG\r\n\x1a\n\x00\xff\x07".to_vec();
    let artifacts = vec![
        Artifact::new(
            "distribution",
            "histogram/aes-128-ecb/bmp",
            "AES-128-ECB of a BMP",
            Content::Histogram(Histogram::of("aes-128-ecb", "bmp", &[1, 2, 3, 3])),
        ),
        Artifact::new(
            "distribution",
            "ecb-picture/aes-128-ecb",
            "ECB leaks the picture",
            Content::Image(png.clone()),
        ),
    ];
    for a in &artifacts {
        store.add_artifact(id, a).unwrap();
    }
    // A name is unique within a run and study.
    assert!(store.add_artifact(id, &artifacts[0]).is_err());
    let run = store.load_run(id).unwrap();
    assert_eq!(run.artifacts, artifacts);
    assert_eq!(run.artifacts[1].content, Content::Image(png));
    let media = store
        .query("SELECT media_type FROM artifacts WHERE kind = 'image'", &[])
        .unwrap();
    assert_eq!(media[0].text(0).unwrap(), "image/png");
}

#[test]
fn a_damaged_artifact_is_an_error_naming_it() {
    // The store reads back only what it can show: a table that is not JSON or a picture
    // that is not a PNG makes the run's loading fail with the artifact named, rather than
    // a report that shows less than the run holds.
    for (kind, data) in [("table", &b"{{{"[..]), ("image", &b"GIF89a"[..])] {
        let mut store = Store::open_in_memory().unwrap();
        let id = save_one(
            &mut store,
            measurement("des-ecb", Mode::AverageTime, false, 12, 1000),
            1_700_000_001_000,
        );
        store
            .add_artifact(
                id,
                &Artifact::new("x", "damaged", "t", Content::Note("n".into())),
            )
            .unwrap();
        store
            .execute(
                "UPDATE artifacts SET kind = ?1, data = ?2 WHERE name = 'damaged'",
                &[kind.into(), Value::Blob(data.to_vec())],
            )
            .unwrap();
        let e = store.load_run(id).unwrap_err().to_string();
        assert!(e.contains("x/damaged"), "{e}");
    }
}

#[test]
fn a_version_1_file_is_migrated_and_keeps_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.sqlite");
    // Build a version-1 file by hand with the first migration only.
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        let v1 = &cipherlab_results::store::MIGRATIONS[0];
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
    let id = save_one(
        &mut store,
        measurement("des-ecb", Mode::AverageTime, false, 12, 1000),
        1_700_000_001_000,
    );
    store
        .add_artifact(
            id,
            &Artifact::new("x", "n", "t", Content::Note("hello".into())),
        )
        .unwrap();
    let run = store.load_run(id).unwrap();
    assert_eq!(run.measurements.len(), 1);
    assert_eq!(run.artifacts.len(), 1);
}

/// A machine that is not this one: another CPU and host.
fn other_machine() -> MachineInfo {
    let mut m = MachineInfo::detect();
    m.cpu_model = "Raspberry Pi 4 (Cortex-A72)".to_string();
    m.arch = "aarch64".to_string();
    m.hostname_hash = cipherlab_harness::machine::hash_hostname("board-7");
    m
}

/// A SQLite file made "elsewhere": two runs of another machine, one with an artifact.
fn file_from_elsewhere(path: &Path) -> Vec<cipherlab_results::store::Run> {
    let mut store = Store::open(path).unwrap();
    let run = new_run(other_machine());
    let a = store
        .save_run_with(
            &run,
            &[measurement(
                "aes-128-ecb",
                Mode::AverageTime,
                true,
                25,
                3000,
            )],
            &[Artifact::new(
                "distribution",
                "note",
                "made elsewhere",
                Content::Note("hello from the board".into()),
            )],
            1_700_000_002_000,
        )
        .unwrap();
    let b = store
        .save_run(
            &run,
            &[
                measurement("aes-128-ecb", Mode::AverageTime, true, 25, 3000),
                measurement("des-ecb", Mode::AverageTime, false, 12, 9000),
            ],
            1_700_000_003_000,
        )
        .unwrap();
    vec![store.load_run(a).unwrap(), store.load_run(b).unwrap()]
}

fn importing_twice_changes_nothing(stores: &dyn Stores, scratch: &Path) {
    let source = scratch.join("elsewhere.sqlite");
    let made = file_from_elsewhere(&source);
    let mut store = Store::open_location(&stores.fresh("import")).unwrap();
    // A run of this machine first, so the store holds two machines afterwards.
    save_one(
        &mut store,
        measurement("aes-128-ecb", Mode::AverageTime, true, 25, 3000),
        1_700_000_004_000,
    );
    let first = store.import(&source).unwrap();
    assert_eq!((first.added, first.already_present), (2, 0));
    let tables = ["runs", "machines", "measurements", "samples", "artifacts"];
    let counts = |s: &Store| -> Vec<i64> {
        tables
            .iter()
            .map(|t| count(s, &format!("SELECT count(*) FROM {t}")))
            .collect()
    };
    let before = counts(&store);
    assert_eq!(before[..2], [3, 2], "3 runs of 2 machines");
    let again = store.import(&source).unwrap();
    assert_eq!((again.added, again.already_present), (0, 2));
    assert_eq!(counts(&store), before, "importing twice changed the store");

    // Each imported run reads back as it was made, under its UUID, machine unchanged.
    for run in &made {
        let id = store.run_by_uuid(&run.info.uuid).unwrap().unwrap();
        let got = store.load_run(id).unwrap();
        assert_eq!(got.machine, run.machine);
        assert_eq!(got.measurements, run.measurements);
        assert_eq!(got.artifacts, run.artifacts);
        assert_eq!(got.info.machine_fingerprint, run.info.machine_fingerprint);
    }

    // The JSON export of the same runs: already present here; into a new store, the
    // same runs (artifacts' bytes are not in a JSON export).
    let json = scratch.join("elsewhere.json");
    std::fs::write(&json, JsonExporter.serialize(&made).unwrap()).unwrap();
    let r = store.import(&json).unwrap();
    assert_eq!((r.added, r.already_present), (0, 2));
    assert_eq!(counts(&store), before);
    let mut other = Store::open_location(&stores.fresh("import-json")).unwrap();
    let r = other.import(&json).unwrap();
    assert_eq!((r.added, r.artifacts_not_carried), (2, 1));
    assert_eq!(other.import(&json).unwrap().added, 0);
    for run in &made {
        let id = other.run_by_uuid(&run.info.uuid).unwrap().unwrap();
        let got = other.load_run(id).unwrap();
        assert_eq!(got.measurements, run.measurements);
        assert_eq!(got.machine, run.machine);
        assert_eq!(got.info.started_ms, run.info.started_ms);
        assert_eq!(got.info.finished_ms, run.info.finished_ms);
    }

    // Neither a database nor an export: a clear error, nothing added.
    let junk = scratch.join("junk.txt");
    std::fs::write(&junk, "not results").unwrap();
    let e = store.import(&junk).unwrap_err().to_string();
    assert!(e.contains("junk.txt") && e.contains("neither"), "{e}");
    assert_eq!(counts(&store), before);
}

fn host_names_are_salted_per_store(stores: &dyn Stores, _: &Path) {
    let a = Store::open_location(&stores.fresh("salt-a")).unwrap();
    let b = Store::open_location(&stores.fresh("salt-b")).unwrap();
    let m = MachineInfo::detect();
    let (sa, sb) = (a.salted(&m).unwrap(), b.salted(&m).unwrap());
    assert_ne!(sa.hostname_hash, m.hostname_hash);
    assert_ne!(
        sa.hostname_hash, sb.hostname_hash,
        "each store has its own salt"
    );
    assert_eq!(sa.hostname_hash.len(), 16);
    assert_eq!(a.salted(&m).unwrap(), sa, "stable within a store");
}

#[test]
fn a_version_2_file_gets_uuids_and_a_salt_and_keeps_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    let make_v2 = |path: &Path| {
        let conn = rusqlite::Connection::open(path).unwrap();
        for m in &cipherlab_results::store::MIGRATIONS[..2] {
            conn.execute_batch(m.sql).unwrap();
            conn.execute(
                "INSERT INTO schema_version VALUES (?1, '2026-11-01T00:00:00.000Z', 'old')",
                [m.version],
            )
            .unwrap();
        }
        conn.pragma_update(None, "user_version", 2).unwrap();
        conn.execute(
            "INSERT INTO machines (fingerprint, cpu_model, arch, cpu_flags, logical_cores,
                 memory_bytes, os, kernel, rustc, build, cipherlab_version, hostname_hash, json)
             VALUES ('f00d', 'Old CPU', 'x86_64', '', 2, 1, 'linux', 'k', 'r', 'b', '0.1.0',
                     'abcd', ?1)",
            [MachineInfo::detect().to_json()],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO runs (started_ms, command_line, cipherlab_version, machine_id,
                 timer_resolution_ns, empty_op_ns, settings_json, validity_json)
             VALUES (1600000000000, 'cipherlab bench --quick', '0.1.0', 1, 20, 0.3, ?1, ?2)",
            [
                serde_json::to_string(&Settings::quick()).unwrap(),
                serde_json::to_string(&validity()).unwrap(),
            ],
        )
        .unwrap();
    };
    let (p1, p2) = (
        dir.path().join("one.sqlite"),
        dir.path().join("copy.sqlite"),
    );
    make_v2(&p1);
    make_v2(&p2);
    let s1 = Store::open(&p1).unwrap();
    let s2 = Store::open(&p2).unwrap();
    assert_eq!(s1.schema_version().unwrap(), SCHEMA_VERSION);
    let (r1, r2) = (s1.list_runs().unwrap(), s2.list_runs().unwrap());
    assert_eq!(r1.len(), 1);
    // Two copies of one old file migrate to the same UUID, so importing both adds it once.
    assert_eq!(r1[0].uuid, r2[0].uuid);
    assert_eq!(
        uuid::Uuid::parse_str(&r1[0].uuid)
            .unwrap()
            .get_version_num(),
        8
    );
    let mut into = Store::open_in_memory().unwrap();
    assert_eq!(into.import(&p1).unwrap().added, 1);
    assert_eq!(into.import(&p2).unwrap().already_present, 1);
    assert_eq!(
        s1.load_run(r1[0].id).unwrap().info.command_line,
        "cipherlab bench --quick"
    );
}

/// The environment variable that turns this test binary into one writer of the
/// concurrency test (the test runs itself as child processes so it can kill one).
const WRITER_URL: &str = "CIPHERLAB_TEST_WRITER_URL";
/// Measurements per run of the concurrency test.
const PER_RUN: usize = 4;

/// A writer of `concurrent_writers_never_leave_half_a_run`: when [`WRITER_URL`] is set,
/// writes runs to it until it is killed or has written `CIPHERLAB_TEST_WRITER_RUNS`,
/// alternately whole (one transaction) and piece by piece (a measurement per
/// transaction, then finished). Without the variable it does nothing.
#[test]
fn concurrency_writer() {
    let Ok(url) = std::env::var(WRITER_URL) else {
        return;
    };
    let runs: usize = std::env::var("CIPHERLAB_TEST_WRITER_RUNS")
        .unwrap()
        .parse()
        .unwrap();
    let name = std::env::var("CIPHERLAB_TEST_WRITER_NAME").unwrap();
    let mut store = Store::connect(&url).unwrap();
    let algorithms = ["aes-128-ecb", "des-ecb", "rc4-128", "present-80-ecb"];
    for i in 0..runs {
        let mut run = new_run(MachineInfo::detect());
        run.command_line = format!("writer {name} run {i}");
        let ms: Vec<Measurement> = algorithms[..PER_RUN]
            .iter()
            .map(|a| measurement(a, Mode::AverageTime, true, 400, 5000))
            .collect();
        if i % 2 == 0 {
            store.save_run_with(&run, &ms, &[], i as i64).unwrap();
        } else {
            let id = store.begin_run(&run).unwrap();
            for m in &ms {
                store.add_measurement(id, m).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            store.finish_run(id).unwrap();
        }
    }
}

#[test]
fn concurrent_writers_never_leave_half_a_run() {
    let Some(cluster) = TempCluster::start() else {
        return;
    };
    let url = cluster.create_database("fleet");
    // Create the schema once; the writers then race only on runs (migration under
    // concurrency is covered by the advisory lock, and tried here too by the writers).
    drop(Store::connect(&url).unwrap());
    let exe = std::env::current_exe().unwrap();
    let spawn = |name: &str, runs: usize| {
        std::process::Command::new(&exe)
            .args([
                "--exact",
                "concurrency_writer",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(WRITER_URL, &url)
            .env("CIPHERLAB_TEST_WRITER_RUNS", runs.to_string())
            .env("CIPHERLAB_TEST_WRITER_NAME", name)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let writers: Vec<_> = (0..4).map(|i| spawn(&format!("w{i}"), 6)).collect();
    let mut victim = spawn("victim", 1000);
    // Kill the victim once it has written something, in the middle of its work.
    let store = Store::connect(&url).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while count(
        &store,
        "SELECT count(*) FROM measurements m JOIN runs r ON r.id = m.run_id
         WHERE r.command_line LIKE 'writer victim %'",
    ) < 6
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the victim wrote nothing"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    victim.kill().unwrap();
    let status = victim.wait().unwrap();
    assert!(!status.success());
    for mut w in writers {
        assert!(w.wait().unwrap().success(), "a writer failed");
    }

    let runs = store.list_runs().unwrap();
    let finished_by = |who: &str| {
        runs.iter()
            .filter(|r| r.command_line.starts_with(&format!("writer {who} ")))
            .filter(|r| r.finished_ms.is_some())
            .count()
    };
    for i in 0..4 {
        assert_eq!(finished_by(&format!("w{i}")), 6, "writer w{i} lost runs");
    }
    let mut incomplete = 0;
    for info in &runs {
        let run = store.load_run(info.id).unwrap();
        // Every measurement is whole: all its samples are there.
        for m in &run.measurements {
            assert_eq!(m.samples.len(), m.summary.n as usize, "half a measurement");
        }
        match info.finished_ms {
            Some(_) => assert_eq!(run.measurements.len(), PER_RUN, "half a finished run"),
            None => {
                assert!(info.command_line.starts_with("writer victim "), "{info:?}");
                incomplete += 1;
            }
        }
    }
    assert!(
        incomplete <= 1,
        "at most the victim's run in progress is left unfinished"
    );
    println!(
        "concurrency: {} runs, {} finished by the victim before it was killed, {incomplete} left \
         incomplete (marked: no finished_ms)",
        runs.len(),
        finished_by("victim")
    );
    assert_eq!(store.engine(), EngineKind::Postgres);
}

/// A version-3 file with a run in it: after migration its measurement reads as timed on
/// the wall clock (the only clock before version 4), its run has no load average, and a
/// new run keeps each measurement's own timer and the load at start and end.
#[test]
fn a_version_3_run_migrates_with_the_wall_clock_and_new_runs_keep_their_timer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v3.sqlite");
    let old = {
        let mut store = Store::open(&path).unwrap();
        save_one(
            &mut store,
            measurement("des-ecb", Mode::AverageTime, false, 12, 1000),
            1_700_000_001_000,
        )
    };
    // Turn the file back into version 3: drop what version 4 added.
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "ALTER TABLE measurements DROP COLUMN timer;
             ALTER TABLE runs DROP COLUMN load_start;
             ALTER TABLE runs DROP COLUMN load_end;
             DELETE FROM schema_version WHERE version = 4;",
        )
        .unwrap();
        conn.pragma_update(None, "user_version", 3).unwrap();
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
