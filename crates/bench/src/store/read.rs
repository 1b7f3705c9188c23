//! Reading runs back: the list, one whole run, its measurements, samples and artifacts.

use rusqlite::OptionalExtension;

use super::{Artifact, ArtifactKind, Run, RunInfo, Store, StoreError};
use crate::id::{BenchId, Measurement};
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::stats::{Interval, Summary, TukeyOutliers};
use cipherlab_harness::{Mode, RawSample, Settings, Unit, Validity};

impl Store {
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

    /// Run `run_id`'s measurements, each with the timer it was read on.
    fn load_measurements(&self, run_id: i64) -> Result<Vec<Measurement>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, study, algorithm, implementation, runtime, phase, size_bytes, data_type,
                        mode, unit, bytes_per_op, batch, forks, n, median, mean, std_dev,
                        ci_low, ci_high, ci_level, min, max, outliers_low_severe,
                        outliers_low_mild, outliers_high_mild, outliers_high_severe,
                        outliers_mad, bytes_per_second, ticks_per_op, ticks_per_byte,
                        warnings_json, timer
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
                    timer: r.get(31)?,
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

const RUN_INFO_SELECT: &str = "SELECT r.id, r.started_ms, r.finished_ms, r.command_line,
        r.cipherlab_version, r.machine_id, m.cpu_model,
        (SELECT count(*) FROM measurements x WHERE x.run_id = r.id),
        m.json, r.settings_json, r.validity_json, r.load_start, r.load_end
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
        load_start: r.get(11)?,
        load_end: r.get(12)?,
    })
}
