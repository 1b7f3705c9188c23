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
    /// whether that is the user or the owner password.
    Info(InfoArgs),
    /// Decrypt a PDF (Standard security handler, R2 to R6) with its user or owner
    /// password and write it unencrypted.
    Decrypt(DecryptArgs),
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
}

/// Runs `cipherlab pdf`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    match &args.command {
        Command::Info(a) => info(a),
        Command::Decrypt(a) => decrypt(a),
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
    cipherlab_pdf::write_atomic(&a.output, &d.bytes, a.force)?;
    for w in &d.warnings {
        eprintln!("warning: {w}");
    }
    let how = match &d.auth {
        None => "was not encrypted; rewritten".to_string(),
        Some(au) => format!(
            "decrypted with the {} password ({} strings, {} streams)",
            if au.owner { "owner" } else { "user" },
            d.strings,
            d.streams
        ),
    };
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
