//! Reading the results store for `report` and `compare`: the database must exist
//! already (opening a missing file would create an empty one and then complain that it
//! is empty), and every run asked for must be in it.

use std::path::{Path, PathBuf};

use anyhow::Result;
use cipherlab_bench::report::utc;
use cipherlab_bench::store::{Run, Store};

use crate::exit::{Code, fail};

/// Opens the database at `db` (or the default one) if it exists.
pub fn open_existing(db: Option<&Path>) -> Result<Store> {
    let path: PathBuf = db.map_or_else(Store::default_path, Path::to_path_buf);
    if !path.is_file() {
        return Err(fail(
            Code::Io,
            format!(
                "results database {} does not exist: run `cipherlab bench --quick` first, or \
                 name the file with --db FILE (or $CIPHERLAB_DB)",
                path.display()
            ),
        ));
    }
    Ok(Store::open(&path)?)
}

/// Loads the runs `ids` in that order; with no ids, the newest run.
pub fn load(store: &Store, ids: &[i64]) -> Result<Vec<Run>> {
    let ids = if ids.is_empty() {
        match store.latest_run()? {
            Some(id) => vec![id],
            None => {
                return Err(fail(
                    Code::Unreadable,
                    format!(
                        "results database {} holds no runs yet: `cipherlab bench --quick --db \
                         {}` makes one",
                        store.path(),
                        store.path()
                    ),
                ));
            }
        }
    } else {
        ids.to_vec()
    };
    let mut runs = Vec::with_capacity(ids.len());
    for id in ids {
        runs.push(store.load_run(id)?);
    }
    Ok(runs)
}

/// `cipherlab report --list`: the runs, one line each.
pub fn print_list(store: &Store) -> Result<()> {
    let runs = store.list_runs()?;
    if runs.is_empty() {
        println!("{} holds no runs yet", store.path());
        return Ok(());
    }
    println!(
        "{:>4}  {:<19}  {:>12}  {:<24}  command",
        "run", "started (UTC)", "measurements", "CPU"
    );
    for r in runs {
        println!(
            "{:>4}  {:<19}  {:>12}  {:<24}  {}{}",
            r.id,
            utc(r.started_ms),
            r.measurements,
            r.cpu_model.chars().take(24).collect::<String>(),
            r.command_line,
            if r.finished_ms.is_none() {
                "  (interrupted)"
            } else {
                ""
            }
        );
    }
    Ok(())
}
