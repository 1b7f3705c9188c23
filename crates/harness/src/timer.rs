//! Timers: what a sample is measured with.
//!
//! A [`Timer`] reads a monotonic counter as a `u64`; the difference of two reads is the
//! elapsed amount in the timer's [`CounterUnit`]. Four are here:
//!
//! - [`ThreadCpuTime`]: the CPU time of the calling thread, which leaves out the time
//!   the scheduler gave other processes: what the [`crate::Harness`] reads per-call
//!   figures on by default ([`crate::Clock::ThreadCpu`]) and what the speed tables
//!   ([`crate::interleave`]) rank by on a loaded machine;
//! - [`ProcessCpuTime`]: the CPU time of every thread of the process, for work the
//!   measured code spreads over threads ([`crate::Clock::ProcessCpu`]);
//! - [`WallClock`]: nanoseconds of real time, for benchmarks that ask for it
//!   ([`crate::Clock::Wall`]: whole jobs, work on other threads or waiting for I/O), and
//!   the deadlines of warm-up;
//! - [`Tsc`]: the x86 time-stamp counter, read by the harness around the same region
//!   where the CPU has one, so TSC ticks per byte are reported too.
//!
//! Another counter (a PMU cycle counter, say) plugs in by implementing [`Timer`], as
//! criterion.rs's `Measurement` trait allows.
//!
//! [`resolution`] and [`read_overhead`] estimate a timer's granularity and cost; the
//! harness reports both with every run so a reader can judge whether samples were long
//! enough.

use std::time::Instant;

use serde::{Deserialize, Serialize};

/// What a timer counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CounterUnit {
    /// Nanoseconds of wall-clock time.
    Nanoseconds,
    /// Time-stamp-counter ticks: on CPUs with an invariant TSC these run at a constant
    /// reference frequency (not the current core clock), so "cycles/byte" figures from
    /// them are reference cycles.
    TscTicks,
    /// Any other counter.
    Other,
}

/// A monotonic counter.
pub trait Timer: Send + Sync {
    /// Short name, stored with results (`wall-clock`, `tsc`).
    fn name(&self) -> &'static str;

    /// What one unit of the counter is.
    fn unit(&self) -> CounterUnit;

    /// The current counter value. Only differences are meaningful.
    fn now(&self) -> u64;
}

/// Wall-clock time from [`std::time::Instant`] (on Linux, `clock_gettime(CLOCK_MONOTONIC)`
/// through the vDSO), in nanoseconds since the timer was made.
#[derive(Debug, Clone, Copy)]
pub struct WallClock {
    origin: Instant,
}

impl WallClock {
    /// A wall clock whose zero is now.
    pub fn new() -> WallClock {
        WallClock {
            origin: Instant::now(),
        }
    }
}

impl Default for WallClock {
    fn default() -> WallClock {
        WallClock::new()
    }
}

impl Timer for WallClock {
    fn name(&self) -> &'static str {
        "wall-clock"
    }

    fn unit(&self) -> CounterUnit {
        CounterUnit::Nanoseconds
    }

    #[inline]
    fn now(&self) -> u64 {
        // u64 nanoseconds cover 584 years.
        self.origin.elapsed().as_nanos() as u64
    }
}

/// The x86-64 time-stamp counter, read with `RDTSC` between `LFENCE`s so that earlier
/// instructions finish before the read and later ones do not start before it (Intel,
/// "How to Benchmark Code Execution Times on Intel IA-32 and IA-64", 2010; the `LFENCE`
/// ordering is architectural on Intel and on AMD since Zen).
#[derive(Debug, Clone, Copy)]
pub struct Tsc {
    invariant: bool,
}

impl Tsc {
    /// The TSC, where this CPU has one (every x86-64 CPU; `None` on other
    /// architectures).
    pub fn detect() -> Option<Tsc> {
        #[cfg(target_arch = "x86_64")]
        {
            // CPUID leaf 0x8000_0007, EDX bit 8: invariant TSC (constant rate in every
            // P-, C- and T-state). Leaf availability is checked first.
            let max_ext = core::arch::x86_64::__cpuid(0x8000_0000).eax;
            let invariant = max_ext >= 0x8000_0007
                && (core::arch::x86_64::__cpuid(0x8000_0007).edx & (1 << 8)) != 0;
            Some(Tsc { invariant })
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            None
        }
    }

    /// Whether the CPU reports an invariant TSC (constant rate whatever the core clock).
    /// Without it, ticks follow frequency changes and comparisons across runs are weaker.
    pub fn is_invariant(&self) -> bool {
        self.invariant
    }
}

impl Timer for Tsc {
    fn name(&self) -> &'static str {
        "tsc"
    }

    fn unit(&self) -> CounterUnit {
        CounterUnit::TscTicks
    }

    #[inline]
    fn now(&self) -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            #[allow(unsafe_code)]
            // SAFETY: LFENCE needs SSE2 and RDTSC needs nothing beyond x86-64, which
            // guarantees both; neither touches memory. `Tsc` exists only on x86_64
            // (`detect` returns `None` elsewhere).
            unsafe {
                core::arch::x86_64::_mm_lfence();
                let t = core::arch::x86_64::_rdtsc();
                core::arch::x86_64::_mm_lfence();
                t
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            0
        }
    }
}

/// Estimates a timer's resolution: the smallest non-zero difference between two
/// consecutive reads, over `tries` attempts (criterion.rs and JMH estimate it the same
/// way). Returns 0 if the counter never moved.
pub fn resolution(timer: &dyn Timer, tries: u32) -> u64 {
    let mut best = u64::MAX;
    for _ in 0..tries {
        let a = timer.now();
        let mut b = timer.now();
        // Spin until the counter ticks, bounded so a frozen counter cannot hang us.
        let mut spins = 0u32;
        while b == a && spins < 1_000_000 {
            b = timer.now();
            spins += 1;
        }
        if b > a {
            best = best.min(b - a);
        }
    }
    if best == u64::MAX { 0 } else { best }
}

/// Estimates the cost of one read of `timer`, in the timer's own units, from `reads`
/// back-to-back reads.
pub fn read_overhead(timer: &dyn Timer, reads: u32) -> f64 {
    let reads = reads.max(1);
    let start = timer.now();
    let mut last = start;
    for _ in 0..reads {
        last = std::hint::black_box(timer.now());
    }
    last.saturating_sub(start) as f64 / f64::from(reads)
}

/// The CPU time this thread has used (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`), in
/// nanoseconds: the time it actually ran. A sample during which the scheduler ran another
/// process does not count that process's time, which on a loaded 2-core machine otherwise
/// swamps long samples (a 2 ms sample is nearly always preempted there). It does not see
/// what the thread waits for (I/O, locks) and its granularity is the kernel's (a few tens
/// of nanoseconds on Linux), so it suits samples of compute that last microseconds or
/// more.
#[derive(Debug, Clone, Copy)]
pub struct ThreadCpuTime {
    _private: (),
}

impl ThreadCpuTime {
    /// The thread CPU clock, where the platform has one (Unix; `None` elsewhere or if it
    /// cannot be read).
    pub fn detect() -> Option<ThreadCpuTime> {
        read_cpu_ns(CpuClock::Thread).map(|_| ThreadCpuTime { _private: () })
    }
}

impl Timer for ThreadCpuTime {
    fn name(&self) -> &'static str {
        "thread-cpu"
    }

    fn unit(&self) -> CounterUnit {
        CounterUnit::Nanoseconds
    }

    #[inline]
    fn now(&self) -> u64 {
        // `detect` read it once, so it reads; a failure later would be the kernel's.
        read_cpu_ns(CpuClock::Thread).unwrap_or(0)
    }
}

/// The CPU time of the whole process (`clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`), every
/// thread's summed, in nanoseconds. For work that the measured code spreads over a pool
/// of threads (the PDF layer's per-object work), which [`ThreadCpuTime`] would not see:
/// like the thread's clock it leaves out the time other processes ran, so a figure
/// stays comparable on a loaded machine, and unlike the wall clock it counts the work,
/// not how long it waited for a core. It counts every thread of the process, so
/// nothing else in the process may be busy while it measures (the lab runs one
/// benchmark at a time; its progress bar redraws only between samples). The kernel
/// sums the threads on each read: a read costs a system call (about a microsecond),
/// fine for samples of milliseconds.
#[derive(Debug, Clone, Copy)]
pub struct ProcessCpuTime {
    _private: (),
}

impl ProcessCpuTime {
    /// The process CPU clock, where the platform has one (Unix; `None` elsewhere).
    pub fn detect() -> Option<ProcessCpuTime> {
        read_cpu_ns(CpuClock::Process).map(|_| ProcessCpuTime { _private: () })
    }
}

impl Timer for ProcessCpuTime {
    fn name(&self) -> &'static str {
        "process-cpu"
    }

    fn unit(&self) -> CounterUnit {
        CounterUnit::Nanoseconds
    }

    #[inline]
    fn now(&self) -> u64 {
        read_cpu_ns(CpuClock::Process).unwrap_or(0)
    }
}

/// Which CPU-time clock [`read_cpu_ns`] reads.
#[derive(Debug, Clone, Copy)]
enum CpuClock {
    Thread,
    Process,
}

#[cfg(unix)]
fn read_cpu_ns(which: CpuClock) -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    let id = match which {
        CpuClock::Thread => libc::CLOCK_THREAD_CPUTIME_ID,
        CpuClock::Process => libc::CLOCK_PROCESS_CPUTIME_ID,
    };
    // std has no CPU-time clocks; the speed tables need one (measured: on the loaded
    // 2-core machine the TSC medians of the slow ciphers were twice their CPU time).
    #[allow(unsafe_code)]
    // SAFETY: clock_gettime writes one `timespec` into `ts`, a valid local borrowed
    // mutably for the call, and touches nothing else.
    let r = unsafe { libc::clock_gettime(id, &mut ts) };
    (r == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

#[cfg(not(unix))]
fn read_cpu_ns(_which: CpuClock) -> Option<u64> {
    None
}

/// The finest counter this CPU has: the [`Tsc`] where there is one, else the
/// [`WallClock`] (nanoseconds). What cycle-level comparisons read.
#[derive(Debug, Clone, Copy)]
pub enum Counter {
    /// The time-stamp counter (x86-64).
    Tsc(Tsc),
    /// The wall clock, elsewhere.
    Wall(WallClock),
}

impl Counter {
    /// The TSC where there is one, else the wall clock.
    pub fn detect() -> Counter {
        match Tsc::detect() {
            Some(t) => Counter::Tsc(t),
            None => Counter::Wall(WallClock::new()),
        }
    }
}

impl Timer for Counter {
    fn name(&self) -> &'static str {
        match self {
            Counter::Tsc(t) => t.name(),
            Counter::Wall(w) => w.name(),
        }
    }

    fn unit(&self) -> CounterUnit {
        match self {
            Counter::Tsc(t) => t.unit(),
            Counter::Wall(w) => w.unit(),
        }
    }

    #[inline(always)]
    fn now(&self) -> u64 {
        match self {
            Counter::Tsc(t) => t.now(),
            Counter::Wall(w) => w.now(),
        }
    }
}

/// The TSC's rate in ticks per nanosecond (its frequency in GHz), against the wall clock
/// over `spin` of busy waiting; `None` where the CPU has no TSC.
pub fn tsc_ticks_per_ns(spin: std::time::Duration) -> Option<f64> {
    let tsc = Tsc::detect()?;
    let wall = WallClock::new();
    let (w0, t0) = (wall.now(), tsc.now());
    let spin = spin.as_nanos() as u64;
    while wall.now().saturating_sub(w0) < spin {
        std::hint::spin_loop();
    }
    let (w1, t1) = (wall.now(), tsc.now());
    Some(t1.saturating_sub(t0) as f64 / w1.saturating_sub(w0).max(1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wall_clock_is_monotonic_and_counts_nanoseconds() {
        let c = WallClock::new();
        let a = c.now();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let b = c.now();
        assert!(b - a >= 5_000_000, "{a} -> {b}");
        assert!(b - a < 1_000_000_000);
        let r = resolution(&c, 100);
        assert!(r > 0 && r < 100_000, "wall-clock resolution {r} ns");
    }

    #[test]
    fn thread_cpu_time_counts_work_not_sleep() {
        let Some(c) = ThreadCpuTime::detect() else {
            println!("SKIP: no thread CPU clock on this platform");
            return;
        };
        let a = c.now();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let b = c.now();
        let mut x = 1u64;
        let w = WallClock::new();
        while w.now() < 20_000_000 {
            x = std::hint::black_box(x.wrapping_mul(3).wrapping_add(1));
        }
        let d = c.now();
        // Sleeping 20 ms costs microseconds of CPU; spinning 20 ms costs up to 20 ms (less
        // when another process shares the core).
        assert!(b - a < 5_000_000, "sleep cost {} ns of CPU", b - a);
        assert!(d - b > 1_000_000 && d - b < 40_000_000, "spin {} ns", d - b);
        assert!(resolution(&c, 100) > 0);
        println!(
            "thread CPU: sleep {} ns, 20 ms spin {} ns ({x})",
            b - a,
            d - b
        );
    }

    #[test]
    fn tsc_moves_where_available() {
        if let Some(t) = Tsc::detect() {
            let a = t.now();
            std::thread::sleep(std::time::Duration::from_millis(2));
            let b = t.now();
            // At least 100 MHz.
            assert!(b - a > 200_000, "{a} -> {b}");
            assert!(resolution(&t, 100) > 0);
        } else {
            println!("SKIP: no time-stamp counter on this architecture");
        }
    }
}
