//! `cipherlab vectors`: the JSON-lines vector protocol of DESIGN.md.
//!
//! One request per line, one answer per line, in order. A request that cannot be served
//! gets `{"error": ...}` and the run goes on; only input that is not JSON makes the exit
//! code non-zero (after every line has been answered). The answers come from
//! [`cipherlab_platforms::vectors`], which the platform checks compare the runners with.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

pub use cipherlab_platforms::vectors::answer;

/// Options of `cipherlab vectors`.
#[derive(clap::Args)]
pub struct Args {
    /// Read requests from this file instead of standard input.
    #[arg(long, short)]
    input: Option<PathBuf>,
}

/// Runs the protocol from `args.input` or stdin to stdout.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let reader: Box<dyn BufRead> = match &args.input {
        Some(path) => Box::new(BufReader::new(
            File::open(path).with_context(|| format!("cannot open {}", path.display()))?,
        )),
        None => Box::new(io::stdin().lock()),
    };
    let mut out = BufWriter::new(io::stdout().lock());
    // Reading standard input, each answer goes out at once: a program may hold a
    // conversation with this one (a runner built on it), one line at a time.
    let conversation = args.input.is_none();
    let mut malformed = 0usize;
    for (n, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("reading line {}", n + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = answer(&line).unwrap_or_else(|err| {
            malformed += 1;
            err
        });
        serde_json::to_writer(&mut out, &reply)?;
        out.write_all(b"\n")?;
        if conversation {
            out.flush()?;
        }
    }
    out.flush()?;
    if malformed > 0 {
        eprintln!("cipherlab vectors: {malformed} line(s) were not JSON");
        // The input is not what the command reads.
        return Ok(crate::exit::status(crate::exit::Kind::Unreadable));
    }
    Ok(ExitCode::SUCCESS)
}
