//! `cipherlab platforms check`: conformance of every runner against cipherlab.
//!
//! For every algorithm a runner's provider lists, generated vectors (lengths 0 … three
//! blocks + 1 and a few long ones; random keys, IVs or nonces and associated data;
//! unpadded ECB/CBC at whole blocks; a tampered tag and, where there is one, a tampered
//! ciphertext byte for AEADs) are answered by cipherlab's own catalogue in-process
//! (the `cipherlab vectors` code) and by the runner; the answers must be identical.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use cipherlab_platforms::conformance::{ProviderResult, Verdict, check_runtime};
use cipherlab_platforms::{entrants, platforms_dir, runtime};
use serde_json::{Map, Value, json};

/// Options of `cipherlab platforms check`.
#[derive(clap::Args)]
pub struct Args {
    /// The runners' directory (default: $CIPHERLAB_PLATFORMS_DIR, ./platforms, or the
    /// source tree's).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Only this runtime (an id of platforms/runtimes.toml, or a runner of your own's
    /// NAME: `cipherlab platforms doctor` lists them); repeat for several.
    #[arg(long = "runtime", value_name = "RUNTIME")]
    runtimes: Vec<String>,
    /// A runner of your own, checked beside the built-in ones: any program that speaks
    /// platforms/PROTOCOL.md, split into words without a shell (quote as in sh); may be
    /// repeated. Also read: runners.toml, or the file $CIPHERLAB_RUNNERS names.
    #[arg(long = "runner", value_name = "NAME=COMMAND")]
    pub runner: Vec<String>,
    /// An extra JCA provider for the Java runner, served as `java-NAME` and checked like
    /// the others: NAME=JAR[@CLASS] or NAME=GROUP:ARTIFACT:VERSION[:CLASSIFIER][@CLASS]
    /// (fetched once with Maven into platforms/java/target/providers); CLASS is the
    /// provider class when the jar declares none. Loading a provider runs its code: name
    /// only jars you trust (docs/platforms.md, "More JCA providers"). May be repeated.
    #[arg(long = "java-provider", value_name = "NAME=SPEC")]
    pub java_provider: Vec<String>,

    /// Fewer vectors: lengths 0 … three blocks + 1 and one long message (1,000 bytes).
    #[arg(long)]
    quick: bool,
    /// Seed of the generated keys, nonces and messages (default: from the clock; printed,
    /// so a run can be repeated).
    #[arg(long)]
    seed: Option<u64>,
    /// Print JSON instead of the matrix.
    #[arg(long)]
    json: bool,
}

/// Runs `cipherlab platforms check`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let dir = platforms_dir(args.dir.as_deref());
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
    });
    super::java_providers(&args.java_provider, &dir)?;
    let users = crate::results::user_runners(&args.runner)?;
    for r in &args.runtimes {
        if !users.iter().any(|u| &u.name == r) {
            runtime(r)
                .map_err(|e| anyhow::anyhow!("--runtime {r}: {e} (or a runner of your own)"))?;
        }
    }
    let mut skipped = Vec::new();
    let mut crashed = 0;
    let mut results: Vec<ProviderResult> = Vec::new();
    let mut startup = BTreeMap::new();
    for rt in entrants(&users) {
        let id = rt.name().to_string();
        if !args.runtimes.is_empty() && !args.runtimes.contains(&id) {
            continue;
        }
        let (runner, info) = match rt.ready(&dir) {
            Ok(ready) => ready,
            Err(not) => {
                skipped.push(json!({"runtime": not.runtime, "reason": not.why, "fix": not.fix}));
                continue;
            }
        };
        startup.insert(
            id.clone(),
            json!({"wall_ms": info.wall_startup_ms, "runner_ns": info.startup_ns,
                "reported_runtime": info.runtime}),
        );
        // A runner that dies on the vectors is listed with the skipped ones, and fails the check.
        match check_runtime(&runner, &info, seed, args.quick, &|_| true) {
            Ok(r) => results.extend(r),
            Err(e) => {
                crashed += 1;
                skipped.push(json!({"runtime": id, "reason": format!("the runner failed on the vectors: {e:#}"),
                    "fix": "a bug in the runner: run the request it stopped at by hand"}));
            }
        }
    }

    let differs = results
        .iter()
        .flat_map(|p| &p.results)
        .filter(|(_, v)| matches!(v, Verdict::Differ(_)))
        .count();
    if args.json {
        let providers: Vec<Value> = results
            .iter()
            .map(|p| {
                let algs: Map<String, Value> = p
                    .results
                    .iter()
                    .map(|(n, v)| (n.clone(), v.to_json()))
                    .collect();
                json!({"runtime": p.runtime, "runtime_version": p.runtime_version,
                    "provider": p.name, "library": p.library, "version": p.version,
                    "algorithms": algs})
            })
            .collect();
        let out = json!({"seed": seed, "quick": args.quick, "providers": providers,
            "startup": startup, "skipped": skipped, "differ": differs, "failed_runners": crashed});
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        use std::io::Write as _;
        std::io::stdout().write_all(matrix_text(&results, &skipped, seed).as_bytes())?;
    }
    Ok(if differs + crashed > 0 {
        // Bytes that are not what they must be: the kind of failure a modified file is
        // (exit 1, README "Exit codes").
        cipherlab_cli::exit::status(cipherlab_cli::exit::Kind::Authentication)
    } else {
        ExitCode::SUCCESS
    })
}

/// The matrix and its notes as text for people.
fn matrix_text(results: &[ProviderResult], skipped: &[Value], seed: u64) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "conformance against cipherlab (in-process), seed {seed} (repeat with --seed {seed})"
    );
    for p in results {
        let count = |w: &str| p.results.iter().filter(|(_, v)| v.word() == w).count();
        let _ = writeln!(
            out,
            "  {:<20} {} {} on {} {}: {} agree, {} differ, {} unsupported",
            p.name,
            p.library,
            p.version,
            p.runtime,
            p.runtime_version,
            count("agree"),
            count("differ"),
            count("unsupported")
        );
    }
    for s in skipped {
        let _ = writeln!(
            out,
            "  SKIP {}: {} (fix: {})",
            s["runtime"].as_str().unwrap_or("?"),
            s["reason"].as_str().unwrap_or("?"),
            s["fix"].as_str().unwrap_or("?")
        );
    }
    // Rows: every algorithm any provider listed, in the order first seen.
    let mut rows: Vec<&str> = Vec::new();
    for p in results {
        for (n, _) in &p.results {
            if !rows.contains(&n.as_str()) {
                rows.push(n);
            }
        }
    }
    let width = rows.iter().map(|r| r.len()).max().unwrap_or(9).max(9);
    // A column is as wide as its provider's name or the widest cell word.
    let col = |p: &ProviderResult| p.name.len().max("unsupported".len());
    let _ = write!(out, "\n{:<width$}", "algorithm");
    for p in results {
        let _ = write!(out, "  {:<w$}", p.name, w = col(p));
    }
    let _ = writeln!(out);
    for row in &rows {
        let _ = write!(out, "{row:<width$}");
        for p in results {
            let cell = p
                .results
                .iter()
                .find(|(n, _)| n == row)
                .map_or("·", |(_, v)| match v {
                    Verdict::Agree(_) => "agree",
                    Verdict::Differ(_) => "DIFFER",
                    Verdict::Unsupported => "unsupported",
                });
            let _ = write!(out, "  {cell:<w$}", w = col(p));
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(out, "(· = not offered by that provider)");
    for p in results {
        for (n, v) in &p.results {
            if let Verdict::Differ(d) = v {
                let _ = writeln!(
                    out,
                    "\n{} differs on {n}: first differing vector ({})",
                    p.name, d.what
                );
                let _ = writeln!(out, "  request:   {}", shorten(&d.request));
                let _ = writeln!(out, "  cipherlab: {}", shorten(&d.cipherlab));
                let _ = writeln!(out, "  runner:    {}", shorten(&d.runner));
            }
        }
    }
    out
}

/// A JSON value on one line, long hex cut in the middle.
fn shorten(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= 400 {
        return text;
    }
    let chars: Vec<char> = text.chars().collect();
    let head: String = chars[..200].iter().collect();
    let tail: String = chars[chars.len() - 150..].iter().collect();
    format!("{head} … {tail}")
}
