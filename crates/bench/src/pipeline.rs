//! One run of the lab as a library call: [`run`] plans the studies' benchmarks, times the
//! other runtimes' runners, measures (with extra slices for undecided figures), computes
//! the findings and stores the run, telling its caller how it goes through [`Event`]s.
//! `cipherlab bench` parses its arguments into a [`Plan`] and prints the [`Run`]; a test,
//! the Python package or another program can do the same without the CLI.
//!
//! Order matters for forks: the suite is planned and run before anything else happens,
//! because a fork child (the same program, same arguments, a request in its environment)
//! rebuilds the suite, runs its one benchmark inside `Suite::run_adaptive` and exits
//! there. A child reports no events, keeps no CPUs awake, times no other runtime and
//! touches no store.

use std::time::{Duration, Instant};

use cipherlab_harness::keep_awake::KeepAwake;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::steadiness::SpeedProbe;
use cipherlab_harness::validity::{StealClock, load_average, load_without_spinners};
use cipherlab_harness::{BenchError, Extra, ExtraReport, Harness, Settings, Validity, fork};
use cipherlab_results::artifact::{Artifact, ArtifactKind};
use cipherlab_results::id::{Measurement, Progress, Suite};
use cipherlab_results::ranking;
use cipherlab_results::store::{Location, NewRun, Store, StoreError, now_ms};

use crate::profile::Profiler;
use crate::studies::{self, Config, STUDIES, Scale, Study, StudyError};

/// What to run and where to keep it.
pub struct Plan {
    /// The studies, in any order ([`run`] runs them in [`STUDIES`]' order).
    pub studies: Vec<&'static dyn Study>,
    /// Scale, cipher filter and the user's inputs.
    pub config: Config,
    /// The harness's settings ([`settings_for`] gives the lab's for a scale).
    pub settings: Settings,
    /// The results database.
    pub store: Location,
    /// Keep the other CPUs awake with idle-priority spinners while measuring (see
    /// `cipherlab_harness::keep_awake`; docs/studies.md, "CPU speed").
    pub keep_awake: bool,
    /// The command line stored with the run.
    pub command_line: String,
    /// C implementations to build, check and time as providers (`--impl NAME=DIR`,
    /// [`crate::native`]); the `lwc` study times them. Empty by default.
    pub impls: Vec<crate::native::Impl>,
}

impl Plan {
    /// Every study of [`STUDIES`] at `config`'s scale with the lab's settings, stored at
    /// `store`, with the other CPUs kept awake.
    pub fn new(studies: Vec<&'static dyn Study>, config: Config, store: Location) -> Plan {
        Plan {
            settings: settings_for(config.scale, None),
            studies,
            config,
            store,
            keep_awake: true,
            command_line: std::env::args().collect::<Vec<_>>().join(" "),
            impls: Vec::new(),
        }
    }
}

/// What [`run`] tells its caller while it works, in this order.
pub enum Event<'a> {
    /// The suite is planned; nothing is measured yet.
    Planned {
        /// Benchmarks in the suite.
        benchmarks: usize,
        /// The machine the run measures on.
        machine: &'a MachineInfo,
        /// The 1-minute load average before anything of the run's own started.
        load: Option<f64>,
    },
    /// The other CPUs are kept awake by this many spinners until the last sample.
    KeepingAwake {
        /// Spinners started (0 on a single CPU).
        spinners: usize,
    },
    /// The other runtimes' runners are being timed (before the suite).
    TimingElsewhere,
    /// The suite starts.
    Measuring {
        /// Slices the harness plans (each benchmark's rounds; extra ones may follow).
        slices: usize,
    },
    /// The suite's progress.
    Suite(Progress<'a>),
    /// The last sample is taken; findings and the store follow.
    Measured,
    /// `--profile`: every benchmark runs once more under the sampling profiler, its
    /// figures not kept.
    Profiling {
        /// Benchmarks to profile.
        benchmarks: usize,
    },
    /// Something the run could not do, which its figures do not depend on (a profile
    /// that could not be taken).
    Warning(String),
}

/// A finished run, as stored.
pub struct Run {
    /// Its id in the store.
    pub id: i64,
    /// The store's name (a file path or a URL without password).
    pub database: String,
    /// The studies that ran, in [`STUDIES`]' order.
    pub studies: Vec<&'static dyn Study>,
    /// Every figure: the suite's, then the other runtimes'.
    pub measurements: Vec<Measurement>,
    /// Every finding, table, histogram and picture.
    pub artifacts: Vec<Artifact>,
    /// The machine block, with the runtimes' versions.
    pub machine: MachineInfo,
    /// The timer's and harness's figures, the core's steadiness, the spinners and the
    /// steal time.
    pub validity: Validity,
    /// The 1-minute load average at the start and (less the run's own spinners) at the end.
    pub load: (Option<f64>, Option<f64>),
    /// What the extra slices for undecided figures did.
    pub extra: ExtraReport,
    /// From the first sample to the last.
    pub elapsed: Duration,
}

/// Why a run did not finish.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A study could not plan, time elsewhere or find.
    #[error(transparent)]
    Study(#[from] StudyError),
    /// The harness refused the suite or a fork failed.
    #[error(transparent)]
    Harness(#[from] BenchError),
    /// The results database.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A cipher filter left nothing to measure.
    #[error("no benchmark matches --cipher {0}: `cipherlab list` shows the cipher names")]
    NothingMatches(String),
    /// `--impl`: a C implementation that could not be built, checked or registered.
    #[error(transparent)]
    Native(#[from] crate::native::Error),
    /// `--impl` without the study that times it.
    #[error(
        "--impl NAME=DIR is timed by the lwc study: add lwc to the studies (e.g. `cipherlab bench lwc --impl ...`)"
    )]
    ImplWithoutLwc,
    /// Profiles are taken in this process; forked figures are measured in others.
    #[error(
        "--profile samples this process, and --forks measures every figure in other processes: use one of them"
    )]
    ProfileWithForks,
}

/// Slices per benchmark (see `Settings::rounds`): on the 2-core virtual machines we
/// measured, whole stretches of a minute ran ~1.7x slower (another guest on the host),
/// and two runs ranked differently when each benchmark took its samples at once.
const ROUNDS: u32 = 3;

/// Wall-clock time the extra slices for undecided figures may take after the planned
/// rounds (`Suite::run_adaptive`): `--quick` must stay within 3 minutes on 2 cores.
fn extra_budget(scale: Scale) -> Duration {
    Duration::from_secs(scale.pick(30, 300, 0))
}

/// How long `--quick`'s measuring may take before extra slices stop: its promise is 3
/// minutes, and the findings, the store and the report follow in a few seconds.
const QUICK_LIMIT: Duration = Duration::from_secs(172);

/// The most extra slices one figure gets: 8 slices of 5 samples take a 15-sample figure
/// to 55, which narrows its interval about twofold.
const MAX_EXTRA_ROUNDS: u32 = 8;

/// How often the run reads the core's speed between slices: about 700 readings in a
/// `--quick` run, at 0.15–0.3 ms each (three runs of the loop), 0.1% of its time.
const SPEED_PROBE_EVERY: Duration = Duration::from_millis(200);

/// The lab's harness settings at `scale`, with `forks` processes per benchmark if given.
pub fn settings_for(scale: Scale, forks: Option<u32>) -> Settings {
    let mut s = match scale {
        Scale::Quick => Settings {
            rounds: ROUNDS,
            ..Settings::quick()
        },
        Scale::Full => Settings {
            rounds: ROUNDS,
            ..Settings::default()
        },
        // Each call takes seconds at these sizes: fewer, longer samples.
        Scale::Paper => Settings {
            warmup_iterations: 1,
            iterations: 10,
            ..Settings::default()
        },
    };
    if let Some(f) = forks {
        s.forks = f;
    }
    s
}

/// Whether this process is a fork child running one benchmark for its parent.
pub fn is_fork_child() -> Result<bool, Error> {
    Ok(fork::ForkRequest::from_env()?.is_some())
}

/// Runs `plan`: plans, times the other runtimes, measures, finds and stores; `on` hears
/// each [`Event`]. In a fork child it returns only on error (the child exits inside the
/// suite).
pub fn run(plan: &Plan, on: &mut dyn FnMut(Event<'_>)) -> Result<Run, Error> {
    let child = is_fork_child()?;
    if plan.config.profile && plan.settings.forks > 0 {
        return Err(Error::ProfileWithForks);
    }
    let mut on = |e: Event<'_>| {
        if !child {
            on(e);
        }
    };
    let mut studies = plan.studies.clone();
    studies.sort_by_key(|s| STUDIES.iter().position(|x| x.name() == s.name()));
    studies.dedup_by_key(|s| s.name());
    let cfg = &plan.config;

    // C implementations first: the studies plan them as providers. A fork child loads
    // its parent's choice (crate::native's module doc).
    if !plan.impls.is_empty() && !studies.iter().any(|s| s.name() == "lwc") {
        return Err(Error::ImplWithoutLwc);
    }
    let native = crate::native::prepare(&plan.impls, child)?;

    // Plan and run: nothing else may happen first (see the module doc).
    let mut suite = Suite::new();
    if !plan.impls.is_empty() {
        let env = native.env.clone();
        suite.fork_command(move || {
            let mut c = cipherlab_harness::fork::current_command()?;
            c.env(crate::native::LIBS_VAR, &env);
            Ok(c)
        });
    }
    studies::plan_all(&studies, cfg, &mut suite)?;
    if cfg.filter.is_restricted()
        && suite.is_empty()
        && !studies.iter().any(|s| s.name() == "distribution")
    {
        return Err(Error::NothingMatches(
            cfg.filter.patterns().join(" --cipher "),
        ));
    }
    let mut machine = crate::this_machine();
    if !child && matches!(plan.store, Location::Postgres(_)) {
        // A shared database that cannot be reached is said now, not after minutes of
        // measuring; the run is written through a new connection at the end.
        drop(Store::open_location(&plan.store)?);
    }
    // Read before the spinners below start: they count in the load average.
    let load_start = load_average();
    on(Event::Planned {
        benchmarks: suite.len(),
        machine: &machine,
        load: load_start,
    });
    // The other CPUs kept awake from here to the last sample (see `keep_awake`); a fork
    // child measures under its parent's.
    let keep_awake = (!child && plan.keep_awake).then(KeepAwake::start);
    let spinners = keep_awake.as_ref().map_or(0, KeepAwake::count);
    if spinners > 0 {
        on(Event::KeepingAwake { spinners });
    }
    let steal = StealClock::start();
    let started_ms = now_ms();
    let started = Instant::now();
    // Other runtimes (the platforms study's runners) first, never in a fork child: their
    // time is known before the suite's extra slices take what is left of --quick's
    // minutes.
    let (elsewhere, mut artifacts) = if child {
        (Vec::new(), Vec::new())
    } else {
        if studies.iter().any(|s| s.runs_elsewhere()) || !cfg.runner_providers().is_empty() {
            on(Event::TimingElsewhere);
        }
        studies::elsewhere_all(&studies, cfg, &plan.settings, &mut machine)?
    };
    let harness = Harness::new(plan.settings.clone());
    on(Event::Measuring {
        slices: suite.planned_slices(&harness),
    });
    // The core's speed, read between slices through the run (see `steadiness`).
    let mut speed = SpeedProbe::new(SPEED_PROBE_EVERY);
    let extra = Extra {
        budget: extra_budget(cfg.scale),
        max_rounds: MAX_EXTRA_ROUNDS,
        // --quick promises a few minutes: extra slices never take it past 3.
        run_limit: (cfg.scale == Scale::Quick)
            .then(|| QUICK_LIMIT.saturating_sub(started.elapsed())),
        undecided: &ranking::undecided,
    };
    let (measurements, extra) = suite.run_adaptive(
        &harness,
        &mut |p| {
            if matches!(p, Progress::Started { .. }) {
                speed.tick();
            }
            on(Event::Suite(p));
        },
        &extra,
    )?;
    drop(keep_awake);
    on(Event::Measured);
    let measurements = [measurements, elsewhere].concat();
    let elapsed = started.elapsed();
    let load_end = load_average().map(|l| load_without_spinners(l, spinners, elapsed));
    if plan.config.profile && !child {
        on(Event::Profiling {
            benchmarks: suite.len(),
        });
        let (profiles, failure) = profile_pass(&mut suite, &plan.settings)?;
        if let Some(why) = failure {
            on(Event::Warning(format!("no profiles: {why}")));
        }
        artifacts.extend(profiles);
    }
    let validity = Validity {
        steadiness: speed.summary(),
        keep_awake: Some(spinners as u32),
        steal: steal.fraction(),
        ..harness.validity().clone()
    };

    // Findings, then the store.
    artifacts.extend(studies::findings_all(
        &studies,
        cfg,
        &measurements,
        &machine,
    )?);
    let from_profiles: Vec<Artifact> = studies
        .iter()
        .flat_map(|s| {
            let mine: Vec<&Artifact> = artifacts
                .iter()
                .filter(|a| a.study == s.name() && a.kind() == ArtifactKind::Profile)
                .collect();
            if mine.is_empty() {
                Vec::new()
            } else {
                let all: Vec<&Measurement> = measurements
                    .iter()
                    .filter(|m| m.id.study == s.name())
                    .collect();
                s.profile_findings(&mine, &all)
            }
        })
        .collect();
    artifacts.extend(from_profiles);
    let mut store = Store::open_location(&plan.store)?;
    let new = NewRun {
        started_ms,
        command_line: plan.command_line.clone(),
        machine: machine.clone(),
        settings: plan.settings.clone(),
        validity: validity.clone(),
        load_start,
        load_end,
    };
    // One transaction: a shared database's readers never see part of this run.
    let id = store.save_run_with(&new, &measurements, &artifacts, now_ms())?;
    // The libraries' private folders were needed until the last fork child ran.
    drop(native);
    Ok(Run {
        id,
        database: store.path().to_string(),
        studies,
        measurements,
        artifacts,
        machine,
        validity,
        load: (load_start, load_end),
        extra,
        elapsed,
    })
}

/// `--profile`'s pass: every benchmark once more (one slice each, no extra rounds) with
/// the sampling profiler on, its figures thrown away. Profiles are taken apart from the
/// measured run because the profiler's timer (ITIMER_PROF) is a process-wide CPU timer,
/// and while one is armed Linux reads the process's CPU clock from counters updated at
/// the scheduler's tick: figures on that clock (work spread over threads, such as the
/// pdf study's) read 0 ns for short calls. Apart, the profiler touches no kept figure.
fn profile_pass(
    suite: &mut Suite<'_>,
    settings: &Settings,
) -> Result<(Vec<Artifact>, Option<String>), Error> {
    let harness = Harness::new(Settings {
        rounds: 1,
        ..settings.clone()
    });
    let none = Extra {
        budget: Duration::ZERO,
        max_rounds: 0,
        run_limit: None,
        undecided: &|_| Vec::new(),
    };
    let mut profiler = Profiler::default();
    suite.run_adaptive(
        &harness,
        &mut |p| {
            if let Progress::Started { id, .. } = p {
                profiler.switch_to(id);
            }
        },
        &none,
    )?;
    profiler.stop();
    let failure = profiler.failure.take();
    Ok((profiler.into_artifacts(), failure))
}
