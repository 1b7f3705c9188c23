//! Exporting measurements for other programs, as hyperfine does (`src/export`): one
//! [`Exporter`] trait, one implementation per format, each turning loaded runs into
//! bytes; writing them (atomically) is the caller's job.
//!
//! * [`CsvExporter`]: one row per measurement, the columns of the `measurements` table
//!   of docs/results.md (without its internal `id`), RFC 4180 quoting.
//! * [`JsonExporter`]: per run its row, machine block, settings, validity, the
//!   measurements (the same fields, with warnings as objects and the raw samples) and
//!   the artifacts' metadata (not their bytes).
//! * [`super::jmh::JmhExporter`] and [`super::gbench::GoogleBenchmarkExporter`]: JMH's
//!   and Google Benchmark's JSON formats, for the tools that read those.

use serde_json::{Value, json};

use crate::id::Measurement;
use crate::store::Run;

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Serializing to JSON failed (a value JSON cannot hold).
    #[error("could not write JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The format holds one run and several were asked for.
    #[error(
        "{format} format holds one run, and {runs} were asked for: export each run to its own file"
    )]
    OneRunOnly {
        /// The format.
        format: &'static str,
        /// How many runs were given.
        runs: usize,
    },
}

/// A benchmark id's fields by their column names, in the table's order: the one place
/// the exports read [`crate::id::BenchId`]'s fields.
pub(crate) fn id_fields(id: &crate::id::BenchId) -> [(&'static str, String); 7] {
    [
        ("study", id.study.clone()),
        ("algorithm", id.algorithm.to_string()),
        ("implementation", id.implementation.clone()),
        ("runtime", id.runtime.to_string()),
        ("phase", id.phase.to_string()),
        ("size_bytes", id.size.to_string()),
        ("data_type", id.data_type.clone()),
    ]
}

/// Every sample of `m` as (fork, value in the measurement's unit): nanoseconds per call,
/// or calls per second.
pub(crate) fn sample_values(m: &Measurement) -> Vec<(u32, f64)> {
    m.samples
        .iter()
        .map(|x| {
            let ns = x.ns_per_op();
            let v = match m.unit {
                cipherlab_harness::Unit::NanosPerOp => ns,
                cipherlab_harness::Unit::OpsPerSecond => 1e9 / ns,
            };
            (x.fork, v)
        })
        .collect()
}

/// Turns runs into a file's bytes.
pub trait Exporter {
    /// The format's name (`csv`, `json`).
    fn name(&self) -> &'static str;

    /// The whole file.
    fn serialize(&self, runs: &[Run]) -> Result<Vec<u8>, ExportError>;
}

/// The measurement columns, in docs/results.md's order, preceded by `run_id`.
pub const CSV_COLUMNS: [&str; 31] = [
    "run_id",
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
];

/// Comma-separated values, one row per measurement.
#[derive(Debug, Clone, Copy, Default)]
pub struct CsvExporter;

/// A JSON document of whole runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonExporter;

/// RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes
/// doubled. Everything else is written as is.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A float as Rust prints it (shortest text that reads back to the same value); empty
/// for absent or non-finite values, which CSV has no spelling for.
fn float(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v}"),
        _ => String::new(),
    }
}

fn csv_row(run_id: i64, m: &Measurement) -> Vec<String> {
    let s = &m.summary;
    vec![
        run_id.to_string(),
        m.id.study.clone(),
        m.id.algorithm.to_string(),
        m.id.implementation.clone(),
        m.id.runtime.to_string(),
        m.id.phase.to_string(),
        m.id.size.to_string(),
        m.id.data_type.clone(),
        m.mode.as_str().to_string(),
        m.unit.as_str().to_string(),
        m.bytes_per_op.map(|b| b.to_string()).unwrap_or_default(),
        m.batch.to_string(),
        m.forks.to_string(),
        s.n.to_string(),
        float(Some(s.median)),
        float(Some(s.mean)),
        float(Some(s.std_dev)),
        float(Some(s.median_ci.low)),
        float(Some(s.median_ci.high)),
        float(Some(s.median_ci.confidence)),
        float(Some(s.min)),
        float(Some(s.max)),
        s.outliers.low_severe.to_string(),
        s.outliers.low_mild.to_string(),
        s.outliers.high_mild.to_string(),
        s.outliers.high_severe.to_string(),
        s.mad_outliers.to_string(),
        float(m.bytes_per_second),
        float(m.ticks_per_op),
        float(m.ticks_per_byte),
        serde_json::to_string(&m.warnings).unwrap_or_else(|_| "[]".to_string()),
    ]
}

impl Exporter for CsvExporter {
    fn name(&self) -> &'static str {
        "csv"
    }

    fn serialize(&self, runs: &[Run]) -> Result<Vec<u8>, ExportError> {
        let mut out = String::new();
        out.push_str(&CSV_COLUMNS.join(","));
        out.push_str("\r\n");
        for r in runs {
            for m in &r.measurements {
                let row: Vec<String> = csv_row(r.info.id, m).iter().map(|f| csv_field(f)).collect();
                out.push_str(&row.join(","));
                out.push_str("\r\n");
            }
        }
        Ok(out.into_bytes())
    }
}

/// A float for JSON: `null` when not finite (JSON has no NaN).
pub(crate) fn jf(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

fn jo(x: Option<f64>) -> Value {
    x.map_or(Value::Null, jf)
}

fn measurement_json(m: &Measurement) -> Value {
    let s = &m.summary;
    json!({
        "study": m.id.study,
        "algorithm": m.id.algorithm,
        "implementation": m.id.implementation,
        "runtime": m.id.runtime,
        "phase": m.id.phase,
        "size_bytes": m.id.size,
        "data_type": m.id.data_type,
        "mode": m.mode.as_str(),
        "timer": m.timer,
        "unit": m.unit.as_str(),
        "bytes_per_op": m.bytes_per_op,
        "batch": m.batch,
        "forks": m.forks,
        "n": s.n,
        "median": jf(s.median),
        "mean": jf(s.mean),
        "std_dev": jf(s.std_dev),
        "ci_low": jf(s.median_ci.low),
        "ci_high": jf(s.median_ci.high),
        "ci_level": jf(s.median_ci.confidence),
        "min": jf(s.min),
        "max": jf(s.max),
        "outliers_low_severe": s.outliers.low_severe,
        "outliers_low_mild": s.outliers.low_mild,
        "outliers_high_mild": s.outliers.high_mild,
        "outliers_high_severe": s.outliers.high_severe,
        "outliers_mad": s.mad_outliers,
        "bytes_per_second": jo(m.bytes_per_second),
        "ticks_per_op": jo(m.ticks_per_op),
        "ticks_per_byte": jo(m.ticks_per_byte),
        "warnings": m.warnings,
        "samples": m.samples,
    })
}

/// The version of the JSON export's layout (docs/results.md, "Export").
pub const JSON_FORMAT_VERSION: u32 = 1;

impl Exporter for JsonExporter {
    fn name(&self) -> &'static str {
        "json"
    }

    fn serialize(&self, runs: &[Run]) -> Result<Vec<u8>, ExportError> {
        let runs: Vec<Value> = runs
            .iter()
            .map(|r| {
                json!({
                    "id": r.info.id,
                    "uuid": r.info.uuid,
                    "started_ms": r.info.started_ms,
                    "finished_ms": r.info.finished_ms,
                    "command_line": r.info.command_line,
                    "cipherlab_version": r.info.cipherlab_version,
                    "load_start": r.info.load_start,
                    "load_end": r.info.load_end,
                    "machine_fingerprint": r.machine.fingerprint(),
                    "machine": r.machine,
                    "settings": r.settings,
                    "validity": r.validity,
                    "measurements": r.measurements.iter().map(measurement_json).collect::<Vec<_>>(),
                    "artifacts": r.artifacts.iter().map(|a| json!({
                        "study": a.study,
                        "name": a.name,
                        "kind": a.kind().as_str(),
                        "media_type": a.kind().media_type(),
                        "title": a.title,
                        "bytes": a.to_bytes().len(),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        let doc = json!({
            "format": "cipherlab-results",
            "format_version": JSON_FORMAT_VERSION,
            "schema_version": crate::store::SCHEMA_VERSION,
            "runs": runs,
        });
        let mut bytes = serde_json::to_vec_pretty(&doc)?;
        bytes.push(b'\n');
        Ok(bytes)
    }
}

/// The exporter for a format name, for callers that take the format as text.
pub fn by_name(name: &str) -> Option<&'static dyn Exporter> {
    match name {
        "csv" => Some(&CsvExporter),
        "json" => Some(&JsonExporter),
        "jmh" => Some(&super::jmh::JmhExporter),
        "gbench" => Some(&super::gbench::GoogleBenchmarkExporter),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_only_when_needed() {
        assert_eq!(csv_field("aes-128-ecb"), "aes-128-ecb");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("two\nlines"), "\"two\nlines\"");
    }

    #[test]
    fn floats_round_trip_and_non_finite_is_empty() {
        let x = 0.1 + 0.2;
        assert_eq!(float(Some(x)).parse::<f64>().unwrap(), x);
        assert_eq!(float(Some(f64::NAN)), "");
        assert_eq!(float(None), "");
    }
}
