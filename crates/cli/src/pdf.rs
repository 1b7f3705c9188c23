//! `cipherlab pdf`: PDF files and the PDF Standard Security Handler.
//!
//! Passwords come from a file, an environment variable or the terminal, never only from
//! the command line where `ps` shows them (`--password` and the like still work, for
//! scripts that accept that). `-` is standard input or output. Errors exit with the code
//! of their kind ([`cipherlab_pdf::Error::kind`]) in the table every cipherlab command
//! uses ([`crate::exit::code_of`]).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use cipherlab_pdf::info::Info;
use cipherlab_pdf::{Error, Limits, Protection, Staged};
use serde_json::{Value, json};
use zeroize::Zeroizing;

use crate::secret;

/// The input's password, if not given otherwise.
const PASSWORD_ENV: &str = "CIPHERLAB_PDF_PASSWORD";
/// `pdf encrypt`'s new user password, if not given otherwise.
const USER_PASSWORD_ENV: &str = "CIPHERLAB_PDF_USER_PASSWORD";
/// `pdf encrypt`'s new owner password, if not given otherwise.
const OWNER_PASSWORD_ENV: &str = "CIPHERLAB_PDF_OWNER_PASSWORD";

const EXIT_CODES: &str = "Exit codes: 0 done; 1 wrong or missing password, \
--require-authenticated not met, or a password given for a file that is not encrypted \
(decrypt; --allow-unencrypted copies it through); 2 usage; 3 not \
readable as a PDF (not a PDF, damaged beyond repair, unsupported encryption); 4 the output \
exists (use --force); 5 input/output error; 6 disk full; 7 the document cannot be kept \
whole (nothing written); 8 a limit against hostile input was hit (the message names the \
option that raises it).";

/// Options of `cipherlab pdf`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Version, objects and encryption of a PDF (V, R, key length, crypt filters,
    /// permissions, EncryptMetadata), whether it needs a password, and with a password
    /// whether that is the user or the owner password. For a lightweight-cipher wrapper:
    /// the payload, its cipher, and the same password checks.
    ///
    /// The password to check comes from --password-file (or --password), else
    /// $CIPHERLAB_PDF_PASSWORD (info never asks for one).
    #[command(after_help = EXIT_CODES)]
    Info(InfoArgs),
    /// Decrypt a PDF with its user or owner password and write it unencrypted.
    ///
    /// Standard security handler, R2 to R6; and cipherlab's lightweight-cipher wrappers
    /// (made by `pdf encrypt --cipher ascon-aead128` etc.), whose every object is
    /// authenticated before anything is written: a modified, damaged or truncated file is
    /// an error and writes nothing.
    ///
    /// The password comes from --password-file (or --password), else
    /// $CIPHERLAB_PDF_PASSWORD; without one, the empty user password is tried, and if it
    /// does not open the file the password is asked on the terminal. A file that the empty
    /// password opens is never called authenticated: anyone could have written it. A
    /// password given for a file that is not encrypted is refused (--allow-unencrypted).
    /// Where integrity matters, add --require-authenticated.
    ///
    /// A damaged file (wrong startxref, unreadable cross-reference section, truncated) is
    /// repaired when that gives the whole document; when part of the document cannot be
    /// read, nothing is written (exit 7). What is written is read back and checked to
    /// have the pages and objects of what was read.
    #[command(after_help = EXIT_CODES)]
    Decrypt(DecryptArgs),
    /// Encrypt a PDF with a user and an owner password.
    ///
    /// Standard security handler, which every PDF reader opens: aes-256 (V 5, R 6, AESV3;
    /// the default), aes-128 (V 4, R 4, AESV2; legacy: MD5-based password hashing),
    /// rc4-128 (V 2, R 3; weak, needs --allow-weak). Object streams and cross-reference
    /// streams are kept, so the output is about the size of the input.
    ///
    /// Lightweight ciphers (ascon-aead128, ascon-128, ascon-128a, ascon-80pq, xoodyak,
    /// isap-a-128a, isap-a-128, isap-k-128a, isap-k-128): every string and stream is
    /// encrypted and authenticated (docs/pdf-lwc.md); PDF readers cannot open that, so the
    /// output is a PDF 2.0 wrapper whose page says what it is, the encrypted document
    /// attached; `cipherlab pdf decrypt` opens it.
    ///
    /// The new passwords come from --user-password-file / --owner-password-file (or
    /// --user-password / --owner-password), else $CIPHERLAB_PDF_USER_PASSWORD /
    /// $CIPHERLAB_PDF_OWNER_PASSWORD, else they are asked on the terminal (twice). An
    /// encrypted input is decrypted first, with its password given as for `pdf decrypt`.
    ///
    /// A damaged input is repaired when that gives the whole document, else refused
    /// (exit 7). The output is read back and checked to have the pages and objects of the
    /// input before it is written, to a temporary file renamed into place.
    #[command(after_help = EXIT_CODES)]
    Encrypt(EncryptArgs),
}

/// Where an encrypted input's password comes from.
#[derive(clap::Args)]
struct InputPassword {
    /// Read the input's user or owner password from the first line of FILE (`-`:
    /// standard input, when the PDF does not come from there).
    #[arg(long, value_name = "FILE", conflicts_with = "password")]
    password_file: Option<PathBuf>,
    /// The input's user or owner password. Other users of the machine can read it in
    /// `ps` and it stays in the shell's history: prefer --password-file,
    /// $CIPHERLAB_PDF_PASSWORD or the prompt.
    #[arg(long, value_name = "P", value_parser = secret::from_arg)]
    password: Option<Zeroizing<String>>,
}

/// The limits against hostile input (docs/pdf.md).
#[derive(clap::Args)]
struct LimitArgs {
    /// Largest size one stream may decode to, in MiB (cross-reference and object streams,
    /// streams recompressed when encrypting): bounds the memory a decompression bomb
    /// can take.
    #[arg(long, value_name = "MIB", default_value_t = Limits::default().stream_bytes >> 20)]
    max_stream_mib: usize,
    /// Most objects in a document (cross-reference entries and objects in object streams).
    #[arg(long, value_name = "N", default_value_t = Limits::default().objects)]
    max_objects: usize,
    /// Most values (numbers, names, strings, ...) parsed out of a document's object
    /// streams, all together.
    #[arg(long, value_name = "N", default_value_t = Limits::default().values)]
    max_values: usize,
    /// Deepest nesting of arrays and dictionaries (at most 1024).
    #[arg(long, value_name = "N", default_value_t = Limits::default().depth)]
    max_depth: usize,
}

impl LimitArgs {
    fn limits(&self) -> Result<Limits, Error> {
        let l = Limits {
            stream_bytes: self.max_stream_mib.checked_mul(1 << 20).ok_or_else(|| {
                Error::Invalid(format!(
                    "--max-stream-mib {} is too large",
                    self.max_stream_mib
                ))
            })?,
            objects: self.max_objects,
            values: self.max_values,
            depth: self.max_depth,
        };
        l.check()?;
        Ok(l)
    }
}

#[derive(clap::Args)]
struct InfoArgs {
    /// The PDF file (`-`: standard input).
    file: PathBuf,
    #[command(flatten)]
    password: InputPassword,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    limits: LimitArgs,
}

#[derive(clap::Args)]
struct DecryptArgs {
    /// The encrypted PDF file (`-`: standard input).
    file: PathBuf,
    /// Where to write the decrypted PDF (`-`: standard output).
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    password: InputPassword,
    /// Replace OUTPUT if it exists.
    #[arg(short, long)]
    force: bool,
    /// Write nothing, and exit 1, unless the file is an authenticated lightweight-cipher
    /// PDF whose every object authenticated. A Standard-handler PDF (aes-256, aes-128,
    /// rc4) is encrypted but never authenticated: anyone can change it without the
    /// password, so a password that opens it proves nothing about its content.
    #[arg(long)]
    require_authenticated: bool,
    /// When a password is given (option, file or environment) and the file is not
    /// encrypted, rewrite it anyway. Without this, such a file is refused (exit 1, nothing
    /// written): a plain file where an encrypted one was expected is what someone without
    /// the password can put in its place.
    #[arg(long, conflicts_with = "require_authenticated")]
    allow_unencrypted: bool,
    #[command(flatten)]
    limits: LimitArgs,
}

#[derive(clap::Args)]
struct EncryptArgs {
    /// The PDF file to encrypt (`-`: standard input).
    file: PathBuf,
    /// Where to write the encrypted PDF (`-`: standard output).
    #[arg(short, long)]
    output: PathBuf,
    /// aes-256 (default), aes-128 (legacy: MD5-based password hashing, for readers older
    /// than Acrobat X), rc4-128 (weak; needs --allow-weak), or a lightweight cipher: ascon-aead128 (the default LWC), ascon-128, ascon-128a, ascon-80pq, xoodyak,
    /// isap-a-128a, isap-a-128, isap-k-128a, isap-k-128.
    #[arg(long, default_value = "aes-256")]
    cipher: String,
    /// Read the user password (the one that opens the file; may be empty: the file then
    /// opens without one, and the permissions apply) from the first line of FILE.
    #[arg(long, value_name = "FILE", conflicts_with = "user_password")]
    user_password_file: Option<PathBuf>,
    /// The user password. Other users can read it in `ps` and the shell's history:
    /// prefer --user-password-file, $CIPHERLAB_PDF_USER_PASSWORD or the prompt.
    #[arg(long, value_name = "U", value_parser = secret::from_arg)]
    user_password: Option<Zeroizing<String>>,
    /// Read the owner password (opens the file with every permission; must not be empty)
    /// from the first line of FILE.
    #[arg(long, value_name = "FILE", conflicts_with = "owner_password")]
    owner_password_file: Option<PathBuf>,
    /// The owner password. Other users can read it in `ps` and the shell's history:
    /// prefer --owner-password-file, $CIPHERLAB_PDF_OWNER_PASSWORD or the prompt.
    #[arg(long, value_name = "O", value_parser = secret::from_arg)]
    owner_password: Option<Zeroizing<String>>,
    /// What the user password allows: `all` (default), `none`, or a comma-separated list
    /// of print, modify, copy, annotate, fill-forms, extract-accessibility, assemble,
    /// print-high-quality; `-word` denies (`-modify,-copy`: all but those). Readers
    /// enforce permissions; encryption does not.
    #[arg(long, default_value = "all", value_name = "LIST")]
    permissions: String,
    /// Leave metadata streams (XMP) unencrypted, for search engines and catalogues
    /// (/EncryptMetadata false; aes-128 and aes-256 only).
    #[arg(long)]
    no_encrypt_metadata: bool,
    #[command(flatten)]
    password: InputPassword,
    /// Allow a weak cipher (rc4-128): only for readers too old for AES.
    #[arg(long)]
    allow_weak: bool,
    /// Replace OUTPUT if it exists.
    #[arg(short, long)]
    force: bool,
    #[command(flatten)]
    limits: LimitArgs,
}

/// Runs `cipherlab pdf`. An error names the input file; its exit code is its kind's
/// ([`crate::exit::code_of`]).
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let (file, r) = match &args.command {
        Command::Info(a) => (&a.file, info(a)),
        Command::Decrypt(a) => (&a.file, decrypt(a)),
        Command::Encrypt(a) => (&a.file, encrypt(a)),
    };
    r.with_context(|| shown(file))?;
    Ok(ExitCode::SUCCESS)
}

/// Whether `p` means standard input or output.
fn is_dash(p: &Path) -> bool {
    p.as_os_str() == "-"
}

/// `p` for messages.
fn shown(p: &Path) -> String {
    if is_dash(p) {
        "standard input".into()
    } else {
        p.display().to_string()
    }
}

/// The input file, or standard input for `-`.
fn read_input(path: &Path) -> Result<Vec<u8>, Error> {
    if is_dash(path) {
        let mut buf = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut buf)
            .map_err(|e| Error::io("reading", "standard input", e))?;
        return Ok(buf);
    }
    std::fs::read(path).map_err(|e| Error::io("reading", &path.display().to_string(), e))
}

/// Refuses an output that exists (before any work), unless `force` or standard output.
fn check_output(path: &Path, force: bool) -> Result<(), Error> {
    if !force && !is_dash(path) && path.exists() {
        return Err(Error::OutputExists(path.display().to_string()));
    }
    Ok(())
}

/// Stages `bytes` for `path`: written to its temporary file and, if it replaces a file,
/// synced (`cipherlab_pdf::stage_atomic`). The library calls this while it reads the
/// output back, so the disk works while the CPU checks. Standard output stages nothing:
/// what goes there cannot be taken back, so it is written only after the check
/// ([`put_output`]).
fn stage_output(path: &Path, bytes: &[u8], force: bool) -> Result<Option<Staged>, Error> {
    if is_dash(path) {
        return Ok(None);
    }
    cipherlab_pdf::stage_atomic(path, bytes, force).map(Some)
}

/// Puts a staged output in place, or writes `bytes` to standard output.
fn put_output(staged: Option<Staged>, bytes: &[u8]) -> Result<(), Error> {
    match staged {
        Some(s) => s.commit(),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(bytes)
                .and_then(|()| out.flush())
                .map_err(|e| Error::io("writing", "standard output", e))
        }
    }
}

/// Where the output went, for messages.
fn output_name(path: &Path) -> String {
    if is_dash(path) {
        "standard output".into()
    } else {
        path.display().to_string()
    }
}

/// A password from `file` or the command line (`given`, warned about; the two exclude
/// each other), else from the environment variable `env`; `None` if none of them has
/// one. A file's password is its first line (`-`: standard input's).
fn password_from(
    file: Option<&Path>,
    env: &str,
    given: Option<secret::Arg<'_>>,
    stdin_taken: bool,
    what: &str,
) -> Result<Option<Zeroizing<String>>, Error> {
    use secret::{Origin, ReadError};
    let reading = format!("reading the {what} from");
    let sources = secret::Sources {
        arg: given,
        file,
        dash: secret::Dash::Stdin { taken: stdin_taken },
        env: Some(env),
    };
    sources
        .read_text()
        .map(|r| r.map(|(p, _)| p))
        .map_err(|e| match e {
            ReadError::StdinTaken => Error::Invalid(format!(
                "the {what} file cannot be standard input when the PDF is read from there"
            )),
            ReadError::Open(p, e) | ReadError::Read(Some(p), e) => {
                Error::io(&reading, &p.display().to_string(), e)
            }
            ReadError::Read(None, e) => Error::io(&reading, "standard input", e),
            ReadError::NotUtf8(Origin::Env(name)) => {
                Error::Invalid(format!("${name} is not UTF-8"))
            }
            ReadError::NotUtf8(Origin::File(p)) => {
                Error::Invalid(format!("the {what} in {} is not UTF-8", shown(&p)))
            }
            ReadError::NotUtf8(Origin::Stdin | Origin::Arg) => Error::io(
                &reading,
                "standard input",
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "stream did not contain valid UTF-8",
                ),
            ),
        })
}

fn cannot_ask(e: std::io::Error) -> Error {
    Error::Invalid(format!("cannot ask for the password on the terminal: {e}"))
}

/// Asks for a password on the terminal; `None` when there is no terminal to ask on.
fn prompt(question: &str) -> Result<Option<Zeroizing<String>>, Error> {
    if !secret::can_ask() {
        return Ok(None);
    }
    secret::ask(question).map(Some).map_err(cannot_ask)
}

impl InputPassword {
    fn get(&self, stdin_taken: bool) -> Result<Option<Zeroizing<String>>, Error> {
        password_from(
            self.password_file.as_deref(),
            PASSWORD_ENV,
            self.password.as_ref().map(|value| secret::Arg {
                value,
                flag: "--password",
                instead: "--password-file FILE or $CIPHERLAB_PDF_PASSWORD",
            }),
            stdin_taken,
            "password",
        )
    }
}

/// Runs `work` with the input's password; when none was given and the file needs one,
/// asks for it on the terminal (if there is one) and runs `work` again. Also says whether
/// a password was given (an option, its file or the environment), which `pdf decrypt`
/// needs to know: a given password that opened nothing means the file is not what the
/// user expected.
fn with_password<T>(
    file: &Path,
    source: &InputPassword,
    work: impl Fn(Option<&str>) -> Result<T, Error>,
) -> Result<(T, bool), Error> {
    let given = source.get(is_dash(file))?;
    // The empty password given explicitly is what is tried without one.
    let was_given = given.as_ref().is_some_and(|p| !p.is_empty());
    let r = match work(given.as_deref().map(String::as_str)) {
        Err(Error::PasswordRequired) if given.is_none() => {
            match prompt(&format!("Password of {}: ", shown(file)))? {
                Some(p) => work(Some(&p)),
                None => Err(Error::PasswordRequired),
            }
        }
        r => r,
    };
    r.map(|t| (t, was_given))
}

/// A new password for `pdf encrypt`: from its file, variable or option, else asked twice.
fn new_password(
    file: Option<&Path>,
    env: &str,
    given: Option<secret::Arg<'_>>,
    stdin_taken: bool,
    which: &str,
) -> Result<Zeroizing<String>, Error> {
    let what = format!("{which} password");
    if let Some(p) = password_from(file, env, given, stdin_taken, &what)? {
        return Ok(p);
    }
    let flag = which.to_lowercase();
    if !secret::can_ask() {
        return Err(Error::Invalid(format!(
            "no {what}: give it with --{flag}-password-file FILE or ${env}, or run on a \
             terminal to be asked (--{flag}-password works too, but other users can see it \
             in ps)"
        )));
    }
    match secret::ask_twice(
        &format!("New {what} of the PDF: "),
        &format!("Repeat the {what}: "),
    )
    .map_err(cannot_ask)?
    {
        secret::Asked::Same(p) => Ok(p),
        secret::Asked::Differ => Err(Error::Invalid(format!("the {what}s differ; try again"))),
    }
}

fn info(a: &InfoArgs) -> anyhow::Result<()> {
    let limits = a.limits.limits()?;
    let buf = read_input(&a.file)?;
    let password = a.password.get(is_dash(&a.file))?;
    let info =
        cipherlab_pdf::info::info_with(&buf, password.as_deref().map(String::as_str), &limits)?;
    if a.json {
        let text = serde_json::to_string_pretty(&to_json(&a.file, &info))
            .map_err(|e| Error::Invalid(e.to_string()))?;
        println!("{text}");
    } else {
        print_text(&a.file, &info);
    }
    Ok(())
}

fn to_json(file: &Path, i: &Info) -> Value {
    let enc = i.encryption.as_ref().map(|e| {
        let perms: serde_json::Map<String, Value> = e
            .permissions
            .iter()
            .map(|(w, on)| ((*w).to_string(), Value::Bool(*on)))
            .collect();
        json!({
            "filter": "Standard",
            "V": e.v,
            "R": e.r,
            "Length": e.length,
            "crypt_filters": e.filters.iter().map(|f| json!({
                "name": f.name, "CFM": f.cfm, "Length": f.length, "AuthEvent": f.auth_event,
            })).collect::<Vec<_>>(),
            "StmF": e.stmf,
            "StrF": e.strf,
            "EFF": e.eff,
            "P": e.p,
            "permissions": perms,
            "EncryptMetadata": e.encrypt_metadata,
            "encrypt_dict_direct": e.direct,
            "needs_password": e.needs_password,
            "password": e.password,
            "perms_ok": e.perms_ok,
            "recovered_user_password": e.recovered_user_password.as_ref()
                .map(|p| String::from_utf8_lossy(p).into_owned()),
        })
    });
    let wrapper = i.wrapper.as_ref().map(|w| {
        json!({
            "in_wrapper": w.in_wrapper,
            "name": w.name,
            "payload_bytes": w.payload_bytes,
            "subtype": w.subtype,
            "version": w.version,
            "cipher": w.cipher,
            "CFM": w.cfm,
            "payload_pdf_version": w.payload_version,
            "P": w.p,
            "needs_password": w.needs_password,
            "authenticated": w.cipher.is_some() && w.needs_password,
            "password": w.password,
        })
    });
    json!({
        "file": shown(file),
        "version": i.version,
        "catalog_version": i.catalog_version,
        "objects": i.objects,
        "objects_in_object_streams": i.objects_in_streams,
        "xref_sections": i.xref_sections,
        "xref_stream": i.xref_stream,
        "xref_rebuilt": i.xref_rebuilt,
        "encrypted": enc.is_some(),
        "encryption": enc,
        "encrypted_payload": wrapper,
        "warnings": i.warnings,
    })
}

fn print_text(file: &Path, i: &Info) {
    println!("file: {}", shown(file));
    match &i.catalog_version {
        Some(cv) if *cv != i.version => println!("version: {} (catalog /Version {cv})", i.version),
        _ => println!("version: {}", i.version),
    }
    println!(
        "objects: {} ({} in object streams); {} cross-reference section{}{}",
        i.objects,
        i.objects_in_streams,
        i.xref_sections,
        if i.xref_sections == 1 { "" } else { "s" },
        if i.xref_stream {
            ", cross-reference stream"
        } else {
            ""
        }
    );
    if let Some(why) = &i.xref_rebuilt {
        println!("cross-reference table: rebuilt ({why})");
    }
    match &i.encryption {
        None if i.wrapper.as_ref().is_some_and(|w| !w.in_wrapper) => println!(
            "encryption: cipherlab's authenticated lightweight-cipher payload (/{}), taken out \
             of its wrapper",
            cipherlab_pdf::lwc::HANDLER
        ),
        None => println!("encryption: none"),
        Some(e) => {
            println!(
                "encryption: Standard security handler, V {}, R {}, Length {}{}",
                e.v,
                e.r,
                e.length,
                if e.direct {
                    " (direct /Encrypt dictionary)"
                } else {
                    ""
                }
            );
            for f in &e.filters {
                println!(
                    "  crypt filter /{}: CFM {}{}{}",
                    f.name,
                    f.cfm,
                    f.length
                        .map(|l| format!(", Length {l}"))
                        .unwrap_or_default(),
                    f.auth_event
                        .as_ref()
                        .map(|a| format!(", AuthEvent {a}"))
                        .unwrap_or_default()
                );
            }
            if let (Some(s), Some(t)) = (&e.stmf, &e.strf) {
                println!(
                    "  StmF /{s}, StrF /{t}{}",
                    e.eff
                        .as_ref()
                        .map(|f| format!(", EFF /{f}"))
                        .unwrap_or_default()
                );
            }
            let allowed: Vec<&str> = e.permissions.iter().filter(|p| p.1).map(|p| p.0).collect();
            let denied: Vec<&str> = e.permissions.iter().filter(|p| !p.1).map(|p| p.0).collect();
            println!(
                "  permissions (P {}): allowed: {}; denied: {}",
                e.p,
                if allowed.is_empty() {
                    "none".into()
                } else {
                    allowed.join(", ")
                },
                if denied.is_empty() {
                    "none".into()
                } else {
                    denied.join(", ")
                }
            );
            println!("  EncryptMetadata: {}", e.encrypt_metadata);
            println!(
                "  authenticated: no (the Standard handler encrypts but does not authenticate: \
                 the file can be changed without the password; `pdf decrypt \
                 --require-authenticated` refuses it)"
            );
            println!(
                "  password needed: {}",
                if e.needs_password {
                    "yes (the empty user password does not open it)"
                } else {
                    "no: it opens with the EMPTY user password (anyone can read it)"
                }
            );
            if let Some(p) = &e.password {
                println!("  the given password is the {p} password");
            }
            if let Some(u) = &e.recovered_user_password {
                println!(
                    "  user password (recovered from /O): {:?}",
                    String::from_utf8_lossy(u)
                );
            }
            if let Some(ok) = e.perms_ok {
                println!(
                    "  /Perms: {}",
                    if ok {
                        "matches /P"
                    } else {
                        "DOES NOT match /P (altered)"
                    }
                );
            }
        }
    }
    if let Some(w) = i.wrapper.as_ref().filter(|w| w.in_wrapper) {
        println!(
            "encrypted payload: this file is an unencrypted wrapper (ISO 32000-2 7.6.7) around \
             \"{}\" ({} bytes), cryptographic filter /{}{}",
            w.name,
            w.payload_bytes,
            w.subtype,
            w.version
                .as_ref()
                .map(|v| format!(" version {v}"))
                .unwrap_or_default()
        );
    }
    if let Some(w) = &i.wrapper {
        match (&w.cipher, &w.cfm) {
            (Some(c), Some(cfm)) => {
                println!(
                    "  cipher: {c} (/CFM /{cfm}), every string and stream sealed with a tag; \
                     keys from the passwords by the revision 6 algorithm; payload PDF {}",
                    w.payload_version.as_deref().unwrap_or("?")
                );
                if w.needs_password {
                    println!("  password needed: yes (the empty user password does not open it)");
                    println!(
                        "  authenticated: yes, for whoever holds a password: a file that \
                         opens and checks out was written by someone who knew one"
                    );
                } else {
                    println!(
                        "  password needed: no: it opens with the EMPTY user password, so anyone \
                         could have written it"
                    );
                    println!(
                        "  authenticated: NO (the tags are under keys anyone can recover; `pdf \
                         decrypt --require-authenticated` refuses it)"
                    );
                }
                if let Some(p) = &w.password {
                    println!("  the given password is the {p} password");
                }
                println!(
                    "  open it with: cipherlab pdf decrypt {} -o OUT.pdf --require-authenticated \
                     (the password is asked)",
                    shown(file)
                );
            }
            _ => println!("  cipherlab does not know this cryptographic filter"),
        }
    }
    for w in &i.warnings {
        println!("warning: {w}");
    }
}

fn decrypt(a: &DecryptArgs) -> anyhow::Result<()> {
    let limits = a.limits.limits()?;
    check_output(&a.output, a.force)?;
    let buf = read_input(&a.file)?;
    let ((d, staged), password_given) = with_password(&a.file, &a.password, |pw| {
        cipherlab_pdf::decrypt_staged(&buf, pw, &limits, |out| {
            stage_output(&a.output, out, a.force)
        })
    })?;
    // Any refusal below drops the staged file: nothing is put in place.
    let staged = staged?;
    let which = |au: &cipherlab_pdf::Auth| if au.owner { "owner" } else { "user" };
    let how = match (&d.auth, &d.protection) {
        (Some(au), Protection::Authenticated { cipher, .. }) => format!(
            "is an authenticated PDF ({} authenticated encryption): authenticated and \
             decrypted with the {} password ({} strings, {} streams, every one authenticated)",
            cipher.name(),
            which(au),
            d.strings,
            d.streams
        ),
        (Some(_), Protection::EmptyPassword { cipher, .. }) => format!(
            "is a lightweight-cipher PDF ({}) opened with the EMPTY user password: anyone could \
             have written it, so it is NOT authenticated; decrypted ({} strings, {} streams)",
            cipher.name(),
            d.strings,
            d.streams
        ),
        (Some(au), Protection::Standard { revision, .. }) => format!(
            "is a Standard-handler PDF (revision {revision}; encrypted, NOT authenticated: its \
             content could have been changed without the password): {} ({} strings, {} \
             streams)",
            if au.empty_password {
                "opened with the EMPTY user password: anyone could have written it".to_string()
            } else {
                format!("decrypted with the {} password", which(au))
            },
            d.strings,
            d.streams
        ),
        _ if password_given => "was NOT encrypted (the password given was not used); \
                                rewritten, as --allow-unencrypted asks"
            .to_string(),
        _ => "was not encrypted; rewritten".to_string(),
    };
    for w in &d.warnings {
        eprintln!("warning: {w}");
    }
    if password_given && d.auth.is_none() && !a.allow_unencrypted && !a.require_authenticated {
        // The user expected an encrypted file: a plain one (or a wrapper stripped of its
        // payload's link) in its place is what an attacker without the password can make.
        return Err(crate::exit::fail(
            crate::exit::Kind::Authentication,
            "a password was given, but the file is NOT encrypted: the password was not used \
             and nothing in the file is protected (an unencrypted file, or a wrapper whose \
             payload is no longer linked, may have been put in place of the encrypted one); \
             nothing was written. To copy unencrypted files through, add --allow-unencrypted",
        ));
    }
    if a.require_authenticated && !d.protection.authenticated() {
        return Err(crate::exit::fail(
            crate::exit::Kind::Authentication,
            format!(
                "{}; --require-authenticated: nothing was written",
                match &d.protection {
                    Protection::None => "not encrypted, so nothing in it is authenticated",
                    Protection::EmptyPassword { .. } =>
                        "the EMPTY user password opens this file: anyone could have written \
                         it, so nothing in it is authenticated",
                    _ => "a Standard-handler PDF: encrypted but not authenticated",
                }
            ),
        ));
    }
    put_output(staged, &d.bytes)?;
    eprintln!(
        "{} {how}; wrote {} ({} bytes{})",
        shown(&a.file),
        output_name(&a.output),
        d.bytes.len(),
        match (d.object_streams, d.xref_stream) {
            (true, _) => ", object streams and a cross-reference stream",
            (false, true) => ", cross-reference stream",
            _ => ", cross-reference table",
        }
    );
    Ok(())
}

/// What a file encrypted with an empty user password gives up: it opens for anyone, so
/// nothing in it can say who wrote it.
fn empty_user_password_gives_up(cipher: cipherlab_pdf::Cipher) -> String {
    let what = match cipher {
        cipherlab_pdf::Cipher::Lwc(_) => {
            "its authentication proves nothing about who wrote it: anyone can make a file \
             that opens the same way, and `pdf decrypt --require-authenticated` refuses it"
        }
        cipherlab_pdf::Cipher::Standard(_) => {
            "anyone can read it, and nothing in it says who wrote it"
        }
    };
    format!(
        "the user password is EMPTY: the file opens without a password, so {what}. That suits \
         a permissions-only file (readers enforce the permissions); to keep the content \
         private or to know who wrote it, give a user password"
    )
}

fn encrypt(a: &EncryptArgs) -> anyhow::Result<()> {
    use cipherlab_pdf::{Cipher, Options};
    let limits = a.limits.limits()?;
    let Some(cipher) = Cipher::parse(&a.cipher) else {
        return Err(Error::Invalid(format!(
            "unknown --cipher {:?}; the PDF ciphers are {} (aes-256 is the default)",
            a.cipher,
            Cipher::names().join(", ")
        ))
        .into());
    };
    // The library refuses a weak cipher without allow_weak; with it, say so.
    if let Cipher::Standard(std) = cipher
        && std.weak()
        && a.allow_weak
    {
        eprintln!(
            "warning: {} is weak (RC4 is broken): the file is protected against casual \
             readers only",
            std.name()
        );
    }
    let permissions = cipherlab_pdf::permissions::parse(&a.permissions)?;
    check_output(&a.output, a.force)?;
    let stdin_taken = is_dash(&a.file);
    let user = new_password(
        a.user_password_file.as_deref(),
        USER_PASSWORD_ENV,
        a.user_password.as_ref().map(|value| secret::Arg {
            value,
            flag: "--user-password",
            instead: "--user-password-file FILE or $CIPHERLAB_PDF_USER_PASSWORD",
        }),
        stdin_taken,
        "user",
    )?;
    let owner = new_password(
        a.owner_password_file.as_deref(),
        OWNER_PASSWORD_ENV,
        a.owner_password.as_ref().map(|value| secret::Arg {
            value,
            flag: "--owner-password",
            instead: "--owner-password-file FILE or $CIPHERLAB_PDF_OWNER_PASSWORD",
        }),
        stdin_taken || a.user_password_file.as_deref().is_some_and(is_dash),
        "owner",
    )?;
    if user.is_empty() {
        eprintln!("warning: {}", empty_user_password_gives_up(cipher));
    }
    let buf = read_input(&a.file)?;
    let ((e, staged), _) = with_password(&a.file, &a.password, |pw| {
        let opts = Options {
            cipher,
            user_password: &user,
            owner_password: &owner,
            permissions,
            encrypt_metadata: !a.no_encrypt_metadata,
            input_password: pw,
            allow_weak: a.allow_weak,
        };
        cipherlab_pdf::encrypt_staged(&buf, &opts, &limits, |out| {
            stage_output(&a.output, out, a.force)
        })
    })?;
    put_output(staged?, &e.bytes)?;
    for w in &e.warnings {
        eprintln!("warning: {w}");
    }
    let input = match &e.input_auth {
        None => String::new(),
        Some(au) => format!(
            " (decrypted first with its {} password)",
            if au.owner { "owner" } else { "user" }
        ),
    };
    let how = match cipher {
        Cipher::Standard(std) => {
            let (v, r) = std.v_r();
            format!("{} (V {v}, R {r})", std.name())
        }
        Cipher::Lwc(c) => format!(
            "{} (authenticated, /{} crypt filter /{})",
            c.name(),
            cipherlab_pdf::lwc::HANDLER,
            c.cfm()
        ),
    };
    let layout = match (e.object_streams, e.xref_stream) {
        (true, _) => ", object streams and a cross-reference stream",
        (false, true) => ", cross-reference stream",
        _ => ", cross-reference table",
    };
    let wrapped = match e.payload_bytes {
        Some(n) => format!(
            "; a PDF 2.0 wrapper around the {n}-byte encrypted document: readers show its cover \
             page, `cipherlab pdf decrypt` opens it"
        ),
        None => String::new(),
    };
    eprintln!(
        "{}{input} encrypted with {how}: {} strings, {} streams; wrote {} ({} bytes, {} \
         objects{layout}){wrapped}",
        shown(&a.file),
        e.strings,
        e.streams,
        output_name(&a.output),
        e.bytes.len(),
        e.objects,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::exit::{Kind, code};

    /// `pdf --help` states the exit codes of the one table (crates/cli/src/exit.rs).
    #[test]
    fn the_help_states_the_tables_codes() {
        for (kind, words) in [
            (Kind::Authentication, "wrong or missing password"),
            (Kind::Usage, "usage"),
            (Kind::Unreadable, "not readable as a PDF"),
            (Kind::OutputExists, "the output exists"),
            (Kind::Io, "input/output error"),
            (Kind::DiskFull, "disk full"),
            (Kind::Incomplete, "the document cannot be kept whole"),
            (Kind::Limit, "a limit against hostile input"),
        ] {
            let said = format!("; {} {words}", code(kind));
            let said = if code(kind) == 1 {
                format!("0 done{said}")
            } else {
                said
            };
            assert!(super::EXIT_CODES.contains(&said), "{said:?}");
        }
    }
}
