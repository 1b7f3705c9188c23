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
use crate::store::{MEASUREMENT_COLUMNS, Run, StoreError, Value as StoreValue, measurement_values};

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Serializing to JSON failed (a value JSON cannot hold).
    #[error("could not write JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A measurement has a value the results table cannot hold either.
    #[error(transparent)]
    Measurement(#[from] StoreError),
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

/// The CSV header: `run_id`, then the `measurements` table's columns in their order
/// ([`MEASUREMENT_COLUMNS`]) without the internal `id`.
pub const CSV_COLUMNS: [&str; MEASUREMENT_COLUMNS.len()] = csv_columns();

const fn csv_columns() -> [&'static str; MEASUREMENT_COLUMNS.len()] {
    let mut out = ["run_id"; MEASUREMENT_COLUMNS.len()];
    let mut i = 1;
    while i < out.len() {
        out[i] = MEASUREMENT_COLUMNS[i];
        i += 1;
    }
    out
}

/// `m`'s fields by column name, in [`MEASUREMENT_COLUMNS`]' order after `id`: the
/// values the store writes, so the exports and the table cannot disagree.
fn measurement_fields(
    m: &Measurement,
) -> Result<impl Iterator<Item = (&'static str, StoreValue)>, ExportError> {
    Ok(MEASUREMENT_COLUMNS[1..]
        .iter()
        .copied()
        .zip(measurement_values(m)?))
}

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

fn csv_row(run_id: i64, m: &Measurement) -> Result<Vec<String>, ExportError> {
    let fields = measurement_fields(m)?;
    let mut row = vec![run_id.to_string()];
    row.extend(fields.map(|(_, v)| match v {
        StoreValue::Int(i) => i.to_string(),
        StoreValue::Real(x) => float(Some(x)),
        StoreValue::Text(t) => t,
        StoreValue::Null | StoreValue::Blob(_) => String::new(),
    }));
    Ok(row)
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
                let row: Vec<String> = csv_row(r.info.id, m)?
                    .iter()
                    .map(|f| csv_field(f))
                    .collect();
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

/// A measurement's JSON object: its columns by name (`warnings` as objects rather than
/// `warnings_json`'s text), then its raw samples.
fn measurement_json(m: &Measurement) -> Result<Value, ExportError> {
    let mut object = serde_json::Map::new();
    for (name, v) in measurement_fields(m)? {
        let (name, v) = match (name, v) {
            ("warnings_json", _) => ("warnings", serde_json::to_value(&m.warnings)?),
            (_, StoreValue::Int(i)) => (name, Value::from(i)),
            (_, StoreValue::Real(x)) => (name, jf(x)),
            (_, StoreValue::Text(t)) => (name, Value::String(t)),
            (_, StoreValue::Null | StoreValue::Blob(_)) => (name, Value::Null),
        };
        object.insert(name.to_string(), v);
    }
    object.insert("samples".to_string(), serde_json::to_value(&m.samples)?);
    Ok(Value::Object(object))
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
                Ok(json!({
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
                    "measurements": r.measurements.iter().map(measurement_json).collect::<Result<Vec<_>, _>>()?,
                    "artifacts": r.artifacts.iter().map(|a| json!({
                        "study": a.study,
                        "name": a.name,
                        "kind": a.kind().as_str(),
                        "media_type": a.kind().media_type(),
                        "title": a.title,
                        "bytes": a.to_bytes().len(),
                    })).collect::<Vec<_>>(),
                }))
            })
            .collect::<Result<_, ExportError>>()?;
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
    fn id_fields_are_the_tables_id_columns() {
        let id = crate::id::BenchId {
            study: "s".into(),
            algorithm: crate::id::Subject::named("a"),
            implementation: "i".into(),
            runtime: crate::id::Runtime::RUST,
            phase: crate::id::Phase::ALL[0],
            size: 16,
            data_type: "d".into(),
        };
        let names: Vec<&str> = id_fields(&id).iter().map(|(k, _)| *k).collect();
        assert_eq!(names, MEASUREMENT_COLUMNS[1..8]);
    }

    #[test]
    fn floats_round_trip_and_non_finite_is_empty() {
        let x = 0.1 + 0.2;
        assert_eq!(float(Some(x)).parse::<f64>().unwrap(), x);
        assert_eq!(float(Some(f64::NAN)), "");
        assert_eq!(float(None), "");
    }
}
