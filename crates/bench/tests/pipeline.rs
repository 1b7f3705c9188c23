//! The lab as a library call: `pipeline::run` plans, measures, finds and stores a run
//! without the CLI, and says how it goes through its events in order.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use cipherlab_bench::pipeline::{self, Event, Plan};
use cipherlab_bench::studies::{CipherFilter, Config, Scale, by_name};
use cipherlab_harness::Settings;
use cipherlab_results::artifact::{Cell, Content, cell_text};
use cipherlab_results::store::{Location, Store};

/// The sampling profiler is one per process: the tests that profile take turns.
static PROFILER: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn tiny_settings() -> Settings {
    Settings {
        warmup_iterations: 1,
        warmup_time: Duration::from_millis(1),
        iterations: 5,
        sample_time: Duration::from_millis(1),
        rounds: 1,
        ..pipeline::settings_for(Scale::Quick, None)
    }
}

/// A plan profiling `study` for the AES-128 figures, with samples long enough that every
/// figure gets some at ~1,000 per CPU-second.
fn profiled_plan(study: &str, db: &std::path::Path) -> Plan {
    Plan {
        settings: Settings {
            iterations: 10,
            sample_time: Duration::from_millis(10),
            ..tiny_settings()
        },
        keep_awake: false,
        ..Plan::new(
            vec![by_name(study).unwrap()],
            Config {
                filter: CipherFilter::new(&["aes-128"]),
                profile: true,
                ..Config::new(Scale::Quick)
            },
            Location::File(db.to_path_buf()),
        )
    }
}

#[test]
fn a_run_is_planned_measured_found_and_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("lab.sqlite");
    let config = Config {
        filter: CipherFilter::new(&["rc4-40"]),
        ..Config::new(Scale::Quick)
    };
    let plan = Plan {
        settings: tiny_settings(),
        keep_awake: false,
        command_line: "pipeline test".into(),
        ..Plan::new(
            vec![by_name("data-size").unwrap()],
            config,
            Location::File(db.clone()),
        )
    };
    let mut events: Vec<&'static str> = Vec::new();
    let run = pipeline::run(&plan, &mut |e| {
        let name = match e {
            Event::Planned { benchmarks, .. } => {
                assert!(benchmarks > 0);
                "planned"
            }
            Event::KeepingAwake { .. } => "awake",
            Event::TimingElsewhere => "elsewhere",
            Event::Measuring { slices } => {
                assert!(slices > 0);
                "measuring"
            }
            Event::Suite(_) => "suite",
            Event::Measured => "measured",
            Event::Profiling { .. } => "profiling",
            Event::Warning(w) => panic!("warning: {w}"),
        };
        if events.last() != Some(&name) {
            events.push(name);
        }
    })
    .unwrap();
    // data-size times java-bc elsewhere (the paper's platform) before its own suite.
    assert_eq!(
        events,
        ["planned", "elsewhere", "measuring", "suite", "measured"]
    );
    assert!(!run.measurements.is_empty());
    assert!(run.measurements.iter().all(|m| m.id.study == "data-size"));
    // Only the filtered cipher and the plaintext baselines were measured.
    assert!(
        run.measurements.iter().all(|m| {
            let alg = m.id.algorithm.to_string();
            alg == "rc4-40" || alg == "none"
        }),
        "{:?}",
        run.measurements
            .iter()
            .map(|m| m.id.algorithm.to_string())
            .collect::<Vec<_>>()
    );
    assert_eq!(run.validity.keep_awake, Some(0));
    if std::path::Path::new("/proc/stat").exists() {
        assert!(run.validity.steal.is_some(), "steal time is read and kept");
    }
    // What the store holds is what the call returned, steal time included.
    let store = Store::open_location(&Location::File(db)).unwrap();
    let back = store.load_run(run.id).unwrap();
    assert_eq!(back.measurements.len(), run.measurements.len());
    assert_eq!(back.artifacts.len(), run.artifacts.len());
    assert_eq!(back.validity.steal, run.validity.steal);
    assert_eq!(back.info.command_line, "pipeline test");
}

#[test]
fn a_filter_that_matches_nothing_is_an_error_before_any_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        filter: CipherFilter::new(&["no-such-cipher"]),
        ..Config::new(Scale::Quick)
    };
    let plan = Plan {
        keep_awake: false,
        ..Plan::new(
            vec![by_name("data-size").unwrap()],
            config,
            Location::File(dir.path().join("lab.sqlite")),
        )
    };
    let mut events = 0;
    let err = pipeline::run(&plan, &mut |_| events += 1).err().unwrap();
    assert!(matches!(err, pipeline::Error::NothingMatches(_)), "{err}");
    assert!(err.to_string().contains("no-such-cipher"));
    assert_eq!(events, 0);
    assert!(!dir.path().join("lab.sqlite").exists(), "no store created");
}

#[test]
fn profiled_figures_carry_where_their_cpu_time_went() {
    let _turn = PROFILER.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let plan = profiled_plan("data-size", &dir.path().join("lab.sqlite"));
    let mut warnings = Vec::new();
    let run = pipeline::run(&plan, &mut |e| {
        if let Event::Warning(w) = e {
            warnings.push(w);
        }
    })
    .unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let profiles: Vec<_> = run
        .artifacts
        .iter()
        .filter_map(|a| match &a.content {
            Content::Profile(p) => Some((a, p)),
            _ => None,
        })
        .collect();
    assert!(!profiles.is_empty(), "no profile artifact");
    for (a, _) in &profiles {
        assert!(a.name.starts_with("profile/data-size/"), "{}", a.name);
        assert!(
            run.measurements
                .iter()
                .any(|m| a.name == format!("profile/{}", m.id.key())),
            "{} names no figure",
            a.name
        );
    }
    // The AES figures' stacks reach the cipher: the profile sees the measured code.
    let aes: Vec<_> = profiles
        .iter()
        .filter(|(a, _)| a.name.contains("aes-128"))
        .collect();
    assert!(!aes.is_empty());
    let share = aes
        .iter()
        .map(|(_, p)| p.share_of("aes") + p.share_of("cbc") + p.share_of("Aes"))
        .fold(0.0, f64::max);
    assert!(share > 0.0, "no stack of an AES figure names aes or cbc");
    // No profiler frames at the leaf.
    for (_, p) in &profiles {
        assert!(p.stacks.keys().all(|s| !s.contains("pprof::")));
    }
}

#[test]
fn profile_and_forks_are_refused_together() {
    let dir = tempfile::tempdir().unwrap();
    let plan = Plan {
        settings: pipeline::settings_for(Scale::Quick, Some(2)),
        keep_awake: false,
        ..Plan::new(
            vec![by_name("data-size").unwrap()],
            Config {
                profile: true,
                ..Config::new(Scale::Quick)
            },
            Location::File(dir.path().join("lab.sqlite")),
        )
    };
    let err = pipeline::run(&plan, &mut |_| {}).err().unwrap();
    assert!(matches!(err, pipeline::Error::ProfileWithForks), "{err}");
}

#[test]
fn the_pdf_study_says_where_its_time_went_from_the_profiles() {
    let _turn = PROFILER.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let plan = profiled_plan("pdf", &dir.path().join("lab.sqlite"));
    let run = pipeline::run(&plan, &mut |_| {}).unwrap();
    // Profiling spoils no figure: the jobs, on the process's CPU clock (which the
    // profiler's timer makes tick-grained), read non-zero, and are profiled too.
    for m in &run.measurements {
        assert!(m.summary.median > 0.0, "{} reads 0 ns", m.id.key());
    }
    assert!(run.artifacts.iter().any(|a| a.name.contains("-job/")));
    let table = run
        .artifacts
        .iter()
        .find(|a| a.name == "profile/where-the-time-went")
        .and_then(|a| a.as_table())
        .expect("the pdf study's profile table");
    let col = |name: &str| table.columns.iter().position(|c| c == name).unwrap();
    let pct = |c: &Cell| -> f64 { cell_text(c).trim_end_matches('%').parse().unwrap() };
    assert!(!table.rows.is_empty());
    let mut cipher_seen = false;
    for row in &table.rows {
        let sum: f64 = ["key derivation", "cipher", "parsing", "writing", "other"]
            .iter()
            .map(|c| pct(&row[col(c)]))
            .sum();
        assert!((sum - 100.0).abs() <= 3.0, "shares add to {sum}: {row:?}");
        cipher_seen |= pct(&row[col("cipher")]) > 0.0;
        let verdict = cell_text(&row[col("more time in")]);
        assert!(["the cipher", "PDF handling", "can't tell"].contains(&verdict.as_str()));
    }
    assert!(cipher_seen, "no figure spent any sample in cipher code");
}
