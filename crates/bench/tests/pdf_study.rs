//! The `pdf` study end to end on a tiny setting: two built-in PDFs and a broken one in a
//! `--data` folder, two ciphers, short samples. It plans, runs, gives the paper's figures
//! beside ours, and its results and findings land in the store.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use cipherlab_bench::studies::{self, CipherFilter, Config, Inputs, Scale};
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::{Harness, Mode, Settings};
use cipherlab_results::artifact::{Artifact, ArtifactKind, Table, cell_text};
use cipherlab_results::id::Suite;
use cipherlab_results::store::{NewRun, Store};

fn tiny() -> Settings {
    Settings {
        warmup_iterations: 1,
        warmup_time: Duration::from_millis(5),
        iterations: 5,
        sample_time: Duration::from_millis(1),
        ..Settings::quick()
    }
}

fn table(artifacts: &[Artifact], name: &str) -> Table {
    let a = artifacts
        .iter()
        .find(|a| a.study == "pdf" && a.name == name)
        .unwrap_or_else(|| panic!("no artifact {name}"));
    a.as_table().expect("a table").clone()
}

fn row<'t>(t: &'t Table, first: &str) -> &'t [cipherlab_results::artifact::Cell] {
    t.rows
        .iter()
        .find(|r| r[0] == first)
        .unwrap_or_else(|| panic!("no row {first} in {t:?}"))
}

#[test]
fn the_pdf_study_runs_on_a_tiny_setting_and_lands_in_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let files = studies::pdf::builtin_files();
    for (name, bytes) in files.iter().take(2) {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    std::fs::write(dir.path().join("broken.pdf"), b"%PDF-1.7\n%%EOF\n").unwrap();
    let cfg = Config {
        scale: Scale::Quick,
        filter: CipherFilter::new(&["aes-128", "ascon-128"]),
        data: Some(Inputs::from_dir(dir.path(), Some(1 << 20)).unwrap()),
        ..Config::new(Scale::Quick)
    };
    let study = studies::by_name("pdf").unwrap();
    let mut suite = Suite::new();
    study.plan(&cfg, &mut suite).unwrap();
    // Per cipher: 4 phases in 2 modes, keys and unlock.
    assert_eq!(suite.len(), 2 * (4 * 2 + 2));
    let harness = Harness::new(tiny());
    let ms = suite.run(&harness, &mut |_| {}).unwrap();
    assert_eq!(ms.len(), 20);
    let single = &files[1].0; // the larger of the two: the form
    assert!(files[1].1.len() > files[0].1.len());
    for m in &ms {
        assert_eq!(m.id.study, "pdf");
        assert!(
            ["aes-128", "ascon-128"].contains(&m.id.algorithm.name()),
            "{}",
            m.id
        );
        assert!(m.summary.median > 0.0, "{}", m.id);
        match m.id.phase.as_str() {
            "keys" | "unlock" => assert_eq!(m.id.data_type, "none"),
            _ => {
                assert!(m.bytes_per_second.is_some_and(|b| b > 0.0), "{}", m.id);
                if m.id.data_type == "pdf-set" {
                    assert_eq!(m.mode, Mode::AverageTime);
                    assert_eq!(m.id.size, (files[0].1.len() + files[1].1.len()) as u64);
                } else {
                    assert_eq!(&m.id.data_type, single);
                    assert_eq!(m.mode, Mode::SingleShot);
                    assert_eq!(m.summary.n, 10, "single shot: 10 calls at --quick");
                }
            }
        }
    }

    let machine = MachineInfo::detect();
    let refs: Vec<&_> = ms.iter().collect();
    let artifacts = study.findings(&cfg, &refs, &machine).unwrap();
    // The paper's figures beside ours, per mode.
    for (name, figure) in [
        ("paper/fig-10-average-time", "Fig. 10"),
        ("paper/fig-11-single-shot", "Fig. 11"),
    ] {
        let t = table(&artifacts, name);
        assert!(
            t.columns.iter().any(|c| c.contains(figure)),
            "{:?}",
            t.columns
        );
        assert_eq!(row(&t, "aes-128")[2], "1 (reference)");
        assert_eq!(row(&t, "ascon-128")[2], "< 1 (fastest)");
        // Our ratio to AES-128, with its interval.
        let ours = row(&t, "ascon-128")[7]
            .interval()
            .expect("a ratio with its interval");
        assert!(
            ours.low <= ours.estimate && ours.estimate <= ours.high,
            "{ours:?}"
        );
        assert!(t.note.contains(figure) && t.note.contains("performs poorly"));
    }
    let c = table(&artifacts, "conclusion");
    assert_eq!(c.rows.len(), 4, "two modes, encrypt and decrypt");
    assert!(c.note.contains("Ascon is faster than AES"), "{}", c.note);
    assert!(
        ["Reproduced", "Not reproduced", "Not settled"]
            .iter()
            .any(|v| c.note.contains(v)),
        "{}",
        c.note
    );
    let jobs = table(&artifacts, "jobs");
    assert_eq!(jobs.rows.len(), 4, "two ciphers, two modes");
    assert!(
        jobs.rows
            .iter()
            .all(|r| r[3].as_str().unwrap().ends_with("%]"))
    );
    let keys = table(&artifacts, "keys");
    assert_eq!(keys.rows.len(), 2);
    let inputs = table(&artifacts, "inputs");
    let broken = row(&inputs, "broken.pdf");
    assert_eq!(broken[3], "skipped");
    assert!(
        broken[8].as_str().unwrap().contains("not readable"),
        "{broken:?}"
    );
    assert_eq!(row(&inputs, single)[3], "both modes");

    // Into the store, and back.
    let mut store = Store::open_in_memory().unwrap();
    let run = NewRun {
        settings: tiny(),
        validity: harness.validity().clone(),
        ..NewRun::now("pdf study test", cipherlab_bench::this_machine())
    };
    let id = store
        .save_run(&run, &ms, cipherlab_results::store::now_ms())
        .unwrap();
    for a in &artifacts {
        store.add_artifact(id, a).unwrap();
    }
    let back = store.load_run(id).unwrap();
    assert_eq!(back.measurements.len(), 20);
    assert!(back.measurements.iter().all(|m| m.id.study == "pdf"));
    assert_eq!(
        back.artifacts.iter().filter(|a| a.study == "pdf").count(),
        artifacts.len()
    );
    // The report draws the study's own plots: one per input, phases side by side.
    let page =
        cipherlab_results::report::html(&[back], "memory", &cipherlab_bench::studies::about());
    assert!(page.contains("pdf: average time over the PDF set, by phase"));
    assert!(page.contains("pdf: key derivation, timed apart"));
}

#[test]
fn a_filter_that_matches_no_pdf_cipher_plans_nothing() {
    let cfg = Config {
        scale: Scale::Quick,
        filter: CipherFilter::new(&["des"]),
        ..Config::new(Scale::Quick)
    };
    let mut suite = Suite::new();
    studies::by_name("pdf")
        .unwrap()
        .plan(&cfg, &mut suite)
        .unwrap();
    assert!(suite.is_empty());
    // The catalogue's name of the cipher under a PDF cipher selects it too.
    let cfg = Config {
        filter: CipherFilter::new(&["aes-256-cbc"]),
        ..cfg
    };
    let mut suite = Suite::new();
    studies::by_name("pdf")
        .unwrap()
        .plan(&cfg, &mut suite)
        .unwrap();
    assert!(suite.ids().all(|id| id.algorithm.name() == "aes-256"));
    assert_eq!(suite.len(), 10);
}

/// The paper's own platform: PDFBox in the JVM under JMH (the Java runner's `pdf` op), AES-128
/// at R4 and the paper's Ascon-128 swap, each checked against cipherlab first, then
/// encrypting and decrypting the set in average time and the single file in single shot,
/// each kept with its JMH iterations as samples, and Figs. 10 and 11's order decided for
/// them; with `--profile`, the Flight Recorder's flame graph and hottest methods of the
/// average-time figures. Without the Java runner: SKIP, or a failure under CI.
#[test]
fn the_pdf_study_times_pdfbox_in_the_jvm_and_decides_fig_10_there() {
    let rt = cipherlab_platforms::runtime("java").unwrap();
    if let Err(not) = cipherlab_platforms::ready(rt, &cipherlab_platforms::platforms_dir(None)) {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: the Java runner is not ready: {}",
            not.why
        );
        println!("SKIP: the Java runner is not ready: {}", not.why);
        return;
    }
    let cfg = Config {
        filter: CipherFilter::new(&["aes-128", "ascon-128"]),
        profile: true,
        ..Config::new(Scale::Quick)
    };
    let study = studies::by_name("pdf").unwrap();
    let e = study.elsewhere(&cfg, &Settings::quick()).unwrap();
    let java: Vec<_> = e.measurements.iter().collect();
    let figures: Vec<String> = java
        .iter()
        .map(|m| {
            format!(
                "{} {} {}",
                m.id.algorithm,
                m.id.phase,
                m.id.data_type == "pdf-set"
            )
        })
        .collect();
    // Per scheme: the set in average time (Fig. 10), encrypting and decrypting, then the
    // single file in single shot (Fig. 11), encrypting (at --quick; decrypting too at the
    // other scales).
    let mut want = Vec::new();
    for c in ["aes-128", "ascon-128"] {
        want.push(format!("{c} encrypt-job true"));
        want.push(format!("{c} decrypt-job true"));
        want.push(format!("{c} encrypt-job false"));
    }
    assert_eq!(figures, want, "{:?}", e.artifacts);
    assert!(java.iter().all(|m| m.id.implementation == "pdfbox"
        && m.id.runtime.as_str() == "java"
        && m.summary.n == 5));
    // Conformance said what it showed, both ways for AES, byte for byte for the swap.
    let timed = table(&e.artifacts, "jvm/timed");
    let said = |scheme: &str| {
        timed
            .rows
            .iter()
            .filter(|r| r[0] == scheme)
            .map(|r| r.iter().map(cell_text).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        said("aes-128-r4").contains("the same both ways"),
        "{}",
        said("aes-128-r4")
    );
    assert!(
        said("ascon-128-r4").contains("byte for byte"),
        "{}",
        said("ascon-128-r4")
    );
    // --profile: a flame graph per average-time figure, named as cipherlab's own profiles
    // are, and its hottest methods.
    for m in java.iter().filter(|m| m.id.data_type == "pdf-set") {
        let name = format!("profile/{}", m.id.key());
        assert!(
            e.artifacts
                .iter()
                .any(|a| a.name == name && a.kind() == ArtifactKind::Profile),
            "no flame graph {name}"
        );
    }
    let hot = table(&e.artifacts, "jvm/hot-methods/encrypt-job/aes-128-r4");
    assert!(!hot.rows.is_empty());
    let artifacts = study.findings(&cfg, &java, &MachineInfo::detect()).unwrap();
    for fig in ["jvm/fig-10", "jvm/fig-11"] {
        let t = table(&artifacts, fig);
        let swap = row(&t, "ascon-128-r4");
        assert!(
            swap.iter().any(|c| c.verdict().is_some()),
            "{fig}: the swap's order has a verdict: {swap:?}"
        );
        let directions = if fig == "jvm/fig-10" { 2 } else { 1 };
        assert_eq!(t.rows.len(), 2 * directions, "{fig}: two schemes");
    }
}
