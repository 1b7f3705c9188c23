//! The suite scheduler: a list of benchmarks run in this process -- each one's samples
//! taken in [`Settings::rounds`] slices spread over the run -- or each in
//! [`Settings::forks`] child processes ([`crate::fork`]), with [`Progress`] reported
//! through a callback.
//!
//! [`Suite::run_adaptive`] then spends a time budget where it matters: the caller says
//! which figures are still undecided (their interval overlaps a neighbour's, say), and
//! those, and only those, get one more slice each, again and again, until the caller is
//! satisfied, each has had [`Extra::max_rounds`] more, or the budget is spent.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::error::BenchError;
use crate::fork;
use crate::measurement::{Identity, Measurement, RawSample};
use crate::protocol::{Bencher, Harness, Step};
use crate::settings::{Clock, Settings};

/// What the harness is doing, for a progress bar. Sent between samples, never inside a
/// timed region.
#[derive(Debug, Clone, Copy)]
pub enum Progress<'a, I> {
    /// Benchmark `index` (0-based) of `total` starts.
    Started {
        /// Position in the suite.
        index: usize,
        /// Benchmarks in the suite.
        total: usize,
        /// Which one.
        id: &'a I,
    },
    /// A warm-up iteration finished.
    WarmUp {
        /// Iterations done (1-based).
        done: u32,
        /// Warm-up iterations in all.
        of: u32,
    },
    /// Measured samples so far.
    Measuring {
        /// Samples done.
        done: u32,
        /// Samples planned (in sample mode, the minimum).
        of: u32,
    },
    /// A fork process finished.
    Fork {
        /// Forks done (1-based).
        done: u32,
        /// Forks in all.
        of: u32,
    },
    /// Benchmark `index` finished.
    Finished {
        /// Position in the suite.
        index: usize,
        /// Benchmarks in the suite.
        total: usize,
        /// Its result.
        measurement: &'a Measurement<I>,
    },
}

impl<I> From<Step> for Progress<'_, I> {
    fn from(s: Step) -> Self {
        match s {
            Step::WarmUp { done, of } => Progress::WarmUp { done, of },
            Step::Measuring { done, of } => Progress::Measuring { done, of },
        }
    }
}

/// The slices a benchmark with settings `s` is planned in: forked benchmarks run whole in
/// round 0, the others in `rounds` slices.
fn rounds_of(s: &Settings) -> u32 {
    if s.forks > 0 { 1 } else { s.rounds.max(1) }
}

/// The settings of slice `round` of `rounds`: its share of the samples; after the
/// first slice, the first slice's batch (so all samples time the same number of calls)
/// and a short warm-up (the code is warm, the caches may not be).
fn slice_settings(whole: &Settings, round: u32, rounds: u32, first_batch: u64) -> Settings {
    if rounds <= 1 {
        return whole.clone();
    }
    let share = whole.iterations / rounds + u32::from(round < whole.iterations % rounds);
    let mut s = Settings {
        iterations: share.max(1),
        rounds: 1,
        ..whole.clone()
    };
    if round > 0 {
        if whole.batch.is_none() && first_batch > 0 {
            s.batch = Some(first_batch);
        }
        s.warmup_iterations = whole.warmup_iterations.min(1);
        s.warmup_time = whole.warmup_time / 4;
    }
    s
}

/// The settings of an extra slice: one planned slice's samples (at least 5) at the
/// benchmark's batch, after a short warm-up.
fn extra_settings(whole: &Settings, batch: u64) -> Settings {
    let share = (whole.iterations / whole.rounds.max(1)).max(5);
    Settings {
        iterations: share,
        rounds: 1,
        batch: if whole.batch.is_none() && batch > 0 && whole.mode != crate::Mode::SingleShot {
            Some(batch)
        } else {
            whole.batch
        },
        warmup_iterations: whole.warmup_iterations.min(1),
        warmup_time: whole.warmup_time / 4,
        ..whole.clone()
    }
}

type BenchFn<'a> = Box<dyn FnMut(&mut Bencher<'_>) + 'a>;

struct Entry<'a, I> {
    id: I,
    bytes_per_op: Option<u64>,
    /// Settings for this benchmark alone (e.g. single-shot for RSA key generation);
    /// `None`: the harness's.
    settings: Option<Settings>,
    /// The clock for this benchmark alone (e.g. the wall clock for a job that spreads
    /// over threads); `None`: its settings'.
    clock: Option<Clock>,
    bench: BenchFn<'a>,
}

/// What [`Suite::run_adaptive`] does after the planned rounds.
pub struct Extra<'f, I> {
    /// Wall-clock time the extra slices may take, from the end of the planned rounds (a
    /// slice that starts within it finishes).
    pub budget: Duration,
    /// The most extra slices one benchmark gets.
    pub max_rounds: u32,
    /// No extra slice starts once the whole run (planned rounds included) has taken
    /// this long: how a run promised to end within a time keeps the promise when the
    /// planned rounds already took most of it.
    pub run_limit: Option<Duration>,
    /// The positions (in the suite's order, as returned) of the measurements that still
    /// need samples; an empty answer ends the extra rounds.
    pub undecided: &'f dyn Fn(&[Measurement<I>]) -> Vec<usize>,
}

/// What the extra rounds of [`Suite::run_adaptive`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExtraReport {
    /// Extra slices taken in all.
    pub slices: u32,
    /// Benchmarks that got at least one.
    pub benchmarks: usize,
    /// Passes over the undecided benchmarks.
    pub passes: u32,
    /// Wall-clock time they took.
    pub elapsed: Duration,
    /// Whether the budget ran out while figures were still undecided.
    pub budget_spent: bool,
    /// Figures still undecided at the end (by the caller's measure).
    pub undecided: usize,
}

/// A list of benchmarks, run in this process or each in forks.
///
/// With [`Settings::forks`] `= N > 0`, [`Suite::run`] starts, per benchmark, N child
/// processes of the current program (same arguments, see [`fork`]) with the benchmark's
/// key in the environment. The child builds the same suite and calls [`Suite::run`],
/// which in a child runs only the requested benchmark, prints its samples as one JSON
/// line on standard output and exits. So a program must build its suite and call `run`
/// before it does anything a child should not do (write files, print reports).
pub struct Suite<'a, I> {
    entries: Vec<Entry<'a, I>>,
    command: Option<Box<dyn Fn() -> std::io::Result<Command> + 'a>>,
}

impl<I> Default for Suite<'_, I> {
    fn default() -> Self {
        Suite {
            entries: Vec::new(),
            command: None,
        }
    }
}

impl<'a, I: Identity> Suite<'a, I> {
    /// An empty suite.
    pub fn new() -> Suite<'a, I> {
        Suite::default()
    }

    /// Adds a benchmark; `bytes_per_op` enables bytes/s and ticks/byte.
    pub fn add<F>(&mut self, id: I, bytes_per_op: Option<u64>, bench: F) -> &mut Suite<'a, I>
    where
        F: FnMut(&mut Bencher<'_>) + 'a,
    {
        self.entries.push(Entry {
            id,
            bytes_per_op,
            settings: None,
            clock: None,
            bench: Box::new(bench),
        });
        self
    }

    /// Adds a benchmark read on `clock` whatever the settings say, with its own
    /// `settings` or (`None`) the harness's: the wall clock for a whole job that waits
    /// for I/O or spreads over threads, which the thread's CPU time does not see.
    pub fn add_on<F>(
        &mut self,
        clock: Clock,
        id: I,
        bytes_per_op: Option<u64>,
        settings: Option<Settings>,
        bench: F,
    ) -> &mut Suite<'a, I>
    where
        F: FnMut(&mut Bencher<'_>) + 'a,
    {
        self.add(id, bytes_per_op, bench);
        if let Some(e) = self.entries.last_mut() {
            e.settings = settings;
            e.clock = Some(clock);
        }
        self
    }

    /// Adds a benchmark measured with its own `settings` (mode, samples, forks) instead
    /// of the harness's: a study can time RSA key generation single-shot beside
    /// average-time AES. The validity figures stay the harness's.
    pub fn add_with_settings<F>(
        &mut self,
        id: I,
        bytes_per_op: Option<u64>,
        settings: Settings,
        bench: F,
    ) -> &mut Suite<'a, I>
    where
        F: FnMut(&mut Bencher<'_>) + 'a,
    {
        self.add(id, bytes_per_op, bench);
        if let Some(e) = self.entries.last_mut() {
            e.settings = Some(settings);
        }
        self
    }

    /// Uses `command` to start fork children instead of [`fork::current_command`] (the
    /// current program with its arguments). The harness adds the request to the
    /// environment and captures standard output.
    pub fn fork_command<C>(&mut self, command: C) -> &mut Suite<'a, I>
    where
        C: Fn() -> std::io::Result<Command> + 'a,
    {
        self.command = Some(Box::new(command));
        self
    }

    /// The benchmarks' identifiers, in order.
    pub fn ids(&self) -> impl Iterator<Item = &I> {
        self.entries.iter().map(|e| &e.id)
    }

    /// Number of benchmarks.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the suite is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many slices [`Suite::run`] will start (a [`Progress::Started`] each) on
    /// `harness`: each benchmark's planned rounds, one for a forked benchmark. Extra
    /// slices of [`Suite::run_adaptive`] come on top.
    pub fn planned_slices(&self, harness: &Harness) -> usize {
        self.settings_of(harness)
            .iter()
            .map(|s| rounds_of(s) as usize)
            .sum()
    }

    /// Each benchmark's key and the clock its figure is read on with `harness`.
    pub fn clocks(&self, harness: &Harness) -> Vec<(String, Clock)> {
        self.entries
            .iter()
            .zip(self.settings_of(harness))
            .map(|(e, s)| (e.id.key(), s.clock))
            .collect()
    }

    /// Each benchmark's settings on `harness`: its own, else the harness's, on its clock.
    fn settings_of(&self, harness: &Harness) -> Vec<Settings> {
        self.entries
            .iter()
            .map(|e| {
                let mut s = e
                    .settings
                    .clone()
                    .unwrap_or_else(|| harness.settings().clone());
                if let Some(c) = e.clock {
                    s.clock = c;
                }
                s
            })
            .collect()
    }

    /// Runs every benchmark in order and returns their measurements.
    ///
    /// In a fork child (the environment holds a [`fork::ForkRequest`]), runs only the
    /// requested benchmark, prints its samples and exits the process; it returns only on
    /// error.
    pub fn run(
        &mut self,
        harness: &Harness,
        progress: &mut dyn FnMut(Progress<'_, I>),
    ) -> Result<Vec<Measurement<I>>, BenchError> {
        let extra = Extra {
            budget: Duration::ZERO,
            max_rounds: 0,
            run_limit: None,
            undecided: &|_| Vec::new(),
        };
        self.run_adaptive(harness, progress, &extra)
            .map(|(ms, _)| ms)
    }

    /// [`Suite::run`], then extra slices for the benchmarks `extra.undecided` names, one
    /// pass over them at a time, until it names none, each has had `extra.max_rounds`
    /// more, or `extra.budget` is spent. An extra slice takes the samples of one planned
    /// slice (at least 5) at the benchmark's batch, after a short warm-up, and its samples
    /// are pooled with the others. Forked benchmarks get none (a fork is a whole process).
    pub fn run_adaptive(
        &mut self,
        harness: &Harness,
        progress: &mut dyn FnMut(Progress<'_, I>),
        extra: &Extra<'_, I>,
    ) -> Result<(Vec<Measurement<I>>, ExtraReport), BenchError> {
        let mut keys: Vec<String> = self.entries.iter().map(|e| e.id.key()).collect();
        keys.sort();
        if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
            return Err(BenchError::DuplicateId(w[0].clone()));
        }
        if let Some(request) = fork::ForkRequest::from_env()? {
            return Err(self.serve(harness, &request));
        }
        let run_started = Instant::now();
        let total = self.entries.len();
        let settings = self.settings_of(harness);
        let passes = settings.iter().map(rounds_of).max().unwrap_or(1);
        let mut pooled: Vec<(u64, Vec<RawSample>)> = vec![(0, Vec::new()); total];
        let mut out: Vec<Option<Measurement<I>>> = (0..total).map(|_| None).collect();
        for round in 0..passes {
            for index in 0..total {
                let rounds = rounds_of(&settings[index]);
                if round >= rounds {
                    continue;
                }
                let entry = &mut self.entries[index];
                progress(Progress::Started {
                    index,
                    total,
                    id: &entry.id,
                });
                let whole = &settings[index];
                let (batch, samples) = if whole.forks > 0 {
                    self.command_forks(index, whole, progress)?
                } else {
                    let slice = slice_settings(whole, round, rounds, pooled[index].0);
                    harness.samples(
                        &entry.id.key(),
                        &slice,
                        &mut |s| progress(s.into()),
                        &mut entry.bench,
                    )?
                };
                let acc = &mut pooled[index];
                acc.0 = acc.0.max(batch);
                acc.1.extend(samples);
                if round + 1 < rounds {
                    continue;
                }
                let entry = &self.entries[index];
                let (batch, samples) = std::mem::take(&mut pooled[index]);
                let m = harness.summarize(
                    entry.id.clone(),
                    whole,
                    entry.bytes_per_op,
                    batch,
                    samples,
                )?;
                progress(Progress::Finished {
                    index,
                    total,
                    measurement: &m,
                });
                out[index] = Some(m);
            }
        }
        let mut out: Vec<Measurement<I>> = out.into_iter().flatten().collect();
        let left = extra
            .run_limit
            .map(|limit| limit.saturating_sub(run_started.elapsed()));
        let extra = Extra {
            budget: left.map_or(extra.budget, |l| l.min(extra.budget)),
            ..*extra
        };
        let report = self.extra_rounds(harness, progress, &extra, &settings, &mut out)?;
        Ok((out, report))
    }

    /// The extra slices of [`Suite::run_adaptive`], on `out` (one measurement per entry).
    fn extra_rounds(
        &mut self,
        harness: &Harness,
        progress: &mut dyn FnMut(Progress<'_, I>),
        extra: &Extra<'_, I>,
        settings: &[Settings],
        out: &mut [Measurement<I>],
    ) -> Result<ExtraReport, BenchError> {
        let started = Instant::now();
        let total = self.entries.len();
        let mut given = vec![0u32; total];
        let mut report = ExtraReport::default();
        loop {
            let asked = if out.len() == total {
                (extra.undecided)(out)
            } else {
                Vec::new()
            };
            report.undecided = asked.len();
            let mut need: Vec<usize> = asked
                .into_iter()
                .filter(|&i| i < total && settings[i].forks == 0 && given[i] < extra.max_rounds)
                .collect();
            need.sort_unstable();
            need.dedup();
            if need.is_empty() {
                break;
            }
            if started.elapsed() >= extra.budget {
                report.budget_spent = true;
                break;
            }
            report.passes += 1;
            for index in need {
                if started.elapsed() >= extra.budget {
                    break;
                }
                let whole = &settings[index];
                let entry = &mut self.entries[index];
                progress(Progress::Started {
                    index,
                    total,
                    id: &entry.id,
                });
                let slice = extra_settings(whole, out[index].batch);
                let (_, samples) = harness.samples(
                    &entry.id.key(),
                    &slice,
                    &mut |s| progress(s.into()),
                    &mut entry.bench,
                )?;
                let m = &out[index];
                let mut pooled = m.samples.clone();
                pooled.extend(samples);
                let m = harness.summarize(m.id.clone(), whole, m.bytes_per_op, m.batch, pooled)?;
                progress(Progress::Finished {
                    index,
                    total,
                    measurement: &m,
                });
                out[index] = m;
                if given[index] == 0 {
                    report.benchmarks += 1;
                }
                given[index] += 1;
                report.slices += 1;
            }
        }
        report.elapsed = started.elapsed();
        Ok(report)
    }

    /// Runs entry `index` in its forks and pools their samples.
    fn command_forks(
        &self,
        index: usize,
        settings: &Settings,
        progress: &mut dyn FnMut(Progress<'_, I>),
    ) -> Result<(u64, Vec<RawSample>), BenchError> {
        let entry = &self.entries[index];
        let forks = settings.forks;
        let mut samples = Vec::new();
        let mut batch = 0;
        for k in 1..=forks {
            let command = match &self.command {
                Some(c) => c(),
                None => fork::current_command(),
            };
            let request = fork::ForkRequest {
                key: entry.id.key(),
                fork: k,
                settings: Settings {
                    forks: 0,
                    rounds: 1,
                    ..settings.clone()
                },
            };
            let output = fork::run_child(command, &request)?;
            batch = batch.max(output.batch);
            samples.extend(output.samples);
            progress(Progress::Fork { done: k, of: forks });
        }
        Ok((batch, samples))
    }

    /// Serves a fork request: runs the benchmark, prints the result line and exits; on
    /// error returns it.
    fn serve(&mut self, harness: &Harness, request: &fork::ForkRequest) -> BenchError {
        let Some(entry) = self.entries.iter_mut().find(|e| e.id.key() == request.key) else {
            return BenchError::ForkNotFound(request.key.clone());
        };
        let settings = Settings {
            forks: 0,
            ..request.settings.clone()
        };
        match harness.samples(&request.key, &settings, &mut |_| {}, &mut entry.bench) {
            Ok((batch, mut samples)) => {
                for s in &mut samples {
                    s.fork = request.fork;
                }
                let output = fork::ForkOutput {
                    key: request.key.clone(),
                    fork: request.fork,
                    pid: std::process::id(),
                    batch,
                    samples,
                };
                match output.emit() {
                    Ok(()) => std::process::exit(0),
                    Err(e) => BenchError::ForkEmit(e),
                }
            }
            Err(e) => e,
        }
    }
}
