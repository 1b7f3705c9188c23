//! Writing runs: machines, runs, measurements with their samples, artifacts.
//!
//! A run written whole ([`Store::save_run`], [`Store::save_run_with`], imports) is one
//! transaction: a reader sees all of it or none of it, and a writer killed midway leaves
//! nothing. A run written piece by piece ([`Store::begin_run`], then
//! [`Store::add_measurement`]) is visible from its start with no `finished_ms`, which
//! readers show as interrupted; each measurement with its samples is one transaction.

use sha2::{Digest, Sha256};

use super::engine::{Engine, Value};
use super::schema::SALT_KEY;
use super::{MEASUREMENT_COLUMNS, NewRun, Store, StoreError, int, now_ms};
use crate::artifact::Artifact;
use crate::id::Measurement;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::{Settings, Validity};

/// Everything a run's rows hold, ready to insert: from a new run on this machine, or
/// from another store or export being imported.
pub(super) struct RunRecord<'a> {
    pub uuid: String,
    pub started_ms: i64,
    pub finished_ms: Option<i64>,
    pub command_line: &'a str,
    pub cipherlab_version: &'a str,
    /// The machine block as stored (its host-name hash already salted).
    pub machine: &'a MachineInfo,
    pub settings: &'a Settings,
    pub validity: &'a Validity,
    pub measurements: &'a [Measurement],
    pub artifacts: &'a [Artifact],
    /// The load average at the run's start and end.
    pub load: (Option<f64>, Option<f64>),
}

impl Store {
    /// The id of `machine`'s row, inserting it as it is if it is new (one row per
    /// [`MachineInfo::fingerprint`]). Runs recorded with [`Store::begin_run`] and
    /// [`Store::save_run`] salt the host-name hash first ([`Store::salted`]).
    pub fn machine_id(&mut self, machine: &MachineInfo) -> Result<i64, StoreError> {
        let path = self.path.clone();
        self.in_transaction(|db| insert_machine(db, machine, &path))
    }

    /// `machine` as this store records it: its host-name hash hashed again with the
    /// store's salt (`store_meta.hostname_salt`), so the same host has a different hash
    /// in every store and a shared store cannot be matched against a list of host names
    /// hashed without the salt (docs/results.md, "Machines").
    pub fn salted(&self, machine: &MachineInfo) -> Result<MachineInfo, StoreError> {
        let rows = self.query(
            "SELECT value FROM store_meta WHERE name = ?1",
            &[SALT_KEY.into()],
        )?;
        let salt = rows
            .first()
            .and_then(|r| r.text(0).ok())
            .ok_or_else(|| self.corrupt("store_meta.hostname_salt", "missing"))?;
        let digest = Sha256::digest(format!("{salt}:{}", machine.hostname_hash));
        let mut m = machine.clone();
        m.hostname_hash = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        Ok(m)
    }

    /// Records the start of a run; returns its id. The run is visible at once, without
    /// `finished_ms` (interrupted) until [`Store::finish_run`].
    pub fn begin_run(&mut self, run: &NewRun) -> Result<i64, StoreError> {
        let machine = self.salted(&run.machine)?;
        let record = RunRecord::new(run, &machine, None, &[], &[]);
        let path = self.path.clone();
        self.in_transaction(|db| insert_run(db, &record, &path))
    }

    /// Adds a measurement and its samples to run `run_id` (one transaction).
    pub fn add_measurement(&mut self, run_id: i64, m: &Measurement) -> Result<i64, StoreError> {
        let path = self.path.clone();
        self.in_transaction(|db| insert_measurement(db, run_id, m, &path))
    }

    /// Marks run `run_id` finished now.
    pub fn finish_run(&mut self, run_id: i64) -> Result<(), StoreError> {
        self.finish_run_at(run_id, now_ms())
    }

    /// Marks run `run_id` finished at `finished_ms`.
    pub fn finish_run_at(&mut self, run_id: i64, finished_ms: i64) -> Result<(), StoreError> {
        let n = self.execute(
            "UPDATE runs SET finished_ms = ?1 WHERE id = ?2",
            &[finished_ms.into(), run_id.into()],
        )?;
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
        self.save_run_with(run, measurements, &[], finished_ms)
    }

    /// Records a whole run with its artifacts in one transaction; returns its id. This
    /// is how `cipherlab bench` writes: readers (and other writers) of a shared store
    /// never see part of a run.
    pub fn save_run_with(
        &mut self,
        run: &NewRun,
        measurements: &[Measurement],
        artifacts: &[Artifact],
        finished_ms: i64,
    ) -> Result<i64, StoreError> {
        let machine = self.salted(&run.machine)?;
        let record = RunRecord::new(run, &machine, Some(finished_ms), measurements, artifacts);
        let path = self.path.clone();
        self.in_transaction(|db| insert_run(db, &record, &path))
    }

    /// Adds an artifact to run `run_id`.
    pub fn add_artifact(&mut self, run_id: i64, a: &Artifact) -> Result<i64, StoreError> {
        let path = self.path.clone();
        self.in_transaction(|db| insert_artifact(db, run_id, a, &path))
    }

    /// Inserts `record` whole in one transaction unless a run with its UUID is already
    /// stored; returns the new local id, or `None` when it was there.
    pub(super) fn insert_if_new(
        &mut self,
        record: &RunRecord<'_>,
    ) -> Result<Option<i64>, StoreError> {
        let path = self.path.clone();
        self.in_transaction(|db| {
            let known = db
                .query(
                    "SELECT id FROM runs WHERE uuid = ?1",
                    &[(&record.uuid).into()],
                )
                .map_err(|e| db_error(&path, e))?;
            if !known.is_empty() {
                return Ok(None);
            }
            insert_run(db, record, &path).map(Some)
        })
    }
}

impl<'a> RunRecord<'a> {
    fn new(
        run: &'a NewRun,
        machine: &'a MachineInfo,
        finished_ms: Option<i64>,
        measurements: &'a [Measurement],
        artifacts: &'a [Artifact],
    ) -> RunRecord<'a> {
        RunRecord {
            uuid: uuid::Uuid::new_v4().to_string(),
            started_ms: run.started_ms,
            finished_ms,
            command_line: &run.command_line,
            cipherlab_version: &run.machine.cipherlab_version,
            machine,
            settings: &run.settings,
            validity: &run.validity,
            measurements,
            artifacts,
            load: (run.load_start, run.load_end),
        }
    }
}

fn db_error(path: &str, cause: super::EngineError) -> StoreError {
    StoreError::Database {
        path: path.to_string(),
        cause,
    }
}

fn corrupt(path: &str, what: &str, e: impl ToString) -> StoreError {
    StoreError::Corrupt {
        path: path.to_string(),
        what: what.to_string(),
        reason: e.to_string(),
    }
}

/// The single id a `RETURNING id` statement gave.
fn returned_id(db: &Engine, sql: &str, params: &[Value], path: &str) -> Result<i64, StoreError> {
    let rows = db.query(sql, params).map_err(|e| db_error(path, e))?;
    rows.first()
        .and_then(|r| r.int(0).ok())
        .ok_or_else(|| corrupt(path, "an inserted row's id", "none returned"))
}

fn insert_machine(db: &Engine, m: &MachineInfo, path: &str) -> Result<i64, StoreError> {
    let fingerprint = m.fingerprint();
    let known = db
        .query(
            "SELECT id FROM machines WHERE fingerprint = ?1",
            &[(&fingerprint).into()],
        )
        .map_err(|e| db_error(path, e))?;
    if let Some(id) = known.first().and_then(|r| r.int(0).ok()) {
        return Ok(id);
    }
    // Two writers may add the same new machine at once: the loser's insert does nothing
    // (ON CONFLICT) and the row is read again.
    db.execute(
        "INSERT INTO machines (fingerprint, cpu_model, arch, cpu_flags, logical_cores,
                               memory_bytes, os, kernel, rustc, build, cipherlab_version,
                               hostname_hash, json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
         ON CONFLICT (fingerprint) DO NOTHING",
        &[
            (&fingerprint).into(),
            (&m.cpu_model).into(),
            (&m.arch).into(),
            m.flags_present().into(),
            i64::from(m.logical_cores).into(),
            (m.memory_bytes.min(i64::MAX as u64) as i64).into(),
            (&m.os).into(),
            (&m.kernel).into(),
            (&m.rustc).into(),
            (&m.build).into(),
            (&m.cipherlab_version).into(),
            (&m.hostname_hash).into(),
            m.to_json().into(),
        ],
    )
    .map_err(|e| db_error(path, e))?;
    returned_id(
        db,
        "SELECT id FROM machines WHERE fingerprint = ?1",
        &[fingerprint.into()],
        path,
    )
}

fn insert_run(db: &Engine, r: &RunRecord<'_>, path: &str) -> Result<i64, StoreError> {
    let machine_id = insert_machine(db, r.machine, path)?;
    let settings = serde_json::to_string(r.settings).map_err(|e| corrupt(path, "settings", e))?;
    let validity = serde_json::to_string(r.validity).map_err(|e| corrupt(path, "validity", e))?;
    let id = returned_id(
        db,
        "INSERT INTO runs (uuid, started_ms, finished_ms, command_line, cipherlab_version,
                           machine_id, timer_resolution_ns, empty_op_ns, settings_json,
                           validity_json, load_start, load_end)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) RETURNING id",
        &[
            (&r.uuid).into(),
            r.started_ms.into(),
            r.finished_ms.into(),
            r.command_line.into(),
            r.cipherlab_version.into(),
            machine_id.into(),
            int("timer resolution", r.validity.resolution_ns)?.into(),
            r.validity.empty_op_ns.into(),
            settings.into(),
            validity.into(),
            r.load.0.into(),
            r.load.1.into(),
        ],
        path,
    )?;
    for m in r.measurements {
        insert_measurement(db, id, m, path)?;
    }
    for a in r.artifacts {
        insert_artifact(db, id, a, path)?;
    }
    Ok(id)
}

fn insert_artifact(db: &Engine, run_id: i64, a: &Artifact, path: &str) -> Result<i64, StoreError> {
    returned_id(
        db,
        "INSERT INTO artifacts (run_id, study, name, kind, media_type, title, data)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
        &[
            run_id.into(),
            (&a.study).into(),
            (&a.name).into(),
            a.kind().as_str().into(),
            a.kind().media_type().into(),
            (&a.title).into(),
            Value::Blob(a.to_bytes()),
        ],
        path,
    )
}

/// The values of `m` for [`MEASUREMENT_COLUMNS`] after the internal `id`, in that order:
/// the one place a measurement becomes a row (the exports' rows are these values too).
pub(crate) fn measurement_values(
    m: &Measurement,
) -> Result<[Value; MEASUREMENT_COLUMNS.len() - 1], StoreError> {
    let s = &m.summary;
    let warnings = serde_json::to_string(&m.warnings).map_err(|e| StoreError::Corrupt {
        path: String::new(),
        what: "warnings".to_string(),
        reason: e.to_string(),
    })?;
    Ok([
        (&m.id.study).into(),
        m.id.algorithm.name().into(),
        (&m.id.implementation).into(),
        m.id.runtime.as_str().into(),
        m.id.phase.as_str().into(),
        int("size", m.id.size)?.into(),
        (&m.id.data_type).into(),
        m.mode.as_str().into(),
        m.unit.as_str().into(),
        m.bytes_per_op
            .map(|b| int("bytes per op", b))
            .transpose()?
            .into(),
        int("batch", m.batch)?.into(),
        m.forks.into(),
        s.n.into(),
        s.median.into(),
        s.mean.into(),
        s.std_dev.into(),
        s.median_ci.low.into(),
        s.median_ci.high.into(),
        s.median_ci.confidence.into(),
        s.min.into(),
        s.max.into(),
        s.outliers.low_severe.into(),
        s.outliers.low_mild.into(),
        s.outliers.high_mild.into(),
        s.outliers.high_severe.into(),
        s.mad_outliers.into(),
        m.bytes_per_second.into(),
        m.ticks_per_op.into(),
        m.ticks_per_byte.into(),
        warnings.into(),
        m.timer.as_str().into(),
    ])
}

/// `INSERT INTO measurements` of `run_id` and [`measurement_values`]' columns.
fn insert_measurement_sql() -> String {
    let columns = &MEASUREMENT_COLUMNS[1..];
    let placeholders: Vec<String> = (1..=columns.len() + 1).map(|i| format!("?{i}")).collect();
    format!(
        "INSERT INTO measurements (run_id, {}) VALUES ({}) RETURNING id",
        columns.join(", "),
        placeholders.join(", ")
    )
}

fn insert_measurement(
    db: &Engine,
    run_id: i64,
    m: &Measurement,
    path: &str,
) -> Result<i64, StoreError> {
    let mut values = vec![Value::Int(run_id)];
    values.extend(measurement_values(m)?);
    let id = returned_id(db, &insert_measurement_sql(), &values, path)?;
    for (seq, x) in m.samples.iter().enumerate() {
        db.execute(
            "INSERT INTO samples (measurement_id, seq, fork, iterations, ns, ticks)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            &[
                id.into(),
                (seq as i64).into(),
                x.fork.into(),
                int("iterations", x.iterations)?.into(),
                int("ns", x.ns)?.into(),
                x.ticks.map(|t| int("ticks", t)).transpose()?.into(),
            ],
        )
        .map_err(|e| db_error(path, e))?;
    }
    Ok(id)
}
