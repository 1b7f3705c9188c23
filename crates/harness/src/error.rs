//! Why a benchmark could not be measured: each message says what happened and what to do.

use crate::fork;
use crate::stats::StatsError;

/// Why a benchmark could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The benchmark closure returned without timing anything.
    #[error(
        "benchmark {0} never called Bencher::iter, iter_on or iter_batched: its closure must hand the operation to the Bencher once"
    )]
    NothingTimed(String),
    /// The benchmark's setup failed (its closure called [`crate::Bencher::fail`]).
    #[error("benchmark {key} could not be set up: {reason}")]
    Setup {
        /// The benchmark.
        key: String,
        /// What went wrong, and what to do.
        reason: String,
    },
    /// The benchmark closure timed twice.
    #[error(
        "benchmark {0} called the Bencher twice: one benchmark times one operation; register a second benchmark for the second operation"
    )]
    TimedTwice(String),
    /// Two benchmarks in one suite have the same identifier.
    #[error(
        "two benchmarks are named {0}: identifiers must be unique in a suite (they name the benchmark a fork runs)"
    )]
    DuplicateId(String),
    /// The samples could not be summarized.
    #[error("benchmark {key}: {source}")]
    Stats {
        /// The benchmark.
        key: String,
        /// The statistics error.
        source: StatsError,
    },
    /// A fork child could not be started.
    #[error(
        "benchmark {key}: could not start fork process {program}: {source}; check that the program still exists and can be executed"
    )]
    ForkSpawn {
        /// The benchmark.
        key: String,
        /// The program.
        program: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A fork child failed.
    #[error(
        "benchmark {key}: fork process failed ({status}); its error output ends with:\n{stderr}\nrun without forks to see the failure directly"
    )]
    ForkFailed {
        /// The benchmark.
        key: String,
        /// Exit status.
        status: String,
        /// The tail of its standard error.
        stderr: String,
    },
    /// A fork child exited without printing its samples.
    #[error(
        "benchmark {key}: the fork process printed no result line; its output ends with:\n{stdout}\nthe child must build the same suite and call Suite::run, which serves the request in ${env}, before doing other work",
        env = fork::ENV_VAR
    )]
    ForkNoResult {
        /// The benchmark.
        key: String,
        /// The tail of its standard output.
        stdout: String,
    },
    /// A fork child's result line did not parse.
    #[error("benchmark {key}: the fork's result line is not valid: {reason}")]
    ForkBadResult {
        /// The benchmark.
        key: String,
        /// What was wrong.
        reason: String,
    },
    /// The fork request in the environment is malformed.
    #[error(
        "the environment variable {var} holds no valid fork request ({reason}); unset it: it is set only by the harness for its child processes",
        var = fork::ENV_VAR
    )]
    BadForkRequest {
        /// What was wrong.
        reason: String,
    },
    /// A fork child was asked for a benchmark its suite does not have.
    #[error(
        "this process was started as a fork for benchmark {0}, which its suite does not contain: the child must build the same suite as the parent (same program, same arguments)"
    )]
    ForkNotFound(String),
    /// The result line could not be written.
    #[error("could not write the fork result to standard output: {0}")]
    ForkEmit(std::io::Error),
}
