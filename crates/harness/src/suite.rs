//! The suite scheduler: a list of benchmarks run in this process -- each one's samples
//! taken in [`Settings::rounds`] slices spread over the run -- or each in
//! [`Settings::forks`] child processes ([`crate::fork`]), with [`Progress`] reported
//! through a callback.

use std::process::Command;

use crate::error::BenchError;
use crate::fork;
use crate::measurement::{Identity, Measurement, RawSample};
use crate::protocol::{Bencher, Harness, Step};
use crate::settings::Settings;

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

type BenchFn<'a> = Box<dyn FnMut(&mut Bencher<'_>) + 'a>;

struct Entry<'a, I> {
    id: I,
    bytes_per_op: Option<u64>,
    /// Settings for this benchmark alone (e.g. single-shot for RSA key generation);
    /// `None`: the harness's.
    settings: Option<Settings>,
    bench: BenchFn<'a>,
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
            bench: Box::new(bench),
        });
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
        let mut keys: Vec<String> = self.entries.iter().map(|e| e.id.key()).collect();
        keys.sort();
        if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
            return Err(BenchError::DuplicateId(w[0].clone()));
        }
        if let Some(request) = fork::ForkRequest::from_env()? {
            return Err(self.serve(harness, &request));
        }
        let total = self.entries.len();
        let settings: Vec<Settings> = self
            .entries
            .iter()
            .map(|e| {
                e.settings
                    .clone()
                    .unwrap_or_else(|| harness.settings().clone())
            })
            .collect();
        // Forked benchmarks run whole in round 0; the others in `rounds` slices.
        let rounds_of = |s: &Settings| if s.forks > 0 { 1 } else { s.rounds.max(1) };
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
        Ok(out.into_iter().flatten().collect())
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
