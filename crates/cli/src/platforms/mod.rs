//! `cipherlab platforms`: the runners of other language runtimes in `platforms/` (the
//! runtimes of platforms/runtimes.toml; protocol in platforms/PROTOCOL.md).
//!
//! `doctor` says which runtimes and libraries are present, their versions, and the exact
//! command that installs what is missing; `check` runs generated vectors through every
//! runner and through cipherlab's own catalogue in-process and prints who agrees.

mod check;

use std::path::PathBuf;
use std::process::ExitCode;

use cipherlab_platforms::{on_path, platforms_dir, ready, runtimes, tool_version};
use serde_json::{Value, json};

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
    /// A runner of your own, started and asked its `info` beside the built-in ones: any
    /// program that speaks platforms/PROTOCOL.md, split into words without a shell
    /// (quote as in sh); may be repeated. Also read: runners.toml, or the file
    /// $CIPHERLAB_RUNNERS names.
    #[arg(long = "runner", value_name = "NAME=COMMAND")]
    runner: Vec<String>,
    /// An extra JCA provider for the Java runner, served as `java-NAME` and checked like
    /// the others: NAME=JAR[@CLASS] or NAME=GROUP:ARTIFACT:VERSION[:CLASSIFIER][@CLASS]
    /// (fetched once with Maven into platforms/java/target/providers); CLASS is the
    /// provider class when the jar declares none. Loading a provider runs its code: name
    /// only jars you trust (docs/platforms.md, "More JCA providers"). May be repeated.
    #[arg(long = "java-provider", value_name = "NAME=SPEC")]
    java_provider: Vec<String>,
}

/// Hands the `--java-provider`s (fetched from Maven where named so) to every Java runner
/// this process starts.
pub fn java_providers(flags: &[String], dir: &std::path::Path) -> anyhow::Result<()> {
    if flags.is_empty() {
        return Ok(());
    }
    let parsed = flags
        .iter()
        .map(|f| cipherlab_platforms::java_providers::JavaProvider::parse(f))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| crate::exit::fail(crate::exit::Kind::Usage, e.to_string()))?;
    cipherlab_platforms::java_providers::use_providers(&parsed, &dir.join("java"))
        .map_err(|e| crate::exit::fail(crate::exit::Kind::Usage, e.to_string()))
}

/// Runs `cipherlab platforms`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    match &args.command {
        Command::Doctor(a) => doctor(a),
        Command::Check(a) => check::run(a),
    }
}

fn doctor(args: &DoctorArgs) -> anyhow::Result<ExitCode> {
    let dir = platforms_dir(args.dir.as_deref());
    java_providers(&args.java_provider, &dir)?;
    let mut rows = Vec::new();
    for rt in runtimes() {
        let tools: Vec<Value> = rt
            .tools
            .iter()
            .filter_map(|t| t.split_first())
            .map(|(t, a)| {
                let args: Vec<&str> = a.iter().map(String::as_str).collect();
                json!({"tool": t, "version": on_path(t).then(|| tool_version(t, &args)).flatten()})
            })
            .collect();
        let row = match ready(rt, &dir) {
            Err(not) => json!({
                "runtime": rt.id, "name": rt.name, "ready": false, "tools": tools,
                "problem": not.why, "fix": not.fix,
            }),
            Ok((_, info)) => json!({
                "runtime": rt.id, "name": rt.name, "ready": true, "tools": tools,
                "version": info.version, "startup_ms": info.wall_startup_ms,
                "providers": info.providers.iter().map(|p| json!({
                    "name": p.name, "library": p.library, "version": p.version,
                    "algorithms": p.algorithms.len(),
                })).collect::<Vec<_>>(),
            }),
        };
        rows.push(row);
    }
    for u in crate::results::user_runners(&args.runner)? {
        let tool = json!({"tool": u.command_line(), "version": Value::Null});
        rows.push(match cipherlab_platforms::ready_user(&u) {
            Err(not) => json!({
                "runtime": u.name, "name": u.name, "ready": false, "user": true,
                "from": u.from, "tools": [tool], "problem": not.why, "fix": not.fix,
            }),
            Ok((_, info)) => json!({
                "runtime": u.name, "name": u.name, "ready": true, "user": true,
                "from": u.from, "reported_runtime": info.runtime,
                "tools": [{"tool": u.command_line(), "version": format!("{} {}", info.runtime, info.version)}],
                "version": info.version, "startup_ms": info.wall_startup_ms,
                "providers": info.providers.iter().map(|p| json!({
                    "name": p.name, "library": p.library, "version": p.version,
                    "algorithms": p.algorithms.len(),
                })).collect::<Vec<_>>(),
            }),
        });
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
