//! The results store: one SQLite file holding every run, the machine it ran on, its
//! measurements and their raw samples, so runs from many machines and days can be
//! compared. The schema is documented in `docs/results.md`.
//!
//! The schema is versioned: `PRAGMA user_version` holds the version, the
//! `schema_version` table records when each migration was applied, and [`MIGRATIONS`]
//! lists the SQL that takes a database from one version to the next, applied in order
//! on open. A database written by a newer cipherlab is refused with
//! [`StoreError::NewerSchema`], never modified.
//!
//! One job per module: [`schema`] (the migrations), `write` (runs in), `read` (runs
//! out); this module holds the types they share and opening the file.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use cipherlab_bench::store::{NewRun, Store};
//! let mut store = Store::open_in_memory()?;
//! let run = store.begin_run(&NewRun::now("cipherlab bench --quick"))?;
//! // ... store.add_measurement(run, &measurement)? for each result ...
//! store.finish_run(run)?;
//! assert_eq!(store.list_runs()?.len(), 1);
//! # Ok(()) }
//! ```

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use crate::id::Measurement;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::{Settings, Validity};

mod read;
pub mod schema;
mod write;

pub use schema::{MIGRATIONS, Migration, SCHEMA_VERSION};

/// The environment variable naming the database file.
pub const DB_ENV: &str = "CIPHERLAB_DB";

/// The default file name, in the current directory.
pub const DEFAULT_FILE: &str = "cipherlab-results.sqlite";

/// Why the store failed. Each message names the file and the fix.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed.
    #[error(
        "results database {path}: {source}; check that the file is a cipherlab database and writable, or choose another with ${env}",
        env = DB_ENV
    )]
    Sqlite {
        /// The database file.
        path: String,
        /// The SQLite error.
        source: rusqlite::Error,
    },
    /// The database was written by a newer cipherlab.
    #[error(
        "results database {path} has schema version {found}, newer than the {supported} this cipherlab understands: upgrade cipherlab, or use another database file with ${env}",
        env = DB_ENV
    )]
    NewerSchema {
        /// The database file.
        path: String,
        /// Its schema version.
        found: u32,
        /// The newest this build knows.
        supported: u32,
    },
    /// No run with this id.
    #[error(
        "results database {path} has no run {id}: `cipherlab report --list` shows the runs it has"
    )]
    RunNotFound {
        /// The database file.
        path: String,
        /// The id asked for.
        id: i64,
    },
    /// A stored value could not be read back.
    #[error(
        "results database {path}: {what} is not valid ({reason}); the file was edited or damaged: restore it from a copy or start a new one"
    )]
    Corrupt {
        /// The database file.
        path: String,
        /// Which value.
        what: String,
        /// What was wrong.
        reason: String,
    },
    /// A value does not fit SQLite's 64-bit signed integers.
    #[error("{what} = {value} does not fit a 64-bit signed integer, so it cannot be stored")]
    TooLarge {
        /// Which value.
        what: &'static str,
        /// The value.
        value: u64,
    },
}

/// A run about to be recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct NewRun {
    /// Start time, Unix milliseconds (UTC).
    pub started_ms: i64,
    /// The command line that started it.
    pub command_line: String,
    /// The machine block.
    pub machine: MachineInfo,
    /// The harness settings.
    pub settings: Settings,
    /// The validity figures of the harness.
    pub validity: Validity,
    /// The 1-minute load average when the run started, where the OS tells it: how busy
    /// the machine was (run-level, not part of the machine block's fingerprint).
    pub load_start: Option<f64>,
    /// The same when it ended.
    pub load_end: Option<f64>,
}

impl NewRun {
    /// A run starting now on this machine with default settings and empty validity
    /// figures (for callers that fill them in).
    pub fn now(command_line: &str) -> NewRun {
        NewRun {
            started_ms: now_ms(),
            command_line: command_line.to_string(),
            machine: crate::this_machine(),
            settings: Settings::default(),
            validity: Validity {
                timer: "wall-clock".to_string(),
                resolution_ns: 0,
                timer_overhead_ns: 0.0,
                counter: None,
                counter_resolution: None,
                counter_invariant: None,
                counter_ticks_per_ns: None,
                empty_op_ns: 0.0,
                empty_call_ns: 0.0,
            },
            load_start: None,
            load_end: None,
        }
    }
}

/// A run's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// Run id.
    pub id: i64,
    /// Start, Unix ms.
    pub started_ms: i64,
    /// End, Unix ms; `None` if the run was interrupted.
    pub finished_ms: Option<i64>,
    /// The command line.
    pub command_line: String,
    /// cipherlab's version.
    pub cipherlab_version: String,
    /// The machine's id in the `machines` table.
    pub machine_id: i64,
    /// CPU model of that machine (for listings).
    pub cpu_model: String,
    /// Number of measurements.
    pub measurements: u32,
    /// The 1-minute load average at the start, where it was recorded.
    #[serde(default)]
    pub load_start: Option<f64>,
    /// The same at the end.
    #[serde(default)]
    pub load_end: Option<f64>,
}

/// A whole run: its row, machine, settings, validity and measurements with samples.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The run's row.
    pub info: RunInfo,
    /// The machine block.
    pub machine: MachineInfo,
    /// Harness settings.
    pub settings: Settings,
    /// Validity figures.
    pub validity: Validity,
    /// Measurements in insertion order, each with its raw samples.
    pub measurements: Vec<Measurement>,
    /// What the studies produced besides timings, in insertion order.
    pub artifacts: Vec<Artifact>,
}

/// What a study produces besides timings: a byte histogram, a picture, a table of a
/// paper's figures beside ours, a note. The report shows each by its [`ArtifactKind`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Artifact {
    /// The study that made it.
    pub study: String,
    /// Unique within the study and run, e.g. `histogram/aes-128-ecb/bmp`.
    pub name: String,
    /// How to read `data`.
    pub kind: ArtifactKind,
    /// A caption for people.
    pub title: String,
    /// The content: JSON for histograms and tables, PNG bytes for images, UTF-8 for notes.
    pub data: Vec<u8>,
}

/// How an [`Artifact`]'s data is to be read (the schema of each is in docs/results.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArtifactKind {
    /// JSON: a byte histogram with its statistics.
    Histogram,
    /// JSON: a table with columns and rows.
    Table,
    /// PNG image bytes.
    Image,
    /// UTF-8 text.
    Note,
}

impl ArtifactKind {
    /// The name stored in the `kind` column.
    pub fn as_str(self) -> &'static str {
        match self {
            ArtifactKind::Histogram => "histogram",
            ArtifactKind::Table => "table",
            ArtifactKind::Image => "image",
            ArtifactKind::Note => "note",
        }
    }

    /// The media type of the data.
    pub fn media_type(self) -> &'static str {
        match self {
            ArtifactKind::Histogram | ArtifactKind::Table => "application/json",
            ArtifactKind::Image => "image/png",
            ArtifactKind::Note => "text/plain; charset=utf-8",
        }
    }

    /// Parses [`ArtifactKind::as_str`]'s spelling.
    pub fn parse(s: &str) -> Option<ArtifactKind> {
        [
            ArtifactKind::Histogram,
            ArtifactKind::Table,
            ArtifactKind::Image,
            ArtifactKind::Note,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

/// The current time in Unix milliseconds.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

fn int(what: &'static str, value: u64) -> Result<i64, StoreError> {
    i64::try_from(value).map_err(|_| StoreError::TooLarge { what, value })
}

/// The results database.
pub struct Store {
    conn: Connection,
    path: String,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// `$CIPHERLAB_DB`, or `./cipherlab-results.sqlite`.
    pub fn default_path() -> PathBuf {
        match std::env::var_os(DB_ENV) {
            Some(p) if !p.is_empty() => PathBuf::from(p),
            _ => PathBuf::from(DEFAULT_FILE),
        }
    }

    /// Opens (creating if needed) the database at [`Store::default_path`].
    pub fn open_default() -> Result<Store, StoreError> {
        Store::open(Store::default_path())
    }

    /// Opens (creating if needed) the database at `path` and brings its schema up to
    /// date.
    pub fn open(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let p = path.as_ref().display().to_string();
        let conn = Connection::open(path.as_ref()).map_err(|source| StoreError::Sqlite {
            path: p.clone(),
            source,
        })?;
        Store::init(conn, p)
    }

    /// A database in memory (tests, dry runs).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let conn = Connection::open_in_memory().map_err(|source| StoreError::Sqlite {
            path: ":memory:".to_string(),
            source,
        })?;
        Store::init(conn, ":memory:".to_string())
    }

    fn init(conn: Connection, path: String) -> Result<Store, StoreError> {
        let mut store = Store { conn, path };
        store
            .conn
            .execute_batch("PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;")
            .map_err(|e| store.sql(e))?;
        store.migrate()?;
        Ok(store)
    }

    /// The file this store writes.
    pub fn path(&self) -> &str {
        &self.path
    }

    fn sql(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    fn corrupt(&self, what: impl Into<String>, reason: impl ToString) -> StoreError {
        StoreError::Corrupt {
            path: self.path.clone(),
            what: what.into(),
            reason: reason.to_string(),
        }
    }

    /// The underlying connection, for queries this API does not offer (the report's).
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}
