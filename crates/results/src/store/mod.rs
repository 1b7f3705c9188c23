//! The results store: every run, the machine it ran on, its measurements and their raw
//! samples, so runs from many machines and days can be compared. The schema is
//! documented in `docs/results.md`.
//!
//! Two engines hold the same schema: an embedded SQLite file (the default, nothing to
//! install) and a PostgreSQL server (`--db postgres://…`) that a fleet of machines
//! writes to at once (docs/fleet.md). [`Location`] says which; the store's SQL is written
//! once and the `engine` module runs it on either.
//!
//! The schema is versioned: the `schema_version` table records each migration applied
//! (SQLite also keeps the version in `PRAGMA user_version`), and [`MIGRATIONS`] lists the
//! SQL that takes a database from one version to the next, applied in order on open, in
//! one transaction. A database written by a newer cipherlab is refused with
//! [`StoreError::NewerSchema`], never modified.
//!
//! Each run has a UUID, so runs from many stores can be merged ([`Store::import`])
//! without their local integer ids colliding; the integer stays as the short name people
//! type (`cipherlab report 4`). Host names are hashed with a salt kept in the store
//! (`store_meta`), so a shared database does not reveal them (docs/results.md).
//!
//! One job per module: [`schema`] (the migrations), `engine` (the two databases),
//! `write` (runs in), `read` (runs out), `import` (runs from other stores and
//! exports); this module holds the types they share and opening the store.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use cipherlab_results::store::{NewRun, Store};
//! let mut store = Store::open_in_memory()?;
//! let machine = cipherlab_harness::machine::MachineInfo::detect();
//! let run = store.begin_run(&NewRun::now("cipherlab bench --quick", machine))?;
//! // ... store.add_measurement(run, &measurement)? for each result ...
//! store.finish_run(run)?;
//! assert_eq!(store.list_runs()?.len(), 1);
//! # Ok(()) }
//! ```

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::artifact::Artifact;
use crate::id::Measurement;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::{Settings, Validity};

mod engine;
mod import;
mod read;
pub mod schema;
mod write;

pub use engine::{ColumnError, EngineError, EngineKind, Row, Value, postgres_sql};
use engine::{Engine, PgConnection};
pub use import::ImportReport;
pub(crate) use read::MEASUREMENT_COLUMNS;
pub use schema::{MIGRATIONS, Migration, SCHEMA_VERSION};
pub(crate) use write::measurement_values;

/// The environment variable naming the database (a file, or a `postgres://` URL).
pub const DB_ENV: &str = "CIPHERLAB_DB";

/// The default file name, in the current directory.
pub const DEFAULT_FILE: &str = "cipherlab-results.sqlite";

/// Why the store failed. Each message names the database and the fix.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database engine failed.
    #[error(
        "results database {path}: {cause}; check that it is a cipherlab database and writable, or choose another with --db or ${env}",
        env = DB_ENV
    )]
    Database {
        /// The database (a file, or a URL without its password).
        path: String,
        /// The engine's error (in the message, so not a `source` that would print it
        /// twice).
        cause: EngineError,
    },
    /// The PostgreSQL server could not be reached or refused us.
    #[error(
        "could not connect to the results database {path}: {cause}; check the URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE), that the server runs and accepts this user, and that the database exists"
    )]
    Connect {
        /// The URL without its password.
        path: String,
        /// The engine's error (in the message, so not a `source` that would print it
        /// twice).
        cause: EngineError,
    },
    /// The database was written by a newer cipherlab.
    #[error(
        "results database {path} has schema version {found}, newer than the {supported} this cipherlab understands: upgrade cipherlab, or use another database with ${env}",
        env = DB_ENV
    )]
    NewerSchema {
        /// The database.
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
        /// The database.
        path: String,
        /// The id asked for.
        id: i64,
    },
    /// A stored value could not be read back.
    #[error(
        "results database {path}: {what} is not valid ({reason}); the database was edited or damaged: restore it from a copy or start a new one"
    )]
    Corrupt {
        /// The database.
        path: String,
        /// Which value.
        what: String,
        /// What was wrong.
        reason: String,
    },
    /// A value does not fit a 64-bit signed integer column.
    #[error("{what} = {value} does not fit a 64-bit signed integer, so it cannot be stored")]
    TooLarge {
        /// Which value.
        what: &'static str,
        /// The value.
        value: u64,
    },
    /// A file given to `import` is neither a cipherlab database nor a JSON export.
    #[error("{path}: {reason}")]
    Import {
        /// The file.
        path: String,
        /// What was wrong.
        reason: String,
    },
}

impl StoreError {
    /// Whether a UNIQUE constraint refused a write (the same benchmark twice in a run).
    pub fn is_duplicate(&self) -> bool {
        matches!(self, StoreError::Database { cause, .. } if cause.is_unique_violation())
    }
}

/// Where the results live: a SQLite file, or a PostgreSQL database named by its URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// An SQLite file (created on first use).
    File(PathBuf),
    /// A PostgreSQL connection URL, `postgres://` or `postgresql://`.
    Postgres(String),
}

impl Location {
    /// A `--db` value or `$CIPHERLAB_DB`: a URL when it starts with `postgres://` or
    /// `postgresql://`, a file otherwise.
    pub fn parse(s: &OsStr) -> Location {
        match s.to_str() {
            Some(u) if u.starts_with("postgres://") || u.starts_with("postgresql://") => {
                Location::Postgres(u.to_string())
            }
            _ => Location::File(PathBuf::from(s)),
        }
    }

    /// `$CIPHERLAB_DB`, or `./cipherlab-results.sqlite`.
    pub fn from_env() -> Location {
        match std::env::var_os(DB_ENV) {
            Some(p) if !p.is_empty() => Location::parse(&p),
            _ => Location::File(PathBuf::from(DEFAULT_FILE)),
        }
    }

    /// How messages name it: the file, or the URL with its password replaced by `***`.
    pub fn display(&self) -> String {
        match self {
            Location::File(p) => p.display().to_string(),
            Location::Postgres(url) => redact_password(url),
        }
    }
}

/// `postgres://user:secret@host/db` -> `postgres://user:***@host/db`: messages, reports
/// and `--list` name the database without its password.
fn redact_password(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_string();
    };
    let authority_end = url[scheme_end..]
        .find('/')
        .map_or(url.len(), |i| scheme_end + i);
    let authority = &url[scheme_end..authority_end];
    match (authority.rfind('@'), authority.find(':')) {
        (Some(at), Some(colon)) if colon < at => format!(
            "{}{}:***{}",
            &url[..scheme_end],
            &authority[..colon],
            &url[scheme_end + at..]
        ),
        _ => url.to_string(),
    }
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
    /// A run starting now on `machine` (the lab's is `cipherlab_results::this_machine()`,
    /// which adds the versions of the crates the studies time) with default settings and
    /// empty validity figures (for callers that fill them in).
    pub fn now(command_line: &str, machine: MachineInfo) -> NewRun {
        NewRun {
            started_ms: now_ms(),
            command_line: command_line.to_string(),
            machine,
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
                steadiness: None,
                keep_awake: None,
                steal: None,
            },
            load_start: None,
            load_end: None,
        }
    }
}

/// A run's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// Run id: the short local name people type, unique in this store only.
    pub id: i64,
    /// The run's UUID, the same in every store it is imported into.
    pub uuid: String,
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
    /// That machine's fingerprint (its row's `fingerprint`), which tells machines apart
    /// in a shared store.
    pub machine_fingerprint: String,
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

pub use crate::time::now_ms;

fn int(what: &'static str, value: u64) -> Result<i64, StoreError> {
    i64::try_from(value).map_err(|_| StoreError::TooLarge { what, value })
}

/// The results database.
pub struct Store {
    engine: Engine,
    path: String,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.path)
            .field("engine", &self.engine.kind())
            .finish()
    }
}

impl Store {
    /// `$CIPHERLAB_DB` as a path, or `./cipherlab-results.sqlite` (see
    /// [`Location::from_env`] for URLs).
    pub fn default_path() -> PathBuf {
        match std::env::var_os(DB_ENV) {
            Some(p) if !p.is_empty() => PathBuf::from(p),
            _ => PathBuf::from(DEFAULT_FILE),
        }
    }

    /// Opens (creating if needed) the database [`Location::from_env`] names.
    pub fn open_default() -> Result<Store, StoreError> {
        Store::open_location(&Location::from_env())
    }

    /// Opens the database at `location`, creating a file if needed, and brings its
    /// schema up to date.
    pub fn open_location(location: &Location) -> Result<Store, StoreError> {
        match location {
            Location::File(p) => Store::open(p),
            Location::Postgres(url) => Store::connect(url),
        }
    }

    /// Opens (creating if needed) the SQLite file at `path` and brings its schema up to
    /// date.
    pub fn open(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let p = path.as_ref().display().to_string();
        let conn = rusqlite::Connection::open(path.as_ref()).map_err(|e| StoreError::Database {
            path: p.clone(),
            cause: e.into(),
        })?;
        Store::init(Engine::Sqlite(conn), p)
    }

    /// Connects to the PostgreSQL database at `url` and brings its schema up to date.
    pub fn connect(url: &str) -> Result<Store, StoreError> {
        let path = redact_password(url);
        let conn = PgConnection::connect(url).map_err(|cause| StoreError::Connect {
            path: path.clone(),
            cause,
        })?;
        Store::init(
            Engine::Postgres(Box::new(std::cell::RefCell::new(conn))),
            path,
        )
    }

    /// A SQLite database in memory (tests, dry runs).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let conn = rusqlite::Connection::open_in_memory().map_err(|e| StoreError::Database {
            path: ":memory:".to_string(),
            cause: e.into(),
        })?;
        Store::init(Engine::Sqlite(conn), ":memory:".to_string())
    }

    fn init(engine: Engine, path: String) -> Result<Store, StoreError> {
        let mut store = Store { engine, path };
        if store.engine.kind() == EngineKind::Sqlite {
            store
                .engine
                .batch("PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;")
                .map_err(|e| store.sql(e))?;
        }
        store.migrate()?;
        Ok(store)
    }

    /// The database this store writes: a file, or a URL without its password.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Which engine holds it.
    pub fn engine(&self) -> EngineKind {
        self.engine.kind()
    }

    fn sql(&self, cause: EngineError) -> StoreError {
        StoreError::Database {
            path: self.path.clone(),
            cause,
        }
    }

    fn corrupt(&self, what: impl Into<String>, reason: impl ToString) -> StoreError {
        StoreError::Corrupt {
            path: self.path.clone(),
            what: what.into(),
            reason: reason.to_string(),
        }
    }

    /// Runs `f` in one transaction (committed if it returns `Ok`).
    fn in_transaction<T>(
        &self,
        f: impl FnOnce(&Engine) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.engine.transaction(|e| self.sql(e), f)
    }

    /// Runs a query this API does not offer (tests, ad-hoc inspection), on either
    /// engine: SQLite's spelling with `?N` parameters.
    pub fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Row>, StoreError> {
        self.engine.query(sql, params).map_err(|e| self.sql(e))
    }

    /// Runs one statement this API does not offer; returns the rows it changed.
    pub fn execute(&self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
        self.engine.execute(sql, params).map_err(|e| self.sql(e))
    }
}
