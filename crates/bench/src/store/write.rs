//! Writing runs: machines, runs, measurements with their samples, artifacts.

use rusqlite::{OptionalExtension, Transaction, params};

use super::{Artifact, NewRun, Store, StoreError, int, now_ms};
use crate::id::Measurement;
use cipherlab_harness::machine::MachineInfo;

impl Store {
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
                                   timer_resolution_ns, empty_op_ns, settings_json, validity_json,
                                   load_start, load_end)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    run.started_ms,
                    run.command_line,
                    run.machine.cipherlab_version,
                    machine_id,
                    int("timer resolution", run.validity.resolution_ns)?,
                    run.validity.empty_op_ns,
                    settings,
                    validity,
                    run.load_start,
                    run.load_end
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
             bytes_per_second, ticks_per_op, ticks_per_byte, warnings_json, timer)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                 ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32)",
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
            warnings,
            m.timer
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
