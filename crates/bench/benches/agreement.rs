//! Does cipherlab's harness measure what criterion measures? The same function —
//! encrypting a 16 KiB buffer in place with AES-128-CTR, and with Ascon-AEAD128 —
//! timed by both, turn about, in one process; the medians must agree within 5%.
//!
//! ```text
//! cargo bench -p cipherlab-bench --bench agreement            # 5 rounds each, ~2 minutes
//! cargo bench -p cipherlab-bench --bench agreement -- --smoke # 1 short round: proves it runs
//! ```
//!
//! Each round measures with our harness (average-time mode: calibrated batches, 3
//! warm-up iterations, 50 samples) and then with criterion (its default linear sampling,
//! 50 samples, its "median" estimate, read from the `estimates.json` it writes), on the
//! same initialised cipher and buffer. Rounds alternate so that load and clock drift hit
//! both alike; the figure of each tool is its median over rounds, and the verdict is
//! their ratio. Both time wall-clock, so run it on an idle machine (`uptime`): a
//! preempted sample inflates either tool's figure, whichever happens to be running.

#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark: failing loudly is right

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use cipherlab_ciphers::{CipherSpec, generate_iv, generate_key, providers};
use cipherlab_harness::stats::Sample;
use cipherlab_harness::{Harness, Settings};
use cipherlab_results::id::{BenchId, Phase};
use criterion::Criterion;

const LEN: usize = 16 * 1024;

fn main() {
    let smoke = std::env::args().any(|a| a == "--smoke");
    let rounds = if smoke { 1 } else { 5 };
    let (warm, measure, samples) = if smoke {
        (Duration::from_millis(50), Duration::from_millis(200), 10)
    } else {
        (Duration::from_secs(1), Duration::from_secs(3), 50)
    };
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("agreement-criterion");
    let ours_settings = Settings {
        warmup_iterations: 3,
        warmup_time: warm / 3,
        iterations: samples,
        sample_time: measure / samples,
        ..Settings::default()
    };
    let harness = Harness::new(ours_settings);
    println!(
        "{:<15} {:>5} {:>14} {:>14} {:>8}",
        "cipher", "round", "ours ns", "criterion ns", "ratio"
    );
    let mut verdicts = Vec::new();
    for name in ["aes-128-ctr", "ascon-aead128"] {
        let spec = CipherSpec::parse(name).unwrap();
        let key = generate_key(&spec);
        let iv = generate_iv(&spec);
        let mut cipher = providers::init(&spec, &key, None).unwrap();
        let provider = cipher.provider();
        let mut buf = vec![0x5au8; spec.output_len(LEN)];
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for round in 1..=rounds {
            // Ours.
            let id = BenchId::new(
                "agreement",
                spec,
                provider,
                Phase::Encrypt,
                LEN as u64,
                "dense",
            );
            let m = harness
                .measure(id, Some(LEN as u64), |b| {
                    b.iter_on(&mut (&mut cipher, &mut buf), |(c, buf)| {
                        c.encrypt(&iv, &[], buf, LEN)
                    })
                })
                .unwrap();
            let o = m.median_ns_per_op();
            // Criterion, on the same cipher and buffer.
            let mut c = Criterion::default()
                .output_directory(&out_dir)
                .sample_size(samples as usize)
                .warm_up_time(warm)
                .measurement_time(measure)
                .without_plots()
                .with_output_color(false);
            c.bench_function(name, |b| {
                b.iter(|| cipher.encrypt(black_box(&iv), &[], black_box(&mut buf), LEN))
            });
            let t = criterion_median(&out_dir, name);
            println!("{name:<15} {round:>5} {o:>14.1} {t:>14.1} {:>8.3}", o / t);
            ours.push(o);
            theirs.push(t);
        }
        let (o, t) = (median(ours), median(theirs));
        let ratio = o / t;
        let ok = (ratio - 1.0).abs() <= 0.05;
        println!(
            "{name:<15} {:>5} {o:>14.1} {t:>14.1} {ratio:>8.3}  {}",
            "all",
            if ok { "within 5%" } else { "NOT within 5%" }
        );
        verdicts.push((name, ratio, ok));
    }
    println!(
        "\nharness median / criterion median at {LEN} B: {}",
        verdicts
            .iter()
            .map(|(n, r, ok)| format!("{n} {r:.3} ({})", if *ok { "agree" } else { "DISAGREE" }))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if smoke {
        println!("(--smoke: too short to judge; the verdict needs the full run)");
    }
}

fn criterion_median(dir: &std::path::Path, name: &str) -> f64 {
    let path = dir.join(name).join("new").join("estimates.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("criterion wrote no {}: {e}", path.display()));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["median"]["point_estimate"].as_f64().unwrap()
}

fn median(v: Vec<f64>) -> f64 {
    Sample::new(v).unwrap().median()
}
