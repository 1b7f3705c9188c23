//! `cipherlab bench --profile`: where each figure's CPU time went. A sampling profiler
//! (the `pprof` crate: the process's CPU-time timer, `SIGPROF`, a stack walk per sample)
//! runs while each slice of a benchmark is measured; the samples of every slice of one
//! figure are pooled into one [`Profile`] artifact, which the report draws as a flame
//! graph. The profiler only reads the stack when its signal lands, so the measured code
//! is not changed; what it costs (the signal handler's time, charged to the figure) is
//! measured in docs/studies.md ("Profiles").
//!
//! Only work in this process is seen: benchmarks measured in fork children (`--forks`)
//! and the other runtimes' runners are not profiled (the pipeline refuses `--forks` with
//! `--profile`).

use std::collections::BTreeMap;

use cipherlab_results::artifact::{Artifact, Content, Profile};
use cipherlab_results::id::BenchId;

/// Samples per second of CPU time: a prime, so the sampling does not beat with a loop
/// of the measured code, and high enough that a `--quick` figure (tens of ms of CPU)
/// gets tens of samples.
pub const FREQUENCY_HZ: i32 = 997;

/// Frames of the profiler's own signal path and of the C library, which every stack
/// would otherwise start with.
const BLOCKLIST: &[&str] = &["libc", "libgcc", "pthread", "vdso"];

/// Collects profiles, one per figure, while the suite runs.
#[derive(Default)]
pub struct Profiler {
    running: Option<(BenchId, pprof::ProfilerGuard<'static>)>,
    profiles: BTreeMap<String, (BenchId, Profile)>,
    /// Why profiling stopped, if the profiler could not start or report.
    pub failure: Option<String>,
}

impl Profiler {
    /// Ends the slice being profiled, if any, and starts profiling `id`'s next slice.
    pub fn switch_to(&mut self, id: &BenchId) {
        self.stop();
        if self.failure.is_some() {
            return;
        }
        match pprof::ProfilerGuardBuilder::default()
            .frequency(FREQUENCY_HZ)
            .blocklist(BLOCKLIST)
            .build()
        {
            Ok(guard) => self.running = Some((id.clone(), guard)),
            Err(e) => self.failure = Some(format!("the profiler did not start: {e}")),
        }
    }

    /// Ends the slice being profiled and pools its samples into its figure's profile.
    pub fn stop(&mut self) {
        let Some((id, guard)) = self.running.take() else {
            return;
        };
        let report = match guard.report().build() {
            Ok(r) => r,
            Err(e) => {
                self.failure = Some(format!("the profiler's report failed: {e}"));
                return;
            }
        };
        let (_, profile) = self
            .profiles
            .entry(id.key())
            .or_insert_with(|| (id, Profile::default()));
        for (frames, &count) in &report.data {
            // pprof lists a stack leaf first, and a frame's inlined functions innermost
            // first; a flame graph wants the root first.
            let names: Vec<String> = frames
                .frames
                .iter()
                .rev()
                .flat_map(|frame| frame.iter().rev().map(|symbol| symbol.to_string()))
                .filter(|name| !is_profiler_frame(name))
                .collect();
            profile.add(&names, count.max(0) as u64);
        }
    }

    /// One artifact per figure that got samples, in the figures' key order.
    pub fn into_artifacts(mut self) -> Vec<Artifact> {
        self.stop();
        self.profiles
            .into_values()
            .filter(|(_, p)| p.samples() > 0)
            .map(|(id, p)| {
                Artifact::new(
                    &id.study,
                    &format!("profile/{}", id.key()),
                    &format!(
                        "{} · {} · {} · {} · {} B · {}",
                        id.algorithm,
                        id.implementation,
                        id.runtime,
                        id.phase,
                        id.size,
                        id.data_type
                    ),
                    Content::Profile(p),
                )
            })
            .collect()
    }
}

/// The sampler's own frames (the signal handler and its stack walk), which sit at the
/// leaf of every sample.
fn is_profiler_frame(name: &str) -> bool {
    name.starts_with("pprof::") || name.starts_with("backtrace::") || name == "Unknown"
}
