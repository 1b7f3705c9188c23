//! A fleet's shared PostgreSQL store through the binary: runs from two machines (SQLite
//! files made "elsewhere") imported with `cipherlab import`, twice without effect, then
//! `report`, `report --list`, `report --each-machine` and `compare` on the URL, each
//! saying which machine a run came from and warning when runs cross machines. Runs on a
//! throw-away server (skipped with a `SKIP` line where PostgreSQL is not installed,
//! failed in CI).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../bench/tests/support/mod.rs"]
mod support;

use std::path::Path;
use std::process::Output;

use cipherlab_harness::machine::{MachineInfo, hash_hostname};
use cipherlab_results::store::Store;
use cipherlab_testkit::postgres::TempCluster;
use cipherlab_testkit::process::{ok, run_in};
use support::{id, measurement, samples, saved};

fn run(args: &[&str], dir: &Path) -> Output {
    run_in(env!("CARGO_BIN_EXE_cipherlab"), args, dir)
}

/// A machine's SQLite file with one run of the data-type study (AES `aes_ns` per call).
fn machine_file(path: &Path, machine: MachineInfo, aes_ns: f64) {
    let mut store = Store::open(path).unwrap();
    let ms = vec![
        measurement(
            id("data-type", "aes-128-ecb", "encrypt", 65_536, "bmp"),
            samples(aes_ns, 0.01, 30, 1),
        ),
        measurement(
            id("data-type", "des-ecb", "encrypt", 65_536, "bmp"),
            samples(700_000.0, 0.01, 30, 2),
        ),
    ];
    saved(&mut store, machine, &ms, &[]);
}

#[test]
fn a_shared_postgres_store_reports_two_machines() {
    let Some(cluster) = TempCluster::start() else {
        return;
    };
    let url = cluster.create_database("fleet");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let here = MachineInfo::detect();
    let mut board = here.clone();
    board.cpu_model = "Cortex-A72 board".into();
    board.arch = "aarch64".into();
    board.hostname_hash = hash_hostname("board-7");
    machine_file(&d.join("here.sqlite"), here.clone(), 4_000.0);
    machine_file(&d.join("board.sqlite"), board, 30_000.0);

    let out = ok(&run(
        &["import", "here.sqlite", "board.sqlite", "--db", &url],
        d,
    ));
    println!("{out}");
    assert!(
        out.contains("here.sqlite: 1 runs added, 0 already present"),
        "{out}"
    );
    assert!(out.contains("2 runs added, 0 already present"), "{out}");
    let again = ok(&run(
        &["import", "board.sqlite", "here.sqlite", "--db", &url],
        d,
    ));
    assert!(again.contains("0 runs added, 2 already present"), "{again}");

    let list = ok(&run(&["report", "--list", "--db", &url], d));
    println!("{list}");
    assert!(list.contains("2 runs of 2 machines"), "{list}");
    assert!(list.contains("Cortex-A72 board"), "{list}");

    // Both machines overlaid on one page, named, with the cross-machine warning.
    ok(&run(
        &["report", "--each-machine", "--db", &url, "-o", "fleet.html"],
        d,
    ));
    let page = std::fs::read_to_string(d.join("fleet.html")).unwrap();
    assert!(
        page.contains("Cortex-A72 board"),
        "the board is on the page"
    );
    assert!(
        page.contains(&here.cpu_model),
        "this machine is on the page"
    );
    assert!(page.contains("different machines"), "the page warns");

    // Only the board, by a part of its CPU name.
    ok(&run(
        &[
            "report",
            "--machine",
            "cortex",
            "--db",
            &url,
            "-o",
            "board.html",
        ],
        d,
    ));
    let page = std::fs::read_to_string(d.join("board.html")).unwrap();
    assert!(page.contains("Cortex-A72 board"));
    assert!(!page.contains("different machines"), "one machine only");

    let cmp = ok(&run(&["compare", "1", "2", "--db", &url], d));
    println!("{cmp}");
    assert!(
        cmp.contains("warning: the runs come from different machines"),
        "{cmp}"
    );
    assert!(cmp.contains("Cortex-A72 board"), "{cmp}");

    // A machine nobody has: a clear error.
    let none = run(&["report", "--machine", "sparc", "--db", &url], d);
    assert!(!none.status.success());
    assert!(String::from_utf8_lossy(&none.stderr).contains("matches --machine sparc"));
}
