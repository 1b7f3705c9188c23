//! Writes one file of every corpus kind, to look at or to feed other tools:
//!
//! ```sh
//! cargo run --release -p cipherlab-bench --example write_corpus -- DIR [SIZE] [SEED]
//! ```

use std::process::ExitCode;

use cipherlab_bench::corpus::{self, DataType};

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().ok_or("usage: write_corpus DIR [SIZE] [SEED]")?;
    let size: u64 = args
        .next()
        .map_or(Ok(1 << 20), |s| s.parse())
        .map_err(|e| format!("SIZE: {e}"))?;
    let seed: u64 = args
        .next()
        .map_or(Ok(1), |s| s.parse())
        .map_err(|e| format!("SEED: {e}"))?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("{dir}: {e}"))?;
    for kind in DataType::ALL {
        let path = std::path::Path::new(&dir).join(format!("{}.{}", kind.name(), kind.extension()));
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?,
        );
        corpus::write(kind, size, seed, &mut f).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("{} ({size} bytes): {}", path.display(), kind.description());
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
