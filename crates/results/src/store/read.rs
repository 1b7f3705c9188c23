//! Reading runs back: the list, one whole run, its measurements, samples and artifacts.

use std::collections::HashMap;

use super::engine::{ColumnError, Row, Value};
use super::{Run, RunInfo, Store, StoreError};
use crate::artifact::{Artifact, ArtifactKind};
use crate::id::{BenchId, Measurement, Phase, Runtime, Subject};
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::stats::{Interval, Summary, TukeyOutliers};
use cipherlab_harness::{Mode, RawSample, Settings, Unit, Validity};

impl Store {
    /// Every row of `sql`, each decoded by `decode`; a column that does not decode is a
    /// corrupt store, named by `what`. The one place rows are read and decoded.
    fn decode_rows<T>(
        &self,
        sql: &str,
        params: &[Value],
        what: &str,
        decode: impl Fn(&Row) -> Result<T, ColumnError>,
    ) -> Result<Vec<T>, StoreError> {
        self.query(sql, params)?
            .iter()
            .map(|r| decode(r).map_err(|e| self.corrupt(what, e)))
            .collect()
    }

    /// Every run, oldest first (by local id).
    pub fn list_runs(&self) -> Result<Vec<RunInfo>, StoreError> {
        let sql = format!("{RUN_INFO_SELECT} ORDER BY r.id");
        self.decode_rows(&sql, &[], "a run's row", run_info_from_row)
    }

    /// The id of the newest run, if any.
    pub fn latest_run(&self) -> Result<Option<i64>, StoreError> {
        let ids = self.decode_rows("SELECT max(id) FROM runs", &[], "max(runs.id)", |r| {
            r.opt_int(0)
        })?;
        Ok(ids.into_iter().next().flatten())
    }

    /// The local id of the run with this UUID, if the store has it.
    pub fn run_by_uuid(&self, uuid: &str) -> Result<Option<i64>, StoreError> {
        let sql = "SELECT id FROM runs WHERE uuid = ?1";
        let ids = self.decode_rows(sql, &[uuid.into()], "runs.id", |r| r.int(0))?;
        Ok(ids.into_iter().next())
    }

    /// Loads run `id` with its machine, settings, validity, measurements and samples.
    pub fn load_run(&self, id: i64) -> Result<Run, StoreError> {
        let sql = format!("{RUN_INFO_SELECT} WHERE r.id = ?1");
        let what = format!("run {id}");
        let rows = self.decode_rows(&sql, &[id.into()], &what, |r| {
            Ok((run_info_from_row(r)?, r.text(10)?, r.text(11)?, r.text(12)?))
        })?;
        let Some((info, machine, settings, validity)) = rows.into_iter().next() else {
            return Err(StoreError::RunNotFound {
                path: self.path.clone(),
                id,
            });
        };
        let machine: MachineInfo = serde_json::from_str(&machine)
            .map_err(|e| self.corrupt(format!("{what}'s machine"), e))?;
        let settings: Settings = serde_json::from_str(&settings)
            .map_err(|e| self.corrupt(format!("{what}'s settings"), e))?;
        let validity: Validity = serde_json::from_str(&validity)
            .map_err(|e| self.corrupt(format!("{what}'s validity"), e))?;
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
        let rows = self.decode_rows(
            "SELECT study, name, kind, title, data FROM artifacts
             WHERE run_id = ?1 ORDER BY id",
            &[run_id.into()],
            &format!("run {run_id}'s artifacts"),
            |r| Ok((r.text(0)?, r.text(1)?, r.text(2)?, r.text(3)?, r.blob(4)?)),
        )?;
        rows.into_iter()
            .map(|(study, name, kind, title, data)| {
                let what = format!("run {run_id}'s artifact {study}/{name}");
                let Some(kind) = ArtifactKind::parse(&kind) else {
                    return Err(self.corrupt(what, format!("unknown kind {kind}")));
                };
                Artifact::from_bytes(study, name, kind, title, data)
                    .map_err(|why| self.corrupt(what, why))
            })
            .collect()
    }

    /// Run `run_id`'s measurements, each with the timer it was read on. Samples are read
    /// in one query.
    fn load_measurements(&self, run_id: i64) -> Result<Vec<Measurement>, StoreError> {
        let sql = format!(
            "SELECT {} FROM measurements WHERE run_id = ?1 ORDER BY id",
            MEASUREMENT_COLUMNS.join(", ")
        );
        let mut samples = self.load_samples(run_id)?;
        self.query(&sql, &[run_id.into()])?
            .iter()
            .map(|r| {
                let id = r
                    .int(0)
                    .map_err(|e| self.corrupt(format!("run {run_id}'s measurements"), e))?;
                measurement_from_row(r, samples.remove(&id).unwrap_or_default())
                    .map_err(|(what, reason)| self.corrupt(what, reason))
            })
            .collect()
    }

    /// Every sample of run `run_id`, by measurement id, in order.
    fn load_samples(&self, run_id: i64) -> Result<HashMap<i64, Vec<RawSample>>, StoreError> {
        let rows = self.decode_rows(
            "SELECT s.measurement_id, s.fork, s.iterations, s.ns, s.ticks
             FROM samples s JOIN measurements m ON m.id = s.measurement_id
             WHERE m.run_id = ?1 ORDER BY s.measurement_id, s.seq",
            &[run_id.into()],
            &format!("run {run_id}'s samples"),
            |r| {
                let sample = RawSample {
                    fork: r.count(1)?,
                    iterations: r.count(2)?,
                    ns: r.count(3)?,
                    ticks: r.opt_int(4)?.map(|t| t as u64),
                };
                Ok((r.int(0)?, sample))
            },
        )?;
        let mut out: HashMap<i64, Vec<RawSample>> = HashMap::new();
        for (measurement, sample) in rows {
            out.entry(measurement).or_default().push(sample);
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
