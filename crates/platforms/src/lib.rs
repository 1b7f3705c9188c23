//! # cipherlab-platforms: the runners' client
//!
//! The runners of other language runtimes in `platforms/` (the one list,
//! `platforms/runtimes.toml`, is [`runtimes()`]; protocol in platforms/PROTOCOL.md): which
//! are ready ([`ready`]; [`NotReady`] says why not and the command that fixes it), talking
//! to one ([`Runner`], its `info` carrying the [`PROBE_BITS`]), and proving one against
//! cipherlab before it is timed ([`conformance`]), and the ciphertext a runner must
//! reproduce ([`cipherlab_ciphertext`]). The vector protocol answered in-process
//! ([`vectors`], what `cipherlab vectors` serves) is the reference the runners are checked
//! against. Runners of the user's own (`--runner NAME=COMMAND`, runners.toml: [`user`])
//! join the list's as [`Entrant`]s. `cipherlab platforms` and the studies that time other
//! runtimes use them; this crate knows nothing of studies or of the results store.

pub mod conformance;
mod error;
pub mod java_providers;
mod runner;
pub mod runtimes;
pub mod user;
pub mod vectors;

use std::path::{Path, PathBuf};

use cipherlab_ciphers::catalogue::{AlgorithmId, algorithm};
use cipherlab_ciphers::{CipherSpec, providers};
use serde_json::{Map, Value, json};

pub use error::Error;
pub use runner::{BASE_LIMIT, Info, ProviderInfo, Runner, TIMEOUT_ENV, time_limit};
pub use runtimes::{Descriptor, runtime, runtimes};
pub use user::UserRunner;

/// The probe set: the key sizes (bits) at which a runner lists, in `info`, the algorithms
/// that take many key sizes. It reaches the runners in the `info` request
/// ([`info_request`], platforms/PROTOCOL.md), with each algorithm's key range from the
/// catalogue, so no runner keeps a copy.
pub const PROBE_BITS: &[(AlgorithmId, &[u16])] = &[
    (AlgorithmId::Blowfish, &[32, 64, 128, 192, 256, 448]),
    (AlgorithmId::Rc2, &[40, 64, 128, 256, 1024]),
    (AlgorithmId::Rc4, &[40, 64, 128, 256, 2048]),
];

/// The `info` request, with the probe set: per algorithm (catalogue name), the key sizes
/// to list it at (`bits`) and the sizes a name of it may have (`range`, inclusive, in
/// steps of 8).
pub fn info_request() -> Value {
    let mut probe = Map::new();
    for (id, bits) in PROBE_BITS {
        let a = algorithm(*id);
        probe.insert(
            a.name.into(),
            json!({"bits": bits, "range": [a.key_bits.min, a.key_bits.max]}),
        );
    }
    json!({"op": "info", "probe": probe})
}

/// The runners' directory: `dir`, else $CIPHERLAB_PLATFORMS_DIR, else ./platforms, else
/// the source tree's (where this binary was built from).
pub fn platforms_dir(dir: Option<&Path>) -> PathBuf {
    if let Some(d) = dir {
        return d.to_path_buf();
    }
    if let Some(d) = std::env::var_os("CIPHERLAB_PLATFORMS_DIR") {
        return PathBuf::from(d);
    }
    let here = PathBuf::from("platforms");
    if here.join("PROTOCOL.md").is_file() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../platforms")
}

/// Whether `tool` is an executable on PATH.
pub fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|p| {
            let f = p.join(tool);
            f.is_file()
                && std::fs::metadata(&f)
                    .map(|m| {
                        use std::os::unix::fs::PermissionsExt;
                        m.permissions().mode() & 0o111 != 0
                    })
                    .unwrap_or(false)
        })
    })
}

/// The first line a tool prints about its version (stdout or stderr).
pub fn tool_version(tool: &str, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new(tool).args(args).output().ok()?;
    let text = if out.stdout.is_empty() {
        out.stderr
    } else {
        out.stdout
    };
    String::from_utf8_lossy(&text)
        .lines()
        .next()
        .map(|l| l.trim().to_string())
}

/// Why a runtime's runner cannot be used, and the command that fixes it.
#[derive(Debug, Clone)]
pub struct NotReady {
    /// The runtime (a user runner's NAME).
    pub runtime: String,
    /// What is missing or failed.
    pub why: String,
    /// The command that fixes it.
    pub fix: String,
}

/// Why `rt`'s runner cannot start (its tools, its runner, its build), without starting
/// it; `None` when it can.
fn absent(rt: &'static Descriptor, dir: &Path) -> Option<NotReady> {
    let not = |why: String, fix: String| {
        Some(NotReady {
            runtime: rt.id.clone(),
            why,
            fix,
        })
    };
    let absent: Vec<&str> = rt
        .tools
        .iter()
        .filter_map(|t| t.first().map(String::as_str))
        .filter(|t| !on_path(t))
        .collect();
    if !absent.is_empty() {
        return not(
            format!("{} not installed", absent.join(", ")),
            rt.install(dir),
        );
    }
    let run = rt.runner(dir);
    if !run.is_file() {
        return not(
            format!("no runner at {}", run.display()),
            "use a cipherlab source tree (or --dir / CIPHERLAB_PLATFORMS_DIR)".into(),
        );
    }
    if !rt.artifact(dir).exists() {
        return not(
            "runner not built".into(),
            format!("bash {}", dir.join("setup").display()),
        );
    }
    None
}

/// `rt`'s runner, started and asked its `info` (with the probe set): ready for the
/// vectors and timings. Else why not and the command that fixes it: the one "is this
/// runner ready" of `cipherlab platforms`, the studies and the tests.
pub fn ready(rt: &'static Descriptor, dir: &Path) -> Result<(Runner, Info), NotReady> {
    if let Some(not) = absent(rt, dir) {
        return Err(not);
    }
    let fail = |e: Error| NotReady {
        runtime: rt.id.clone(),
        why: format!("the runner did not answer: {e}"),
        fix: format!("bash {}", dir.join("setup").display()),
    };
    let runner = Runner::new(dir, &rt.id).map_err(fail)?;
    let info = runner.info().map_err(fail)?;
    Ok((runner, info))
}

/// The provider names a user runner may not take: every built-in runner's (the list's
/// `providers`) and cipherlab's own Rust providers'. A user runner's provider of one of
/// these names is shown as `NAME-provider` ([`Runner::info`]).
pub fn reserved_providers() -> Vec<String> {
    runtimes()
        .iter()
        .flat_map(|d| d.providers.iter().cloned())
        .chain(providers::PROVIDERS.iter().map(|p| p.name().to_string()))
        .collect()
}

/// A user runner started and asked its `info`, or why not and what to do.
pub fn ready_user(u: &UserRunner) -> Result<(Runner, Info), NotReady> {
    let not = |why: String| NotReady {
        runtime: u.name.clone(),
        why,
        fix: format!(
            "check the command of runner {} ({}: {}): it must start a program that speaks platforms/PROTOCOL.md",
            u.name,
            u.from,
            u.command_line()
        ),
    };
    let program = u.argv.first().map(String::as_str).unwrap_or("");
    let found = if program.contains('/') {
        Path::new(program).is_file()
    } else {
        on_path(program)
    };
    if !found {
        return Err(not(format!("no program `{program}`")));
    }
    let runner = Runner::user(u);
    let info = runner
        .info()
        .map_err(|e| not(format!("the runner did not answer: {e}")))?;
    Ok((runner, info))
}

/// One runner a run or a check takes part in: a runtime of the list, or one of the
/// user's.
#[derive(Clone, Copy)]
pub enum Entrant<'a> {
    /// A runtime of platforms/runtimes.toml.
    Listed(&'static Descriptor),
    /// A runner of the user's.
    User(&'a UserRunner),
}

impl Entrant<'_> {
    /// Its runtime id: the list's id, or the user runner's NAME.
    pub fn name(&self) -> &str {
        match self {
            Entrant::Listed(d) => &d.id,
            Entrant::User(u) => &u.name,
        }
    }

    /// Whether it is the user's.
    pub fn is_user(&self) -> bool {
        matches!(self, Entrant::User(_))
    }

    /// Started and asked its `info` ([`ready`], [`ready_user`]).
    pub fn ready(&self, dir: &Path) -> Result<(Runner, Info), NotReady> {
        match self {
            Entrant::Listed(d) => ready(d, dir),
            Entrant::User(u) => ready_user(u),
        }
    }

    /// A new runner of it, not started (a process of its own, e.g. for a cold first call).
    pub fn runner(&self, dir: &Path) -> Result<Runner, Error> {
        match self {
            Entrant::Listed(d) => Runner::new(dir, &d.id),
            Entrant::User(u) => Ok(Runner::user(u)),
        }
    }
}

/// Every runner: the list's runtimes in its order, then `user`'s.
pub fn entrants(user: &[UserRunner]) -> Vec<Entrant<'_>> {
    runtimes()
        .iter()
        .map(Entrant::Listed)
        .chain(user.iter().map(Entrant::User))
        .collect()
}

/// cipherlab's ciphertext of `pt` under `spec`, `key` and `iv` with the default provider:
/// the bytes a runner must reproduce before its figures count. PKCS#7 padding where the
/// mode pads (the JCA's PKCS5Padding); for an AEAD, `iv` is the nonce, the associated data
/// is empty and the tag follows the ciphertext.
///
/// `pt` is encrypted in place: a file of hundreds of MB is held once.
pub fn cipherlab_ciphertext(
    spec: &CipherSpec,
    key: &[u8],
    iv: &[u8],
    pt: Vec<u8>,
) -> Result<Vec<u8>, Error> {
    let mut c = providers::init(spec, key, None).map_err(|e| Error::Cipher(e.to_string()))?;
    let len = pt.len();
    let mut buf = pt;
    buf.resize(spec.output_len(len), 0);
    let n = c
        .encrypt(iv, &[], &mut buf, len)
        .map_err(|e| Error::Cipher(e.to_string()))?;
    buf.truncate(n);
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_info_request_carries_the_probe_set() {
        let r = info_request();
        assert_eq!(r["op"], "info");
        let probe = r["probe"].as_object().unwrap();
        assert_eq!(probe.len(), PROBE_BITS.len());
        for (id, bits) in PROBE_BITS {
            let a = algorithm(*id);
            let p = &probe[a.name];
            assert_eq!(p["bits"], json!(bits));
            assert_eq!(p["range"], json!([a.key_bits.min, a.key_bits.max]));
            assert!(bits.iter().all(|b| a.key_bits.accepts(*b)), "{}", a.name);
        }
    }

    #[test]
    fn a_runtime_without_its_tools_is_not_ready_and_says_how_to_install_them() {
        let mut d = runtimes()[0].clone();
        d.tools = vec![vec!["cipherlab-no-such-tool".into(), "--version".into()]];
        let d: &'static Descriptor = Box::leak(Box::new(d));
        let dir = Path::new("/nonexistent");
        let Err(not) = ready(d, dir) else {
            panic!("ready without its tools")
        };
        assert_eq!(not.runtime, d.id);
        assert!(
            not.why.contains("cipherlab-no-such-tool not installed"),
            "{}",
            not.why
        );
        assert_eq!(not.fix, d.install(dir));
        assert!(not.fix.contains(&d.packages.join(" ")));
    }
}
