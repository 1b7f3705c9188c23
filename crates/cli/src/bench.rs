//! `cipherlab bench`: the main job. Parses the arguments into a lab
//! [`Plan`](cipherlab_bench::pipeline::Plan), runs it (`cipherlab_bench::pipeline::run`:
//! the studies, all or those named, on the built-in corpus or the user's files, every
//! measurement and finding stored), and prints: progress while it runs, then per study a
//! ranking and the papers' figures beside ours, or one JSON object.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use cipherlab_bench::pipeline::{self, Event, Plan, Run};
use cipherlab_bench::studies::{self, CipherFilter, Config, Inputs, STUDIES, Scale, Study};
use cipherlab_harness::ExtraReport;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::steadiness::Steadiness;
use cipherlab_harness::validity::high_load;
use cipherlab_results::artifact::{Artifact, ArtifactKind, Table};
use cipherlab_results::id::Measurement;
use cipherlab_results::ranking;
use cipherlab_results::report;
use cipherlab_results::store::Store;
use cipherlab_results::verdict;
use serde_json::{Value, json};

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
    /// Time the ciphers through provider P instead of each study's default; may be
    /// repeated. P is one of this program's (`cipherlab list` names them: cipherlab,
    /// rustcrypto, openssl, ring, aws-lc) or a runner's (java-sunjce, java-bc, node,
    /// python-cryptography, python-pycryptodome, python-cipherlab, php-openssl, go),
    /// timed through its runner after conformance. A provider without a cipher is listed
    /// as unsupported and the study goes on. Studies: data-type, data-size, density,
    /// key-size, modes, phases, lwc, providers, platforms.
    #[arg(long = "provider", value_name = "P")]
    provider: Vec<String>,
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
    /// A runner of your own, timed beside the built-in ones in the studies that time
    /// runners (platforms, providers): any program that speaks platforms/PROTOCOL.md,
    /// split into words without a shell (quote as in sh); may be repeated. Also read:
    /// runners.toml, or the file $CIPHERLAB_RUNNERS names (docs/platforms.md).
    #[arg(long = "runner", value_name = "NAME=COMMAND")]
    runner: Vec<String>,
    /// An extra JCA provider for the Java runner, served as `java-NAME` and checked like
    /// the others: NAME=JAR[@CLASS] or NAME=GROUP:ARTIFACT:VERSION[:CLASSIFIER][@CLASS]
    /// (fetched once with Maven into platforms/java/target/providers); CLASS is the
    /// provider class when the jar declares none. Loading a provider runs its code: name
    /// only jars you trust (docs/platforms.md, "More JCA providers"). May be repeated.
    #[arg(long = "java-provider", value_name = "NAME=SPEC")]
    java_provider: Vec<String>,

    /// Let the machine's other CPUs idle while measuring. By default the run keeps
    /// them awake with busy loops at the lowest scheduling priority (SCHED_IDLE, which
    /// yields to any other work), because on a virtual machine an idle CPU lets the
    /// host move the measuring core's speed: the figures then wander and fewer can be
    /// ordered (docs/studies.md, "CPU speed").
    #[arg(long)]
    no_keep_awake: bool,
    /// Sample where each figure's CPU time goes and draw each figure's flame graph in the
    /// report: after the measured run, every benchmark runs once more under a sampling
    /// profiler (~1,000 samples per CPU-second), whose figures are not kept. Off by
    /// default (it adds that pass's time). Not with --forks. Of the other runtimes only
    /// the JVM of the pdf study is profiled, by the JDK's Flight Recorder, with a table
    /// of its hottest methods (docs/studies.md, "Profiles").
    #[arg(long, conflicts_with = "forks")]
    profile: bool,
    /// Time a C implementation under the NIST LWC crypto_aead API (api.h and .c files in
    /// DIR) as provider NAME in the lwc study, beside cipherlab's own; may be repeated.
    /// AEADs only: a crypto_hash folder is refused (exit 2; `cipherlab impl check` checks
    /// hashes).
    /// DIR is built with every C compiler × flag set (as `cipherlab impl check`), its
    /// algorithm is the catalogue AEAD whose official KAT a build agrees with, and the
    /// fastest agreeing build is timed. A DIR with no agreeing build stops the run (exit
    /// 10). Loading a build runs its code in this process: name only code you would run.
    /// With --forks, each child loads the library its parent chose and checks it again
    /// (docs/native.md).
    #[arg(long = "impl", value_name = "NAME=DIR")]
    impls: Vec<cipherlab_bench::native::Impl>,
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
        let s = studies::by_name(n)?;
        if !out.iter().any(|x| x.name() == s.name()) {
            out.push(s);
        }
    }
    // Run in the catalogue order whatever order they were named in.
    out.sort_by_key(|s| STUDIES.iter().position(|x| x.name() == s.name()));
    Ok(out)
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
    let studies = selected(args)?;
    refuse_hash_impls(&args.impls)?;
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
    let config = Config {
        scale,
        filter: CipherFilter::new(&args.cipher),
        data,
        providers: args.provider.clone(),
        runners: {
            crate::platforms::java_providers(
                &args.java_provider,
                &cipherlab_platforms::platforms_dir(None),
            )?;
            results::user_runners(&args.runner)?
        },
        profile: args.profile,
    };
    let plan = Plan {
        settings: pipeline::settings_for(scale, args.forks),
        keep_awake: !args.no_keep_awake,
        impls: args.impls.clone(),
        ..Plan::new(studies, config, results::location(args.db.as_deref()))
    };
    let quiet = args.json;
    if !quiet && !plan.impls.is_empty() && !pipeline::is_fork_child()? {
        for i in &plan.impls {
            eprintln!(
                "  building and checking --impl {}={} (every compiler x {} flag sets, then its KAT)",
                i.name,
                i.dir.display(),
                cipherlab_native::FLAG_SETS.len()
            );
        }
    }
    let mut progress: Option<ProgressReport> = None;
    let run = pipeline::run(&plan, &mut |event| match event {
        Event::Planned {
            benchmarks,
            machine,
            load,
        } if !quiet => {
            eprintln!(
                "cipherlab bench ({}): {} studies, {benchmarks} benchmarks on {} ({} cores; {})",
                scale.as_str(),
                plan.studies.len(),
                machine.cpu_model,
                machine.logical_cores,
                machine.flags_present()
            );
            warn_load(load, machine, "at the start");
        }
        Event::KeepingAwake { spinners } if !quiet => eprintln!(
            "  keeping {spinners} other CPU{} awake with idle-priority busy loops while measuring (--no-keep-awake to let {} idle)",
            if spinners == 1 { "" } else { "s" },
            if spinners == 1 { "it" } else { "them" }
        ),
        Event::TimingElsewhere if !quiet => {
            eprintln!("  timing the other runtimes' runners (platforms/) first");
        }
        Event::Measuring { slices } => progress = Some(ProgressReport::new(slices, quiet)),
        Event::Suite(p) => {
            if let Some(bar) = progress.as_mut() {
                bar.update(p);
            }
        }
        Event::Measured => {
            if let Some(bar) = progress.take() {
                bar.finish();
            }
        }
        Event::Warning(why) => eprintln!("warning: {why}"),
        Event::Profiling { benchmarks } if !quiet => eprintln!(
            "  profiling: each of the {benchmarks} benchmarks once more under the sampling profiler (its figures are not kept)"
        ),
        _ => {}
    })?;
    let store = Store::open_location(&plan.store)?;
    let report = if args.no_report {
        None
    } else {
        Some(write_report(args, &store, run.id)?)
    };

    if args.json {
        print_json(&run, report.as_deref())?;
    } else {
        print_people(&run);
        print_validity(&run);
        print_steadiness(run.validity.steadiness.as_ref(), spinners_of(&run));
        print_ranking(&run.measurements, &run.extra);
        println!(
            "\n{} measurements and {} findings in {:.0} s, saved as run {} in {}",
            run.measurements.len(),
            run.artifacts.len(),
            run.elapsed.as_secs_f64(),
            run.id,
            run.database
        );
        if let Some(path) = &report {
            println!("report: {}", path.display());
        }
        println!(
            "next: `cipherlab report {0}` (HTML page, CSV, JSON), `cipherlab compare <earlier run> {0}`",
            run.id
        );
        print_claims(&run.artifacts);
    }
    Ok(ExitCode::SUCCESS)
}

/// Spinners that kept the other CPUs awake during `run`.
/// `--impl` times AEADs in the lwc study: a folder whose api.h declares the `crypto_hash`
/// API is refused before anything is built (exit 2); `impl check` checks it. A folder
/// that cannot be read is left to the build, which says why.
fn refuse_hash_impls(impls: &[cipherlab_bench::native::Impl]) -> Result<()> {
    for i in impls {
        if let Ok(src) = cipherlab_native::Source::read(&i.dir)
            && matches!(src.api, cipherlab_native::Api::Hash { .. })
        {
            return Err(
                anyhow::Error::new(cipherlab_native::Error::HashNotTimed(i.dir.clone()))
                    .context(format!("--impl {}", i.name)),
            );
        }
    }
    Ok(())
}

fn spinners_of(run: &Run) -> usize {
    run.validity.keep_awake.unwrap_or(0) as usize
}

/// Warns on standard error when the machine is busy `when`.
fn warn_load(load: Option<f64>, machine: &MachineInfo, when: &str) {
    if let Some(l) = high_load(load, machine.logical_cores) {
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
fn print_validity(run: &Run) {
    let (ms, machine) = (&run.measurements, &run.machine);
    let (start, end) = run.load;
    let steal = run.validity.steal;
    let mut kinds: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut timers: std::collections::BTreeMap<&str, usize> = Default::default();
    for m in ms.iter() {
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
    if let Some(l) = high_load(peak, machine.logical_cores) {
        println!(
            "warning: the load average reached {l:.1} on {} cores while measuring: other \
             programs took CPU time; the thread-CPU-time figures leave it out, the wall-clock \
             ones (whole jobs) do not. Run again on an idle machine to be sure.",
            machine.logical_cores
        );
    }
}

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

fn print_people(run: &Run) {
    let (studies, ms, artifacts, machine) = (
        &run.studies,
        &run.measurements,
        &run.artifacts,
        &run.machine,
    );
    let v = &run.validity;
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
        let profiles = artifacts
            .iter()
            .filter(|a| a.study == s.name() && a.kind() == ArtifactKind::Profile)
            .count();
        if profiles > 0 {
            println!("  ({profiles} CPU profiles, drawn as flame graphs in the report)");
        }
    }
}

/// Last, what a reader wants first: every paper claim the run checked, counted, and the
/// ones it differs from by study and claim.
fn print_claims(artifacts: &[Artifact]) {
    println!("\n{}", verdict::claims(artifacts).to_text());
}

/// Writes the run's HTML report (atomically) and returns its path. The run is read back
/// from the store so the page shows exactly what `cipherlab report` would.
fn write_report(args: &Args, store: &Store, run_id: i64) -> Result<PathBuf> {
    let path = args
        .report
        .clone()
        .unwrap_or_else(|| PathBuf::from("cipherlab-report.html"));
    let page = report::html(
        &[store.load_run(run_id)?],
        store.path(),
        &cipherlab_bench::studies::about(),
    );
    // A report is replaced whole, like any output: the old one stays until the new one
    // is complete.
    cipherlab_outfile::write(&path, page.as_bytes(), true).with_context(|| {
        format!(
            "run {run_id} is saved in {}, but its report could not be written to {}: choose another file with --report FILE, or make it later with `cipherlab report {run_id}`",
            store.path(),
            path.display()
        )
    })?;
    Ok(path)
}

fn print_json(run: &Run, report: Option<&std::path::Path>) -> Result<()> {
    let (studies, ms, artifacts) = (&run.studies, &run.measurements, &run.artifacts);
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
        "run": run.id,
        "database": run.database,
        "report": report.map(|p| p.display().to_string()),
        "seconds": run.elapsed.as_secs_f64(),
        "measurements": ms.len(),
        "ranking": ranking::census(ms),
        "extra_slices": run.extra.slices,
        "cpu_speed": run.validity.steadiness,
        "studies": per_study,
        "claims": verdict::claims(artifacts),
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}
