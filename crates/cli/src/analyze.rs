//! `cipherlab analyze FILE...`: the byte statistics the `distribution` study reports, for
//! any file or standard input, so users check their own ciphertext the same way: byte
//! histogram, entropy, chi-square against the uniform distribution, and the deviation of
//! the 16 group means (the Java stream-security paper's Fig. 3 statistic) beside what a
//! uniform source of the same length gives. Files are read in pieces: memory stays small
//! whatever their size.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use cipherlab_results::artifact::Histogram;
use serde_json::json;

/// Options of `cipherlab analyze`.
#[derive(clap::Args)]
pub struct Args {
    /// The files to analyze (`-`: standard input). At least one.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print one JSON object per file, one per line (the histogram artifact's fields,
    /// docs/results.md, and `uneven`), instead of the table.
    #[arg(long)]
    json: bool,
    /// Also print the 256 counts (in the table view; JSON always has them).
    #[arg(long)]
    counts: bool,
}

/// Runs `cipherlab analyze`.
pub fn run(args: &Args) -> Result<ExitCode> {
    let mut stdin_used = false;
    for path in &args.files {
        let (name, counts) = if path == Path::new("-") {
            if std::mem::replace(&mut stdin_used, true) {
                anyhow::bail!("standard input (-) can be read only once");
            }
            (
                "-".to_string(),
                count(std::io::stdin().lock()).context("reading standard input")?,
            )
        } else {
            let f = std::fs::File::open(path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            let counts = count(f).with_context(|| format!("reading {}", path.display()))?;
            (path.display().to_string(), counts)
        };
        let h = Histogram {
            label: name.clone(),
            ..Histogram::from_counts("unknown", "file", &counts)
        };
        if args.json {
            let mut v = serde_json::to_value(&h)?;
            v["file"] = json!(name);
            v["uneven"] = json!(h.uneven());
            println!("{v}");
        } else {
            print!("{}", table(&name, &h, args.counts));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Byte counts of everything `r` yields, read 64 KiB at a time.
fn count(mut r: impl Read) -> std::io::Result<[u64; 256]> {
    let mut counts = [0u64; 256];
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => return Ok(counts),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        for &b in &buf[..n] {
            counts[usize::from(b)] += 1;
        }
    }
}

/// The people's view of one file.
fn table(name: &str, h: &Histogram, with_counts: bool) -> String {
    let f = |x: f64, d: usize| {
        if x.is_finite() {
            format!("{x:.d$}")
        } else {
            "-".to_string()
        }
    };
    let mut out = format!(
        "{name}: {} bytes\n  entropy            {} bits/byte (8 is the most)\n  chi-square         {} (255 degrees of freedom), p = {}\n  group deviation    {} (a uniform source of this length: {})\n  verdict            {}\n",
        h.bytes,
        f(h.entropy_bits, 4),
        f(h.chi_square, 1),
        if h.p_value == 0.0 {
            "below 1e-300".to_string()
        } else if h.p_value.is_finite() && h.p_value < 1e-4 {
            format!("{:.1e}", h.p_value)
        } else {
            f(h.p_value, 4)
        },
        f(h.group_std_dev, 2),
        f(h.ideal_group_std_dev, 2),
        if h.bytes < 256 {
            "too short to tell (fewer bytes than byte values)"
        } else if h.uneven() {
            "unevenly spread: not what a cipher's output looks like (p < 0.001 and over twice the uniform group deviation)"
        } else {
            "evenly spread, as a cipher's output should be (this does not prove it is encrypted: compressed data looks the same)"
        }
    );
    if with_counts {
        for (row, chunk) in h.counts.chunks(16).enumerate() {
            let cells: Vec<String> = chunk.iter().map(|c| format!("{c:>6}")).collect();
            out.push_str(&format!("  {:02x}: {}\n", row * 16, cells.join(" ")));
        }
    }
    out
}
