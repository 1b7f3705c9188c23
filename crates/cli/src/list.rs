//! `cipherlab list`: the algorithms and their sizes, for people or (`--json`) programs.

use std::process::ExitCode;

use cipherlab_lwc::info::{ALGORITHMS, Kind};

/// Options of `cipherlab list`.
#[derive(clap::Args)]
pub struct Args {
    /// Print JSON (one array of objects) instead of a table.
    #[arg(long)]
    json: bool,
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Aead => "aead",
        Kind::Hash => "hash",
        Kind::Xof => "xof",
        Kind::Cxof => "cxof",
    }
}

/// Prints the catalogue.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    if args.json {
        let rows: Vec<_> = ALGORITHMS
            .iter()
            .map(|a| {
                serde_json::json!({
                    "name": a.name, "kind": kind_name(a.kind), "key_bytes": a.key_len,
                    "nonce_bytes": a.nonce_len, "tag_bytes": a.tag_len, "rate_bytes": a.rate,
                    "permutation": a.permutation, "spec": a.spec,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{:<14} {:<5} {:>4} {:>6} {:>8} {:>5}  {:<38} {}",
        "NAME", "KIND", "KEY", "NONCE", "TAG/OUT", "RATE", "PERMUTATION", "SPECIFICATION"
    );
    for a in ALGORITHMS {
        let dash = |n: usize| {
            if n == 0 {
                "-".to_string()
            } else {
                n.to_string()
            }
        };
        println!(
            "{:<14} {:<5} {:>4} {:>6} {:>8} {:>5}  {:<38} {}",
            a.name,
            kind_name(a.kind),
            dash(a.key_len),
            dash(a.nonce_len),
            a.tag_len,
            a.rate,
            a.permutation,
            a.spec
        );
    }
    println!("\nSizes in bytes. RATE: bytes of data per permutation call in the bulk phase.");
    Ok(ExitCode::SUCCESS)
}
