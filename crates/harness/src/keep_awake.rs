//! Keeping the machine's other CPUs awake while a run measures, so the measuring core's
//! speed holds still.
//!
//! On a cloud guest the host decides the core's clock, and an idle virtual CPU halts:
//! the host then boosts the busy one, or runs someone else beside it, and its speed
//! moves from one moment to the next. Measured on a 2-vCPU AMD EPYC guest (docs/
//! BENCHMARKS.md, "Keeping the other vCPU awake"): with the machine idle, a fixed
//! reference loop ([`crate::steadiness`]) ranged over 21-23% during `bench --quick` and
//! 41-42% of the figures could not be ordered; with a busy loop at the lowest
//! scheduling class on the other vCPU, the loop ranged over 3% and 4.8% could not.
//! A faster-but-wandering core gives lower figures and wide intervals; a steady one
//! gives figures that rank and repeat. The lab takes the steady one by default, as the
//! usual advice for benchmarking (fixed clocks, no turbo) does where the OS allows it,
//! which a guest's does not.
//!
//! [`KeepAwake::start`] starts, per other CPU this process may run on, a child process
//! (this same executable, asked through [`ENV_VAR`]) that spins at `SCHED_IDLE`, the
//! class the scheduler runs only when nothing else wants the CPU: any thread of the
//! measured program, or of a runner, takes the CPU from it at once. They are separate
//! processes, so the process-CPU-time clock of the measured program never counts them.
//! The children die with the parent (`PR_SET_PDEATHSIG`, and a check of the parent's
//! id) and are killed when the [`KeepAwake`] is dropped. The executable must call
//! [`serve_if_asked`] first thing in `main`, as `cipherlab` does.

use std::process::{Child, Command, Stdio};

/// The environment variable that turns a start of the executable into a spinner.
pub const ENV_VAR: &str = "CIPHERLAB_KEEP_AWAKE";

/// The spinning children of one run; dropping it stops them.
#[derive(Debug)]
pub struct KeepAwake {
    children: Vec<Child>,
}

impl KeepAwake {
    /// Starts one spinner per CPU this process may run on, less the one that measures.
    /// A spinner that cannot start is left out (the run is then only less steady);
    /// [`count`](Self::count) says how many run.
    pub fn start() -> KeepAwake {
        let others = usable_cpus().saturating_sub(1);
        let Ok(exe) = std::env::current_exe() else {
            return KeepAwake {
                children: Vec::new(),
            };
        };
        let children = (0..others)
            .filter_map(|_| {
                Command::new(&exe)
                    .env(ENV_VAR, std::process::id().to_string())
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .ok()
            })
            .collect();
        KeepAwake { children }
    }

    /// How many spinners run.
    pub fn count(&self) -> usize {
        self.children.len()
    }
}

impl Drop for KeepAwake {
    fn drop(&mut self) {
        for c in &mut self.children {
            // Already gone is fine: the spinner has nothing to clean up.
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Call first in `main`: when this start of the executable was asked to spin
/// ([`ENV_VAR`] holds the parent's process id), spins at the lowest priority until the
/// parent is gone, and never returns. Otherwise returns at once.
pub fn serve_if_asked() {
    let Ok(parent) = std::env::var(ENV_VAR) else {
        return;
    };
    let parent: u32 = parent.parse().unwrap_or(0);
    lower_priority_and_follow_parent();
    let mut x = 1u64;
    loop {
        // About a millisecond of work between checks that the parent still lives.
        for _ in 0..1_000_000 {
            x = std::hint::black_box(x.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(1));
        }
        if parent_id() != parent {
            std::process::exit(0);
        }
    }
}

/// CPUs this process may run on (its affinity mask on Linux), else the machine's.
fn usable_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(target_os = "linux")]
fn lower_priority_and_follow_parent() {
    let param = libc::sched_param { sched_priority: 0 };
    #[allow(unsafe_code)]
    // SAFETY: plain system calls on this process, with a valid pointer to a local.
    unsafe {
        // SCHED_IDLE: run only when no other thread wants the CPU. Lowering one's own
        // class needs no privilege; if refused, the lowest nice value is the fallback.
        if libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) != 0 {
            libc::setpriority(libc::PRIO_PROCESS, 0, 19);
        }
        // Killed when the parent dies, even by SIGKILL.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
fn lower_priority_and_follow_parent() {
    #[allow(unsafe_code)]
    // SAFETY: a plain system call on this process.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS as _, 0, 19);
    }
}

#[cfg(not(unix))]
fn lower_priority_and_follow_parent() {}

#[cfg(unix)]
fn parent_id() -> u32 {
    std::os::unix::process::parent_id()
}

#[cfg(not(unix))]
fn parent_id() -> u32 {
    0
}
