//! `bench --impl NAME=DIR`: C implementations under the NIST LWC `crypto_aead` API
//! (`cipherlab-native`) built, checked and registered as providers before the suite is
//! planned, so the `lwc` study times them beside cipherlab's own with the same harness.
//!
//! Each folder is built with every compiler × flag set; its algorithm is the catalogue
//! AEAD (with api.h's sizes) whose official KAT a build agrees with; the fastest
//! agreeing build becomes provider NAME. A folder with no agreeing build stops the run.
//!
//! Fork children (`--forks N`) rebuild the suite from the same arguments, so they must
//! find the same providers: the parent passes, in [`LIBS_VAR`], each provider's
//! algorithm and the path of the library it chose (in its private build folder, which
//! lives until the parent's run ends); a child loads that library, checks it against the
//! KAT again and registers it, without building anything. A child never loads a library
//! whose name is not one of its own `--impl` arguments.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use cipherlab_ciphers::{CipherSpec, providers};
use cipherlab_native::{Outcome, Report};
use cipherlab_results::artifact::Artifact;
use cipherlab_results::artifact::table::{Table, num, text};

/// The environment variable that carries the chosen libraries to fork children.
pub const LIBS_VAR: &str = "CIPHERLAB_NATIVE_LIBS";

/// One `--impl NAME=DIR`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Impl {
    /// The provider name it gets.
    pub name: String,
    /// The folder with api.h and the .c files.
    pub dir: PathBuf,
}

impl std::str::FromStr for Impl {
    type Err = String;

    /// `NAME=DIR`.
    fn from_str(s: &str) -> Result<Impl, String> {
        let (name, dir) = s
            .split_once('=')
            .ok_or_else(|| format!("--impl {s}: expected NAME=DIR (e.g. ascon-c=./opt64)"))?;
        let name = name.trim();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
        {
            return Err(format!(
                "--impl {s}: NAME must be letters, digits, '-', '_' or '.' (it names the provider)"
            ));
        }
        if dir.is_empty() {
            return Err(format!("--impl {s}: DIR is empty"));
        }
        Ok(Impl {
            name: name.to_string(),
            dir: PathBuf::from(dir),
        })
    }
}

/// What the fork children are told: one entry per provider.
#[derive(serde::Serialize, serde::Deserialize)]
struct Chosen {
    name: String,
    algorithm: String,
    library: PathBuf,
}

/// One build of one `--impl`, as the "Native builds" table shows it.
#[derive(Clone, Debug)]
struct Row {
    name: String,
    algorithm: String,
    compiler: String,
    version: String,
    flags: String,
    source_hash: String,
    result: String,
    ns_4k: Option<f64>,
    chosen: bool,
}

/// The builds of this process's `--impl`s, for the `lwc` study's findings.
static ROWS: Mutex<Vec<Row>> = Mutex::new(Vec::new());

/// Why the `--impl`s could not be made providers.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Building, loading or checking.
    #[error("--impl {name}: {source}")]
    Native {
        /// The provider name.
        name: String,
        /// The cause.
        source: cipherlab_native::Error,
    },
    /// No build agrees with the KAT.
    #[error(
        "--impl {name}={dir}: no build agrees with the KAT of {algorithm} ({summary}); `cipherlab impl check {dir} --algorithm {algorithm}` shows each build"
    )]
    Nonconforming {
        /// The provider name.
        name: String,
        /// The folder.
        dir: String,
        /// The algorithm it was checked as.
        algorithm: String,
        /// The first build's outcome.
        summary: String,
    },
    /// A name the registry refused.
    #[error("--impl {name}: {source}")]
    Name {
        /// The provider name.
        name: String,
        /// The registry's reason.
        source: cipherlab_ciphers::Error,
    },
    /// A fork child without its parent's choice.
    #[error("fork child: {0}")]
    Child(String),
}

impl Error {
    /// Its kind, for exit codes.
    pub fn kind(&self) -> cipherlab_ciphers::ErrorKind {
        use cipherlab_ciphers::ErrorKind;
        match self {
            Error::Native { source, .. } => source.kind(),
            Error::Nonconforming { .. } => ErrorKind::Nonconforming,
            Error::Name { .. } => ErrorKind::Usage,
            Error::Child(_) => ErrorKind::Other,
        }
    }
}

/// The libraries kept for the run: their private folders live as long as this.
pub struct Prepared {
    _reports: Vec<Report>,
    /// The value of [`LIBS_VAR`] for fork children.
    pub env: String,
}

/// Builds, checks and registers each of `impls` (in a fork child: loads its parent's
/// choice from [`LIBS_VAR`]). A provider stays registered for the rest of the process:
/// a second run in the same process must give its `--impl`s other names. The KAT folder is `$CIPHERLAB_KAT_DIR`, else
/// `../shared/kat` beside the source tree.
pub fn prepare(impls: &[Impl], child: bool) -> Result<Prepared, Error> {
    let kat = cipherlab_native::kat_folder(None);
    if child {
        return prepare_child(impls, &kat);
    }
    let mut reports = Vec::new();
    let mut chosen = Vec::new();
    let mut rows = Vec::new();
    for i in impls {
        let native = |source| Error::Native {
            name: i.name.clone(),
            source,
        };
        let report = cipherlab_native::identify(&i.dir, &kat).map_err(native)?;
        if !report.any_agrees() {
            let summary = report
                .builds
                .first()
                .map(|b| {
                    format!(
                        "{} {}: {}",
                        b.build.compiler.program,
                        b.build.flags,
                        outcome_text(&b.outcome)
                    )
                })
                .unwrap_or_default();
            return Err(Error::Nonconforming {
                name: i.name.clone(),
                dir: i.dir.display().to_string(),
                algorithm: report.algorithm.clone(),
                summary,
            });
        }
        let provider = report.provider(&i.name).map_err(native)?;
        let library = provider.library().path().to_path_buf();
        providers::register(Box::leak(Box::new(provider))).map_err(|source| Error::Name {
            name: i.name.clone(),
            source,
        })?;
        for b in &report.builds {
            rows.push(Row {
                name: i.name.clone(),
                algorithm: report.algorithm.clone(),
                compiler: b.build.compiler.program.clone(),
                version: b.build.compiler.version.clone(),
                flags: b.build.flags.clone(),
                source_hash: b.build.source_hash.clone(),
                result: outcome_text(&b.outcome),
                ns_4k: match b.outcome {
                    Outcome::Agrees { ns_4k, .. } => Some(ns_4k),
                    _ => None,
                },
                chosen: b.build.library.as_deref() == Some(library.as_path()),
            });
        }
        chosen.push(Chosen {
            name: i.name.clone(),
            algorithm: report.algorithm.clone(),
            library,
        });
        reports.push(report);
    }
    // This run's builds only (a program may run the lab more than once).
    *ROWS.lock().unwrap_or_else(|p| p.into_inner()) = rows;
    Ok(Prepared {
        _reports: reports,
        env: serde_json::to_string(&chosen).unwrap_or_default(),
    })
}

fn prepare_child(impls: &[Impl], kat: &Path) -> Result<Prepared, Error> {
    if impls.is_empty() {
        return Ok(Prepared {
            _reports: Vec::new(),
            env: String::new(),
        });
    }
    let value = std::env::var(LIBS_VAR).map_err(|_| {
        Error::Child(format!(
            "{LIBS_VAR} is not set: --impl needs its parent's libraries"
        ))
    })?;
    let chosen: Vec<Chosen> =
        serde_json::from_str(&value).map_err(|e| Error::Child(format!("{LIBS_VAR}: {e}")))?;
    for i in impls {
        let c = chosen
            .iter()
            .find(|c| c.name == i.name)
            .ok_or_else(|| Error::Child(format!("{LIBS_VAR} has no library for {}", i.name)))?;
        let spec = CipherSpec::parse(&c.algorithm)
            .map_err(|e| Error::Child(format!("{}: {e}", c.algorithm)))?;
        let provider = cipherlab_native::load_built(&i.name, &spec, &i.dir, &c.library, kat)
            .map_err(|source| Error::Native {
                name: i.name.clone(),
                source,
            })?;
        providers::register(Box::leak(Box::new(provider))).map_err(|source| Error::Name {
            name: i.name.clone(),
            source,
        })?;
    }
    Ok(Prepared {
        _reports: Vec::new(),
        env: value,
    })
}

fn outcome_text(o: &Outcome) -> String {
    match o {
        Outcome::Agrees {
            vectors, forgeries, ..
        } => format!("agrees ({vectors} vectors, {forgeries} forged tags refused)"),
        Outcome::Differs {
            count,
            field,
            detail,
        } => format!("differs at Count = {count}, {field}: {detail}"),
        Outcome::BuildFailed { output } => format!(
            "build failed: {}",
            output
                .lines()
                .find(|l| l.contains("error"))
                .unwrap_or(output.trim())
        ),
        Outcome::LoadFailed { message } => format!("load failed: {message}"),
    }
}

/// The "Native builds" table of the `lwc` study: every build of every `--impl` of this
/// process, or `None` when there was none.
pub fn builds_artifact(study: &str) -> Option<Artifact> {
    let rows = ROWS.lock().unwrap_or_else(|p| p.into_inner()).clone();
    if rows.is_empty() {
        return None;
    }
    let mut t = Table::new(&[
        "provider",
        "algorithm",
        "compiler",
        "version",
        "flags",
        "source sha256",
        "check",
        "quick ns per 4 KiB",
        "chosen",
    ]);
    for r in rows {
        t.row(vec![
            text(&r.name),
            text(&r.algorithm),
            text(&r.compiler),
            text(&r.version),
            text(&r.flags),
            text(&r.source_hash),
            text(&r.result),
            r.ns_4k.map_or(serde_json::Value::Null, num),
            text(if r.chosen { "yes" } else { "" }),
        ]);
    }
    t.note = format!(
        "Each --impl folder built with every C compiler found × {} flag sets (-shared -fPIC -I DIR), \
         each build checked against the algorithm's official LWC KAT file (encryption and \
         decryption of every vector) and forged tags (3 flipped bits per vector); the fastest \
         agreeing build by a quick wall-clock timing (median of 15 × 20 encryptions of 4 KiB) \
         is the provider timed. Only agreeing builds are timed.",
        cipherlab_native::FLAG_SETS.len()
    );
    Some(t.artifact(study, "native-builds", "Native builds"))
}
