//! The schema: its migrations, applied in order on open.

use rusqlite::params;

use super::{Store, StoreError};

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
    Migration {
        version: 3,
        description: "the timer of each measurement; the load average at a run's start and end",
        // Every measurement stored before this version was read on the wall clock (the
        // harness had no other per-call clock), so old rows say so.
        sql: r#"
ALTER TABLE measurements ADD COLUMN timer TEXT NOT NULL DEFAULT 'wall-clock';
ALTER TABLE runs ADD COLUMN load_start REAL;
ALTER TABLE runs ADD COLUMN load_end REAL;
"#,
    },
];

/// The schema version this build writes and understands.
pub const SCHEMA_VERSION: u32 = 3;

impl Store {
    /// The database's schema version (`PRAGMA user_version`).
    pub fn schema_version(&self) -> Result<u32, StoreError> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get::<_, u32>(0))
            .map_err(|e| self.sql(e))
    }

    pub(super) fn migrate(&mut self) -> Result<(), StoreError> {
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
}
