//! JMH's JSON result format (`-rf json`), so JMH's visualizers and tools read cipherlab
//! runs. The fields and their types are those JMH's `JSONResultFormat` writes (see
//! docs/results.md, "Exports other tools read", for the source): a top-level array with
//! one object per benchmark.
//!
//! What cipherlab puts in them: `benchmark` is `cipherlab.<study>.<algorithm>`, and
//! `params` (strings, as JMH's `@Param`s are) carry the rest of the benchmark's id, the
//! run's UUID and the machine's fingerprint. `score` is cipherlab's **median** with its
//! bootstrap interval as `scoreConfidence` and half its width as `scoreError` (JMH's own
//! score is a mean with a Student-t interval; cipherlab does not compute one).
//! `rawData` holds every sample's per-call value, one array per fork, and
//! `scorePercentiles` the same ten percentiles JMH prints, of those samples.

use serde_json::{Map, Value, json};

use super::export::{ExportError, Exporter, id_fields, jf, sample_values};
use crate::id::Measurement;
use crate::store::Run;
use cipherlab_harness::{Mode, Unit};

/// JMH's JSON result format.
#[derive(Debug, Clone, Copy, Default)]
pub struct JmhExporter;

/// The percentiles JMH writes, with the keys as Java prints the doubles.
const PERCENTILES: [(f64, &str); 10] = [
    (0.0, "0.0"),
    (50.0, "50.0"),
    (90.0, "90.0"),
    (95.0, "95.0"),
    (99.0, "99.0"),
    (99.9, "99.9"),
    (99.99, "99.99"),
    (99.999, "99.999"),
    (99.9999, "99.9999"),
    (100.0, "100.0"),
];

/// JMH's short mode labels.
fn mode(m: Mode) -> &'static str {
    match m {
        Mode::AverageTime => "avgt",
        Mode::Throughput => "thrpt",
        Mode::SingleShot => "ss",
        Mode::Sample => "sample",
    }
}

/// JMH's unit spelling.
fn unit(u: Unit) -> &'static str {
    match u {
        Unit::NanosPerOp => "ns/op",
        Unit::OpsPerSecond => "ops/s",
    }
}

/// The `p`-th percentile of sorted `xs`, interpolated linearly between ranks.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = p / 100.0 * (sorted.len() - 1) as f64;
    let (lo, hi) = (rank.floor() as usize, rank.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64)
}

fn benchmark(run: &Run, m: &Measurement) -> Value {
    let s = &m.summary;
    let values = sample_values(m);
    let mut sorted: Vec<f64> = values.iter().map(|(_, v)| *v).collect();
    sorted.sort_by(f64::total_cmp);
    let percentiles: Map<String, Value> = PERCENTILES
        .iter()
        .map(|(p, key)| (key.to_string(), jf(percentile(&sorted, *p))))
        .collect();
    let forks = values.iter().map(|(f, _)| *f).max().map_or(0, |f| f + 1);
    let raw: Vec<Vec<Value>> = (0..forks)
        .map(|f| {
            values
                .iter()
                .filter(|(fork, _)| *fork == f)
                .map(|(_, v)| jf(*v))
                .collect()
        })
        .collect();
    let fields = id_fields(&m.id);
    let mut params: Map<String, Value> = fields
        .iter()
        .filter(|(k, _)| !matches!(*k, "study" | "algorithm"))
        .map(|(k, v)| (k.to_string(), Value::String(v.clone())))
        .collect();
    params.insert("run_uuid".into(), run.info.uuid.clone().into());
    params.insert(
        "machine_fingerprint".into(),
        run.info.machine_fingerprint.clone().into(),
    );
    let per_fork = s.n / m.forks.max(1);
    json!({
        "benchmark": format!("cipherlab.{}.{}", fields[0].1, fields[1].1),
        "mode": mode(m.mode),
        "threads": 1,
        "forks": m.forks,
        "warmupIterations": run.settings.warmup_iterations,
        "warmupTime": format!("{} ms", run.settings.warmup_time.as_millis()),
        "warmupBatchSize": 1,
        "measurementIterations": per_fork,
        "measurementTime": format!("{} ms", run.settings.sample_time.as_millis()),
        "measurementBatchSize": m.batch,
        "params": params,
        "primaryMetric": {
            "score": jf(s.median),
            "scoreError": jf((s.median_ci.high - s.median_ci.low) / 2.0),
            "scoreConfidence": [jf(s.median_ci.low), jf(s.median_ci.high)],
            "scorePercentiles": percentiles,
            "scoreUnit": unit(m.unit),
            "rawData": raw,
        },
        "secondaryMetrics": {},
    })
}

impl Exporter for JmhExporter {
    fn name(&self) -> &'static str {
        "jmh"
    }

    fn serialize(&self, runs: &[Run]) -> Result<Vec<u8>, ExportError> {
        let all: Vec<Value> = runs
            .iter()
            .flat_map(|r| r.measurements.iter().map(move |m| benchmark(r, m)))
            .collect();
        let mut bytes = serde_json::to_vec_pretty(&all)?;
        bytes.push(b'\n');
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn percentiles_interpolate_between_ranks() {
        let xs = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(percentile(&xs, 0.0), 1.0);
        assert_eq!(percentile(&xs, 50.0), 3.0);
        assert_eq!(percentile(&xs, 100.0), 5.0);
        assert_eq!(percentile(&xs, 90.0), 4.6);
        assert!(percentile(&[], 50.0).is_nan());
    }
}
