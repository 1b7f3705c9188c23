//! The results store: one SQLite file holding every run, the machine it ran on, its
//! measurements and their raw samples, so runs from many machines and days can be
//! compared. The schema is documented in `docs/results.md`.
//!
//! The schema is versioned: `PRAGMA user_version` holds the version, the
//! `schema_version` table records when each migration was applied, and [`MIGRATIONS`]
//! lists the SQL that takes a database from one version to the next, applied in order
//! on open. A database written by a newer cipherlab is refused with
//! [`StoreError::NewerSchema`], never modified.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use cipherlab_bench::store::{NewRun, Store};
//! let mut store = Store::open_in_memory()?;
//! let run = store.begin_run(&NewRun::now("cipherlab bench --quick"))?;
//! // ... store.add_measurement(run, &measurement)? for each result ...
//! store.finish_run(run)?;
//! assert_eq!(store.list_runs()?.len(), 1);
//! # Ok(()) }
//! ```

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde::{Deserialize, Serialize};

use crate::id::{BenchId, Measurement};
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::stats::{Interval, Summary, TukeyOutliers};
use cipherlab_harness::{Mode, RawSample, Settings, Unit, Validity};

/// The environment variable naming the database file.
pub const DB_ENV: &str = "CIPHERLAB_DB";

/// The default file name, in the current directory.
pub const DEFAULT_FILE: &str = "cipherlab-results.sqlite";

/// One step of the schema's history.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// The version this migration produces.
    pub version: u32,
    /// What it changes.
    pub description: &'static str,
    /// The SQL, run in one transaction.
    pub sql: &'static str,
}

/// Every migration, in order; the last one's version is [`SCHEMA_VERSION`].
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        description: "runs, machines, measurements, samples",
        sql: r#"
CREATE TABLE schema_version (
    version     INTEGER PRIMARY KEY,
    applied_at  TEXT NOT NULL,
    description TEXT NOT NULL
);
CREATE TABLE machines (
    id                INTEGER PRIMARY KEY,
    fingerprint       TEXT NOT NULL UNIQUE,
    cpu_model         TEXT NOT NULL,
    arch              TEXT NOT NULL,
    cpu_flags         TEXT NOT NULL,
    logical_cores     INTEGER NOT NULL,
    memory_bytes      INTEGER NOT NULL,
    os                TEXT NOT NULL,
    kernel            TEXT NOT NULL,
    rustc             TEXT NOT NULL,
    build             TEXT NOT NULL,
    cipherlab_version TEXT NOT NULL,
    hostname_hash     TEXT NOT NULL,
    json              TEXT NOT NULL
);
CREATE TABLE runs (
    id                  INTEGER PRIMARY KEY,
    started_ms          INTEGER NOT NULL,
    finished_ms         INTEGER,
    command_line        TEXT NOT NULL,
    cipherlab_version   TEXT NOT NULL,
    machine_id          INTEGER NOT NULL REFERENCES machines(id),
    timer_resolution_ns INTEGER NOT NULL,
    empty_op_ns         REAL NOT NULL,
    settings_json       TEXT NOT NULL,
    validity_json       TEXT NOT NULL
);
CREATE TABLE measurements (
    id                   INTEGER PRIMARY KEY,
    run_id               INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    study                TEXT NOT NULL,
    algorithm            TEXT NOT NULL,
    implementation       TEXT NOT NULL,
    runtime              TEXT NOT NULL,
    phase                TEXT NOT NULL,
    size_bytes           INTEGER NOT NULL,
    data_type            TEXT NOT NULL,
    mode                 TEXT NOT NULL,
    unit                 TEXT NOT NULL,
    bytes_per_op         INTEGER,
    batch                INTEGER NOT NULL,
    forks                INTEGER NOT NULL,
    n                    INTEGER NOT NULL,
    median               REAL NOT NULL,
    mean                 REAL NOT NULL,
    std_dev              REAL NOT NULL,
    ci_low               REAL NOT NULL,
    ci_high              REAL NOT NULL,
    ci_level             REAL NOT NULL,
    min                  REAL NOT NULL,
    max                  REAL NOT NULL,
    outliers_low_severe  INTEGER NOT NULL,
    outliers_low_mild    INTEGER NOT NULL,
    outliers_high_mild   INTEGER NOT NULL,
    outliers_high_severe INTEGER NOT NULL,
    outliers_mad         INTEGER NOT NULL,
    bytes_per_second     REAL,
    ticks_per_op         REAL,
    ticks_per_byte       REAL,
    warnings_json        TEXT NOT NULL,
    UNIQUE (run_id, study, algorithm, implementation, runtime, phase, size_bytes, data_type)
);
CREATE INDEX measurements_by_benchmark
    ON measurements (algorithm, implementation, runtime, phase, size_bytes, data_type);
CREATE TABLE samples (
    measurement_id INTEGER NOT NULL REFERENCES measurements(id) ON DELETE CASCADE,
    seq            INTEGER NOT NULL,
    fork           INTEGER NOT NULL,
    iterations     INTEGER NOT NULL,
    ns             INTEGER NOT NULL,
    ticks          INTEGER,
    PRIMARY KEY (measurement_id, seq)
) WITHOUT ROWID;
"#,
    },
    Migration {
        version: 2,
        description: "artifacts: what a study produces besides timings (histograms, images, tables)",
        sql: r#"
CREATE TABLE artifacts (
    id         INTEGER PRIMARY KEY,
    run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    study      TEXT NOT NULL,
    name       TEXT NOT NULL,
    kind       TEXT NOT NULL,
    media_type TEXT NOT NULL,
    title      TEXT NOT NULL,
    data       BLOB NOT NULL,
    UNIQUE (run_id, study, name)
);
"#,
    },
];

/// The schema version this build writes and understands.
pub const SCHEMA_VERSION: u32 = 2;

/// Why the store failed. Each message names the file and the fix.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed.
    #[error(
        "results database {path}: {source}; check that the file is a cipherlab database and writable, or choose another with ${env}",
        env = DB_ENV
    )]
    Sqlite {
        /// The database file.
        path: String,
        /// The SQLite error.
        source: rusqlite::Error,
    },
    /// The database was written by a newer cipherlab.
    #[error(
        "results database {path} has schema version {found}, newer than the {supported} this cipherlab understands: upgrade cipherlab, or use another database file with ${env}",
        env = DB_ENV
    )]
    NewerSchema {
        /// The database file.
        path: String,
        /// Its schema version.
        found: u32,
        /// The newest this build knows.
        supported: u32,
    },
    /// No run with this id.
    #[error(
        "results database {path} has no run {id}: `cipherlab report --list` shows the runs it has"
    )]
    RunNotFound {
        /// The database file.
        path: String,
        /// The id asked for.
        id: i64,
    },
    /// A stored value could not be read back.
    #[error(
        "results database {path}: {what} is not valid ({reason}); the file was edited or damaged: restore it from a copy or start a new one"
    )]
    Corrupt {
        /// The database file.
        path: String,
        /// Which value.
        what: String,
        /// What was wrong.
        reason: String,
    },
    /// A value does not fit SQLite's 64-bit signed integers.
    #[error("{what} = {value} does not fit a 64-bit signed integer, so it cannot be stored")]
    TooLarge {
        /// Which value.
        what: &'static str,
        /// The value.
        value: u64,
    },
}

/// A run about to be recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct NewRun {
    /// Start time, Unix milliseconds (UTC).
    pub started_ms: i64,
    /// The command line that started it.
    pub command_line: String,
    /// The machine block.
    pub machine: MachineInfo,
    /// The harness settings.
    pub settings: Settings,
    /// The validity figures of the harness.
    pub validity: Validity,
}

impl NewRun {
    /// A run starting now on this machine with default settings and empty validity
    /// figures (for callers that fill them in).
    pub fn now(command_line: &str) -> NewRun {
        NewRun {
            started_ms: now_ms(),
            command_line: command_line.to_string(),
            machine: crate::this_machine(),
            settings: Settings::default(),
            validity: Validity {
                timer: "wall-clock".to_string(),
                resolution_ns: 0,
                timer_overhead_ns: 0.0,
                counter: None,
                counter_resolution: None,
                counter_invariant: None,
                counter_ticks_per_ns: None,
                empty_op_ns: 0.0,
                empty_call_ns: 0.0,
            },
        }
    }
}

/// A run's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// Run id.
    pub id: i64,
    /// Start, Unix ms.
    pub started_ms: i64,
    /// End, Unix ms; `None` if the run was interrupted.
    pub finished_ms: Option<i64>,
    /// The command line.
    pub command_line: String,
    /// cipherlab's version.
    pub cipherlab_version: String,
    /// The machine's id in the `machines` table.
    pub machine_id: i64,
    /// CPU model of that machine (for listings).
    pub cpu_model: String,
    /// Number of measurements.
    pub measurements: u32,
}

/// A whole run: its row, machine, settings, validity and measurements with samples.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The run's row.
    pub info: RunInfo,
    /// The machine block.
    pub machine: MachineInfo,
    /// Harness settings.
    pub settings: Settings,
    /// Validity figures.
    pub validity: Validity,
    /// Measurements in insertion order, each with its raw samples.
    pub measurements: Vec<Measurement>,
    /// What the studies produced besides timings, in insertion order.
    pub artifacts: Vec<Artifact>,
}

/// What a study produces besides timings: a byte histogram, a picture, a table of a
/// paper's figures beside ours, a note. The report shows each by its [`ArtifactKind`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Artifact {
    /// The study that made it.
    pub study: String,
    /// Unique within the study and run, e.g. `histogram/aes-128-ecb/bmp`.
    pub name: String,
    /// How to read `data`.
    pub kind: ArtifactKind,
    /// A caption for people.
    pub title: String,
    /// The content: JSON for histograms and tables, PNG bytes for images, UTF-8 for notes.
    pub data: Vec<u8>,
}

/// How an [`Artifact`]'s data is to be read (the schema of each is in docs/results.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArtifactKind {
    /// JSON: a byte histogram with its statistics.
    Histogram,
    /// JSON: a table with columns and rows.
    Table,
    /// PNG image bytes.
    Image,
    /// UTF-8 text.
    Note,
}

impl ArtifactKind {
    /// The name stored in the `kind` column.
    pub fn as_str(self) -> &'static str {
        match self {
            ArtifactKind::Histogram => "histogram",
            ArtifactKind::Table => "table",
            ArtifactKind::Image => "image",
            ArtifactKind::Note => "note",
        }
    }

    /// The media type of the data.
    pub fn media_type(self) -> &'static str {
        match self {
            ArtifactKind::Histogram | ArtifactKind::Table => "application/json",
            ArtifactKind::Image => "image/png",
            ArtifactKind::Note => "text/plain; charset=utf-8",
        }
    }

    /// Parses [`ArtifactKind::as_str`]'s spelling.
    pub fn parse(s: &str) -> Option<ArtifactKind> {
        [
            ArtifactKind::Histogram,
            ArtifactKind::Table,
            ArtifactKind::Image,
            ArtifactKind::Note,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

/// The current time in Unix milliseconds.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

fn int(what: &'static str, value: u64) -> Result<i64, StoreError> {
    i64::try_from(value).map_err(|_| StoreError::TooLarge { what, value })
}

/// The results database.
pub struct Store {
    conn: Connection,
    path: String,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// `$CIPHERLAB_DB`, or `./cipherlab-results.sqlite`.
    pub fn default_path() -> PathBuf {
        match std::env::var_os(DB_ENV) {
            Some(p) if !p.is_empty() => PathBuf::from(p),
            _ => PathBuf::from(DEFAULT_FILE),
        }
    }

    /// Opens (creating if needed) the database at [`Store::default_path`].
    pub fn open_default() -> Result<Store, StoreError> {
        Store::open(Store::default_path())
    }

    /// Opens (creating if needed) the database at `path` and brings its schema up to
    /// date.
    pub fn open(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let p = path.as_ref().display().to_string();
        let conn = Connection::open(path.as_ref()).map_err(|source| StoreError::Sqlite {
            path: p.clone(),
            source,
        })?;
        Store::init(conn, p)
    }

    /// A database in memory (tests, dry runs).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let conn = Connection::open_in_memory().map_err(|source| StoreError::Sqlite {
            path: ":memory:".to_string(),
            source,
        })?;
        Store::init(conn, ":memory:".to_string())
    }

    fn init(conn: Connection, path: String) -> Result<Store, StoreError> {
        let mut store = Store { conn, path };
        store
            .conn
            .execute_batch("PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;")
            .map_err(|e| store.sql(e))?;
        store.migrate()?;
        Ok(store)
    }

    /// The file this store writes.
    pub fn path(&self) -> &str {
        &self.path
    }

    fn sql(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    fn corrupt(&self, what: impl Into<String>, reason: impl ToString) -> StoreError {
        StoreError::Corrupt {
            path: self.path.clone(),
            what: what.into(),
            reason: reason.to_string(),
        }
    }

    /// The database's schema version (`PRAGMA user_version`).
    pub fn schema_version(&self) -> Result<u32, StoreError> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get::<_, u32>(0))
            .map_err(|e| self.sql(e))
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let found = self.schema_version()?;
        if found > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema {
                path: self.path.clone(),
                found,
                supported: SCHEMA_VERSION,
            });
        }
        for m in MIGRATIONS.iter().filter(|m| m.version > found) {
            let path = self.path.clone();
            let err = |source| StoreError::Sqlite {
                path: path.clone(),
                source,
            };
            let tx = self.conn.transaction().map_err(err)?;
            tx.execute_batch(m.sql).map_err(err)?;
            tx.execute(
                "INSERT INTO schema_version (version, applied_at, description)
                 VALUES (?1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?2)",
                params![m.version, m.description],
            )
            .map_err(err)?;
            tx.pragma_update(None, "user_version", m.version)
                .map_err(err)?;
            tx.commit().map_err(err)?;
        }
        Ok(())
    }

    /// The id of `machine`'s row, inserting it if it is new (one row per
    /// [`MachineInfo::fingerprint`]).
    pub fn machine_id(&mut self, machine: &MachineInfo) -> Result<i64, StoreError> {
        let tx = self.conn.transaction().map_err(|e| StoreError::Sqlite {
            path: self.path.clone(),
            source: e,
        })?;
        let id = insert_machine(&tx, machine).map_err(|e| StoreError::Sqlite {
            path: self.path.clone(),
            source: e,
        })?;
        tx.commit().map_err(|e| self.sql(e))?;
        Ok(id)
    }

    /// Records the start of a run; returns its id.
    pub fn begin_run(&mut self, run: &NewRun) -> Result<i64, StoreError> {
        let machine_id = self.machine_id(&run.machine)?;
        let settings =
            serde_json::to_string(&run.settings).map_err(|e| self.corrupt("settings", e))?;
        let validity =
            serde_json::to_string(&run.validity).map_err(|e| self.corrupt("validity", e))?;
        self.conn
            .execute(
                "INSERT INTO runs (started_ms, command_line, cipherlab_version, machine_id,
                                   timer_resolution_ns, empty_op_ns, settings_json, validity_json)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    run.started_ms,
                    run.command_line,
                    run.machine.cipherlab_version,
                    machine_id,
                    int("timer resolution", run.validity.resolution_ns)?,
                    run.validity.empty_op_ns,
                    settings,
                    validity
                ],
            )
            .map_err(|e| self.sql(e))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Adds a measurement and its samples to run `run_id` (one transaction).
    pub fn add_measurement(&mut self, run_id: i64, m: &Measurement) -> Result<i64, StoreError> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction()
            .map_err(|source| StoreError::Sqlite {
                path: path.clone(),
                source,
            })?;
        let id = insert_measurement(&tx, run_id, m, &path)?;
        tx.commit()
            .map_err(|source| StoreError::Sqlite { path, source })?;
        Ok(id)
    }

    /// Marks run `run_id` finished now.
    pub fn finish_run(&mut self, run_id: i64) -> Result<(), StoreError> {
        self.finish_run_at(run_id, now_ms())
    }

    /// Marks run `run_id` finished at `finished_ms`.
    pub fn finish_run_at(&mut self, run_id: i64, finished_ms: i64) -> Result<(), StoreError> {
        let n = self
            .conn
            .execute(
                "UPDATE runs SET finished_ms = ?1 WHERE id = ?2",
                params![finished_ms, run_id],
            )
            .map_err(|e| self.sql(e))?;
        if n == 0 {
            return Err(StoreError::RunNotFound {
                path: self.path.clone(),
                id: run_id,
            });
        }
        Ok(())
    }

    /// Records a whole run at once (one transaction); returns its id.
    pub fn save_run(
        &mut self,
        run: &NewRun,
        measurements: &[Measurement],
        finished_ms: i64,
    ) -> Result<i64, StoreError> {
        let id = self.begin_run(run)?;
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction()
            .map_err(|source| StoreError::Sqlite {
                path: path.clone(),
                source,
            })?;
        for m in measurements {
            insert_measurement(&tx, id, m, &path)?;
        }
        tx.commit()
            .map_err(|source| StoreError::Sqlite { path, source })?;
        self.finish_run_at(id, finished_ms)?;
        Ok(id)
    }

    /// Every run, oldest first.
    pub fn list_runs(&self) -> Result<Vec<RunInfo>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(&format!("{RUN_INFO_SELECT} ORDER BY r.id"))
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], run_info_from_row)
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.sql(e))
    }

    /// The id of the newest run, if any.
    pub fn latest_run(&self) -> Result<Option<i64>, StoreError> {
        self.conn
            .query_row("SELECT max(id) FROM runs", [], |r| {
                r.get::<_, Option<i64>>(0)
            })
            .map_err(|e| self.sql(e))
    }

    /// Loads run `id` with its machine, settings, validity, measurements and samples.
    pub fn load_run(&self, id: i64) -> Result<Run, StoreError> {
        let row = self
            .conn
            .query_row(&format!("{RUN_INFO_SELECT} WHERE r.id = ?1"), [id], |r| {
                Ok((
                    run_info_from_row(r)?,
                    r.get::<_, String>(8)?,
                    r.get::<_, String>(9)?,
                    r.get::<_, String>(10)?,
                ))
            })
            .optional()
            .map_err(|e| self.sql(e))?;
        let Some((info, machine, settings, validity)) = row else {
            return Err(StoreError::RunNotFound {
                path: self.path.clone(),
                id,
            });
        };
        let machine: MachineInfo = serde_json::from_str(&machine)
            .map_err(|e| self.corrupt(format!("run {id}'s machine"), e))?;
        let settings: Settings = serde_json::from_str(&settings)
            .map_err(|e| self.corrupt(format!("run {id}'s settings"), e))?;
        let validity: Validity = serde_json::from_str(&validity)
            .map_err(|e| self.corrupt(format!("run {id}'s validity"), e))?;
        let measurements = self.load_measurements(id, &validity.timer)?;
        let artifacts = self.load_artifacts(id)?;
        Ok(Run {
            info,
            machine,
            settings,
            validity,
            measurements,
            artifacts,
        })
    }

    /// Adds an artifact to run `run_id`.
    pub fn add_artifact(&mut self, run_id: i64, a: &Artifact) -> Result<i64, StoreError> {
        self.conn
            .execute(
                "INSERT INTO artifacts (run_id, study, name, kind, media_type, title, data)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    run_id,
                    a.study,
                    a.name,
                    a.kind.as_str(),
                    a.kind.media_type(),
                    a.title,
                    a.data
                ],
            )
            .map_err(|e| self.sql(e))?;
        Ok(self.conn.last_insert_rowid())
    }

    fn load_artifacts(&self, run_id: i64) -> Result<Vec<Artifact>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT study, name, kind, title, data FROM artifacts
                 WHERE run_id = ?1 ORDER BY id",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([run_id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, Vec<u8>>(4)?,
                ))
            })
            .map_err(|e| self.sql(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.sql(e))?;
        rows.into_iter()
            .map(|(study, name, kind, title, data)| {
                let kind = ArtifactKind::parse(&kind).ok_or_else(|| {
                    self.corrupt(
                        format!("run {run_id}'s artifact {study}/{name}"),
                        format!("unknown kind {kind}"),
                    )
                })?;
                Ok(Artifact {
                    study,
                    name,
                    kind,
                    title,
                    data,
                })
            })
            .collect()
    }

    /// Run `run_id`'s measurements; every one was timed with the run's `timer` (the
    /// schema has no column of its own for it).
    fn load_measurements(&self, run_id: i64, timer: &str) -> Result<Vec<Measurement>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, study, algorithm, implementation, runtime, phase, size_bytes, data_type,
                        mode, unit, bytes_per_op, batch, forks, n, median, mean, std_dev,
                        ci_low, ci_high, ci_level, min, max, outliers_low_severe,
                        outliers_low_mild, outliers_high_mild, outliers_high_severe,
                        outliers_mad, bytes_per_second, ticks_per_op, ticks_per_byte,
                        warnings_json
                 FROM measurements WHERE run_id = ?1 ORDER BY id",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([run_id], |r| {
                Ok(MeasurementRow {
                    id: r.get(0)?,
                    bench: BenchId {
                        study: r.get(1)?,
                        algorithm: r.get(2)?,
                        implementation: r.get(3)?,
                        runtime: r.get(4)?,
                        phase: r.get(5)?,
                        size: r.get::<_, i64>(6)? as u64,
                        data_type: r.get(7)?,
                    },
                    mode: r.get(8)?,
                    unit: r.get(9)?,
                    bytes_per_op: r.get::<_, Option<i64>>(10)?.map(|v| v as u64),
                    batch: r.get::<_, i64>(11)? as u64,
                    forks: r.get(12)?,
                    summary: Summary {
                        n: r.get(13)?,
                        median: r.get(14)?,
                        mean: r.get(15)?,
                        std_dev: r.get(16)?,
                        median_ci: Interval {
                            estimate: r.get(14)?,
                            low: r.get(17)?,
                            high: r.get(18)?,
                            confidence: r.get(19)?,
                        },
                        min: r.get(20)?,
                        max: r.get(21)?,
                        outliers: TukeyOutliers {
                            low_severe: r.get(22)?,
                            low_mild: r.get(23)?,
                            high_mild: r.get(24)?,
                            high_severe: r.get(25)?,
                        },
                        mad_outliers: r.get(26)?,
                    },
                    bytes_per_second: r.get(27)?,
                    ticks_per_op: r.get(28)?,
                    ticks_per_byte: r.get(29)?,
                    warnings: r.get(30)?,
                })
            })
            .map_err(|e| self.sql(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.sql(e))?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let what = format!("measurement {} ({})", row.id, row.bench.key());
            let mode: Mode = row
                .mode
                .parse()
                .map_err(|e| self.corrupt(format!("{what}'s mode"), e))?;
            let unit = Unit::parse(&row.unit).ok_or_else(|| {
                self.corrupt(
                    format!("{what}'s unit"),
                    format!("unknown unit {}", row.unit),
                )
            })?;
            let warnings = serde_json::from_str(&row.warnings)
                .map_err(|e| self.corrupt(format!("{what}'s warnings"), e))?;
            out.push(Measurement {
                id: row.bench,
                timer: timer.to_string(),
                mode,
                unit,
                bytes_per_op: row.bytes_per_op,
                batch: row.batch,
                forks: row.forks,
                summary: row.summary,
                bytes_per_second: row.bytes_per_second,
                ticks_per_op: row.ticks_per_op,
                ticks_per_byte: row.ticks_per_byte,
                warnings,
                samples: self.load_samples(row.id)?,
            });
        }
        Ok(out)
    }

    fn load_samples(&self, measurement_id: i64) -> Result<Vec<RawSample>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT fork, iterations, ns, ticks FROM samples
                 WHERE measurement_id = ?1 ORDER BY seq",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([measurement_id], |r| {
                Ok(RawSample {
                    fork: r.get(0)?,
                    iterations: r.get::<_, i64>(1)? as u64,
                    ns: r.get::<_, i64>(2)? as u64,
                    ticks: r.get::<_, Option<i64>>(3)?.map(|t| t as u64),
                })
            })
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.sql(e))
    }

    /// The underlying connection, for queries this API does not offer (the report's).
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}

struct MeasurementRow {
    id: i64,
    bench: BenchId,
    mode: String,
    unit: String,
    bytes_per_op: Option<u64>,
    batch: u64,
    forks: u32,
    summary: Summary,
    bytes_per_second: Option<f64>,
    ticks_per_op: Option<f64>,
    ticks_per_byte: Option<f64>,
    warnings: String,
}

const RUN_INFO_SELECT: &str = "SELECT r.id, r.started_ms, r.finished_ms, r.command_line,
        r.cipherlab_version, r.machine_id, m.cpu_model,
        (SELECT count(*) FROM measurements x WHERE x.run_id = r.id),
        m.json, r.settings_json, r.validity_json
    FROM runs r JOIN machines m ON m.id = r.machine_id";

fn run_info_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RunInfo> {
    Ok(RunInfo {
        id: r.get(0)?,
        started_ms: r.get(1)?,
        finished_ms: r.get(2)?,
        command_line: r.get(3)?,
        cipherlab_version: r.get(4)?,
        machine_id: r.get(5)?,
        cpu_model: r.get(6)?,
        measurements: r.get(7)?,
    })
}

fn insert_machine(tx: &Transaction<'_>, m: &MachineInfo) -> rusqlite::Result<i64> {
    let fingerprint = m.fingerprint();
    if let Some(id) = tx
        .query_row(
            "SELECT id FROM machines WHERE fingerprint = ?1",
            [&fingerprint],
            |r| r.get::<_, i64>(0),
        )
        .optional()?
    {
        return Ok(id);
    }
    tx.execute(
        "INSERT INTO machines (fingerprint, cpu_model, arch, cpu_flags, logical_cores,
                               memory_bytes, os, kernel, rustc, build, cipherlab_version,
                               hostname_hash, json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![
            fingerprint,
            m.cpu_model,
            m.arch,
            m.flags_present(),
            m.logical_cores,
            m.memory_bytes.min(i64::MAX as u64) as i64,
            m.os,
            m.kernel,
            m.rustc,
            m.build,
            m.cipherlab_version,
            m.hostname_hash,
            m.to_json()
        ],
    )?;
    Ok(tx.last_insert_rowid())
}

fn insert_measurement(
    tx: &Transaction<'_>,
    run_id: i64,
    m: &Measurement,
    path: &str,
) -> Result<i64, StoreError> {
    let sql = |source| StoreError::Sqlite {
        path: path.to_string(),
        source,
    };
    let s = &m.summary;
    let warnings = serde_json::to_string(&m.warnings).map_err(|e| StoreError::Corrupt {
        path: path.to_string(),
        what: "warnings".to_string(),
        reason: e.to_string(),
    })?;
    tx.execute(
        "INSERT INTO measurements (run_id, study, algorithm, implementation, runtime, phase,
             size_bytes, data_type, mode, unit, bytes_per_op, batch, forks, n, median, mean,
             std_dev, ci_low, ci_high, ci_level, min, max, outliers_low_severe,
             outliers_low_mild, outliers_high_mild, outliers_high_severe, outliers_mad,
             bytes_per_second, ticks_per_op, ticks_per_byte, warnings_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                 ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31)",
        params![
            run_id,
            m.id.study,
            m.id.algorithm,
            m.id.implementation,
            m.id.runtime,
            m.id.phase,
            int("size", m.id.size)?,
            m.id.data_type,
            m.mode.as_str(),
            m.unit.as_str(),
            m.bytes_per_op.map(|b| int("bytes per op", b)).transpose()?,
            int("batch", m.batch)?,
            m.forks,
            s.n,
            s.median,
            s.mean,
            s.std_dev,
            s.median_ci.low,
            s.median_ci.high,
            s.median_ci.confidence,
            s.min,
            s.max,
            s.outliers.low_severe,
            s.outliers.low_mild,
            s.outliers.high_mild,
            s.outliers.high_severe,
            s.mad_outliers,
            m.bytes_per_second,
            m.ticks_per_op,
            m.ticks_per_byte,
            warnings
        ],
    )
    .map_err(sql)?;
    let id = tx.last_insert_rowid();
    let mut stmt = tx
        .prepare_cached(
            "INSERT INTO samples (measurement_id, seq, fork, iterations, ns, ticks)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )
        .map_err(sql)?;
    for (seq, x) in m.samples.iter().enumerate() {
        stmt.execute(params![
            id,
            seq as i64,
            x.fork,
            int("iterations", x.iterations)?,
            int("ns", x.ns)?,
            x.ticks.map(|t| int("ticks", t)).transpose()?
        ])
        .map_err(sql)?;
    }
    Ok(id)
}
