//! Hashes and XOFs by name, for `cipherlab vectors`, with a uniform byte-slice interface
//! over the `digest` traits. (Ciphers and AEADs come from the catalogue,
//! `cipherlab-ciphers`.)

use cipherlab_lwc as lwc;
use lwc::digest::{Digest, ExtendableOutput, Update};

/// Error text returned to the requester.
pub type OpResult<T> = Result<T, String>;

/// A hash, XOF or customizable XOF: message, requested output length, customization.
pub type HashOp = fn(&[u8], Option<usize>, &[u8]) -> OpResult<Vec<u8>>;

/// Largest output a hash request may ask for (a guard against absurd `outlen`).
pub const MAX_OUTLEN: usize = 1 << 24;

fn fixed<D: Digest>(msg: &[u8], outlen: Option<usize>, custom: &[u8]) -> OpResult<Vec<u8>> {
    if !custom.is_empty() {
        return Err("this hash takes no customization string".into());
    }
    let out = D::digest(msg);
    match outlen {
        Some(n) if n != out.len() => Err(format!("this hash gives exactly {} bytes", out.len())),
        _ => Ok(out.to_vec()),
    }
}

fn xof<X: Default + Update + ExtendableOutput>(
    msg: &[u8],
    outlen: Option<usize>,
    custom: &[u8],
) -> OpResult<Vec<u8>> {
    if !custom.is_empty() {
        return Err("this XOF takes no customization string (use ascon-cxof128)".into());
    }
    let mut h = X::default();
    h.update(msg);
    let mut out = vec![0u8; xof_len(outlen)?];
    h.finalize_xof_into(&mut out);
    Ok(out)
}

fn xof_len(outlen: Option<usize>) -> OpResult<usize> {
    match outlen.unwrap_or(32) {
        n if n > MAX_OUTLEN => Err(format!("outlen {n} is above the limit of {MAX_OUTLEN}")),
        n => Ok(n),
    }
}

fn cxof(msg: &[u8], outlen: Option<usize>, custom: &[u8]) -> OpResult<Vec<u8>> {
    let mut h = lwc::AsconCxof128::new(custom).map_err(|e| e.to_string())?;
    h.update(msg);
    let mut out = vec![0u8; xof_len(outlen)?];
    h.finalize_xof_into(&mut out);
    Ok(out)
}

/// Resolves a hash, XOF or CXOF name (case-insensitive).
pub fn hash(name: &str) -> Option<HashOp> {
    Some(match name.to_ascii_lowercase().as_str() {
        "ascon-hash256" => fixed::<lwc::AsconHash256>,
        "ascon-xof128" => xof::<lwc::AsconXof128>,
        "ascon-cxof128" => cxof,
        "ascon-hash" => fixed::<lwc::AsconHash>,
        "ascon-hasha" => fixed::<lwc::AsconHasha>,
        "ascon-xof" => xof::<lwc::AsconXof>,
        "ascon-xofa" => xof::<lwc::AsconXofa>,
        "xoodyak-hash" => fixed::<lwc::XoodyakHash>,
        _ => return None,
    })
}

/// Every hash name `hash` knows.
pub fn hash_names() -> impl Iterator<Item = &'static str> {
    lwc::info::ALGORITHMS
        .iter()
        .filter(|a| a.kind != lwc::info::Kind::Aead)
        .map(|a| a.name)
}
