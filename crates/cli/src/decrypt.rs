//! `cipherlab decrypt`: a container back to its plaintext, released chunk by chunk
//! only after each chunk verified; or `--raw` legacy input.

use std::process::ExitCode;

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
        provider: c.provider.clone(),
        threads: c.threads,
        ..SealOptions::default()
    };
    run_container(c, |input, out, progress| {
        cipherlab_seal::decrypt_to(input, out, secret, &opts, progress).map(Done::from)
    })
}
