//! `cipherlab import`: runs made on other machines (their SQLite files, or the JSON
//! exports of `cipherlab report --json`) into this store, SQLite or PostgreSQL. Runs are
//! known by their UUID, so importing a file twice adds nothing the second time.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use cipherlab_results::store::Store;

use crate::results;

/// Options of `cipherlab import`.
#[derive(clap::Args)]
#[command(after_help = "\
Each run is added whole (one transaction) unless the store already has a run with its
UUID. Machines keep the fingerprint the other store gave them, so `cipherlab report
--list` shows which runs came from which machine.

Examples:
  cipherlab import laptop.sqlite board.sqlite                 into ./cipherlab-results.sqlite
  cipherlab import --db postgres://lab@db.example/cipherlab runs.json
  CIPHERLAB_DB=postgres://lab@db/cipherlab cipherlab import ~/old/*.sqlite

A JSON export carries its artifacts' metadata only, not their bytes: import the SQLite
file to bring histograms and pictures along.")]
pub struct Args {
    /// SQLite files and JSON exports to import.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// Results database to import into: a SQLite file, or a PostgreSQL URL
    /// postgres://USER@HOST/DB (default: $CIPHERLAB_DB, else ./cipherlab-results.sqlite).
    #[arg(long, value_name = "FILE|URL")]
    db: Option<PathBuf>,
}

/// Runs `cipherlab import`.
pub fn run(args: &Args) -> Result<ExitCode> {
    // Runs that timed a runner of the user's import when the runners file declares it.
    results::user_runners(&[])?;
    let mut store = Store::open_location(&results::location(args.db.as_deref()))?;
    let (mut added, mut present) = (0, 0);
    for file in &args.files {
        let r = store.import(file)?;
        println!(
            "{}: {} runs added, {} already present{}",
            file.display(),
            r.added,
            r.already_present,
            if r.artifacts_not_carried > 0 {
                format!(
                    " ({} artifacts not carried by a JSON export)",
                    r.artifacts_not_carried
                )
            } else {
                String::new()
            }
        );
        added += r.added;
        present += r.already_present;
    }
    println!(
        "{}: {added} runs added, {present} already present",
        store.path()
    );
    Ok(ExitCode::SUCCESS)
}
