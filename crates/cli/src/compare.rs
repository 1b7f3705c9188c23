//! `cipherlab compare RUN_A RUN_B`: every figure of both runs as a ratio B/A with its
//! bootstrap interval and a verdict, whether the runs rank each study's ciphers alike,
//! and what differs between their machines. The statistics are in
//! `cipherlab_results::compare`; this module reads the store and prints.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use cipherlab_harness::stats::Bootstrap;
use cipherlab_results::compare::{self, Comparison, Verdict};
use cipherlab_results::id::Runtime;
use cipherlab_results::ranking::time_text;
use cipherlab_results::report::svg::{Format, label};
use serde_json::json;

use crate::results;

/// Options of `cipherlab compare`.
#[derive(clap::Args)]
#[command(after_help = "\
Each figure present in both runs (same study, algorithm, implementation, runtime, phase,
size and data type) gets the ratio B/A of its median time per call, with a bootstrap
confidence interval computed from both runs' raw samples. B is `faster` only when the
whole interval is below 1, `slower` only when it is above 1; an interval that includes 1
is `no significant change`: such a difference is never claimed.

Rankings: per study, B's figures are ranked on the group A's ranking shows; the runs
agree when no two ciphers ranked in both swap places (ties, where intervals overlap,
contradict nothing).

Examples:
  cipherlab compare 3 4                        what changed from run 3 to run 4
  cipherlab compare 3 4 --all                  every figure, not only the changes
  cipherlab compare 3 4 --threshold 0.05       changes under 5% count as none
  cipherlab compare 3 4 --json > diff.json

`cipherlab report --list` shows the runs.")]
pub struct Args {
    /// The earlier (baseline) run.
    #[arg(value_name = "RUN_A")]
    a: i64,
    /// The later run; ratios are B / A (below 1: B is faster).
    #[arg(value_name = "RUN_B")]
    b: i64,
    /// Results database: a SQLite file, or a PostgreSQL URL postgres://USER@HOST/DB
    /// (default: $CIPHERLAB_DB, else ./cipherlab-results.sqlite).
    #[arg(long, value_name = "FILE|URL")]
    db: Option<PathBuf>,
    /// Confidence level of the intervals, between 0 and 1.
    #[arg(long, value_name = "LEVEL", default_value_t = 0.99)]
    confidence: f64,
    /// Bootstrap resamples per figure (at least 1000; more gives steadier 99% bounds).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    resamples: u32,
    /// Practical threshold: a change must also exceed this fraction (0.05 = 5%) to be
    /// called; 0 calls every change whose interval excludes 1.
    #[arg(long, value_name = "FRACTION", default_value_t = 0.0)]
    threshold: f64,
    /// List every figure, not only those that changed.
    #[arg(long)]
    all: bool,
    /// Print one JSON object (figures, rankings, machine differences, summary).
    #[arg(long)]
    json: bool,
}

fn figure_name(f: &compare::Figure) -> String {
    let id = &f.id;
    let mut s = format!("{} {} {}", id.study, id.algorithm, id.phase);
    if id.size > 0 {
        s.push(' ');
        s.push_str(&label(id.size as f64, Format::Bytes));
    }
    if id.data_type != "none" {
        s.push(' ');
        s.push_str(&id.data_type);
    }
    s.push_str(&format!(" ({}", id.implementation));
    if id.runtime != Runtime::RUST {
        s.push_str(&format!(", {}", id.runtime));
    }
    s.push(')');
    s
}

fn print_people(c: &Comparison, all: bool) {
    println!(
        "compare run {} (A) with run {} (B): ratios B/A of median time per call, {}% bootstrap intervals{}",
        c.a,
        c.b,
        c.confidence * 100.0,
        if c.threshold > 0.0 {
            format!(", changes under {}% ignored", c.threshold * 100.0)
        } else {
            String::new()
        }
    );
    if !c.same_machine {
        println!(
            "warning: the runs come from different machines or builds (fingerprints differ): ratios show the machines as much as the code"
        );
        for d in &c.machine_differences {
            println!("  {}: {} -> {}", d.field, d.a, d.b);
        }
    }
    let shown: Vec<&compare::Figure> = c
        .figures
        .iter()
        .filter(|f| all || f.verdict != Verdict::Unchanged)
        .collect();
    if !shown.is_empty() {
        let width = shown
            .iter()
            .map(|f| figure_name(f).chars().count())
            .max()
            .unwrap_or(0);
        println!(
            "\n  {:<width$}  {:>10}  {:>10}  {:>6}  {:<17}  verdict",
            "figure", "A", "B", "B/A", "interval"
        );
        for f in shown {
            let (ratio, interval) = match f.ratio {
                Some(r) => (
                    format!("{:.3}", r.estimate),
                    format!("[{:.3}, {:.3}]", r.low, r.high),
                ),
                None => ("-".to_string(), "no samples".to_string()),
            };
            println!(
                "  {:<width$}  {:>10}  {:>10}  {:>6}  {:<17}  {}{}",
                figure_name(f),
                time_text(f.a_median_ns),
                time_text(f.b_median_ns),
                ratio,
                interval,
                f.verdict.as_str(),
                if f.noisy { " (noisy figure)" } else { "" }
            );
        }
    } else if !c.figures.is_empty() {
        println!("\n  no figure changed significantly");
    }
    if c.only_in_a + c.only_in_b > 0 {
        println!(
            "\n  {} figures only in run {}, {} only in run {} (not compared)",
            c.only_in_a, c.a, c.only_in_b, c.b
        );
    }
    if !c.studies.is_empty() {
        println!("\nrankings (each study's headline group):");
        for s in &c.studies {
            let what = match s.agree {
                Some(true) => format!("agree ({} ciphers ranked in both)", s.compared.len()),
                Some(false) => format!(
                    "differ: {}",
                    s.discordant
                        .iter()
                        .map(|(x, y)| format!("{x} / {y} swapped"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None if s.caption.is_none() => "no ranking in run A".to_string(),
                None => format!(
                    "cannot tell: {} cipher(s) ranked in both (the others with too few samples, or missing)",
                    s.compared.len()
                ),
            };
            println!(
                "  {:<13} {}{}",
                s.study,
                what,
                s.caption
                    .as_deref()
                    .map(|c| format!("; {c}"))
                    .unwrap_or_default()
            );
        }
    }
    let p = &c.pairs;
    println!(
        "\npair order: {} of {} pairs ordered in both runs are ordered the same way{}; {} pairs ordered only in run {}, {} only in run {} (tied or undecided in the other)",
        p.same_way,
        p.ordered_in_both,
        p.share()
            .map(|s| format!(" ({:.1}%)", 100.0 * s))
            .unwrap_or_default(),
        p.only_first,
        c.a,
        p.only_second,
        c.b
    );
    for (x, y) in p.reversed.iter().take(10) {
        println!("  reversed: {x} / {y}");
    }
    if p.reversed.len() > 10 {
        println!("  ... and {} more reversed", p.reversed.len() - 10);
    }
    let noisy = c
        .figures
        .iter()
        .filter(|f| f.noisy && f.verdict != Verdict::Unchanged)
        .count();
    println!("\n{}", c.summary_line());
    if noisy > 0 {
        println!(
            "({noisy} of the changes involve figures with too few samples to rank; measure them with more samples before trusting them)"
        );
    }
}

/// Runs `cipherlab compare`.
pub fn run(args: &Args) -> Result<ExitCode> {
    if !(args.confidence > 0.0 && args.confidence < 1.0) {
        bail!(
            "--confidence {} is not between 0 and 1: use e.g. 0.99",
            args.confidence
        );
    }
    if args.resamples < 1000 {
        bail!(
            "--resamples {} is too few for percentile intervals: use at least 1000 (Efron & Tibshirani 1993)",
            args.resamples
        );
    }
    if !(0.0..1.0).contains(&args.threshold) {
        bail!(
            "--threshold {} is not a fraction in [0, 1): use e.g. 0.05 for 5%",
            args.threshold
        );
    }
    let store = results::open_existing(args.db.as_deref())?;
    let runs = results::load(&store, &[args.a, args.b])?;
    let [a, b] = runs.as_slice() else {
        bail!("expected two runs");
    };
    let bootstrap = Bootstrap {
        resamples: args.resamples,
        confidence: args.confidence,
        seed: 0,
    };
    let c = compare::compare(a, b, &bootstrap, args.threshold);
    if args.json {
        let out = json!({
            "comparison": c,
            "summary": c.summary(),
            "summary_line": c.summary_line(),
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        if c.figures.is_empty() {
            println!(
                "runs {} and {} have no figure in common (different studies, ciphers or sizes): nothing to compare",
                c.a, c.b
            );
        }
        print_people(&c, args.all);
    }
    Ok(ExitCode::SUCCESS)
}
