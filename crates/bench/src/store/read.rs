//! Reading runs back: the list, one whole run, its measurements, samples and artifacts.

use super::engine::{ColumnError, Row};
use super::{Run, RunInfo, Store, StoreError};
use crate::artifact::{Artifact, ArtifactKind};
use crate::id::{BenchId, Measurement, Phase, Runtime, Subject};
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::stats::{Interval, Summary, TukeyOutliers};
use cipherlab_harness::{Mode, RawSample, Settings, Unit, Validity};

impl Store {
    /// Every run, oldest first (by local id).
    pub fn list_runs(&self) -> Result<Vec<RunInfo>, StoreError> {
        let rows = self.query(&format!("{RUN_INFO_SELECT} ORDER BY r.id"), &[])?;
        rows.iter()
            .map(|r| run_info_from_row(r).map_err(|e| self.corrupt("a run's row", e)))
            .collect()
    }

    /// The id of the newest run, if any.
    pub fn latest_run(&self) -> Result<Option<i64>, StoreError> {
        let rows = self.query("SELECT max(id) FROM runs", &[])?;
        match rows.first() {
            Some(r) => r.opt_int(0).map_err(|e| self.corrupt("max(runs.id)", e)),
            None => Ok(None),
        }
    }

    /// The local id of the run with this UUID, if the store has it.
    pub fn run_by_uuid(&self, uuid: &str) -> Result<Option<i64>, StoreError> {
        let rows = self.query("SELECT id FROM runs WHERE uuid = ?1", &[uuid.into()])?;
        match rows.first() {
            Some(r) => r.int(0).map(Some).map_err(|e| self.corrupt("runs.id", e)),
            None => Ok(None),
        }
    }

    /// Loads run `id` with its machine, settings, validity, measurements and samples.
    pub fn load_run(&self, id: i64) -> Result<Run, StoreError> {
        let rows = self.query(&format!("{RUN_INFO_SELECT} WHERE r.id = ?1"), &[id.into()])?;
        let Some(row) = rows.first() else {
            return Err(StoreError::RunNotFound {
                path: self.path.clone(),
                id,
            });
        };
        let what = format!("run {id}");
        let col = |e: ColumnError| self.corrupt(what.clone(), e);
        let info = run_info_from_row(row).map_err(col)?;
        let (machine, settings, validity) = (
            row.text(10).map_err(col)?,
            row.text(11).map_err(col)?,
            row.text(12).map_err(col)?,
        );
        let machine: MachineInfo = serde_json::from_str(&machine)
            .map_err(|e| self.corrupt(format!("run {id}'s machine"), e))?;
        let settings: Settings = serde_json::from_str(&settings)
            .map_err(|e| self.corrupt(format!("run {id}'s settings"), e))?;
        let validity: Validity = serde_json::from_str(&validity)
            .map_err(|e| self.corrupt(format!("run {id}'s validity"), e))?;
        let measurements = self.load_measurements(id)?;
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

    fn load_artifacts(&self, run_id: i64) -> Result<Vec<Artifact>, StoreError> {
        let rows = self.query(
            "SELECT study, name, kind, title, data FROM artifacts
             WHERE run_id = ?1 ORDER BY id",
            &[run_id.into()],
        )?;
        rows.iter()
            .map(|r| {
                let col = |e: ColumnError| self.corrupt(format!("run {run_id}'s artifacts"), e);
                let (study, name, kind) = (
                    r.text(0).map_err(col)?,
                    r.text(1).map_err(col)?,
                    r.text(2).map_err(col)?,
                );
                let kind = ArtifactKind::parse(&kind).ok_or_else(|| {
                    self.corrupt(
                        format!("run {run_id}'s artifact {study}/{name}"),
                        format!("unknown kind {kind}"),
                    )
                })?;
                let title = r.text(3).map_err(col)?;
                let data = r.blob(4).map_err(col)?;
                let what = format!("run {run_id}'s artifact {study}/{name}");
                Artifact::from_bytes(study, name, kind, title, data).map_err(|why| {
                    StoreError::Corrupt {
                        path: self.path.clone(),
                        what,
                        reason: why,
                    }
                })
            })
            .collect()
    }

    /// Run `run_id`'s measurements, each with the timer it was read on. Samples are read
    /// in one query.
    fn load_measurements(&self, run_id: i64) -> Result<Vec<Measurement>, StoreError> {
        let rows = self.query(
            &format!(
                "SELECT {} FROM measurements WHERE run_id = ?1 ORDER BY id",
                MEASUREMENT_COLUMNS.join(", ")
            ),
            &[run_id.into()],
        )?;
        let mut samples = self.load_samples(run_id)?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            let id = r
                .int(0)
                .map_err(|e| self.corrupt(format!("run {run_id}'s measurements"), e))?;
            let m = measurement_from_row(r, samples.remove(&id).unwrap_or_default())
                .map_err(|(what, reason)| self.corrupt(what, reason))?;
            out.push(m);
        }
        Ok(out)
    }

    /// Every sample of run `run_id`, by measurement id, in order.
    fn load_samples(
        &self,
        run_id: i64,
    ) -> Result<std::collections::HashMap<i64, Vec<RawSample>>, StoreError> {
        let rows = self.query(
            "SELECT s.measurement_id, s.fork, s.iterations, s.ns, s.ticks
             FROM samples s JOIN measurements m ON m.id = s.measurement_id
             WHERE m.run_id = ?1 ORDER BY s.measurement_id, s.seq",
            &[run_id.into()],
        )?;
        let mut out: std::collections::HashMap<i64, Vec<RawSample>> =
            std::collections::HashMap::new();
        for r in &rows {
            let sample = (|| -> Result<(i64, RawSample), ColumnError> {
                Ok((
                    r.int(0)?,
                    RawSample {
                        fork: r.count(1)?,
                        iterations: r.count(2)?,
                        ns: r.count(3)?,
                        ticks: r.opt_int(4)?.map(|t| t as u64),
                    },
                ))
            })()
            .map_err(|e| self.corrupt(format!("run {run_id}'s samples"), e))?;
            out.entry(sample.0).or_default().push(sample.1);
        }
        Ok(out)
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
    timer: String,
}

/// The benchmark id of a row's `study, algorithm, implementation, runtime, phase,
/// size_bytes, data_type` columns starting at `first`: the one place a row becomes a
/// [`BenchId`].
pub(super) fn bench_id(r: &Row, first: usize) -> Result<BenchId, ColumnError> {
    Ok(BenchId {
        study: r.text(first)?,
        algorithm: Subject::parse(&r.text(first + 1)?),
        implementation: r.text(first + 2)?,
        runtime: r.name(first + 3, "runtime", Runtime::parse)?,
        phase: r.name(first + 4, "phase", Phase::parse)?,
        size: r.count(first + 5)?,
        data_type: r.text(first + 6)?,
    })
}

/// The measurement of a row of the columns [`MEASUREMENT_COLUMNS`] (what the store
/// reads, and what an import builds from a JSON export); the error names what was wrong
/// and why.
pub(super) fn measurement_from_row(
    r: &Row,
    samples: Vec<RawSample>,
) -> Result<Measurement, (String, String)> {
    let row = measurement_row(r).map_err(|e| ("a measurement".to_string(), e.to_string()))?;
    let what = format!("measurement {} ({})", row.id, row.bench.key());
    let mode: Mode = row
        .mode
        .parse()
        .map_err(|e: cipherlab_harness::UnknownMode| (format!("{what}'s mode"), e.to_string()))?;
    let unit = Unit::parse(&row.unit).ok_or_else(|| {
        (
            format!("{what}'s unit"),
            format!("unknown unit {}", row.unit),
        )
    })?;
    let warnings = serde_json::from_str(&row.warnings)
        .map_err(|e| (format!("{what}'s warnings"), e.to_string()))?;
    Ok(Measurement {
        id: row.bench,
        timer: row.timer,
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
        samples,
    })
}

/// The columns of the `measurements` table after `run_id`, in their order: the one list
/// of them. The store reads and writes these; the CSV and JSON exports name their fields
/// after them (without the internal `id`), and an import reads a JSON export by them.
pub(crate) const MEASUREMENT_COLUMNS: [&str; 32] = [
    "id",
    "study",
    "algorithm",
    "implementation",
    "runtime",
    "phase",
    "size_bytes",
    "data_type",
    "mode",
    "unit",
    "bytes_per_op",
    "batch",
    "forks",
    "n",
    "median",
    "mean",
    "std_dev",
    "ci_low",
    "ci_high",
    "ci_level",
    "min",
    "max",
    "outliers_low_severe",
    "outliers_low_mild",
    "outliers_high_mild",
    "outliers_high_severe",
    "outliers_mad",
    "bytes_per_second",
    "ticks_per_op",
    "ticks_per_byte",
    "warnings_json",
    "timer",
];

fn measurement_row(r: &Row) -> Result<MeasurementRow, ColumnError> {
    Ok(MeasurementRow {
        id: r.int(0)?,
        bench: bench_id(r, 1)?,
        mode: r.text(8)?,
        unit: r.text(9)?,
        bytes_per_op: r.opt_int(10)?.map(|v| v as u64),
        batch: r.count(11)?,
        forks: r.count(12)?,
        summary: Summary {
            n: r.count(13)?,
            median: r.real(14)?,
            mean: r.real(15)?,
            std_dev: r.real(16)?,
            median_ci: Interval {
                estimate: r.real(14)?,
                low: r.real(17)?,
                high: r.real(18)?,
                confidence: r.real(19)?,
            },
            min: r.real(20)?,
            max: r.real(21)?,
            outliers: TukeyOutliers {
                low_severe: r.count(22)?,
                low_mild: r.count(23)?,
                high_mild: r.count(24)?,
                high_severe: r.count(25)?,
            },
            mad_outliers: r.count(26)?,
        },
        bytes_per_second: r.opt_real(27)?,
        ticks_per_op: r.opt_real(28)?,
        ticks_per_byte: r.opt_real(29)?,
        warnings: r.text(30)?,
        timer: r.text(31)?,
    })
}

const RUN_INFO_SELECT: &str = "SELECT r.id, r.uuid, r.started_ms, r.finished_ms, r.command_line,
        r.cipherlab_version, r.machine_id, m.cpu_model, m.fingerprint,
        (SELECT count(*) FROM measurements x WHERE x.run_id = r.id),
        m.json, r.settings_json, r.validity_json, r.load_start, r.load_end
    FROM runs r JOIN machines m ON m.id = r.machine_id";

fn run_info_from_row(r: &Row) -> Result<RunInfo, ColumnError> {
    Ok(RunInfo {
        id: r.int(0)?,
        uuid: r.text(1)?,
        started_ms: r.int(2)?,
        finished_ms: r.opt_int(3)?,
        command_line: r.text(4)?,
        cipherlab_version: r.text(5)?,
        machine_id: r.int(6)?,
        cpu_model: r.text(7)?,
        machine_fingerprint: r.text(8)?,
        measurements: r.count(9)?,
        load_start: r.opt_real(13)?,
        load_end: r.opt_real(14)?,
    })
}
