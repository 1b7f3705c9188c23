//! Google Benchmark's JSON format (`--benchmark_format=json`), so its `compare.py` and
//! the tools built on that format read a cipherlab run. The fields and their types are
//! those Google Benchmark's `JSONReporter` writes (see docs/results.md, "Exports other
//! tools read", for the source): a `context` block and a `benchmarks` array.
//!
//! One file holds one run, as a Google Benchmark output does. Each measurement becomes
//! its samples as `iteration` rows (one repetition per sample, so `compare.py`'s U test
//! has the raw data) followed by `mean`, `median` and `stddev` `aggregate` rows, named
//! `<study>/<algorithm>/<implementation>/<runtime>/<phase>/<size>/<data type>`. Times
//! are nanoseconds per call. cipherlab times wall-clock only, so `cpu_time` repeats
//! `real_time`. The context names the host by its salted hash (never its name), and
//! adds cipherlab's own keys as Google Benchmark's `--benchmark_context` does.

use serde_json::{Value, json};

use super::export::{ExportError, Exporter, id_fields, jf};
use crate::id::Measurement;
use crate::store::Run;
use cipherlab_harness::RawSample;

/// Google Benchmark's JSON format.
#[derive(Debug, Clone, Copy, Default)]
pub struct GoogleBenchmarkExporter;

fn context(run: &Run) -> Value {
    let m = &run.machine;
    let date = format!(
        "{}+00:00",
        crate::time::utc(run.info.started_ms).replacen(' ', "T", 1)
    );
    // The measured TSC frequency where there is one: Google Benchmark's cycles per
    // second, in MHz.
    let mhz = run
        .validity
        .counter_ticks_per_ns
        .map_or(0, |ghz| (ghz * 1000.0).round() as i64);
    json!({
        "date": date,
        "host_name": m.hostname_hash,
        "executable": "cipherlab",
        "num_cpus": m.logical_cores,
        "mhz_per_cpu": mhz,
        "caches": [],
        "load_avg": [],
        "library_build_type": if m.build.ends_with("release") { "release" } else { "debug" },
        "cipherlab_version": run.info.cipherlab_version,
        "cpu_model": m.cpu_model,
        "machine_fingerprint": run.info.machine_fingerprint,
        "run_uuid": run.info.uuid,
        "command_line": run.info.command_line,
    })
}

fn rows(m: &Measurement, out: &mut Vec<Value>) {
    let name = id_fields(&m.id)
        .iter()
        .map(|(_, v)| v.as_str())
        .collect::<Vec<_>>()
        .join("/");
    let n = m.samples.len();
    for (i, x) in m.samples.iter().enumerate() {
        let t = RawSample::ns_per_op(x);
        out.push(json!({
            "name": name,
            "run_name": name,
            "run_type": "iteration",
            "repetitions": n,
            "repetition_index": i,
            "threads": 1,
            "iterations": x.iterations,
            "real_time": jf(t),
            "cpu_time": jf(t),
            "time_unit": "ns",
        }));
    }
    let times = m.ns_per_op();
    let mean = times.iter().sum::<f64>() / n.max(1) as f64;
    let stddev = if n > 1 {
        (times.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
    } else {
        0.0
    };
    for (aggregate, t) in [
        ("mean", mean),
        ("median", m.median_ns_per_op()),
        ("stddev", stddev),
    ] {
        let mut row = json!({
            "name": format!("{name}_{aggregate}"),
            "run_name": name,
            "run_type": "aggregate",
            "repetitions": n,
            "threads": 1,
            "aggregate_name": aggregate,
            "aggregate_unit": "time",
            "iterations": n,
            "real_time": jf(t),
            "cpu_time": jf(t),
            "time_unit": "ns",
        });
        if let (Some(bytes), "median", Some(obj)) = (m.bytes_per_op, aggregate, row.as_object_mut())
        {
            obj.insert("bytes_per_second".into(), jf(bytes as f64 * 1e9 / t));
        }
        out.push(row);
    }
}

impl Exporter for GoogleBenchmarkExporter {
    fn name(&self) -> &'static str {
        "gbench"
    }

    fn serialize(&self, runs: &[Run]) -> Result<Vec<u8>, ExportError> {
        let [run] = runs else {
            return Err(ExportError::OneRunOnly {
                format: "Google Benchmark's JSON",
                runs: runs.len(),
            });
        };
        let mut benchmarks = Vec::new();
        for m in &run.measurements {
            rows(m, &mut benchmarks);
        }
        let doc = json!({ "context": context(run), "benchmarks": benchmarks });
        let mut bytes = serde_json::to_vec_pretty(&doc)?;
        bytes.push(b'\n');
        Ok(bytes)
    }
}
