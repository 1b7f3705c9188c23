//! `cipherlab encrypt`: a file or a pipe into the container (docs/format.md), with a key
//! file or a passphrase; or `--raw` legacy output. Also the options and steps that
//! `cipherlab decrypt` shares.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use cipherlab_seal::format::{self, Argon2Params};
use cipherlab_seal::output::{self, Output};
use cipherlab_seal::raw::{self, RawParams};
use cipherlab_seal::{CipherSpec, Error, KeyFile, SealOptions, Secret};
use zeroize::Zeroizing;

use crate::secret;

/// Options `encrypt` and `decrypt` share.
#[derive(clap::Args)]
pub struct Common {
    /// Input file; `-` or none reads standard input.
    pub input: Option<PathBuf>,
    /// Output file; `-` or none writes standard output. Written to a temporary file
    /// renamed into place at the end, so a failure leaves no partial file.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Replace the output if it exists.
    #[arg(short, long)]
    pub force: bool,
    /// Key file made by `cipherlab keygen`.
    #[arg(short = 'k', long, value_name = "FILE", conflicts_with_all = ["passphrase", "passphrase_file"])]
    pub key_file: Option<PathBuf>,
    /// Use a passphrase: from $CIPHERLAB_PASSPHRASE if set, else asked on the terminal.
    #[arg(short, long)]
    pub passphrase: bool,
    /// Read the passphrase from this file (its first line).
    #[arg(long, value_name = "FILE")]
    pub passphrase_file: Option<PathBuf>,
    /// Worker threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Catalogue provider (default: the fastest correct one).
    #[arg(long)]
    pub provider: Option<String>,
    /// Legacy raw mode: no container, no integrity; the cipher with --key and --iv as
    /// given, output byte for byte as `openssl enc -K -iv -nosalt` and Java's JCE.
    #[arg(long)]
    pub raw: bool,
    /// Raw mode: the key in hex. `ps` and shell history show it: prefer --key-hex-file
    /// (or a key file, --key-file).
    #[arg(
        long,
        value_name = "HEX",
        requires = "raw",
        conflicts_with_all = ["key_file", "key_hex_file"],
        value_parser = secret::from_arg
    )]
    pub key: Option<Zeroizing<String>>,
    /// Raw mode: read the key in hex from this file's first line; `-` reads it from
    /// standard input (then the input must be a file).
    #[arg(
        long,
        value_name = "FILE",
        requires = "raw",
        conflicts_with = "key_file"
    )]
    pub key_hex_file: Option<PathBuf>,
    /// Raw mode: the IV or nonce in hex (none for ECB and RC4).
    #[arg(long, value_name = "HEX", requires = "raw")]
    pub iv: Option<String>,
    /// Raw mode: no PKCS#7 padding for ECB and CBC (input must be whole blocks).
    #[arg(long, requires = "raw")]
    pub no_pad: bool,
}

/// Options of `cipherlab encrypt`.
#[derive(clap::Args)]
pub struct Args {
    /// Cipher: any AEAD of the catalogue (default: aes-256-gcm where the CPU has AES
    /// instructions, else chacha20-poly1305; a key file's own cipher with --key-file).
    /// With --raw, any catalogue cipher.
    #[arg(short, long)]
    cipher: Option<String>,
    #[command(flatten)]
    common: Common,
    /// Chunk size in KiB, a power of two from 1 to 16384.
    #[arg(long, default_value_t = 64, value_name = "KIB")]
    chunk_kib: u32,
    /// Argon2id memory in MiB (passphrases).
    #[arg(long, default_value_t = 64, value_name = "MIB")]
    argon2_memory: u32,
    /// Argon2id passes (passphrases).
    #[arg(long, default_value_t = 3)]
    argon2_passes: u32,
    /// Argon2id lanes (passphrases).
    #[arg(long, default_value_t = 4)]
    argon2_lanes: u8,
    /// Allow Argon2id memory and passes below the floor (19 MiB, 2 passes: OWASP's
    /// minimum). A stolen file's passphrase is then cheaper to guess.
    #[arg(long)]
    argon2_allow_weak: bool,
}

/// Passphrases shorter than this (in characters) get a warning.
const SHORT_PASSPHRASE: usize = 12;

/// Runs `cipherlab encrypt`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    Ok(report(encrypt(args)))
}

fn encrypt(args: &Args) -> Result<(), Error> {
    let c = &args.common;
    let cipher = args.cipher.as_deref().map(CipherSpec::parse).transpose()?;
    if c.raw {
        return run_raw(true, cipher, c);
    }
    let chunk_log2 = match args.chunk_kib {
        k if k.is_power_of_two() && k <= 16384 => k.trailing_zeros() as u8 + 10,
        k => {
            return Err(Error::Usage(format!(
                "--chunk-kib {k} is not a power of two from 1 to 16384"
            )));
        }
    };
    let opts = SealOptions {
        cipher,
        chunk_log2,
        argon2: Argon2Params {
            memory_kib: args.argon2_memory.saturating_mul(1024),
            passes: args.argon2_passes,
            lanes: args.argon2_lanes,
        },
        allow_weak_argon2: args.argon2_allow_weak,
        provider: c.provider.clone(),
        threads: c.threads,
        ..SealOptions::default()
    };
    if let Some(spec) = &cipher
        && !format::is_container_cipher(spec)
    {
        format::algorithm_id(spec)?; // the error lists the AEADs and mentions --raw
    }
    let creds = credentials(c, true)?;
    let secret = creds.secret();
    if let Secret::Passphrase(pw) = secret {
        opts.argon2.check()?;
        if !opts.argon2.at_least(&format::ARGON2_FLOOR) && opts.allow_weak_argon2 {
            eprintln!(
                "cipherlab: warning: Argon2id below the floor ({} MiB, {} passes): a stolen \
                 file's passphrase is cheaper to guess",
                format::ARGON2_FLOOR.memory_kib / 1024,
                format::ARGON2_FLOOR.passes
            );
        }
        let chars = String::from_utf8_lossy(pw).chars().count();
        if chars < SHORT_PASSPHRASE {
            eprintln!(
                "cipherlab: warning: the passphrase has {chars} characters; with fewer than \
                 {SHORT_PASSPHRASE} it may be guessed despite Argon2id -- prefer several random \
                 words"
            );
        }
    }
    run_container(c, |input, out, progress| {
        cipherlab_seal::encrypt_to(input, out, secret, &opts, progress).map(Done::from)
    })
}

/// A loaded key file or a passphrase read.
pub(crate) enum Credentials {
    Key(KeyFile),
    Passphrase(Zeroizing<Vec<u8>>),
}

impl Credentials {
    pub(crate) fn secret(&self) -> Secret<'_> {
        match self {
            Credentials::Key(k) => Secret::Key(k),
            Credentials::Passphrase(p) => Secret::Passphrase(p),
        }
    }
}

/// The passphrase, if not given otherwise (with `--passphrase`).
const PASSPHRASE_ENV: &str = "CIPHERLAB_PASSPHRASE";

/// Loads the key file or reads the passphrase, whichever `c` asks for.
pub(crate) fn credentials(c: &Common, confirm: bool) -> Result<Credentials, Error> {
    if let Some(path) = &c.key_file {
        secret::warn_if_others_can_read(path);
        return Ok(Credentials::Key(KeyFile::load(path)?));
    }
    let sources = secret::Sources {
        arg: None,
        file: c.passphrase_file.as_deref(),
        dash: secret::Dash::File,
        env: c.passphrase.then_some(PASSPHRASE_ENV),
    };
    let read = sources.read().map_err(|e| match e {
        secret::ReadError::Open(path, e) | secret::ReadError::Read(Some(path), e) => {
            Error::KeyFile {
                path,
                reason: format!("cannot read the passphrase file: {e}"),
            }
        }
        e => Error::Usage(format!("cannot read the passphrase: {e}")),
    })?;
    if let Some((p, _)) = read {
        return Ok(Credentials::Passphrase(non_empty(p)?));
    }
    if c.passphrase {
        let cannot = |e: std::io::Error| {
            Error::Usage(format!(
                "cannot ask for the passphrase on the terminal ({e}): set \
                 {PASSPHRASE_ENV} or use --passphrase-file"
            ))
        };
        let p = if confirm {
            match secret::ask_twice("Passphrase: ", "Repeat the passphrase: ").map_err(cannot)? {
                secret::Asked::Same(p) => p,
                secret::Asked::Differ => {
                    return Err(Error::Usage("the passphrases differ; try again".into()));
                }
            }
        } else {
            secret::ask("Passphrase: ").map_err(cannot)?
        };
        return Ok(Credentials::Passphrase(non_empty(Zeroizing::new(
            p.as_bytes().to_vec(),
        ))?));
    }
    Err(Error::Usage(
        "say how to get the key: --key-file FILE (see `cipherlab keygen`) or --passphrase".into(),
    ))
}

fn non_empty(p: Zeroizing<Vec<u8>>) -> Result<Zeroizing<Vec<u8>>, Error> {
    if p.is_empty() {
        Err(Error::Usage(
            "the passphrase is empty; choose a long one".into(),
        ))
    } else {
        Ok(p)
    }
}

/// What a run did, for the closing line on a terminal.
pub(crate) struct Done {
    bytes_out: u64,
    cipher: String,
    threads: usize,
}

impl From<cipherlab_seal::Summary> for Done {
    fn from(s: cipherlab_seal::Summary) -> Done {
        Done {
            bytes_out: s.bytes_out,
            cipher: s.header.cipher.to_string(),
            threads: s.threads,
        }
    }
}

/// The steps around a container run: input, safe output, progress, commit or discard.
pub(crate) fn run_container(
    c: &Common,
    work: impl FnOnce(
        &mut std::fs::File,
        &mut Output,
        Option<cipherlab_seal::Progress<'_>>,
    ) -> Result<Done, Error>,
) -> Result<(), Error> {
    let (mut input, size) = output::open_input(c.input.as_deref())?;
    let mut out = Output::open(c.output.as_deref(), c.force)?;
    let name = out.name();
    let bar = progress_bar(size);
    let tick = |n: u64| {
        if let Some(b) = &bar {
            b.set_position(n);
        }
    };
    let started = Instant::now();
    let result = work(&mut input, &mut out, Some(&tick));
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    match result {
        Ok(done) => {
            out.commit().map_err(|e| rename_disk_full(e, &name))?;
            if std::io::stderr().is_terminal() && done.bytes_out >= PROGRESS_FROM {
                let secs = started.elapsed().as_secs_f64();
                eprintln!(
                    "cipherlab: wrote {} bytes to {name} with {} in {secs:.2} s ({:.0} MiB/s, {} thread(s))",
                    done.bytes_out,
                    done.cipher,
                    done.bytes_out as f64 / secs.max(1e-9) / 1048576.0,
                    done.threads
                );
            }
            Ok(())
        }
        // Dropping `out` deletes the temporary file: nothing partial is left behind.
        Err(e) => Err(rename_disk_full(e, &name)),
    }
}

fn rename_disk_full(e: Error, name: &str) -> Error {
    match e {
        Error::DiskFull(_) => Error::DiskFull(name.to_string()),
        e => e,
    }
}

/// Inputs from this size on get a progress bar (when stderr is a terminal).
const PROGRESS_FROM: u64 = 64 << 20;

fn progress_bar(size: Option<u64>) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() || size.is_some_and(|s| s < PROGRESS_FROM) {
        return None;
    }
    let bar = match size {
        Some(s) => indicatif::ProgressBar::new(s),
        None => indicatif::ProgressBar::new_spinner(),
    };
    let template = if size.is_some() {
        "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}"
    } else {
        "{spinner} {bytes} {bytes_per_sec}"
    };
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    Some(bar)
}

/// The raw key in hex: `--key` (warned about), else `--key-hex-file`'s first line
/// (standard input for `-`, unless the input is read from there too).
fn hex_key(c: &Common) -> Result<Option<Zeroizing<String>>, Error> {
    let sources = secret::Sources {
        arg: c.key.as_ref().map(|value| secret::Arg {
            value,
            flag: "--key",
            instead: "--key-hex-file FILE or --key-file FILE",
        }),
        file: c.key_hex_file.as_deref(),
        dash: secret::Dash::Stdin {
            taken: output::is_std(c.input.as_deref()),
        },
        env: None,
    };
    let not_utf8 = || {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    };
    sources
        .read_text()
        .map(|r| r.map(|(k, _)| k))
        .map_err(|e| match e {
            secret::ReadError::StdinTaken => Error::Usage(
                "--key-hex-file - reads the key from standard input, so the input must be a file"
                    .into(),
            ),
            secret::ReadError::Open(p, e) => Error::io(format!("opening {}", p.display()), e),
            secret::ReadError::Read(Some(p), e) => Error::io(format!("reading {}", p.display()), e),
            secret::ReadError::Read(None, e) => Error::io("reading the key from standard input", e),
            secret::ReadError::NotUtf8(secret::Origin::File(p)) => {
                Error::io(format!("reading {}", p.display()), not_utf8())
            }
            secret::ReadError::NotUtf8(_) => {
                Error::io("reading the key from standard input", not_utf8())
            }
        })
}

/// `--raw`: the user's cipher, key and IV, streamed; warnings first.
pub(crate) fn run_raw(
    encrypting: bool,
    cipher: Option<CipherSpec>,
    c: &Common,
) -> Result<(), Error> {
    if c.passphrase || c.passphrase_file.is_some() {
        return Err(Error::Usage(
            "--raw takes the key itself (--key HEX or --key-file FILE), not a passphrase".into(),
        ));
    }
    let key_file = c.key_file.as_deref().map(KeyFile::load).transpose()?;
    if let (Some(s), Some(k)) = (&cipher, &key_file)
        && s.with_padding(cipherlab_seal::Padding::Pkcs7)
            != k.spec().with_padding(cipherlab_seal::Padding::Pkcs7)
    {
        // As the container path does: a key is for one cipher. Above all, a container's
        // key must not become the raw key of another cipher.
        return Err(Error::Usage(format!(
            "the key file is for {} but --cipher asks for {s}: a key serves one cipher (a \
             container's key above all must not become another cipher's raw key); drop \
             --cipher, or make a key for {s} with `cipherlab keygen --cipher {s} -o FILE`",
            k.spec()
        )));
    }
    let mut spec = match (cipher, &key_file) {
        (Some(s), _) => s,
        (None, Some(k)) => *k.spec(),
        (None, None) => {
            return Err(Error::Usage(
                "--raw needs --cipher (e.g. --cipher aes-128-cbc)".into(),
            ));
        }
    };
    if c.no_pad {
        spec = spec.with_padding(cipherlab_seal::Padding::None);
    }
    let hex_key = hex_key(c)?;
    let key = match (&hex_key, &key_file) {
        (Some(hex), _) => Zeroizing::new(
            hex::decode(hex.trim())
                .map_err(|_| Error::Usage("the raw key is not hexadecimal".into()))?,
        ),
        (None, Some(k)) => Zeroizing::new(k.key().to_vec()),
        (None, None) => {
            return Err(Error::Usage(format!(
                "--raw needs the key: --key-hex-file FILE, --key HEX ({} hex digits for {spec}) or --key-file FILE",
                2 * spec.key_len()
            )));
        }
    };
    let iv = match &c.iv {
        Some(hex) => {
            hex::decode(hex.trim()).map_err(|_| Error::Usage("--iv is not hexadecimal".into()))?
        }
        None => Vec::new(),
    };
    let params = RawParams::new(spec, &key, &iv, c.provider.clone())?;
    for w in raw::warnings(&spec) {
        eprintln!("cipherlab: warning: {w}");
    }
    run_container(c, |input, out, progress| {
        let n = if encrypting {
            raw::encrypt(input, &mut *out, &params, progress)?
        } else {
            raw::decrypt(input, &mut *out, &params, progress)?
        };
        Ok(Done {
            bytes_out: n,
            cipher: spec.to_string(),
            threads: 1,
        })
    })
}

/// Prints an error the way every cipherlab command does and gives its exit code.
pub(crate) fn report(r: Result<(), Error>) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cipherlab: error: {e}");
            crate::exit::status(e.kind())
        }
    }
}
