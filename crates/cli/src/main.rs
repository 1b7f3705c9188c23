//! `cipherlab`: implement, use and measure ciphers. See `cipherlab --help`.

#![forbid(unsafe_code)]

/// mimalloc instead of the C library's allocator: reading a PDF builds a tree of small
/// allocations per object (names, dictionaries, arrays) and frees it whole, and with
/// glibc's allocator that was about a fifth of `pdf encrypt`'s and `pdf decrypt`'s CPU time
/// (measured in docs/BENCHMARKS.md, "mimalloc"). Built without transparent huge pages
/// (`no_thp`): with them the kernel's compaction put up to 0.13 s of system time on some
/// runs of a 0.2 s command. Every timed operation of the lab runs in this process too, so
/// the Rust providers' figures are taken with it, all alike.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod analyze;
mod bench;
mod compare;
mod decrypt;
mod encrypt;
mod impl_check;
mod import;
mod interrupt;
mod keygen;
mod list;
mod pdf;
mod platforms;
mod report;
mod results;
mod secret;
mod vectors;

use std::process::ExitCode;

use cipherlab_cli::exit;
use clap::{Parser, Subcommand};

/// cipherlab: classic and lightweight ciphers behind one KAT-verified interface.
#[derive(Parser)]
#[command(name = "cipherlab", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the catalogue: every cipher with its metadata, sizes, status and providers.
    List(list::Args),
    /// Run test vectors: JSON lines in (stdin or a file), one JSON answer per line out.
    ///
    /// Each request names `alg` and `op` (encrypt, decrypt, hash) with hex fields, e.g.
    /// {"id":7,"alg":"ascon-aead128","op":"encrypt","key":"..","nonce":"..","ad":"..","pt":".."}
    /// answers {"id":7,"ct":"..","tag":".."}. A request that cannot be served answers
    /// {"error":".."} and the run goes on; the exit code is non-zero only when a line is not
    /// JSON at all.
    Vectors(vectors::Args),
    /// Make a key file: a random key for a cipher, readable by its owner only.
    Keygen(keygen::Args),
    /// Encrypt a file or a pipe into cipherlab's authenticated container (docs/format.md).
    ///
    /// With --key-file or --passphrase. Exit codes: 0 done, 1 authentication failed
    /// (wrong key or passphrase, modified or truncated file), 2 usage, 3 not a readable
    /// cipherlab file, 4 the output exists (use --force), 5 input/output error, 6 disk full.
    Encrypt(encrypt::Args),
    /// Decrypt a cipherlab container; plaintext is released chunk by chunk, each only
    /// after it verified. Exit codes as for encrypt.
    Decrypt(decrypt::Args),
    /// PDF files: `info` (encryption, permissions, passwords), `encrypt` and `decrypt`.
    Pdf(pdf::Args),
    /// The measuring lab: run the studies (all, or those named), store the results,
    /// print rankings and the papers' figures beside ours.
    ///
    /// `cipherlab bench --quick` runs every study at small sizes in a few minutes.
    Bench(bench::Args),
    /// Write the HTML report of stored runs (plots, rankings, tables, histograms, the
    /// ECB picture, machine and validity), and CSV/JSON exports of their measurements.
    ///
    /// `cipherlab report` reports the newest run to cipherlab-report.html.
    Report(report::Args),
    /// Compare two stored runs figure by figure: the ratio B/A of medians with its
    /// bootstrap interval and a verdict (faster, slower, no significant change), rank
    /// agreement per study, and machine differences.
    Compare(compare::Args),
    /// Byte statistics of any file or of standard input, as the `distribution` study
    /// reports them: histogram, entropy, chi-square, the 16 group means' deviation, and
    /// whether the bytes are evenly spread as a cipher's output should be.
    ///
    /// `cipherlab analyze secret.bin` or `... | cipherlab analyze -`; `--json` for tools.
    Analyze(analyze::Args),
    /// Import runs made elsewhere (SQLite files, JSON exports) into the results store,
    /// SQLite or PostgreSQL; importing a file twice adds nothing the second time.
    Import(import::Args),
    /// The runners of other language runtimes (platforms/): `doctor` (what is installed,
    /// and how to install the rest) and `check` (conformance against cipherlab).
    Platforms(platforms::Args),
    /// C implementations under the NIST LWC / SUPERCOP crypto_aead API: `check` builds
    /// one with every compiler and flag set and checks each build against the official KAT
    /// (docs/native.md). Loading a build runs its code: check only code you would run.
    Impl(impl_check::Args),
}

fn main() -> ExitCode {
    // A start of this executable asked to keep a CPU awake for a measuring parent spins
    // here and never returns (cipherlab_harness::keep_awake).
    cipherlab_harness::keep_awake::serve_if_asked();
    let cli = Cli::parse();
    interrupt::remove_outputs_on_signals();
    let result = match cli.command {
        Command::List(args) => list::run(&args),
        Command::Vectors(args) => vectors::run(&args),
        Command::Keygen(args) => keygen::run(&args),
        Command::Encrypt(args) => encrypt::run(&args),
        Command::Decrypt(args) => decrypt::run(&args),
        Command::Pdf(args) => pdf::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Report(args) => report::run(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Analyze(args) => analyze::run(&args),
        Command::Import(args) => import::run(&args),
        Command::Platforms(args) => platforms::run(&args),
        Command::Impl(args) => impl_check::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("cipherlab: error: {e:#}");
            ExitCode::from(exit::code_of(&e))
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// clap's own consistency checks over every subcommand: no two options share a short
    /// flag or a name, every default is a valid value.
    #[test]
    fn the_command_line_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
