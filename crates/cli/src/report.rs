//! `cipherlab report`: the HTML page of one or more stored runs, and CSV/JSON exports of
//! their measurements. Everything is read from the results store; nothing is measured.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use cipherlab_results::report::{
    self,
    export::{CsvExporter, Exporter, JsonExporter},
    gbench::GoogleBenchmarkExporter,
    jmh::JmhExporter,
};

use crate::results;

/// Options of `cipherlab report`.
#[derive(clap::Args)]
#[command(after_help = "\
Without RUN, the newest run is reported. Several runs are drawn on the same axes (one
colour per cipher, one line style per run); the machine and validity tables put them side
by side, and each study shows every run's ranking and tables in turn.

The page is self-contained: plots are inline SVG, pictures are embedded, nothing is
fetched, so it opens offline and can be mailed as one file.

Examples:
  cipherlab report                              the newest run -> cipherlab-report.html
  cipherlab report 3 4 -o before-after.html     two runs overlaid
  cipherlab report 4 --csv runs.csv             only the CSV (no HTML unless -o is given)
  cipherlab report --json - | jq '.runs[0].machine'
  cipherlab report 4 --jmh jmh.json             for JMH visualizers
  cipherlab report 4 --gbench gb.json           for Google Benchmark's compare.py
  cipherlab report --list                       which runs (and machines) the database holds
  cipherlab report --each-machine               the newest run of every machine, overlaid
  cipherlab report --machine epyc --machine 3f2a  the newest run of the machines matching
  cipherlab report --db postgres://lab@db/cipherlab --each-machine   a fleet's shared store

Runs from several machines are overlaid like any runs; the machine table puts their
machines side by side and the page warns that absolute figures compare machines, not
only code (docs/fleet.md).

Columns of the CSV and the JSON layout: docs/results.md (\"Report and export\").")]
pub struct Args {
    /// Runs to report, by id (`cipherlab report --list` shows them; default: the newest).
    #[arg(value_name = "RUN")]
    runs: Vec<i64>,
    /// Results database: a SQLite file, or a PostgreSQL URL postgres://USER@HOST/DB
    /// (default: $CIPHERLAB_DB, else ./cipherlab-results.sqlite).
    #[arg(long, value_name = "FILE|URL")]
    db: Option<PathBuf>,
    /// Write the HTML page to FILE (`-`: standard output). Default:
    /// cipherlab-report.html, unless only --csv or --json were asked for.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Also write the measurements as CSV to FILE (`-`: standard output), one row per
    /// measurement.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Also write the runs as JSON to FILE (`-`: standard output): machine block,
    /// settings, validity, measurements with raw samples, artifacts' metadata.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Also write the measurements in JMH's JSON result format to FILE (`-`: standard
    /// output), for JMH's visualizers.
    #[arg(long, value_name = "FILE")]
    jmh: Option<PathBuf>,
    /// Also write one run in Google Benchmark's JSON format to FILE (`-`: standard
    /// output), for its compare.py.
    #[arg(long, value_name = "FILE")]
    gbench: Option<PathBuf>,
    /// List the runs in the database and exit.
    #[arg(long)]
    list: bool,
    /// Only the newest finished run of each machine whose fingerprint starts with M or
    /// whose CPU model contains M (case-insensitive); may be repeated. With RUNs, chooses
    /// among those.
    #[arg(long = "machine", value_name = "M")]
    machines: Vec<String>,
    /// The newest finished run of every machine in the database, overlaid.
    #[arg(long, conflicts_with = "machines")]
    each_machine: bool,
}

/// The default page's file name.
const DEFAULT_OUTPUT: &str = "cipherlab-report.html";

fn is_stdout(p: &Path) -> bool {
    p.as_os_str() == "-"
}

/// Writes `bytes` to `path` atomically, or to standard output for `-`.
fn emit(path: &Path, bytes: &[u8], what: &str) -> Result<()> {
    if is_stdout(path) {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)
            .and_then(|()| out.flush())
            .with_context(|| format!("writing the {what} to standard output"))?;
        return Ok(());
    }
    cipherlab_outfile::write(path, bytes, true).with_context(|| {
        format!(
            "could not write the {what} to {}: check that its directory exists and is writable, or choose another file",
            path.display()
        )
    })?;
    eprintln!("wrote {} ({what}, {} bytes)", path.display(), bytes.len());
    Ok(())
}

/// Runs `cipherlab report`.
pub fn run(args: &Args) -> Result<ExitCode> {
    let store = results::open_existing(args.db.as_deref())?;
    if args.list {
        results::print_list(&store)?;
        return Ok(ExitCode::SUCCESS);
    }
    let exports_only =
        args.csv.is_some() || args.json.is_some() || args.jmh.is_some() || args.gbench.is_some();
    let html_out = match &args.output {
        Some(p) => Some(p.clone()),
        None if !exports_only => Some(PathBuf::from(DEFAULT_OUTPUT)),
        None => None,
    };
    let to_stdout = [&html_out, &args.csv, &args.json, &args.jmh, &args.gbench]
        .iter()
        .filter(|p| p.as_deref().is_some_and(is_stdout))
        .count();
    if to_stdout > 1 {
        bail!("only one of -o, --csv, --json, --jmh and --gbench can be `-` (standard output)");
    }
    let ids = if args.each_machine || !args.machines.is_empty() {
        results::by_machine(&store, &args.runs, &args.machines, args.each_machine)?
    } else {
        args.runs.clone()
    };
    let runs = results::load(&store, &ids)?;
    // Everything is rendered before anything is written, so a failure leaves no
    // partial set of outputs behind.
    let mut outputs: Vec<(PathBuf, Vec<u8>, &str)> = Vec::new();
    if let Some(p) = html_out {
        outputs.push((
            p,
            report::html(&runs, store.path(), &cipherlab_bench::studies::about()).into_bytes(),
            "HTML report",
        ));
    }
    let exporters: [(&Option<PathBuf>, &dyn Exporter, &str); 4] = [
        (&args.csv, &CsvExporter, "CSV export"),
        (&args.json, &JsonExporter, "JSON export"),
        (&args.jmh, &JmhExporter, "JMH JSON export"),
        (
            &args.gbench,
            &GoogleBenchmarkExporter,
            "Google Benchmark JSON export",
        ),
    ];
    for (path, exporter, what) in exporters {
        if let Some(p) = path {
            outputs.push((p.clone(), exporter.serialize(&runs)?, what));
        }
    }
    for (path, bytes, what) in &outputs {
        emit(path, bytes, what)?;
    }
    Ok(ExitCode::SUCCESS)
}
