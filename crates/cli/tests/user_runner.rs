//! A runner of the user's (`--runner NAME=COMMAND`, runners.toml): checked against the same
//! vectors as the built-in ones, its clashing provider name prefixed, a hang cut short by
//! the time limit with the runner's stderr in the error, a figure whose last output's
//! digest is wrong refused. The runner is `tests/runners/proxy.py`, which answers the
//! vectors through `cipherlab vectors` and misbehaves on request; with no `python3` the
//! tests print SKIP.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn proxy() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/runners/proxy.py")
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_cipherlab")
}

/// The `--runner` value of the proxy runner called `name`, with `more` options.
fn runner(name: &str, more: &str) -> String {
    format!(
        "{name}=python3 '{}' --cipherlab '{}' {more}",
        proxy().display(),
        bin()
    )
}

fn python() -> bool {
    let ok = cipherlab_platforms::on_path("python3");
    if !ok {
        eprintln!("SKIP: python3 is not installed (the test runner is a Python script)");
    }
    ok
}

/// cipherlab with `args`, no built-in runner (an empty platforms directory), no runners
/// file but the one `env` may name.
fn cipherlab(args: &[&str], env: &[(&str, &Path)], cwd: &Path) -> Output {
    let empty = tempfile::tempdir().unwrap();
    let mut c = Command::new(bin());
    c.args(args)
        .current_dir(cwd)
        .env("CIPHERLAB_PLATFORMS_DIR", empty.path())
        .env_remove("CIPHERLAB_RUNNERS")
        .env_remove("CIPHERLAB_RUNNER_TIMEOUT");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run cipherlab")
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn provider<'a>(check: &'a Value, name: &str) -> &'a Value {
    check["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["provider"] == name)
        .unwrap_or_else(|| panic!("no provider {name}: {check:#}"))
}

#[test]
fn platforms_check_passes_a_user_runner_and_prefixes_its_clashing_provider() {
    if !python() {
        return;
    }
    let here = tempfile::tempdir().unwrap();
    let mine = runner(
        "mine",
        "--algs aes-128-cbc,aes-128-ctr,aes-128-gcm,rc4-40,rc4-2048",
    );
    let out = cipherlab(
        &[
            "platforms",
            "check",
            "--quick",
            "--seed",
            "3",
            "--json",
            "--runner",
            &mine,
        ],
        &[],
        here.path(),
    );
    let check = json_of(&out);
    assert!(out.status.success(), "{check:#}");
    // The proxy calls its provider `go`, a built-in runner's: shown as `mine-go`.
    let p = provider(&check, "mine-go");
    assert_eq!(p["runtime"], "mine");
    for alg in [
        "aes-128-cbc",
        "aes-128-ctr",
        "aes-128-gcm",
        "rc4-40",
        "rc4-2048",
    ] {
        assert_eq!(p["algorithms"][alg]["verdict"], "agree", "{alg}: {check:#}");
    }
    assert_eq!(check["startup"]["mine"]["reported_runtime"], "proxy");

    // A provider of a name of its own keeps it.
    let own = runner("own", "--provider own-impl --algs rc4-40");
    let out = cipherlab(
        &[
            "platforms",
            "check",
            "--quick",
            "--json",
            "--runner",
            &own,
            "--runtime",
            "own",
        ],
        &[],
        here.path(),
    );
    assert!(out.status.success());
    assert_eq!(provider(&json_of(&out), "own-impl")["runtime"], "own");
}

#[test]
fn a_runner_wrong_at_the_ctr_wrap_is_named_with_its_first_differing_vector() {
    if !python() {
        return;
    }
    let here = tempfile::tempdir().unwrap();
    let bad = runner(
        "ctr32",
        "--provider c --algs aes-128-ctr,aes-128-cbc --ctr32",
    );
    let out = cipherlab(
        &["platforms", "check", "--quick", "--runner", &bad],
        &[],
        here.path(),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("c differs on aes-128-ctr: first differing vector (CTR counter wrapping at 32 bits: encryption)"),
        "{text}"
    );
    assert!(text.contains("aes-128-cbc  agree"), "{text}");
}

#[test]
fn a_runner_that_hangs_is_cut_at_its_time_limit_with_its_stderr_and_the_check_goes_on() {
    if !python() {
        return;
    }
    let here = tempfile::tempdir().unwrap();
    let hangs = runner("hangs", "--hang-on encrypt --algs rc4-40");
    let fine = runner("fine", "--provider f --algs rc4-40");
    let started = std::time::Instant::now();
    let mut c = Command::new(bin());
    let empty = tempfile::tempdir().unwrap();
    let out = c
        .args([
            "platforms",
            "check",
            "--quick",
            "--json",
            "--runner",
            &hangs,
            "--runner",
            &fine,
        ])
        .current_dir(here.path())
        .env("CIPHERLAB_PLATFORMS_DIR", empty.path())
        .env_remove("CIPHERLAB_RUNNERS")
        .env("CIPHERLAB_RUNNER_TIMEOUT", "2")
        .output()
        .unwrap();
    assert!(started.elapsed().as_secs() < 60, "cut short");
    let check = json_of(&out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a failed runner fails the check"
    );
    assert_eq!(check["failed_runners"], 1);
    let skipped = check["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["runtime"] == "hangs")
        .unwrap_or_else(|| panic!("{check:#}"));
    let why = skipped["reason"].as_str().unwrap();
    assert!(
        why.contains("no answer within its time limit of 2 s"),
        "{why}"
    );
    assert!(
        why.contains("proxy: stuck on a encrypt request"),
        "its stderr: {why}"
    );
    assert_eq!(
        provider(&check, "f")["algorithms"]["rc4-40"]["verdict"],
        "agree",
        "the next runner was checked"
    );
}

#[test]
fn runners_toml_is_read_from_the_working_directory_or_cipherlab_runners() {
    if !python() {
        return;
    }
    let here = tempfile::tempdir().unwrap();
    let file = format!(
        "# a runner of my own\n[runner.fromfile]\nargv = [\"python3\", \"{}\", \"--cipherlab\", \"{}\", \"--provider\", \"ff\", \"--algs\", \"rc4-40\"]\n",
        proxy().display(),
        bin()
    );
    std::fs::write(here.path().join("runners.toml"), &file).unwrap();
    let out = cipherlab(
        &["platforms", "check", "--quick", "--json"],
        &[],
        here.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(provider(&json_of(&out), "ff")["runtime"], "fromfile");

    let elsewhere = tempfile::tempdir().unwrap();
    let named = here.path().join("runners.toml");
    let out = cipherlab(
        &["platforms", "doctor", "--json"],
        &[("CIPHERLAB_RUNNERS", &named)],
        elsewhere.path(),
    );
    let doctor = json_of(&out);
    let row = doctor["runtimes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["runtime"] == "fromfile")
        .unwrap_or_else(|| panic!("{doctor:#}"));
    assert_eq!(row["ready"], true, "{row:#}");
    assert_eq!(row["user"], true);
    assert_eq!(row["reported_runtime"], "proxy");

    std::fs::write(
        here.path().join("runners.toml"),
        "[runner.x]\ncmd = \"y\"\n",
    )
    .unwrap();
    let out = cipherlab(&["platforms", "check", "--quick"], &[], here.path());
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unknown key `cmd`"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn bench_times_a_user_runner_and_refuses_a_figure_whose_last_digest_is_wrong() {
    if !python() {
        return;
    }
    let here = tempfile::tempdir().unwrap();
    let db = here.path().join("r.sqlite");
    let mine = runner("mine", "--wrong-digest");
    let out = cipherlab(
        &[
            "bench",
            "platforms",
            "--quick",
            "--cipher",
            "aes-128-cbc",
            "--json",
            "--no-report",
            "--no-keep-awake",
            "--db",
            db.to_str().unwrap(),
            "--runner",
            &mine,
        ],
        &[],
        here.path(),
    );
    let run = json_of(&out);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let study = run["studies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "platforms")
        .unwrap();
    let table = |name: &str| -> Value {
        study["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("no table {name}: {study:#}"))["table"]
            .clone()
    };
    let errors = table("runner-errors").to_string();
    // Every encryption (4 sizes at --quick) refused, naming the mismatch; no decryption.
    assert_eq!(
        errors.matches("digest mismatch after timing").count(),
        4,
        "{errors}"
    );
    assert!(
        errors.contains("mine mine-go aes-128-cbc 145 B encrypt"),
        "{errors}"
    );
    assert!(!errors.contains(" decrypt"), "{errors}");
    let costs = table("start-up-and-warm-up").to_string();
    assert!(costs.contains("\"mine\""), "{costs}");
    assert!(table("conformance").to_string().contains("mine-go"));

    // The decryptions were kept, as figures of the runtime `mine`; the store reads them
    // back once the runner is declared (here by a runners file).
    std::fs::write(
        here.path().join("runners.toml"),
        format!(
            "[runner.mine]\ncommand = \"python3 '{}'\"\n",
            proxy().display()
        ),
    )
    .unwrap();
    let out = cipherlab(
        &[
            "report",
            "--db",
            db.to_str().unwrap(),
            "--csv",
            here.path().join("r.csv").to_str().unwrap(),
        ],
        &[],
        here.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(here.path().join("r.csv")).unwrap();
    let mine_rows: Vec<&str> = csv.lines().filter(|l| l.contains(",mine,")).collect();
    assert_eq!(mine_rows.len(), 4, "{csv}");
    assert!(mine_rows.iter().all(|l| l.contains("decrypt")), "{csv}");
}
