//! `cipherlab pdf`: PDF files and the PDF Standard Security Handler.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use cipherlab_pdf::info::Info;
use serde_json::{Value, json};

/// Options of `cipherlab pdf`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Version, objects and encryption of a PDF (V, R, key length, crypt filters,
    /// permissions, EncryptMetadata), whether it needs a password, and with --password
    /// whether that is the user or the owner password. For a lightweight-cipher wrapper:
    /// the payload, its cipher, and the same password checks.
    Info(InfoArgs),
    /// Decrypt a PDF with its user or owner password and write it unencrypted.
    ///
    /// Standard security handler, R2 to R6; and cipherlab's lightweight-cipher wrappers
    /// (made by `pdf encrypt --cipher ascon-aead128` etc.), whose every object is
    /// authenticated before anything is written: a modified, damaged or truncated file is
    /// an error and writes nothing.
    Decrypt(DecryptArgs),
    /// Encrypt a PDF with a user and an owner password.
    ///
    /// Standard security handler, which every PDF reader opens: aes-256 (V 5, R 6, AESV3;
    /// the default), aes-128 (V 4, R 4, AESV2; legacy: MD5-based password hashing),
    /// rc4-128 (V 2, R 3; weak, needs --allow-weak). Object streams and cross-reference streams are kept, so the output is
    /// about the size of the input.
    ///
    /// Lightweight ciphers (ascon-aead128, ascon-128, ascon-128a, ascon-80pq, xoodyak,
    /// isap-a-128a, isap-a-128, isap-k-128a, isap-k-128): every string and stream is
    /// encrypted and authenticated (docs/pdf-lwc.md); PDF readers cannot open that, so the
    /// output is a PDF 2.0 wrapper whose page says what it is, the encrypted document
    /// attached; `cipherlab pdf decrypt` opens it.
    ///
    /// An encrypted input is decrypted first (give its password with --password). The
    /// output is written to a temporary file and renamed.
    Encrypt(EncryptArgs),
}

#[derive(clap::Args)]
struct InfoArgs {
    /// The PDF file.
    file: PathBuf,
    /// A password to check (user or owner).
    #[arg(long)]
    password: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct DecryptArgs {
    /// The encrypted PDF file.
    file: PathBuf,
    /// Where to write the decrypted PDF.
    #[arg(short, long)]
    output: PathBuf,
    /// The user or owner password (default: the empty user password).
    #[arg(long)]
    password: Option<String>,
    /// Replace OUTPUT if it exists.
    #[arg(long)]
    force: bool,
    /// Write nothing, and exit 1, unless the file is an authenticated lightweight-cipher
    /// PDF whose every object authenticated. A Standard-handler PDF (aes-256, aes-128,
    /// rc4) is encrypted but never authenticated: anyone can change it without the
    /// password, so a password that opens it proves nothing about its content.
    #[arg(long)]
    require_authenticated: bool,
}

#[derive(clap::Args)]
struct EncryptArgs {
    /// The PDF file to encrypt.
    file: PathBuf,
    /// Where to write the encrypted PDF.
    #[arg(short, long)]
    output: PathBuf,
    /// aes-256 (default), aes-128 (legacy: MD5-based password hashing, for readers older
    /// than Acrobat X), rc4-128 (weak; needs --allow-weak), or a lightweight
    /// cipher: ascon-aead128 (the default LWC), ascon-128, ascon-128a, ascon-80pq, xoodyak,
    /// isap-a-128a, isap-a-128, isap-k-128a, isap-k-128.
    #[arg(long, default_value = "aes-256")]
    cipher: String,
    /// The password that opens the file (may be empty: the file then opens without one,
    /// and the permissions apply).
    #[arg(long, value_name = "U")]
    user_password: String,
    /// The owner password: opens the file with every permission. Must not be empty.
    #[arg(long, value_name = "O")]
    owner_password: String,
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
    /// The user or owner password of an encrypted input (decrypted before encrypting).
    #[arg(long)]
    password: Option<String>,
    /// Allow a weak cipher (rc4-128): only for readers too old for AES.
    #[arg(long)]
    allow_weak: bool,
    /// Replace OUTPUT if it exists.
    #[arg(long)]
    force: bool,
}

/// Runs `cipherlab pdf`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    match &args.command {
        Command::Info(a) => info(a),
        Command::Decrypt(a) => decrypt(a),
        Command::Encrypt(a) => encrypt(a),
    }
}

fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

fn info(a: &InfoArgs) -> anyhow::Result<ExitCode> {
    let buf = read(&a.file)?;
    let info = cipherlab_pdf::info(&buf, a.password.as_deref())
        .with_context(|| a.file.display().to_string())?;
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&to_json(&a.file, &info))?
        );
    } else {
        print_text(&a.file, &info);
    }
    Ok(ExitCode::SUCCESS)
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
            "password": w.password,
        })
    });
    json!({
        "file": file.display().to_string(),
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
    println!("file: {}", file.display());
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
                    "no (the user password is empty)"
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
                    "  cipher: {c} (/CFM /{cfm}), every string and stream authenticated; keys \
                     from the passwords by the revision 6 algorithm; payload PDF {}",
                    w.payload_version.as_deref().unwrap_or("?")
                );
                println!(
                    "  password needed: {}",
                    if w.needs_password {
                        "yes (the empty user password does not open it)"
                    } else {
                        "no (the user password is empty)"
                    }
                );
                if let Some(p) = &w.password {
                    println!("  the given password is the {p} password");
                }
                println!(
                    "  open it with: cipherlab pdf decrypt {} -o OUT.pdf --password PASSWORD",
                    file.display()
                );
            }
            _ => println!("  cipherlab does not know this cryptographic filter"),
        }
    }
    for w in &i.warnings {
        println!("warning: {w}");
    }
}

fn decrypt(a: &DecryptArgs) -> anyhow::Result<ExitCode> {
    let buf = read(&a.file)?;
    if !a.force && a.output.exists() {
        anyhow::bail!("{} exists; use --force to overwrite it", a.output.display());
    }
    let d = cipherlab_pdf::decrypt(&buf, a.password.as_deref())
        .with_context(|| a.file.display().to_string())?;
    let which = |au: &cipherlab_pdf::Auth| if au.owner { "owner" } else { "user" };
    let how = match (&d.auth, &d.protection) {
        (Some(au), cipherlab_pdf::Protection::Authenticated { cipher, .. }) => format!(
            "is an authenticated PDF ({} authenticated encryption): authenticated and \
             decrypted with the {} password ({} strings, {} streams, every one authenticated)",
            cipher.name(),
            which(au),
            d.strings,
            d.streams
        ),
        (Some(au), cipherlab_pdf::Protection::Standard { revision, .. }) => format!(
            "is a Standard-handler PDF (revision {revision}; encrypted, NOT authenticated: its \
             content could have been changed without the password): decrypted with the {} \
             password ({} strings, {} streams)",
            which(au),
            d.strings,
            d.streams
        ),
        _ => "was not encrypted; rewritten".to_string(),
    };
    if a.require_authenticated && !d.protection.authenticated() {
        for w in &d.warnings {
            eprintln!("warning: {w}");
        }
        eprintln!(
            "cipherlab: error: {} {}; --require-authenticated: nothing was written",
            a.file.display(),
            match &d.protection {
                cipherlab_pdf::Protection::None =>
                    "is not encrypted, so nothing in it is authenticated",
                _ => "is a Standard-handler PDF: encrypted but not authenticated",
            }
        );
        return Ok(ExitCode::from(crate::exit::Code::Authentication as u8));
    }
    cipherlab_pdf::write_atomic(&a.output, &d.bytes, a.force)?;
    for w in &d.warnings {
        eprintln!("warning: {w}");
    }
    eprintln!(
        "{} {how}; wrote {} ({} bytes{})",
        a.file.display(),
        a.output.display(),
        d.bytes.len(),
        match (d.object_streams, d.xref_stream) {
            (true, _) => ", object streams and a cross-reference stream",
            (false, true) => ", cross-reference stream",
            _ => ", cross-reference table",
        }
    );
    Ok(ExitCode::SUCCESS)
}

fn encrypt(a: &EncryptArgs) -> anyhow::Result<ExitCode> {
    use cipherlab_pdf::{Cipher, Options};
    let Some(cipher) = Cipher::parse(&a.cipher) else {
        anyhow::bail!(
            "unknown --cipher {:?}; the PDF ciphers are {} (aes-256 is the default)",
            a.cipher,
            Cipher::names().join(", ")
        );
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
    let buf = read(&a.file)?;
    if !a.force && a.output.exists() {
        anyhow::bail!("{} exists; use --force to overwrite it", a.output.display());
    }
    let opts = Options {
        cipher,
        user_password: &a.user_password,
        owner_password: &a.owner_password,
        permissions,
        encrypt_metadata: !a.no_encrypt_metadata,
        input_password: a.password.as_deref(),
        allow_weak: a.allow_weak,
    };
    let e = cipherlab_pdf::encrypt(&buf, &opts).with_context(|| a.file.display().to_string())?;
    cipherlab_pdf::write_atomic(&a.output, &e.bytes, a.force)?;
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
        a.file.display(),
        e.strings,
        e.streams,
        a.output.display(),
        e.bytes.len(),
        e.objects,
    );
    Ok(ExitCode::SUCCESS)
}
