//! Forks: each benchmark measured in separate child processes, as JMH does, so that one
//! benchmark's JIT-free but still real state (caches, branch predictors, allocator,
//! frequency) cannot leak into another's, and run-to-run variation shows in the spread.
//!
//! The protocol, usable by any program (the `cipherlab bench` binary, a test, an
//! example):
//!
//! 1. the parent starts the child (by default the current program with the same
//!    arguments, [`current_command`]) with [`ENV_VAR`] set to a JSON [`ForkRequest`]:
//!    the benchmark's key, the fork number and the settings (with `forks = 0`);
//! 2. the child builds the same benchmarks, sees the request ([`ForkRequest::from_env`];
//!    [`crate::Suite::run`] does this itself), runs only that benchmark in-process, and
//!    prints one line, [`RESULT_PREFIX`] followed by a JSON [`ForkOutput`], on standard
//!    output; other output is ignored;
//! 3. the parent ([`run_child`]) reads that line and merges the samples, each tagged
//!    with its fork number.

use std::io::Write;
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use crate::error::BenchError;
use crate::measurement::RawSample;
use crate::settings::Settings;

/// The environment variable that carries a [`ForkRequest`] to a child.
pub const ENV_VAR: &str = "CIPHERLAB_BENCH_FORK";

/// The start of the child's result line on standard output.
pub const RESULT_PREFIX: &str = "cipherlab-bench-fork-result: ";

/// What a child is asked to measure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ForkRequest {
    /// The benchmark's [`crate::Identity::key`].
    pub key: String,
    /// Fork number, 1-based.
    pub fork: u32,
    /// Settings to measure with (`forks` is 0).
    pub settings: Settings,
}

impl ForkRequest {
    /// The request in this process's environment, if it was started as a fork.
    pub fn from_env() -> Result<Option<ForkRequest>, BenchError> {
        match std::env::var(ENV_VAR) {
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(BenchError::BadForkRequest {
                reason: "not UTF-8".to_string(),
            }),
            Ok(v) => serde_json::from_str(&v)
                .map(Some)
                .map_err(|e| BenchError::BadForkRequest {
                    reason: e.to_string(),
                }),
        }
    }

    /// The request as the value of [`ENV_VAR`].
    pub fn to_env_value(&self) -> String {
        // Serializing plain data to a String cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// What a child reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ForkOutput {
    /// The benchmark's key, as requested.
    pub key: String,
    /// Fork number, as requested.
    pub fork: u32,
    /// The child's process id.
    pub pid: u32,
    /// Calls per sample.
    pub batch: u64,
    /// The samples, tagged with the fork number.
    pub samples: Vec<RawSample>,
}

impl ForkOutput {
    /// Prints the result line on standard output (bypassing any output capture) and
    /// flushes it.
    pub fn emit(&self) -> std::io::Result<()> {
        let json = serde_json::to_string(self).map_err(std::io::Error::other)?;
        let mut out = std::io::stdout().lock();
        // Start on a fresh line: the program may have left a partial line (a test
        // runner's "test name ... ", say).
        writeln!(out, "\n{RESULT_PREFIX}{json}")?;
        out.flush()
    }

    /// Finds and parses the (last) result line in a child's standard output.
    pub fn parse(stdout: &str) -> Option<Result<ForkOutput, serde_json::Error>> {
        stdout
            .lines()
            .rev()
            .find_map(|l| l.find(RESULT_PREFIX).map(|i| &l[i + RESULT_PREFIX.len()..]))
            .map(serde_json::from_str)
    }
}

/// The current program with the current arguments: a child that rebuilds the same
/// benchmarks as its parent.
pub fn current_command() -> std::io::Result<Command> {
    let exe = std::env::current_exe()?;
    let mut c = Command::new(exe);
    c.args(std::env::args_os().skip(1));
    Ok(c)
}

fn tail(bytes: &[u8], max: usize) -> String {
    let s = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = s.lines().collect();
    let start = lines.len().saturating_sub(max);
    lines[start..].join("\n")
}

/// Starts `command` as a fork child for `request`, waits for it, and returns its output.
pub fn run_child(
    command: std::io::Result<Command>,
    request: &ForkRequest,
) -> Result<ForkOutput, BenchError> {
    let key = request.key.clone();
    let mut command = command.map_err(|source| BenchError::ForkSpawn {
        key: key.clone(),
        program: "(current program)".to_string(),
        source,
    })?;
    let program = command.get_program().to_string_lossy().into_owned();
    let out = command
        .env(ENV_VAR, request.to_env_value())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .map_err(|source| BenchError::ForkSpawn {
            key: key.clone(),
            program,
            source,
        })?;
    if !out.status.success() {
        return Err(BenchError::ForkFailed {
            key,
            status: out.status.to_string(),
            stderr: tail(&out.stderr, 20),
        });
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    match ForkOutput::parse(&stdout) {
        None => Err(BenchError::ForkNoResult {
            key,
            stdout: tail(&out.stdout, 20),
        }),
        Some(Err(e)) => Err(BenchError::ForkBadResult {
            key,
            reason: e.to_string(),
        }),
        Some(Ok(o)) if o.key != request.key || o.fork != request.fork => {
            Err(BenchError::ForkBadResult {
                key,
                reason: format!(
                    "it answered for benchmark {} fork {}, not fork {}",
                    o.key, o.fork, request.fork
                ),
            })
        }
        Some(Ok(o)) => Ok(o),
    }
}
