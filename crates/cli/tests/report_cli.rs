//! `cipherlab report` and `cipherlab compare` through the binary: the page and the
//! exports of a real (small) run, the page rendered by headless Chromium with the plots
//! visible in the screenshot, compare on stores whose truth is known, and every bad
//! input answered by a clear error and a non-zero exit.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../bench/tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use cipherlab_harness::machine::MachineInfo;
use cipherlab_results::report::export::CSV_COLUMNS;
use cipherlab_results::report::svg::{HISTOGRAM_COLOUR, PALETTE};
use cipherlab_results::store::Store;
use cipherlab_testkit::process::{fails, ok, run_in};
use support::{id, measurement, samples, saved};

fn run(args: &[&str], dir: &Path) -> Output {
    run_in(env!("CARGO_BIN_EXE_cipherlab"), args, dir)
}

/// A small real run: two lightweight AEADs at three sizes (plots) and the distribution
/// study (histograms, the ECB picture), in a few seconds. `bench` writes the run's
/// report itself.
fn real_run(dir: &Path) {
    let out = ok(&run(
        &[
            "bench",
            "--quick",
            "lwc",
            "distribution",
            "--cipher",
            "ascon-aead128",
            "--cipher",
            "xoodyak",
            "--db",
            "r.sqlite",
        ],
        dir,
    ));
    assert!(out.contains("report: cipherlab-report.html"), "{out}");
    let page = std::fs::read_to_string(dir.join("cipherlab-report.html")).unwrap();
    assert!(page.contains("lwc: encrypt of dense, against size"));
    std::fs::remove_file(dir.join("cipherlab-report.html")).unwrap();
}

#[test]
fn report_writes_the_page_and_both_exports() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    real_run(d);
    let out = run(
        &[
            "report", "--db", "r.sqlite", "-o", "r.html", "--csv", "r.csv", "--json", "r.json",
        ],
        d,
    );
    ok(&out);
    let page = std::fs::read_to_string(d.join("r.html")).unwrap();
    assert!(page.contains("lwc: encrypt of dense, against size"));
    assert!(page.contains("ascon-aead128") && page.contains("xoodyak"));
    assert_eq!(
        page.matches("class=\"histogram\"").count(),
        3,
        "plaintext + 2"
    );
    assert_eq!(page.matches("src=\"data:image/png;base64,").count(), 3);
    let csv = std::fs::read_to_string(d.join("r.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next().unwrap(), CSV_COLUMNS.join(","));
    let store = Store::open(d.join("r.sqlite")).unwrap();
    let n = store.load_run(1).unwrap().measurements.len();
    assert!(n >= 12, "{n}");
    assert_eq!(lines.count(), n);
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("r.json")).unwrap()).unwrap();
    assert_eq!(json["runs"][0]["measurements"].as_array().unwrap().len(), n);
    // No temporary files left beside the outputs.
    let names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".tmp")), "{names:?}");

    // The default: the newest run to cipherlab-report.html.
    ok(&run(&["report", "--db", "r.sqlite"], d));
    assert!(d.join("cipherlab-report.html").is_file());
    // Only an export asked for: no page; `-` is standard output.
    let dir2 = tempfile::tempdir().unwrap();
    std::fs::copy(d.join("r.sqlite"), dir2.path().join("r.sqlite")).unwrap();
    let stdout = ok(&run(
        &["report", "1", "--db", "r.sqlite", "--csv", "-"],
        dir2.path(),
    ));
    assert!(stdout.starts_with("run_id,study,"));
    assert_eq!(stdout.lines().count(), n + 1);
    assert!(!dir2.path().join("cipherlab-report.html").exists());
    // --list.
    let list = ok(&run(&["report", "--list", "--db", "r.sqlite"], d));
    assert!(list.contains("bench --quick lwc distribution"), "{list}");
}

/// The first of `names` found on PATH.
fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|n| {
        std::env::split_paths(&path)
            .map(|d| d.join(n))
            .find(|p| p.is_file())
    })
}

fn hex_rgb(c: &str) -> [u8; 3] {
    let v = u32::from_str_radix(c.trim_start_matches('#'), 16).unwrap();
    [(v >> 16) as u8, (v >> 8) as u8, v as u8]
}

/// Pixels of an RGB(A) 8-bit image within `tol` of `rgb` in every channel.
fn count_near(pixels: &[u8], channels: usize, rgb: [u8; 3], tol: u8) -> usize {
    pixels
        .chunks_exact(channels)
        .filter(|p| (0..3).all(|i| p[i].abs_diff(rgb[i]) <= tol))
        .count()
}

#[test]
fn headless_chromium_shows_the_plots() {
    let Some(chromium) = find_program(&["chromium", "chromium-browser"]) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "chromium is missing but CI is set: .ci/setup installs it (Debian package chromium)"
        );
        println!("SKIP headless_chromium_shows_the_plots: chromium not installed (bash .ci/setup)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    real_run(d);
    ok(&run(&["report", "--db", "r.sqlite", "-o", "r.html"], d));
    let png_path = d.join("shot.png");
    let profile = d.join("profile");
    let mut child = Command::new(&chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png_path.display()))
        .arg("--window-size=1200,3000")
        .arg(format!("file://{}", d.join("r.html").display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Chromium has been seen to hang on broken set-ups; a test must not.
    let deadline = Instant::now() + Duration::from_secs(180);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 180 s");
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(status.success(), "chromium exited with {status}");
    let bytes = std::fs::read(&png_path).unwrap();
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (1200, 3000));
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let channels = info.color_type.samples();
    let pixels = &buf[..info.buffer_size()];
    let total = pixels.len() / channels;
    let white = count_near(pixels, channels, [255, 255, 255], 2);
    // The two ciphers' series colours (lines, markers, whiskers) and the histograms' bars
    // are drawn nowhere else on the page.
    let first = count_near(pixels, channels, hex_rgb(PALETTE[0]), 3);
    let second = count_near(pixels, channels, hex_rgb(PALETTE[1]), 3);
    let bars = count_near(pixels, channels, hex_rgb(HISTOGRAM_COLOUR), 3);
    let keep = std::env::var_os("CIPHERLAB_KEEP_SCREENSHOT");
    if let Some(p) = &keep {
        std::fs::copy(&png_path, p).unwrap();
    }
    println!(
        "screenshot: {total} pixels, {white} white, series 1: {first}, series 2: {second}, histogram bars: {bars}"
    );
    assert!(white < total * 97 / 100, "the page is (nearly) blank");
    assert!(first > 300, "first series' colour: {first} pixels");
    assert!(second > 300, "second series' colour: {second} pixels");
    assert!(bars > 20_000, "histogram bars: {bars} pixels");
}

/// Two synthetic runs in a file: AES 20% faster in B, DES unchanged.
fn synthetic_store(path: &Path) {
    let mut store = Store::open(path).unwrap();
    let m = MachineInfo::detect();
    for (seed, aes) in [(1, 1.0), (2, 0.8)] {
        let ms = vec![
            measurement(
                id("data-type", "aes-128-ecb", "encrypt", 65_536, "bmp"),
                samples(4_000.0 * aes, 0.01, 30, seed),
            ),
            measurement(
                id("data-type", "des-ecb", "encrypt", 65_536, "bmp"),
                samples(700_000.0, 0.01, 30, seed + 10),
            ),
        ];
        saved(&mut store, m.clone(), &ms, &[]);
    }
}

#[test]
fn compare_finds_a_known_change_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    synthetic_store(&d.join("c.sqlite"));
    let out = ok(&run(&["compare", "1", "2", "--db", "c.sqlite"], d));
    println!("{out}");
    assert!(out.contains("data-type aes-128-ecb encrypt 64 KiB bmp (rustcrypto)"));
    assert!(out.contains("faster"));
    assert!(
        !out.contains("des-ecb"),
        "unchanged figures only with --all"
    );
    assert!(out.contains("data-type     agree (2 ciphers ranked in both)"));
    // AES and DES, far apart in both runs: their one pair is ordered alike.
    assert!(
        out.contains(
            "pair order: 1 of 1 pairs ordered in both runs are ordered the same way (100.0%)"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "2 figures: 1 faster, 0 slower, 1 unchanged; rankings agree in 1 of 1 studies"
        )
    );
    assert!(!out.contains("different machines"));
    let all = ok(&run(&["compare", "1", "2", "--all", "--db", "c.sqlite"], d));
    assert!(all.contains("des-ecb") && all.contains("no significant change"));
    // A run against itself: nothing changed.
    let same = ok(&run(&["compare", "2", "2", "--db", "c.sqlite"], d));
    assert!(same.contains("2 figures: 0 faster, 0 slower, 2 unchanged"));
    assert!(same.contains("no figure changed significantly"));
    let json = ok(&run(
        &["compare", "1", "2", "--json", "--db", "c.sqlite"],
        d,
    ));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["summary"]["faster"], 1);
    assert_eq!(v["summary"]["unchanged"], 1);
    assert_eq!(v["comparison"]["same_machine"], true);
    let aes = v["comparison"]["figures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"]["algorithm"] == "aes-128-ecb")
        .unwrap();
    assert_eq!(aes["verdict"], "faster");
    let (lo, hi) = (
        aes["ratio"]["low"].as_f64().unwrap(),
        aes["ratio"]["high"].as_f64().unwrap(),
    );
    assert!(lo <= 0.8 && (0.8..1.0).contains(&hi), "[{lo}, {hi}]");
}

#[test]
fn compare_warns_about_another_machine() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.sqlite");
    let mut store = Store::open(&path).unwrap();
    let m = MachineInfo::detect();
    let mut other = m.clone();
    other.cpu_model = "Another CPU".into();
    for machine in [m, other] {
        let ms = vec![measurement(
            id("lwc", "xoodyak", "encrypt", 64, "dense"),
            samples(500.0, 0.01, 20, 1),
        )];
        saved(&mut store, machine, &ms, &[]);
    }
    drop(store);
    let out = ok(&run(&["compare", "1", "2", "--db", "m.sqlite"], dir.path()));
    assert!(
        out.contains("warning: the runs come from different machines"),
        "{out}"
    );
    assert!(out.contains("cpu_model: "), "{out}");
    assert!(out.contains("Another CPU"), "{out}");
}

#[test]
fn bad_input_gives_a_clear_error_and_a_non_zero_exit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // No database: nothing is created.
    let err = fails(&run(&["report", "--db", "none.sqlite"], d));
    assert!(
        err.contains("none.sqlite does not exist") && err.contains("cipherlab bench"),
        "{err}"
    );
    assert!(!d.join("none.sqlite").exists());
    let err = fails(&run(&["compare", "1", "2", "--db", "none.sqlite"], d));
    assert!(err.contains("does not exist"), "{err}");
    // An empty database.
    drop(Store::open(d.join("empty.sqlite")).unwrap());
    let err = fails(&run(&["report", "--db", "empty.sqlite"], d));
    assert!(err.contains("holds no runs yet"), "{err}");
    // Unknown runs.
    synthetic_store(&d.join("c.sqlite"));
    let err = fails(&run(&["report", "7", "--db", "c.sqlite"], d));
    assert!(
        err.contains("has no run 7") && err.contains("--list"),
        "{err}"
    );
    let err = fails(&run(&["compare", "1", "9", "--db", "c.sqlite"], d));
    assert!(err.contains("has no run 9"), "{err}");
    let err = fails(&run(&["compare", "1", "x", "--db", "c.sqlite"], d));
    assert!(err.contains("invalid value 'x'"), "{err}");
    // Bad options.
    let err = fails(&run(
        &[
            "compare",
            "1",
            "2",
            "--confidence",
            "1.5",
            "--db",
            "c.sqlite",
        ],
        d,
    ));
    assert!(err.contains("--confidence 1.5"), "{err}");
    let err = fails(&run(
        &["compare", "1", "2", "--resamples", "10", "--db", "c.sqlite"],
        d,
    ));
    assert!(err.contains("at least 1000"), "{err}");
    let err = fails(&run(
        &["report", "--csv", "-", "--json", "-", "--db", "c.sqlite"],
        d,
    ));
    assert!(err.contains("only one of"), "{err}");
    // An output directory that does not exist: an error, and no file anywhere.
    let err = fails(&run(
        &["report", "--db", "c.sqlite", "-o", "no/such/dir/r.html"],
        d,
    ));
    assert!(
        err.contains("could not write the HTML report to no/such/dir/r.html"),
        "{err}"
    );
    // A file that is not a database.
    std::fs::write(
        d.join("text.sqlite"),
        "hello, not sqlite, but long enough to look like a header",
    )
    .unwrap();
    let err = fails(&run(&["report", "--db", "text.sqlite"], d));
    assert!(err.contains("text.sqlite"), "{err}");
    // A newer schema is refused, and the file is left as it was.
    let conn = rusqlite_free_bump(&d.join("c.sqlite"));
    let err = fails(&run(&["report", "--db", "c.sqlite"], d));
    assert!(err.contains("schema version 99, newer than"), "{err}");
    assert_eq!(std::fs::read(d.join("c.sqlite")).unwrap(), conn);
}

/// Sets the file's schema version to 99 through the store's own connection (the CLI
/// crate does not depend on rusqlite) and returns the file's bytes afterwards.
fn rusqlite_free_bump(path: &Path) -> Vec<u8> {
    let store = Store::open(path).unwrap();
    store.execute("PRAGMA user_version = 99", &[]).unwrap();
    drop(store);
    std::fs::read(path).unwrap()
}
