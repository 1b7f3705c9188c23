//! The crate's one error type.

use std::path::PathBuf;

/// What went wrong talking to a runner, or reading the list of runtimes.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A runtime id that is not in `platforms/runtimes.toml`.
    #[error("unknown runtime '{id}' (the runtimes of platforms/runtimes.toml: {known})")]
    UnknownRuntime {
        /// The id asked for.
        id: String,
        /// The ids there are.
        known: String,
    },
    /// `platforms/runtimes.toml` is not in the format its header describes.
    #[error("platforms/runtimes.toml line {line}: {message}")]
    RuntimeList {
        /// The line (0: the block as a whole).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A user runner (`--runner`, runners.toml) that cannot be used as given.
    #[error("{from}: {message}")]
    UserRunner {
        /// `--runner` or the runners file's path.
        from: String,
        /// What is wrong and how to write it.
        message: String,
    },
    /// The runner's executable is not there.
    #[error("no runner at {}", .0.display())]
    NoRunner(PathBuf),
    /// The runner's process could not be started.
    #[error("cannot start {}: {source}", .path.display())]
    Start {
        /// The runner's executable.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The runner failed during an exchange: it ended, answered something that is not
    /// JSON, did not answer in time (the request's time limit), or a pipe broke. The
    /// process was ended (killed, when it did not answer in time).
    #[error(
        "{runtime}: {cause} after {answered} of {asked} answers ({status}); its stderr: {stderr}"
    )]
    Exchange {
        /// The runtime.
        runtime: String,
        /// What failed.
        cause: String,
        /// Answers read before it failed.
        answered: usize,
        /// Requests sent.
        asked: usize,
        /// How the process ended.
        status: String,
        /// The last lines of its standard error.
        stderr: String,
    },
    /// The runner's `info` is an error or not as platforms/PROTOCOL.md says.
    #[error("{runtime}: {message}")]
    Info {
        /// The runtime.
        runtime: String,
        /// What is wrong with it.
        message: String,
    },
    /// cipherlab's own cipher refused (computing the ciphertext a runner must reproduce).
    #[error("{0}")]
    Cipher(String),
}
