//! `cipherlab platforms`: the runners of other language runtimes in `platforms/` (Java,
//! Node.js, Python, PHP, Go; protocol in platforms/PROTOCOL.md).
//!
//! `doctor` says which runtimes and libraries are present, their versions, and the exact
//! command that installs what is missing; `check` runs generated vectors through every
//! runner and through cipherlab's own catalogue in-process and prints who agrees.

mod check;
mod runner;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Value, json};

pub use runner::Runner;

/// Options of `cipherlab platforms`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Which runtimes and libraries are present, their versions, and the exact command
    /// that installs what is missing.
    Doctor(DoctorArgs),
    /// Conformance: generated vectors through every runner and through cipherlab; prints
    /// the matrix runtime/provider x algorithm -> agree / differ / unsupported, with the
    /// first differing vector of each "differ". Exit code 1 when any differs.
    Check(check::Args),
}

/// Options of `cipherlab platforms doctor`.
#[derive(clap::Args)]
struct DoctorArgs {
    /// The runners' directory (default: $CIPHERLAB_PLATFORMS_DIR, ./platforms, or the
    /// source tree's).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Runs `cipherlab platforms`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    match &args.command {
        Command::Doctor(a) => doctor(a),
        Command::Check(a) => check::run(a),
    }
}

/// One runtime: the tools it needs and how to get them.
pub struct Runtime {
    /// Directory name under `platforms/` and the `runtime` its runner reports.
    pub name: &'static str,
    /// Commands that must be on PATH, each with the arguments that print its version.
    tools: &'static [(&'static str, &'static [&'static str])],
    /// Debian packages that bring the tools.
    packages: &'static str,
    /// A file that exists once `platforms/setup` built the runner.
    built: &'static str,
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
fn on_path(tool: &str) -> bool {
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
fn tool_version(tool: &str, args: &[&str]) -> Option<String> {
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

fn doctor(args: &DoctorArgs) -> anyhow::Result<ExitCode> {
    let dir = platforms_dir(args.dir.as_deref());
    let mut rows = Vec::new();
    for rt in RUNTIMES {
        let tools: Vec<Value> = rt
            .tools
            .iter()
            .map(|(t, a)| json!({"tool": t, "version": on_path(t).then(|| tool_version(t, a)).flatten()}))
            .collect();
        let row = match missing(rt, &dir) {
            Some((why, fix)) => {
                json!({"runtime": rt.name, "ready": false, "tools": tools, "problem": why, "fix": fix})
            }
            None => match Runner::new(&dir, rt.name).and_then(|r| r.info()) {
                Ok(info) => json!({
                    "runtime": rt.name, "ready": true, "tools": tools,
                    "version": info.version, "startup_ms": info.wall_startup_ms,
                    "providers": info.providers.iter().map(|p| json!({
                        "name": p.name, "library": p.library, "version": p.version,
                        "algorithms": p.algorithms.len(),
                    })).collect::<Vec<_>>(),
                }),
                Err(e) => json!({
                    "runtime": rt.name, "ready": false, "tools": tools,
                    "problem": format!("the runner did not answer: {e:#}"),
                    "fix": format!("bash {}", dir.join("setup").display()),
                }),
            },
        };
        rows.push(row);
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({"dir": dir, "runtimes": rows}))?
        );
    } else {
        println!("platform runners in {}", dir.display());
        for row in &rows {
            print_doctor_row(row);
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_doctor_row(row: &Value) {
    let name = row["runtime"].as_str().unwrap_or("?");
    let tools: Vec<String> = row["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            format!(
                "{} ({})",
                t["tool"].as_str().unwrap_or("?"),
                t["version"].as_str().unwrap_or("missing")
            )
        })
        .collect();
    if row["ready"] == json!(true) {
        println!(
            "  {name:<7} ready    {}, runner start-up {} ms",
            tools.join("; "),
            row["startup_ms"]
        );
        for p in row["providers"].as_array().into_iter().flatten() {
            println!(
                "          {:<20} {} {} ({} algorithms)",
                p["name"].as_str().unwrap_or("?"),
                p["library"].as_str().unwrap_or("?"),
                p["version"].as_str().unwrap_or("?"),
                p["algorithms"]
            );
        }
    } else {
        println!(
            "  {name:<7} MISSING  {}: {}",
            tools.join("; "),
            row["problem"].as_str().unwrap_or("?")
        );
        println!("          fix: {}", row["fix"].as_str().unwrap_or("?"));
    }
}
