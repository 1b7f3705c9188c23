//! Importing runs made elsewhere: another store's SQLite file, or the JSON export of
//! `cipherlab report --json`. A run is known by its UUID, so importing a file twice (or
//! two copies of it) adds its runs once; each run is inserted whole, in one transaction.
//!
//! Runs keep their machine block as the other store recorded it (its host-name hash was
//! salted by that store; the host name itself was never stored anywhere, so it cannot be
//! salted again here).

use std::path::Path;

use serde_json::Value as Json;

use super::engine::{Row, Value};
use super::read::{MEASUREMENT_COLUMNS, measurement_from_row};
use super::schema::legacy_uuid;
use super::write::RunRecord;
use super::{Artifact, Run, Store, StoreError};
use crate::id::Measurement;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::{RawSample, Settings, Validity};

/// What one file added.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Runs added to the store.
    pub added: usize,
    /// Runs the store already had (same UUID), left as they were.
    pub already_present: usize,
    /// Artifacts a JSON export names but does not carry (it holds their metadata only);
    /// import the SQLite file to bring them.
    pub artifacts_not_carried: usize,
}

/// SQLite's file header.
const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";

impl Store {
    /// Imports every run of `file` (a cipherlab SQLite file, or a JSON export) that this
    /// store does not have yet. An old SQLite file is migrated in place first, as any
    /// command opening it would.
    pub fn import(&mut self, file: &Path) -> Result<ImportReport, StoreError> {
        let bad = |reason: String| StoreError::Import {
            path: file.display().to_string(),
            reason,
        };
        let bytes = std::fs::read(file).map_err(|e| bad(format!("cannot read it: {e}")))?;
        if bytes.starts_with(SQLITE_MAGIC) {
            let source = Store::open(file)?;
            let mut report = ImportReport::default();
            for info in source.list_runs()? {
                let run = source.load_run(info.id)?;
                self.import_run(&run.info.uuid.clone(), &run, &mut report)?;
            }
            return Ok(report);
        }
        let doc: Json = serde_json::from_slice(&bytes).map_err(|e| {
            bad(format!(
                "neither a cipherlab SQLite file nor a JSON export ({e})"
            ))
        })?;
        if doc.get("format").and_then(Json::as_str) != Some("cipherlab-results") {
            return Err(bad(
                "is JSON but not a cipherlab export (`\"format\": \"cipherlab-results\"` is missing): \
                 `cipherlab report --json FILE` writes one"
                    .to_string(),
            ));
        }
        let runs = doc
            .get("runs")
            .and_then(Json::as_array)
            .ok_or_else(|| bad("has no `runs` array".to_string()))?;
        let mut report = ImportReport::default();
        for (i, r) in runs.iter().enumerate() {
            let (uuid, run, artifacts) =
                run_from_json(r).map_err(|e| bad(format!("run {} of the file: {e}", i + 1)))?;
            report.artifacts_not_carried += artifacts;
            self.import_run(&uuid, &run, &mut report)?;
        }
        Ok(report)
    }

    fn import_run(
        &mut self,
        uuid: &str,
        run: &Run,
        report: &mut ImportReport,
    ) -> Result<(), StoreError> {
        let record = RunRecord {
            uuid: uuid.to_string(),
            started_ms: run.info.started_ms,
            finished_ms: run.info.finished_ms,
            command_line: &run.info.command_line,
            cipherlab_version: &run.info.cipherlab_version,
            machine: &run.machine,
            settings: &run.settings,
            validity: &run.validity,
            measurements: &run.measurements,
            artifacts: &run.artifacts,
            load: (run.info.load_start, run.info.load_end),
        };
        match self.insert_if_new(&record)? {
            Some(_) => report.added += 1,
            None => report.already_present += 1,
        }
        Ok(())
    }
}

fn field<'a>(j: &'a Json, name: &str) -> Result<&'a Json, String> {
    j.get(name).ok_or_else(|| format!("`{name}` is missing"))
}

fn typed<T: serde::de::DeserializeOwned>(j: &Json, name: &str) -> Result<T, String> {
    serde_json::from_value(field(j, name)?.clone()).map_err(|e| format!("`{name}`: {e}"))
}

/// One run of a JSON export: its UUID (derived as the store's migration derives it for
/// exports made before runs had one), the run, and how many artifacts it names.
fn run_from_json(r: &Json) -> Result<(String, Run, usize), String> {
    let id: i64 = typed(r, "id")?;
    let started_ms: i64 = typed(r, "started_ms")?;
    let command_line: String = typed(r, "command_line")?;
    let machine: MachineInfo = typed(r, "machine")?;
    let validity: Validity = typed(r, "validity")?;
    let uuid = match r.get("uuid").and_then(Json::as_str) {
        Some(u) => u.to_string(),
        None => legacy_uuid(&machine.fingerprint(), started_ms, &command_line, id),
    };
    let measurements = field(r, "measurements")?
        .as_array()
        .ok_or("`measurements` is not an array")?
        .iter()
        .map(|m| measurement_from_json(m, &validity.timer))
        .collect::<Result<Vec<_>, _>>()?;
    let artifacts = r
        .get("artifacts")
        .and_then(Json::as_array)
        .map_or(0, Vec::len);
    let run = Run {
        info: super::RunInfo {
            id,
            uuid: uuid.clone(),
            started_ms,
            finished_ms: typed(r, "finished_ms")?,
            command_line,
            cipherlab_version: typed(r, "cipherlab_version")?,
            machine_id: 0,
            cpu_model: machine.cpu_model.clone(),
            machine_fingerprint: machine.fingerprint(),
            measurements: measurements.len() as u32,
            load_start: r.get("load_start").and_then(Json::as_f64),
            load_end: r.get("load_end").and_then(Json::as_f64),
        },
        settings: typed::<Settings>(r, "settings")?,
        machine,
        validity,
        measurements,
        artifacts: Vec::<Artifact>::new(),
    };
    Ok((uuid, run, artifacts))
}

/// A measurement of a JSON export, read through the same row decoding as the store's
/// (the export's fields are the table's columns, with `warnings` as JSON).
fn measurement_from_json(m: &Json, timer: &str) -> Result<Measurement, String> {
    let mut row = Vec::with_capacity(MEASUREMENT_COLUMNS.len());
    for name in MEASUREMENT_COLUMNS {
        row.push(match name {
            "id" => Value::Int(0),
            "warnings_json" => Value::Text(field(m, "warnings")?.to_string()),
            // Exports made before measurements carried their timer: the run's.
            "timer" => match m.get("timer") {
                Some(Json::String(t)) => Value::Text(t.clone()),
                _ => Value::Text(timer.to_string()),
            },
            _ => match field(m, name)? {
                Json::Null => Value::Null,
                Json::String(s) => Value::Text(s.clone()),
                Json::Number(n) => match n.as_i64() {
                    Some(i) => Value::Int(i),
                    None => Value::Real(n.as_f64().ok_or(format!("`{name}` is not a number"))?),
                },
                other => return Err(format!("`{name}` is {other}, not a value")),
            },
        });
    }
    let samples: Vec<RawSample> = typed(m, "samples")?;
    measurement_from_row(&Row(row), samples).map_err(|(what, why)| format!("{what}: {why}"))
}
