//! `cipherlab bench`: the main job. Runs the studies (all, or those named) on the
//! built-in corpus or the user's files, stores every measurement and finding in the
//! SQLite results store, and prints per study a ranking and the papers' figures beside
//! ours.
//!
//! Order matters for forks: the suite is planned and run before anything else happens,
//! because a fork child (the same program, same arguments, a request in its
//! environment) rebuilds the suite, runs its one benchmark inside `Suite::run` and exits
//! there.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use cipherlab_bench::artifact::{Artifact, ArtifactKind, Table};
use cipherlab_bench::id::{Measurement, Progress, Suite};
use cipherlab_bench::report;
use cipherlab_bench::store::{Location, NewRun, Store, now_ms};
use cipherlab_bench::studies::{self, CipherFilter, Config, Inputs, STUDIES, Scale, Study};
use cipherlab_harness::keep_awake::KeepAwake;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::steadiness::{SpeedProbe, Steadiness};
use cipherlab_harness::{Extra, ExtraReport, Harness, Settings, Validity, fork};
use serde_json::{Value, json};

use cipherlab_bench::ranking;

use crate::results;

mod progress;
use progress::ProgressReport;

/// Options of `cipherlab bench`.
#[derive(clap::Args)]
#[command(after_help = "\
Studies: data-type, data-size, density, key-size, modes, phases, distribution, objects,
providers, lwc, pdf, platforms (`cipherlab bench --list` describes them). Without names,
all run. The platforms study times the runners of platforms/ that are installed and
lists the others with the command that installs them (`cipherlab platforms doctor`).

Examples:
  cipherlab bench --quick                      every study, small sizes (minutes)
  cipherlab bench data-size --cipher aes       one study, the AES variants only
  cipherlab bench --data ~/scans data-type     your own files instead of the corpus
  cipherlab bench --paper-sizes data-size      the paper's 10.7 MB .. 482 MB files
  cipherlab bench pdf --data ~/contracts       PDF encryption per cipher on your PDFs

The pdf study encrypts the PDFs of --data DIR (whole files; encrypted ones are
decrypted first with the passwords of DIR/README.md or skipped with a note), else
those of $CIPHERLAB_PDF_DIR or ../shared/pdf, else three built-in PDFs.

Results go to the SQLite store ($CIPHERLAB_DB, or ./cipherlab-results.sqlite; see
docs/results.md) and the run's HTML report to ./cipherlab-report.html (--report FILE,
--no-report). `cipherlab report RUN...` makes the page of any stored runs, with CSV and
JSON exports; `cipherlab compare A B` compares two runs.")]
pub struct Args {
    /// Studies to run (default: all).
    #[arg(value_name = "STUDY")]
    studies: Vec<String>,
    /// A study to run (same as naming it; may be repeated).
    #[arg(long = "study", value_name = "NAME")]
    study: Vec<String>,
    /// Small inputs, few sizes, short sampling: every study in a few minutes.
    #[arg(long, conflicts_with = "paper_sizes")]
    quick: bool,
    /// The papers' own input sizes (10.7 MB .. 482 MB; needs several GB of memory and
    /// a long time).
    #[arg(long)]
    paper_sizes: bool,
    /// Only ciphers matching PATTERN: a substring (`aes`) or a glob (`aes-*-gcm`);
    /// may be repeated.
    #[arg(long = "cipher", value_name = "PATTERN")]
    cipher: Vec<String>,
    /// Encrypt the files under DIR instead of the built-in corpus (data-type, data-size,
    /// density and distribution use them, with --quick only each file's first 1 MiB; pdf
    /// uses the PDFs among them, whole).
    #[arg(long, value_name = "DIR")]
    data: Option<PathBuf>,
    /// Results database: a SQLite file, or a PostgreSQL URL postgres://USER@HOST/DB
    /// (default: $CIPHERLAB_DB, else ./cipherlab-results.sqlite).
    #[arg(long, value_name = "FILE|URL")]
    db: Option<PathBuf>,
    /// Run each benchmark in N separate processes (JMH forks) and pool their samples.
    #[arg(long, value_name = "N")]
    forks: Option<u32>,
    /// Print one JSON object (run id, database, rankings, tables) instead of tables.
    #[arg(long)]
    json: bool,
    /// Describe the studies and exit.
    #[arg(long)]
    list: bool,
    /// Write this run's HTML report to FILE (default: cipherlab-report.html; the same
    /// page `cipherlab report RUN` makes).
    #[arg(long, value_name = "FILE", conflicts_with = "no_report")]
    report: Option<PathBuf>,
    /// Do not write the HTML report.
    #[arg(long)]
    no_report: bool,
    /// Let the machine's other CPUs idle while measuring. By default the run keeps
    /// them awake with busy loops at the lowest scheduling priority (SCHED_IDLE, which
    /// yields to any other work), because on a virtual machine an idle CPU lets the
    /// host move the measuring core's speed: the figures then wander and fewer can be
    /// ordered (docs/studies.md, "CPU speed").
    #[arg(long)]
    no_keep_awake: bool,
}

/// With `--quick`, user files are cut to this many bytes.
const QUICK_FILE_LIMIT: u64 = 1 << 20;

fn selected(args: &Args) -> Result<Vec<&'static dyn Study>> {
    let names: Vec<&String> = args.studies.iter().chain(&args.study).collect();
    if names.is_empty() {
        return Ok(STUDIES.to_vec());
    }
    let mut out: Vec<&'static dyn Study> = Vec::new();
    for n in names {
        let s = studies::by_name(n).map_err(anyhow::Error::msg)?;
        if !out.iter().any(|x| x.name() == s.name()) {
            out.push(s);
        }
    }
    // Run in the catalogue order whatever order they were named in.
    out.sort_by_key(|s| STUDIES.iter().position(|x| x.name() == s.name()));
    Ok(out)
}

/// Slices per benchmark (see `Settings::rounds`): on the 2-core virtual machines we
/// measured, whole stretches of a minute ran ~1.7x slower (another guest on the host),
/// and two runs ranked differently when each benchmark took its samples at once.
const ROUNDS: u32 = 3;

/// Wall-clock time the extra slices for undecided figures may take after the planned
/// rounds (`Suite::run_adaptive`): `--quick` must stay within 3 minutes on 2 cores.
fn extra_budget(scale: Scale) -> Duration {
    Duration::from_secs(scale.pick(30, 300, 0))
}

/// How long `--quick`'s measuring may take before extra slices stop: its promise is 3
/// minutes, and the findings, the store and the report follow in a few seconds.
const QUICK_LIMIT: Duration = Duration::from_secs(172);

/// The most extra slices one figure gets: 8 slices of 5 samples take a 15-sample figure
/// to 55, which narrows its interval about twofold.
const MAX_EXTRA_ROUNDS: u32 = 8;

fn settings(scale: Scale, forks: Option<u32>) -> Settings {
    let mut s = match scale {
        Scale::Quick => Settings {
            rounds: ROUNDS,
            ..Settings::quick()
        },
        Scale::Full => Settings {
            rounds: ROUNDS,
            ..Settings::default()
        },
        // Each call takes seconds at these sizes: fewer, longer samples.
        Scale::Paper => Settings {
            warmup_iterations: 1,
            iterations: 10,
            ..Settings::default()
        },
    };
    if let Some(f) = forks {
        s.forks = f;
    }
    s
}

/// Runs `cipherlab bench`.
pub fn run(args: &Args) -> Result<ExitCode> {
    if args.list {
        for s in STUDIES {
            println!(
                "{:<13} {}\n{:<13} from: {}",
                s.name(),
                s.title(),
                "",
                s.source()
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let child = fork::ForkRequest::from_env()
        .map_err(anyhow::Error::msg)?
        .is_some();
    let studies = selected(args)?;
    let scale = if args.quick {
        Scale::Quick
    } else if args.paper_sizes {
        Scale::Paper
    } else {
        Scale::Full
    };
    let data = match &args.data {
        Some(dir) => Some(
            Inputs::from_dir(dir, (scale == Scale::Quick).then_some(QUICK_FILE_LIMIT))
                .with_context(|| format!("--data {}", dir.display()))?,
        ),
        None => None,
    };
    let cfg = Config {
        scale,
        filter: CipherFilter::new(&args.cipher),
        data,
    };
    let settings = settings(scale, args.forks);

    // Plan and run: nothing else may happen first (see the module doc).
    let mut suite = Suite::new();
    studies::plan_all(&studies, &cfg, &mut suite)?;
    if cfg.filter.is_restricted()
        && suite.is_empty()
        && !studies.iter().any(|s| s.name() == "distribution")
    {
        bail!(
            "no benchmark matches --cipher {}: `cipherlab list` shows the cipher names",
            args.cipher.join(" --cipher ")
        );
    }
    let mut machine = cipherlab_bench::this_machine();
    let location = results::location(args.db.as_deref());
    if !child && matches!(location, Location::Postgres(_)) {
        // A shared database that cannot be reached is said now, not after minutes of
        // measuring; the run is written through a new connection at the end.
        drop(Store::open_location(&location)?);
    }
    if !child && !args.json {
        eprintln!(
            "cipherlab bench ({}): {} studies, {} benchmarks on {} ({} cores; {})",
            scale.as_str(),
            studies.len(),
            suite.len(),
            machine.cpu_model,
            machine.logical_cores,
            machine.flags_present()
        );
    }
    // Read before the spinners below start: they count in the load average.
    let load_start = load_average();
    // The other CPUs kept awake from here to the last sample (see `keep_awake`); a fork
    // child measures under its parent's.
    let keep_awake = (!child && !args.no_keep_awake).then(KeepAwake::start);
    let spinners = keep_awake.as_ref().map_or(0, KeepAwake::count);
    if !child && !args.json && spinners > 0 {
        eprintln!(
            "  keeping {spinners} other CPU{} awake with idle-priority busy loops while measuring (--no-keep-awake to let {} idle)",
            if spinners == 1 { "" } else { "s" },
            if spinners == 1 { "it" } else { "them" }
        );
    }
    let steal_start = steal_ticks();
    if !child && !args.json {
        warn_load(load_start, &machine, "at the start");
    }
    let started_ms = now_ms();
    let started = Instant::now();
    // Other runtimes (the platforms study's runners) first, never in a fork child: their
    // time is known before the suite's extra slices take what is left of --quick's
    // minutes.
    let (elsewhere, mut artifacts) = if child {
        (Vec::new(), Vec::new())
    } else {
        if !args.json && studies.iter().any(|s| s.runs_elsewhere()) {
            eprintln!("  timing the other runtimes' runners (platforms/) first");
        }
        studies::elsewhere_all(&studies, &cfg, &settings, &mut machine)?
    };
    let harness = Harness::new(settings.clone());
    // The core's speed, read between slices through the run (see `steadiness`).
    let mut speed = SpeedProbe::new(SPEED_PROBE_EVERY);
    let (measurements, extra) = {
        let steps = suite.planned_slices(&harness);
        let mut progress = ProgressReport::new(steps, child || args.json);
        let extra = Extra {
            budget: extra_budget(scale),
            max_rounds: MAX_EXTRA_ROUNDS,
            // --quick promises a few minutes: extra slices never take it past 3.
            run_limit: (scale == Scale::Quick)
                .then(|| QUICK_LIMIT.saturating_sub(started.elapsed())),
            undecided: &ranking::undecided,
        };
        let r = suite.run_adaptive(
            &harness,
            &mut |p| {
                if matches!(p, Progress::Started { .. }) {
                    speed.tick();
                }
                progress.update(p);
            },
            &extra,
        );
        progress.finish();
        r?
    };
    drop(keep_awake);
    let measurements = [measurements, elsewhere].concat();
    let elapsed = started.elapsed();
    let load_end = load_average().map(|l| without_spinners(l, spinners, elapsed));
    let steal = steal_ticks().zip(steal_start).map(|((s1, t1), (s0, t0))| {
        s1.saturating_sub(s0) as f64 / t1.saturating_sub(t0).max(1) as f64
    });

    // Findings, then the store.
    artifacts.extend(studies::findings_all(
        &studies,
        &cfg,
        &measurements,
        &machine,
    )?);
    let mut store = Store::open_location(&location)?;
    let run = NewRun {
        started_ms,
        command_line: std::env::args().collect::<Vec<_>>().join(" "),
        machine: machine.clone(),
        settings,
        validity: Validity {
            steadiness: speed.summary(),
            keep_awake: Some(spinners as u32),
            ..harness.validity().clone()
        },
        load_start,
        load_end,
    };
    // One transaction: a shared database's readers never see part of this run.
    let run_id = store.save_run_with(&run, &measurements, &artifacts, now_ms())?;
    let report = if args.no_report {
        None
    } else {
        Some(write_report(args, &store, run_id)?)
    };

    if args.json {
        print_json(
            &studies,
            &measurements,
            &artifacts,
            run_id,
            store.path(),
            report.as_deref(),
            (elapsed, &extra, run.validity.steadiness.as_ref()),
        )?;
    } else {
        print_people(&studies, &measurements, &artifacts, &machine, &harness);
        print_validity(&measurements, &machine, load_start, load_end, steal);
        print_steadiness(run.validity.steadiness.as_ref(), spinners);
        print_ranking(&measurements, &extra);
        println!(
            "\n{} measurements and {} findings in {:.0} s, saved as run {run_id} in {}",
            measurements.len(),
            artifacts.len(),
            elapsed.as_secs_f64(),
            store.path()
        );
        if let Some(path) = &report {
            println!("report: {}", path.display());
        }
        println!(
            "next: `cipherlab report {run_id}` (HTML page, CSV, JSON), `cipherlab compare <earlier run> {run_id}`"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// A load average read at the end of a run, less what the run's own `spinners`
/// (always runnable, so counted in it) added: Linux's 1-minute figure is an exponential
/// average with a 60 s time constant, so a task runnable for `elapsed` adds
/// 1 - e^(-elapsed / 60 s). What is left is comparable with the start's reading and with
/// runs without spinners: the measuring thread and any other program.
fn without_spinners(load: f64, spinners: usize, elapsed: Duration) -> f64 {
    let own = spinners as f64 * (1.0 - (-elapsed.as_secs_f64() / 60.0).exp());
    (load - own).max(0.0)
}

/// The 1-minute load average, where the OS tells it.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
}

/// The machine's steal and total CPU time so far, in clock ticks (`/proc/stat`, the
/// `cpu` line: user nice system idle iowait irq softirq steal ...), where the OS shows
/// them: how much time the hypervisor gave other guests.
fn steal_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .filter_map(|x| x.parse().ok())
        .collect();
    (v.len() == 8).then(|| (v[7], v.iter().sum()))
}

/// A load average above half the cores means other programs compete for the CPU.
fn high_load(load: Option<f64>, machine: &MachineInfo) -> Option<f64> {
    load.filter(|l| *l > f64::from(machine.logical_cores) / 2.0)
}

/// Warns on standard error when the machine is busy `when`.
fn warn_load(load: Option<f64>, machine: &MachineInfo, when: &str) {
    if let Some(l) = high_load(load, machine) {
        eprintln!(
            "warning: the load average is {l:.1} on {} cores {when}: other programs compete \
             for the CPU. Per-call figures are read on the thread's CPU time, which leaves \
             their time out, but on a virtual machine an overcommitted host can still skew \
             it (steal time); whole jobs on the wall clock are slowed. An idle machine gives \
             the narrowest intervals.",
            machine.logical_cores
        );
    }
}

/// How many figures carry which warning, and what a busy machine does to them.
fn print_validity(
    ms: &[Measurement],
    machine: &MachineInfo,
    start: Option<f64>,
    end: Option<f64>,
    steal: Option<f64>,
) {
    let mut kinds: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut timers: std::collections::BTreeMap<&str, usize> = Default::default();
    for m in ms {
        for w in &m.warnings {
            *kinds.entry(w.kind()).or_default() += 1;
        }
        *timers.entry(m.timer.as_str()).or_default() += 1;
    }
    let list = |m: &std::collections::BTreeMap<&str, usize>| {
        m.iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!();
    println!("timers: {}", list(&timers));
    if kinds.is_empty() {
        println!("validity: no warnings on any of the {} figures", ms.len());
    } else {
        println!("validity warnings: {}", list(&kinds));
    }
    let text = |l: Option<f64>| l.map_or("unknown".to_string(), |l| format!("{l:.2}"));
    println!(
        "load average: {} at the start, {} at the end",
        text(start),
        text(end)
    );
    if let Some(s) = steal.filter(|s| *s > 0.0) {
        println!(
            "steal time: the hypervisor held back {:.1}% of the machine's CPU time during the run; \
             the thread-CPU-time figures can under-count when it is high (docs/studies.md, \"Clocks\")",
            100.0 * s
        );
    }
    let peak = start.into_iter().chain(end).reduce(f64::max);
    if let Some(l) = high_load(peak, machine) {
        println!(
            "warning: the load average reached {l:.1} on {} cores while measuring: other \
             programs took CPU time; the thread-CPU-time figures leave it out, the wall-clock \
             ones (whole jobs) do not. Run again on an idle machine to be sure.",
            machine.logical_cores
        );
    }
}

/// How often the run reads the core's speed between slices: about 700 readings in a
/// `--quick` run, at 0.15–0.3 ms each (three runs of the loop), 0.1% of its time.
const SPEED_PROBE_EVERY: Duration = Duration::from_millis(200);

/// The core's speed through the run, and a warning when it moved more than the
/// ranking's margin.
fn print_steadiness(steadiness: Option<&Steadiness>, spinners: usize) {
    let Some(s) = steadiness else { return };
    let awake = match spinners {
        0 => "the other CPUs left idle".to_string(),
        n => format!("{n} other CPU(s) kept awake"),
    };
    println!("cpu speed: {} ({awake})", s.to_text());
    if s.is_unsteady() {
        let advice = if spinners == 0 {
            "Keeping the other CPUs awake (the default; this run had --no-keep-awake or a \
             single CPU) steadied it on a 2-vCPU cloud guest"
        } else {
            "Other virtual machines on the same host, or its power management, move it \
             even with this machine's CPUs awake; a machine with fixed clocks avoids it"
        };
        println!(
            "warning: the same fixed work took {:.0}% longer at some moments of the run than \
             at others: the host changed the core's clock or shared the physical core. The \
             CPU-time figures move with it, so their intervals widen and fewer can be \
             ordered. {advice} (docs/studies.md, \"CPU speed\").",
            100.0 * (s.spread() - 1.0)
        );
    }
}

/// What the run could order, and what the extra slices did.
fn print_ranking(ms: &[Measurement], extra: &ExtraReport) {
    println!("{}", ranking::census(ms).to_text());
    let by_study = ranking::unranked_by_study(ms);
    if !by_study.is_empty() {
        let parts: Vec<String> = by_study.iter().map(|(s, n)| format!("{s} {n}")).collect();
        println!(
            "  not ordered against every neighbour, by study: {}",
            parts.join(", ")
        );
    }
    if extra.slices > 0 || extra.budget_spent {
        println!(
            "extra samples: {} slices for {} undecided figures in {} passes, {:.0} s{}",
            extra.slices,
            extra.benchmarks,
            extra.passes,
            extra.elapsed.as_secs_f64(),
            if extra.budget_spent {
                "; the time budget ran out with figures still undecided"
            } else {
                ""
            }
        );
    }
}

fn tables_of<'a>(
    artifacts: &'a [Artifact],
    study: &str,
) -> impl Iterator<Item = (&'a Artifact, &'a Table)> {
    artifacts
        .iter()
        .filter(move |a| a.study == study)
        .filter_map(|a| a.as_table().map(|t| (a, t)))
}

fn print_people(
    studies: &[&'static dyn Study],
    ms: &[Measurement],
    artifacts: &[Artifact],
    machine: &MachineInfo,
    harness: &Harness,
) {
    let v = harness.validity();
    println!(
        "machine: {} ({} cores, {}), {}, {}",
        machine.cpu_model,
        machine.logical_cores,
        machine.flags_present(),
        machine.os,
        machine.rustc
    );
    println!("platform: {}", machine.platform_summary());
    println!(
        "timer: {} (per-call figures) resolution {} ns, {:.1} ns per read; empty operation {:.2} ns in a batch; wall-clock figures say so in their timer column",
        v.timer, v.resolution_ns, v.timer_overhead_ns, v.empty_op_ns
    );
    for s in studies {
        println!("\n== {}: {}\n   ({})", s.name(), s.title(), s.source());
        let mine: Vec<&Measurement> = ms.iter().filter(|m| m.id.study == s.name()).collect();
        if let Some(r) = ranking::headline(&mine) {
            print!("{}", r.to_text());
        }
        for (a, t) in tables_of(artifacts, s.name()) {
            println!("\n  {}", a.title);
            print!("{}", t.to_text());
        }
        let pictures = artifacts
            .iter()
            .filter(|a| a.study == s.name() && a.kind() == ArtifactKind::Image)
            .count();
        if pictures > 0 {
            println!("  ({pictures} pictures in the report)");
        }
    }
}

/// Writes the run's HTML report (atomically) and returns its path. The run is read back
/// from the store so the page shows exactly what `cipherlab report` would.
fn write_report(args: &Args, store: &Store, run_id: i64) -> Result<PathBuf> {
    let path = args
        .report
        .clone()
        .unwrap_or_else(|| PathBuf::from("cipherlab-report.html"));
    let page = report::html(&[store.load_run(run_id)?], store.path());
    report::write_atomic(&path, page.as_bytes()).with_context(|| {
        format!(
            "run {run_id} is saved in {}, but its report could not be written to {}: choose another file with --report FILE, or make it later with `cipherlab report {run_id}`",
            store.path(),
            path.display()
        )
    })?;
    Ok(path)
}

fn print_json(
    studies: &[&'static dyn Study],
    ms: &[Measurement],
    artifacts: &[Artifact],
    run_id: i64,
    db: &str,
    report: Option<&std::path::Path>,
    (elapsed, extra, speed): (Duration, &ExtraReport, Option<&Steadiness>),
) -> Result<()> {
    let per_study: Vec<Value> = studies
        .iter()
        .map(|s| {
            let mine: Vec<&Measurement> = ms.iter().filter(|m| m.id.study == s.name()).collect();
            let tables: Vec<Value> = tables_of(artifacts, s.name())
                .map(|(a, t)| json!({"name": a.name, "title": a.title, "table": t}))
                .collect();
            json!({
                "name": s.name(),
                "measurements": mine.len(),
                "ranking": ranking::headline(&mine).map(|r| r.to_json()),
                "tables": tables,
            })
        })
        .collect();
    let out = json!({
        "run": run_id,
        "database": db,
        "report": report.map(|p| p.display().to_string()),
        "seconds": elapsed.as_secs_f64(),
        "measurements": ms.len(),
        "ranking": ranking::census(ms),
        "extra_slices": extra.slices,
        "cpu_speed": speed,
        "studies": per_study,
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runs_own_spinners_are_taken_out_of_the_end_load() {
        // One spinner for 3 minutes adds 1 - e^-3 = 0.95 to the 1-minute load average.
        let end = without_spinners(2.05, 1, Duration::from_secs(180));
        assert!((end - 1.10).abs() < 0.01, "{end}");
        // For 30 s it has added only 1 - e^-0.5 = 0.39.
        let end = without_spinners(1.5, 1, Duration::from_secs(30));
        assert!((end - 1.11).abs() < 0.01, "{end}");
        assert_eq!(without_spinners(0.2, 3, Duration::from_secs(600)), 0.0);
        assert_eq!(without_spinners(1.3, 0, Duration::from_secs(600)), 1.3);
    }
}
