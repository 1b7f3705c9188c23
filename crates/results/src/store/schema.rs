//! The schema: its migrations, applied in order on open, the same on both engines (the
//! SQL is SQLite's spelling; `engine::postgres_sql` translates its type names).

use sha2::{Digest, Sha256};

use super::engine::{Engine, EngineError, EngineKind};
use super::{Store, StoreError, now_ms};

/// One step of the schema's history.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// The version this migration produces.
    pub version: u32,
    /// What it changes.
    pub description: &'static str,
    /// The SQL, in SQLite's spelling, run in the transaction that migrates.
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
        description: "runs from many machines: a UUID per run, the store's salt for host names",
        sql: r#"
ALTER TABLE runs ADD COLUMN uuid TEXT;
CREATE UNIQUE INDEX runs_by_uuid ON runs (uuid);
CREATE TABLE store_meta (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"#,
    },
    Migration {
        version: 4,
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
pub const SCHEMA_VERSION: u32 = 4;

/// The `store_meta` row holding the salt of host-name hashes.
pub(super) const SALT_KEY: &str = "hostname_salt";

/// The key of PostgreSQL's advisory lock held while migrating, so that a fleet of
/// machines opening a new database at once migrates it once (any constant works; this
/// is "ciph" in ASCII).
const MIGRATION_LOCK: i64 = 0x6369_7068;

impl Store {
    /// The database's schema version.
    pub fn schema_version(&self) -> Result<u32, StoreError> {
        version(&self.engine).map_err(|e| self.sql(e))
    }

    /// Applies the missing migrations, all in one transaction that first takes the
    /// engine's write lock (SQLite's `BEGIN IMMEDIATE`, an advisory lock on PostgreSQL)
    /// and then reads the version, so concurrent openers migrate once.
    pub(super) fn migrate(&mut self) -> Result<(), StoreError> {
        let path = self.path.clone();
        let err = |cause| StoreError::Database {
            path: path.clone(),
            cause,
        };
        // Nothing to do (the common case) needs no write lock.
        let found = version(&self.engine).map_err(err)?;
        if found == SCHEMA_VERSION {
            return Ok(());
        }
        self.engine.transaction(err, |db| {
            if db.kind() == EngineKind::Postgres {
                db.execute("SELECT pg_advisory_xact_lock(?1)", &[MIGRATION_LOCK.into()])
                    .map_err(err)?;
            }
            let found = version(db).map_err(err)?;
            if found > SCHEMA_VERSION {
                return Err(StoreError::NewerSchema {
                    path: path.clone(),
                    found,
                    supported: SCHEMA_VERSION,
                });
            }
            for m in MIGRATIONS.iter().filter(|m| m.version > found) {
                apply(db, m).map_err(err)?;
            }
            Ok(())
        })
    }
}

/// The version recorded in the database (0 for an empty one).
fn version(db: &Engine) -> Result<u32, EngineError> {
    let v = match db.kind() {
        EngineKind::Sqlite => db.query("PRAGMA user_version", &[])?,
        EngineKind::Postgres => {
            let tables = db.query(
                "SELECT count(*) FROM information_schema.tables
                 WHERE table_schema = current_schema() AND table_name = 'schema_version'",
                &[],
            )?;
            if tables.first().and_then(|r| r.int(0).ok()) == Some(0) {
                return Ok(0);
            }
            db.query("SELECT coalesce(max(version), 0) FROM schema_version", &[])?
        }
    };
    Ok(v.first()
        .and_then(|r| r.int(0).ok())
        .and_then(|v| u32::try_from(v).ok())
        .unwrap_or(0))
}

fn apply(db: &Engine, m: &Migration) -> Result<(), EngineError> {
    match db.kind() {
        EngineKind::Sqlite => db.batch(m.sql)?,
        EngineKind::Postgres => db.batch(&super::engine::postgres_sql(m.sql))?,
    }
    if m.version == 3 {
        backfill_run_uuids(db)?;
        let salt = uuid::Uuid::new_v4().simple().to_string();
        db.execute(
            "INSERT INTO store_meta (name, value) VALUES (?1, ?2)",
            &[SALT_KEY.into(), salt.into()],
        )?;
    }
    let applied_at = format!("{}Z", crate::time::utc(now_ms()).replacen(' ', "T", 1));
    db.execute(
        "INSERT INTO schema_version (version, applied_at, description) VALUES (?1, ?2, ?3)",
        &[m.version.into(), applied_at.into(), m.description.into()],
    )?;
    if db.kind() == EngineKind::Sqlite {
        db.batch(&format!("PRAGMA user_version = {}", m.version))?;
    }
    Ok(())
}

/// Runs written before version 3 get a UUID derived from what identifies them (the
/// machine's fingerprint, start time, command line and local id), so two copies of one
/// old file migrate to the same UUIDs and importing both adds the runs once. New runs
/// get random (version 4) UUIDs.
fn backfill_run_uuids(db: &Engine) -> Result<(), EngineError> {
    let rows = db.query(
        "SELECT r.id, r.started_ms, r.command_line, m.fingerprint
         FROM runs r JOIN machines m ON m.id = r.machine_id WHERE r.uuid IS NULL",
        &[],
    )?;
    for r in rows {
        let (Ok(id), Ok(started), Ok(command), Ok(fingerprint)) =
            (r.int(0), r.int(1), r.text(2), r.text(3))
        else {
            continue;
        };
        db.execute(
            "UPDATE runs SET uuid = ?1 WHERE id = ?2",
            &[
                legacy_uuid(&fingerprint, started, &command, id).into(),
                id.into(),
            ],
        )?;
    }
    Ok(())
}

/// A version-8 (custom) UUID: the first 16 bytes of a SHA-256 of the run's identity.
pub(super) fn legacy_uuid(fingerprint: &str, started_ms: i64, command: &str, id: i64) -> String {
    let digest = Sha256::digest(format!(
        "cipherlab-run\0{fingerprint}\0{started_ms}\0{command}\0{id}"
    ));
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_custom_bytes(bytes)
        .into_uuid()
        .to_string()
}
