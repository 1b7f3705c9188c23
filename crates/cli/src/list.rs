//! `cipherlab list`: the catalogue -- every cipher with the file-features paper's Table 1
//! columns (structure, key sizes, block size, rounds, kind), its status and sizes, and
//! the hashes -- for people, or (`--json`) for programs.

use std::process::ExitCode;

use cipherlab_ciphers::{
    ALGORITHMS, Algorithm, AlgorithmId, CipherSpec, HASHES, HashAlgorithm, Kind, Mode, providers,
};
use serde_json::{Value, json};

/// Options of `cipherlab list`.
#[derive(clap::Args)]
pub struct Args {
    /// Print JSON (one array of objects) instead of a table.
    #[arg(long)]
    json: bool,
    /// Show which providers implement each algorithm (the default one first).
    #[arg(long)]
    providers: bool,
}

/// A representative spec of `a` (default key size; CBC for block ciphers) for sizes.
fn representative(a: &'static Algorithm) -> CipherSpec {
    let mode = (a.kind == Kind::Block).then_some(Mode::Cbc);
    CipherSpec::of(a, a.key_bits.default, mode)
}

/// Provider names for `spec`, the default first.
fn provider_names(spec: &CipherSpec) -> Vec<&'static str> {
    let mut names = providers::supporting(spec);
    if let Ok(default) = providers::default_for(spec) {
        names.sort_by_key(|n| *n != default.name());
        // A default split by message length (`ring+aws-lc`) goes first, before its parts.
        if !names.contains(&default.name()) {
            names.insert(0, default.name());
        }
    }
    names
}

fn kind_word(k: Kind) -> &'static str {
    match k {
        Kind::Block => "block",
        Kind::Stream => "stream",
        Kind::Aead => "aead",
    }
}

fn cipher_row(a: &'static Algorithm) -> Value {
    let spec = representative(a);
    let modes: Vec<&str> = if a.kind == Kind::Block {
        Mode::ALL
            .iter()
            .filter(|m| **m != Mode::Gcm || a.id == AlgorithmId::Aes)
            .map(|m| m.as_str())
            .collect()
    } else {
        Vec::new()
    };
    json!({
        "name": a.name, "title": a.title, "kind": kind_word(a.kind),
        "structure": a.structure.describe(), "key_bits": a.key_bits.describe(),
        "key_bytes": spec.key_len(), "block_bytes": a.block_bytes, "rounds": a.rounds,
        "nonce_bytes": spec.iv_len(), "tag_bytes": spec.tag_len(), "rate_bytes": a.block_bytes,
        "modes": modes, "status": a.status.as_str(), "source": a.source,
        "spec": a.reference, "aliases": a.aliases.iter().map(|x| x.name).collect::<Vec<_>>(),
        "providers": provider_names(&spec),
    })
}

fn hash_row(h: &HashAlgorithm) -> Value {
    json!({
        "name": h.name, "kind": h.kind.as_str(), "key_bytes": 0, "nonce_bytes": 0,
        "tag_bytes": h.output_len, "rate_bytes": h.rate, "permutation": h.permutation,
        "spec": h.reference, "status": h.status.as_str(), "providers": ["cipherlab"],
    })
}

/// Prints the catalogue.
#[allow(clippy::print_literal)] // headers share the rows' format string, so columns line up
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let ciphers: Vec<Value> = ALGORITHMS.iter().copied().map(cipher_row).collect();
    let hashes: Vec<Value> = HASHES.iter().map(hash_row).collect();
    if args.json {
        let all: Vec<&Value> = ciphers.iter().chain(&hashes).collect();
        println!("{}", serde_json::to_string_pretty(&all)?);
        return Ok(ExitCode::SUCCESS);
    }
    let s = |v: &Value, k: &str| match &v[k] {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => String::new(),
    };
    println!(
        "{:<18} {:<6} {:<32} {:>12} {:>5} {:>5} {:>4} {:<17} {:<7}{}",
        "CIPHER",
        "KIND",
        "STRUCTURE",
        "KEY BITS",
        "BLOCK",
        "IV/N",
        "TAG",
        "ROUNDS",
        "STATUS",
        if args.providers {
            "  PROVIDERS (default first)"
        } else {
            ""
        }
    );
    for c in &ciphers {
        let providers = if args.providers {
            let names: Vec<&str> = c["providers"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            format!("  {}", names.join(", "))
        } else {
            String::new()
        };
        println!(
            "{:<18} {:<6} {:<32} {:>12} {:>5} {:>5} {:>4} {:<17} {:<7}{providers}",
            s(c, "name"),
            s(c, "kind"),
            s(c, "structure"),
            s(c, "key_bits"),
            s(c, "block_bytes"),
            s(c, "nonce_bytes"),
            s(c, "tag_bytes"),
            s(c, "rounds"),
            s(c, "status"),
        );
    }
    println!(
        "\n{:<18} {:<6} {:>7} {:>5}  {:<14} {}",
        "HASH", "KIND", "OUT", "RATE", "PERMUTATION", "SPECIFICATION"
    );
    for h in &hashes {
        println!(
            "{:<18} {:<6} {:>7} {:>5}  {:<14} {}",
            s(h, "name"),
            s(h, "kind"),
            s(h, "tag_bytes"),
            s(h, "rate_bytes"),
            s(h, "permutation"),
            s(h, "spec")
        );
    }
    println!(
        "\nSizes in bytes, key sizes in bits. Block ciphers take a mode: -ecb -cbc -cfb -cfb8 -cfb1 -ofb -ctr\n\
         (and -gcm for AES), e.g. aes-256-gcm, 3des-168-cbc, blowfish-448-ecb, rc4-2048. BLOCK is the rate\n\
         for the sponge AEADs; IV/N is the IV (CBC shown) or nonce. Legacy and broken ciphers are for\n\
         measurement and old data. OpenSSL's spellings work too: des-ede3-cbc, bf-cbc, aes128, des3."
    );
    Ok(ExitCode::SUCCESS)
}
