//! `cipherlab decrypt`: a container back to its plaintext, released chunk by chunk
//! only after each chunk verified; or `--raw` legacy input.

use std::process::ExitCode;

use cipherlab_seal::format::{ARGON2_OPEN_LIMIT, Argon2Params};
use cipherlab_seal::{CipherSpec, Error, SealOptions};

use crate::encrypt::{Common, Done, credentials, report, run_container, run_raw};

/// Options of `cipherlab decrypt`.
#[derive(clap::Args)]
pub struct Args {
    /// Raw mode only: the cipher (a container names its own cipher in its header).
    #[arg(short, long, requires = "raw")]
    cipher: Option<String>,
    #[command(flatten)]
    common: Common,
    /// The most Argon2id memory (MiB) a passphrase-protected file may ask for; the
    /// header cannot be authenticated before that work, so more is refused (exit code 8)
    /// unless you raise this for a file you trust.
    #[arg(long, value_name = "MIB", default_value_t = ARGON2_OPEN_LIMIT.memory_kib / 1024)]
    argon2_max_memory: u32,
    /// The most Argon2id passes a passphrase-protected file may ask for.
    #[arg(long, value_name = "N", default_value_t = ARGON2_OPEN_LIMIT.passes)]
    argon2_max_passes: u32,
}

/// Runs `cipherlab decrypt`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    Ok(report(decrypt(args)))
}

fn decrypt(args: &Args) -> Result<(), Error> {
    let c = &args.common;
    let cipher = args.cipher.as_deref().map(CipherSpec::parse).transpose()?;
    if c.raw {
        return run_raw(false, cipher, c);
    }
    let creds = credentials(c, false)?;
    let secret = creds.secret();
    let opts = SealOptions {
        argon2_limit: Argon2Params {
            memory_kib: args.argon2_max_memory.saturating_mul(1024),
            passes: args.argon2_max_passes,
            lanes: ARGON2_OPEN_LIMIT.lanes,
        },
        provider: c.provider.clone(),
        threads: c.threads,
        ..SealOptions::default()
    };
    run_container(c, |input, out, progress| {
        cipherlab_seal::decrypt_to(input, out, secret, &opts, progress).map(Done::from)
    })
}
