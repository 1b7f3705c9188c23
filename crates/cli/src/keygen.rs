//! `cipherlab keygen`: a fresh random key from the OS RNG, in a key file (docs/format.md)
//! created with owner-only permissions (0600).

use std::path::PathBuf;
use std::process::ExitCode;

use cipherlab_seal::{CipherSpec, Error, KeyFile, default_cipher, format};

use crate::encrypt::report;

/// Options of `cipherlab keygen`.
#[derive(clap::Args)]
pub struct Args {
    /// The cipher the key is for (default: the container's default cipher here). Any
    /// catalogue cipher; the container takes AEADs, others serve `--raw`.
    #[arg(short, long)]
    cipher: Option<String>,
    /// The key file to write.
    #[arg(short, long)]
    output: PathBuf,
    /// Replace the key file if it exists (the old key is lost: files it encrypted can
    /// no longer be decrypted).
    #[arg(short, long)]
    force: bool,
}

/// Runs `cipherlab keygen`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    Ok(report(keygen(args)))
}

fn keygen(args: &Args) -> Result<(), Error> {
    let spec = match &args.cipher {
        Some(name) => CipherSpec::parse(name)?,
        None => default_cipher(),
    };
    KeyFile::generate(spec).save(&args.output, args.force)?;
    eprintln!(
        "cipherlab: wrote a {}-bit {spec} key to {} (mode 600){}",
        8 * spec.key_len(),
        args.output.display(),
        if format::is_container_cipher(&spec) {
            ""
        } else {
            "; not an AEAD, so it serves `--raw` only"
        }
    );
    Ok(())
}
