//! Reading the results store for `report` and `compare`: the database must exist
//! already (opening a missing file would create an empty one and then complain that it
//! is empty), and every run asked for must be in it.

use std::path::{Path, PathBuf};

use anyhow::Result;
use cipherlab_results::store::{Location, Run, Store};
use cipherlab_results::time::utc;

use crate::exit::{Kind, fail};

/// Where `--db` (or else `$CIPHERLAB_DB`, else the default file) points.
pub fn location(db: Option<&Path>) -> Location {
    db.map_or_else(Location::from_env, |p| Location::parse(p.as_os_str()))
}

/// The user's runners (runners.toml, then `--runner NAME=COMMAND` flags), their runtimes
/// declared so that figures and stored runs may name them
/// (`cipherlab_results::id::Runtime::declare`).
pub fn user_runners(flags: &[String]) -> Result<Vec<cipherlab_platforms::UserRunner>> {
    let runners = cipherlab_platforms::user::gather(flags)?;
    for u in &runners {
        cipherlab_results::id::Runtime::declare(&u.name)
            .map_err(|e| anyhow::anyhow!("runner {} ({}): {e}", u.name, u.from))?;
    }
    Ok(runners)
}

/// Opens the database at `db` (or the default one) if it exists. A PostgreSQL database
/// is connected to as it is (it exists if the server accepts the connection). The
/// runners file's runtimes are declared first, so runs that timed them can be read.
pub fn open_existing(db: Option<&Path>) -> Result<Store> {
    user_runners(&[])?;
    let path: PathBuf = match location(db) {
        Location::File(path) => path,
        postgres => return Ok(Store::open_location(&postgres)?),
    };
    if !path.is_file() {
        return Err(fail(
            Kind::Io,
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
                    Kind::Unreadable,
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

/// Which runs `report` shows when asked by machine: `machines` are fingerprint prefixes
/// or parts of CPU models (case-insensitive); each selects the newest finished run of
/// every machine it matches (of those in `ids`, if ids were given). With `each_machine`
/// every machine of the store is matched. Returns the runs' ids, oldest machine first.
pub fn by_machine(
    store: &Store,
    ids: &[i64],
    machines: &[String],
    each_machine: bool,
) -> Result<Vec<i64>> {
    let matches = |r: &cipherlab_results::store::RunInfo| {
        each_machine
            || machines.iter().any(|m| {
                let m = m.to_lowercase();
                r.machine_fingerprint.starts_with(&m) || r.cpu_model.to_lowercase().contains(&m)
            })
    };
    let runs = store.list_runs()?;
    // Newest finished run per machine, in the order the machines first appear.
    let mut newest: Vec<(String, i64)> = Vec::new();
    for r in runs
        .iter()
        .filter(|r| r.finished_ms.is_some() && matches(r))
        .filter(|r| ids.is_empty() || ids.contains(&r.id))
    {
        match newest.iter_mut().find(|(f, _)| *f == r.machine_fingerprint) {
            Some(slot) => slot.1 = r.id,
            None => newest.push((r.machine_fingerprint.clone(), r.id)),
        }
    }
    if newest.is_empty() {
        return Err(fail(
            Kind::Usage,
            format!(
                "no finished run in {} matches --machine {}: `cipherlab report --list` shows                  the machines (fingerprint and CPU) of every run",
                store.path(),
                machines.join(" --machine ")
            ),
        ));
    }
    Ok(newest.into_iter().map(|(_, id)| id).collect())
}

/// `cipherlab report --list`: the runs, one line each.
pub fn print_list(store: &Store) -> Result<()> {
    let runs = store.list_runs()?;
    if runs.is_empty() {
        println!("{} holds no runs yet", store.path());
        return Ok(());
    }
    let machines = {
        let mut seen: Vec<&str> = runs
            .iter()
            .map(|r| r.machine_fingerprint.as_str())
            .collect();
        seen.sort_unstable();
        seen.dedup();
        seen.len()
    };
    println!(
        "{} runs of {machines} machine{} in {}",
        runs.len(),
        if machines == 1 { "" } else { "s" },
        store.path()
    );
    println!(
        "{:>4}  {:<19}  {:>12}  {:<8}  {:<24}  command",
        "run", "started (UTC)", "measurements", "machine", "CPU"
    );
    for r in &runs {
        println!(
            "{:>4}  {:<19}  {:>12}  {:<8}  {:<24}  {}{}",
            r.id,
            utc(r.started_ms),
            r.measurements,
            &r.machine_fingerprint[..r.machine_fingerprint.len().min(8)],
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
