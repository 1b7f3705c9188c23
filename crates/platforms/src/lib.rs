//! # cipherlab-platforms: the runners' client
//!
//! The runners of other language runtimes in `platforms/` (Java, Node.js, Python, PHP,
//! Go; protocol in platforms/PROTOCOL.md): which are present ([`missing`] says why not and
//! the command that fixes it), talking to one ([`Runner`]), and proving one against
//! cipherlab before it is timed ([`conformance`]), and the ciphertext a runner must
//! reproduce ([`cipherlab_ciphertext`]). The vector protocol answered in-process
//! ([`vectors`], what `cipherlab vectors` serves) is the reference the runners are checked
//! against. `cipherlab platforms` and the studies that time other runtimes use them; this
//! crate knows nothing of studies or of the results store.

pub mod conformance;
mod runner;
pub mod vectors;

use std::path::{Path, PathBuf};

use cipherlab_ciphers::{CipherSpec, providers};

pub use runner::{Info, ProviderInfo, Runner};

/// One runtime: the tools it needs and how to get them.
pub struct Runtime {
    /// Directory name under `platforms/` and the `runtime` its runner reports.
    pub name: &'static str,
    /// Commands that must be on PATH, each with the arguments that print its version.
    pub tools: &'static [(&'static str, &'static [&'static str])],
    /// Debian packages that bring the tools.
    pub packages: &'static str,
    /// A file that exists once `platforms/setup` built the runner.
    pub built: &'static str,
}

/// Every runtime with a runner, in the order tables list them.
pub const RUNTIMES: &[Runtime] = &[
    Runtime {
        name: "java",
        tools: &[("java", &["-version"]), ("mvn", &["-B", "-v"])],
        packages: "default-jdk-headless maven",
        built: "java/target/lib",
    },
    Runtime {
        name: "node",
        tools: &[("node", &["--version"])],
        packages: "nodejs",
        built: "node/runner.js",
    },
    Runtime {
        name: "python",
        tools: &[("python3", &["--version"])],
        packages: "python3-venv",
        built: "python/.venv/bin/python",
    },
    Runtime {
        name: "php",
        tools: &[("php", &["-r", "echo 'PHP ', PHP_VERSION;"])],
        packages: "php-cli",
        built: "php/runner.php",
    },
    Runtime {
        name: "go",
        tools: &[("go", &["version"])],
        packages: "golang-go",
        built: "go/runner",
    },
];

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

/// Why a runtime cannot run, and the command that fixes it; `None` when it can.
pub fn missing(rt: &Runtime, dir: &Path) -> Option<(String, String)> {
    let setup = format!("bash {}", dir.join("setup").display());
    let absent: Vec<&str> = rt
        .tools
        .iter()
        .map(|(t, _)| *t)
        .filter(|t| !on_path(t))
        .collect();
    if !absent.is_empty() {
        return Some((
            format!("{} not installed", absent.join(", ")),
            format!(
                "apt-get install -y --no-install-recommends {} && {setup}",
                rt.packages
            ),
        ));
    }
    if !dir.join(rt.name).join("run").is_file() {
        return Some((
            format!("no runner at {}", dir.join(rt.name).join("run").display()),
            "use a cipherlab source tree (or --dir / CIPHERLAB_PLATFORMS_DIR)".into(),
        ));
    }
    if !dir.join(rt.built).exists() {
        return Some(("runner not built".into(), setup));
    }
    None
}

/// cipherlab's ciphertext of `pt` under `spec`, `key` and `iv` with the default provider:
/// the bytes a runner must reproduce before its figures count. PKCS#7 padding where the
/// mode pads (the JCA's PKCS5Padding); for an AEAD, `iv` is the nonce, the associated data
/// is empty and the tag follows the ciphertext.
pub fn cipherlab_ciphertext(
    spec: &CipherSpec,
    key: &[u8],
    iv: &[u8],
    pt: &[u8],
) -> Result<Vec<u8>, String> {
    let mut c = providers::init(spec, key, None).map_err(|e| e.to_string())?;
    let mut buf = pt.to_vec();
    buf.resize(spec.output_len(pt.len()), 0);
    let n = c
        .encrypt(iv, &[], &mut buf, pt.len())
        .map_err(|e| e.to_string())?;
    buf.truncate(n);
    Ok(buf)
}
