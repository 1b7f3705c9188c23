//! How steady the CPU's speed stayed through a run.
//!
//! The lab times per-call figures on the thread's CPU time, which leaves out what other
//! programs run, but not how fast the core ran: the same work takes longer when the
//! host lowers the core's clock or gives part of the physical core to someone else
//! (boost and power states, another virtual CPU on the SMT sibling). A cycle counter
//! would see through that, but virtual machines often expose none (no PMU), and the
//! TSC ticks at a constant rate whatever the core does. So the run times a fixed piece
//! of integer work, the *reference loop*, now and then between slices
//! ([`SpeedProbe::tick`]): its readings vary only as far as the core's speed did, and
//! their spread is the spread the clock alone added to every figure of the run.
//!
//! Why it matters: on one 2-vCPU EPYC guest, back-to-back `bench --quick` runs left 7%
//! of the figures unordered when another process kept the second vCPU busy and 37% when
//! the machine was idle (docs/BENCHMARKS.md, "The same head on an idle machine"); the
//! samples of an idle run wandered by ±15% in runs of several samples, the signature
//! of a clock that moves. This probe names that cause in the run itself.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::stats::Sample;
use crate::timer::{ThreadCpuTime, Timer};

/// Steps of the reference loop: about six cycles each (a multiply, an add, a shift and a
/// xor in one dependent chain), so 0.05–0.1 ms on a 2–4 GHz core: long against the
/// thread clock's read cost (under a microsecond) and short against a slice.
const REFERENCE_STEPS: u64 = 30_000;

/// Readings per probe; the probe keeps the fastest, the one least disturbed by an
/// interrupt, so that the readings' spread is the clock's and not the scheduler's.
const READS_PER_PROBE: usize = 3;

/// A spread (slowest over fastest reading, 95th over 5th percentile) above this is
/// printed as a warning: the clock alone moved the figures by more than the ranking's
/// equivalence margin.
pub const STEADY_SPREAD: f64 = 1.05;

/// The reference loop: a chain of dependent multiplies, shifts and xors whose latency
/// fixes its time per step on a given core at a given clock, with no memory traffic.
fn reference_loop(seed: u64) -> u64 {
    let mut x = seed | 1;
    for _ in 0..REFERENCE_STEPS {
        x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(1);
        x ^= x >> 29;
    }
    std::hint::black_box(x)
}

/// Times the reference loop between slices of a run, at most once per interval.
#[derive(Debug)]
pub struct SpeedProbe {
    clock: Option<ThreadCpuTime>,
    every: Duration,
    last: Option<Instant>,
    readings_ns: Vec<f64>,
}

impl SpeedProbe {
    /// A probe that reads at most once per `every` (the first [`tick`](Self::tick)
    /// always reads). Without a thread CPU clock it never reads.
    pub fn new(every: Duration) -> SpeedProbe {
        SpeedProbe {
            clock: ThreadCpuTime::detect(),
            every,
            last: None,
            readings_ns: Vec::new(),
        }
    }

    /// Reads when `every` has passed since the last reading. Call it between
    /// measurements, never inside one.
    pub fn tick(&mut self) {
        if self.last.is_some_and(|t| t.elapsed() < self.every) {
            return;
        }
        self.read();
    }

    /// Times the reference loop now: the fastest of a few runs.
    pub fn read(&mut self) {
        let Some(clock) = self.clock else { return };
        let fastest = (0..READS_PER_PROBE)
            .map(|i| {
                let start = clock.now();
                reference_loop(i as u64);
                clock.now().saturating_sub(start)
            })
            .min()
            .unwrap_or(0);
        self.last = Some(Instant::now());
        if fastest > 0 {
            self.readings_ns.push(fastest as f64);
        }
    }

    /// The readings so far, in ns, in the order taken.
    pub fn readings_ns(&self) -> &[f64] {
        &self.readings_ns
    }

    /// What the readings say; `None` before a few of them.
    pub fn summary(&self) -> Option<Steadiness> {
        Steadiness::of(&self.readings_ns)
    }
}

/// The reference loop's readings through a run, summarized.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Steadiness {
    /// How many readings.
    pub readings: usize,
    /// Their median, in ns.
    pub median_ns: f64,
    /// Their 5th percentile, in ns (the core at its fastest, outliers aside).
    pub low_ns: f64,
    /// Their 95th percentile, in ns (the core at its slowest, outliers aside).
    pub high_ns: f64,
}

impl Steadiness {
    /// The summary of `readings_ns`; `None` for fewer than 5, too few for a spread.
    pub fn of(readings_ns: &[f64]) -> Option<Steadiness> {
        if readings_ns.len() < 5 {
            return None;
        }
        let sample = Sample::new(readings_ns.to_vec()).ok()?;
        Some(Steadiness {
            readings: sample.len(),
            median_ns: sample.median(),
            low_ns: sample.percentile(5.0),
            high_ns: sample.percentile(95.0),
        })
    }

    /// The slowest reading over the fastest (95th over 5th percentile): 1.0 for a core
    /// whose speed never moved.
    pub fn spread(&self) -> f64 {
        if self.low_ns > 0.0 {
            self.high_ns / self.low_ns
        } else {
            1.0
        }
    }

    /// Whether the clock alone moved the figures by more than [`STEADY_SPREAD`].
    pub fn is_unsteady(&self) -> bool {
        self.spread() > STEADY_SPREAD
    }

    /// One line for a terminal or a report.
    pub fn to_text(&self) -> String {
        format!(
            "a fixed reference loop, timed {} times between slices, took {:.1} µs (median), \
             from {:.1} to {:.1} µs (5th to 95th percentile): the core's speed moved by {:.1}%",
            self.readings,
            self.median_ns / 1e3,
            self.low_ns / 1e3,
            self.high_ns / 1e3,
            100.0 * (self.spread() - 1.0)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_steady_core_has_a_small_spread_and_a_moving_one_is_flagged() {
        let steady = Steadiness::of(&[100.0, 101.0, 100.5, 100.2, 100.8, 100.1]).unwrap();
        assert!(
            steady.spread() < 1.02 && !steady.is_unsteady(),
            "{steady:?}"
        );
        let mut moving = vec![100.0; 10];
        moving.extend([118.0; 10]);
        let moving = Steadiness::of(&moving).unwrap();
        assert!(moving.spread() > 1.15 && moving.is_unsteady(), "{moving:?}");
        assert!(
            moving.to_text().contains("moved by 18"),
            "{}",
            moving.to_text()
        );
        assert_eq!(Steadiness::of(&[1.0, 2.0]), None);
    }

    #[test]
    fn the_probe_reads_at_most_once_per_interval() {
        let mut p = SpeedProbe::new(Duration::from_secs(3600));
        p.tick();
        p.tick();
        p.tick();
        if ThreadCpuTime::detect().is_some() {
            assert_eq!(p.readings_ns().len(), 1);
            assert!(p.readings_ns()[0] > 0.0);
        }
        let mut every = SpeedProbe::new(Duration::ZERO);
        for _ in 0..6 {
            every.tick();
        }
        if ThreadCpuTime::detect().is_some() {
            let s = every.summary().unwrap();
            assert_eq!(s.readings, 6);
            assert!(s.low_ns <= s.median_ns && s.median_ns <= s.high_ns);
        }
    }
}
