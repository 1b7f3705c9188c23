//! The progress of `cipherlab bench`'s suite: a bar on a terminal, elsewhere (CI logs) a
//! line at every tenth. A step is one slice of one benchmark (`Settings::rounds`; the
//! lab's are in `cipherlab_bench::pipeline::settings_for`).
//!
//! The planned slices ([`cipherlab_harness::Suite::planned_slices`]) all start before any
//! extra one: [`cipherlab_harness::Suite::run_adaptive`] gives undecided figures their extra
//! slices after the planned rounds. So a slice started beyond the plan is an extra one, and
//! the total grows with it: the count never shows more done than its total.

use std::io::IsTerminal;
use std::time::Duration;

use cipherlab_results::id::Progress;

/// Slices started against the planned ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Steps {
    planned: usize,
    started: usize,
}

impl Steps {
    /// Slices done: every one started but the one running.
    fn done(self) -> usize {
        self.started.saturating_sub(1)
    }

    /// Slices known so far: the planned ones, and the extra ones started beyond them.
    fn total(self) -> usize {
        self.planned.max(self.started)
    }

    /// Extra slices started (for undecided figures), the running one included.
    fn extra(self) -> usize {
        self.started.saturating_sub(self.planned)
    }

    /// The line for a log.
    fn line(self) -> String {
        match self.extra() {
            0 => format!("  {}/{} steps done", self.done(), self.planned),
            k => format!(
                "  {}/{} steps done ({k} extra for undecided figures)",
                self.done(),
                self.total()
            ),
        }
    }
}

/// The suite's progress on standard error (nothing when `quiet`).
pub(super) struct ProgressReport {
    bar: Option<indicatif::ProgressBar>,
    steps: Steps,
    quiet: bool,
    next_line: usize,
}

impl ProgressReport {
    /// A report for `planned` slices ([`cipherlab_harness::Suite::planned_slices`]).
    pub(super) fn new(planned: usize, quiet: bool) -> ProgressReport {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(planned as u64);
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} eta {eta} {msg}")
            {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        ProgressReport {
            bar,
            steps: Steps {
                planned,
                started: 0,
            },
            quiet,
            next_line: 0,
        }
    }

    pub(super) fn update(&mut self, p: Progress<'_>) {
        if let Progress::Started { id, .. } = p {
            self.steps.started += 1;
            let steps = self.steps;
            if let Some(bar) = &self.bar {
                bar.set_length(steps.total() as u64);
                bar.set_position(steps.done() as u64);
                let extra = if steps.extra() > 0 { "extra: " } else { "" };
                bar.set_message(format!("{extra}{} {} {}", id.study, id.algorithm, id.phase));
            } else if !self.quiet && steps.started > self.next_line {
                eprintln!("{}", steps.line());
                self.next_line = steps.started + steps.planned.div_ceil(10);
            }
        }
    }

    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extra_slices_grow_the_total_instead_of_passing_it() {
        let mut steps = Steps {
            planned: 4,
            started: 0,
        };
        let mut seen = Vec::new();
        // Four planned slices, then three extra ones for undecided figures.
        for _ in 0..7 {
            steps.started += 1;
            assert!(steps.done() < steps.total(), "{steps:?}");
            seen.push((steps.done(), steps.total(), steps.extra()));
        }
        assert_eq!(
            seen,
            [
                (0, 4, 0),
                (1, 4, 0),
                (2, 4, 0),
                (3, 4, 0),
                (4, 5, 1),
                (5, 6, 2),
                (6, 7, 3),
            ]
        );
        assert_eq!(
            steps.line(),
            "  6/7 steps done (3 extra for undecided figures)"
        );
        steps.started = 2;
        assert_eq!(steps.line(), "  1/4 steps done");
    }
}
