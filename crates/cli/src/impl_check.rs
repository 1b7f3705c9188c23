//! `cipherlab impl check DIR --algorithm ALG`: builds C code written to the NIST LWC /
//! SUPERCOP `crypto_aead` or `crypto_hash` API with every compiler and flag set, loads
//! each build, and checks it against the algorithm's official KAT file (and an AEAD's
//! against forged tags) (`cipherlab-native`; docs/native.md).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use cipherlab_cli::exit::{self, Kind};
use cipherlab_native::{Api, Outcome, Report, Target};

/// Options of `cipherlab impl`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Build a C implementation with every compiler × flag set, load each build, and check
    /// it against the algorithm's official LWC KAT file (an AEAD's also against forged
    /// tags).
    ///
    /// `cipherlab impl check ./opt64 --algorithm ascon-aead128`
    ///
    /// DIR holds api.h (CRYPTO_KEYBYTES, CRYPTO_NPUBBYTES, CRYPTO_ABYTES) and .c files
    /// defining crypto_aead_encrypt and crypto_aead_decrypt with the NIST LWC signatures;
    /// or, for a hash, api.h with CRYPTO_BYTES (the digest length, no CRYPTO_KEYBYTES) and
    /// .c files defining crypto_hash. Every .c file of DIR is compiled with -I DIR, -shared -fPIC, by gcc and clang (where
    /// found) with -O2, -O3, -O3 -march=native, -Os and -O2 -fomit-frame-pointer
    /// -march=native, in a private temporary folder removed afterwards.
    ///
    /// SAFETY: loading a library runs its code in this process. Check only code you would
    /// run; nothing but DIR is built or loaded.
    ///
    /// Each build: agrees (every KAT vector both ways, every forged tag refused; a hash:
    /// every Msg gives its MD; with a quick 4 KiB timing), differs (the first vector's
    /// Count and the field: CT, PT, tag or MD), or build failed (the compiler's output is
    /// shown).
    ///
    /// Exit codes: 0 at least one build agrees; 10 none does; 2 usage (an unknown
    /// algorithm, api.h sizes or API that are not the algorithm's, a customizable XOF,
    /// no api.h or .c files);
    /// 3 the KAT file is missing or unreadable; 5 DIR cannot be read; 9 no C compiler.
    Check(CheckArgs),
}

#[derive(clap::Args)]
struct CheckArgs {
    /// The folder with api.h and the .c files.
    dir: PathBuf,
    /// The catalogue AEAD or hash it implements (`cipherlab list`): its KAT file is the one
    /// run. Without it, the algorithm is found: among those with api.h's sizes (a hash:
    /// digest length CRYPTO_BYTES), the one whose KAT a build agrees with.
    #[arg(long, short = 'a', value_name = "ALG")]
    algorithm: Option<String>,
    /// The KAT folder (default: $CIPHERLAB_KAT_DIR, else ../shared/kat beside the
    /// source tree).
    #[arg(long, value_name = "DIR")]
    kat_dir: Option<PathBuf>,
    /// One JSON object (the folder, the compilers and every build with its outcome).
    #[arg(long)]
    json: bool,
}

/// Runs `cipherlab impl`.
pub fn run(args: &Args) -> Result<ExitCode> {
    match &args.command {
        Command::Check(a) => check(a),
    }
}

fn check(a: &CheckArgs) -> Result<ExitCode> {
    let kat = cipherlab_native::kat_folder(a.kat_dir.as_deref());
    let report = match &a.algorithm {
        Some(alg) => {
            let target = Target::parse(alg).context("--algorithm")?;
            cipherlab_native::check_target(&a.dir, &target, &kat)
        }
        None => cipherlab_native::identify(&a.dir, &kat),
    }
    .with_context(|| format!("impl check {}", a.dir.display()))?;
    let spec = &report.algorithm;
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{}", table(&report));
    }
    if report.any_agrees() {
        Ok(ExitCode::SUCCESS)
    } else if a.json {
        Ok(exit::status(Kind::Nonconforming))
    } else {
        Err(exit::fail(
            Kind::Nonconforming,
            format!(
                "no build of {} agrees with the KAT of {spec}: not usable as {spec}",
                a.dir.display()
            ),
        ))
    }
}

/// The human view: one line per build, then the details of the failures.
pub fn table(r: &Report) -> String {
    let mut s = format!(
        "{} as {} (api.h: {}; sources sha256 {})\nKAT: {} ({} vectors)\n",
        r.dir.display(),
        r.algorithm,
        r.api.describe(),
        &r.source_hash,
        r.kat_file.display(),
        r.vectors
    );
    for c in &r.compilers {
        s += &format!("compiler: {} ({})\n", c.program, c.version);
    }
    s += "\n";
    let width = r
        .builds
        .iter()
        .map(|b| b.build.compiler.program.len() + 1 + b.build.flags.len())
        .max()
        .unwrap_or(0);
    let fastest = r
        .fastest()
        .map(|b| (&b.build.compiler.program, &b.build.flags));
    for b in &r.builds {
        let what = format!("{} {}", b.build.compiler.program, b.build.flags);
        let detail = match &b.outcome {
            Outcome::Agrees {
                vectors,
                forgeries,
                ns_4k,
            } => {
                let star = if fastest == Some((&b.build.compiler.program, &b.build.flags)) {
                    "  fastest"
                } else {
                    ""
                };
                match r.api {
                    Api::Aead(_) => format!(
                        "agrees    {vectors} vectors, {forgeries} forged tags refused, 4 KiB in {:.0} ns{star}",
                        ns_4k
                    ),
                    Api::Hash { .. } => {
                        format!("agrees    {vectors} vectors, 4 KiB in {ns_4k:.0} ns{star}")
                    }
                }
            }
            Outcome::Differs {
                count,
                field,
                detail,
            } => format!("differs   Count = {count}, {field}: {detail}"),
            Outcome::BuildFailed { .. } => "build failed (compiler output below)".to_string(),
            Outcome::LoadFailed { message } => format!("load failed: {message}"),
        };
        s += &format!("  {what:<width$}  {detail}\n");
    }
    for b in &r.builds {
        if let Outcome::BuildFailed { output } = &b.outcome {
            s += &format!(
                "\n{} {} failed:\n$ {}\n{}\n",
                b.build.compiler.program,
                b.build.flags,
                b.build.command,
                output.trim_end()
            );
        }
    }
    let agree = r.builds.iter().filter(|b| b.agrees()).count();
    s += &format!("\n{agree} of {} builds agree\n", r.builds.len());
    s
}
