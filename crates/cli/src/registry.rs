//! Names to operations: every algorithm `cipherlab vectors` can serve, with a uniform
//! byte-slice interface over the typed RustCrypto traits. (The cipher catalogue crate
//! will take this over when it exists; until then the lightweight algorithms live here.)

use cipherlab_lwc as lwc;
use lwc::aead::{AeadInOut, KeyInit, Nonce, Tag};
use lwc::digest::{Digest, ExtendableOutput, Update};

/// Error text returned to the requester; it never says *why* a tag failed.
pub type OpResult<T> = Result<T, String>;

/// An AEAD by name: seal returns (ciphertext, tag); open returns the plaintext.
pub struct AeadOps {
    /// Encrypts: key, nonce, ad, plaintext.
    pub seal: fn(&[u8], &[u8], &[u8], &[u8]) -> OpResult<(Vec<u8>, Vec<u8>)>,
    /// Decrypts and verifies: key, nonce, ad, ciphertext, tag.
    pub open: fn(&[u8], &[u8], &[u8], &[u8], &[u8]) -> OpResult<Vec<u8>>,
}

/// A hash, XOF or customizable XOF: message, requested output length, customization.
pub type HashOp = fn(&[u8], Option<usize>, &[u8]) -> OpResult<Vec<u8>>;

/// What a name resolves to.
pub enum Entry {
    /// Authenticated encryption.
    Aead(AeadOps),
    /// Hash or XOF.
    Hash(HashOp),
}

fn init<A: KeyInit + AeadInOut>(key: &[u8], nonce: &[u8]) -> OpResult<(A, Nonce<A>)> {
    let want = <A as lwc::aead::KeySizeUser>::key_size();
    let cipher = A::new_from_slice(key)
        .map_err(|_| format!("key must be {want} bytes, got {}", key.len()))?;
    let nonce = Nonce::<A>::try_from(nonce).map_err(|_| {
        format!(
            "nonce must be {} bytes, got {}",
            Nonce::<A>::default().len(),
            nonce.len()
        )
    })?;
    Ok((cipher, nonce))
}

fn seal<A: KeyInit + AeadInOut>(
    key: &[u8],
    nonce: &[u8],
    ad: &[u8],
    pt: &[u8],
) -> OpResult<(Vec<u8>, Vec<u8>)> {
    let (cipher, nonce) = init::<A>(key, nonce)?;
    let mut buf = pt.to_vec();
    let tag = cipher
        .encrypt_inout_detached(&nonce, ad, buf.as_mut_slice().into())
        .map_err(|_| "message too long for this algorithm".to_string())?;
    Ok((buf, tag.to_vec()))
}

fn open<A: KeyInit + AeadInOut>(
    key: &[u8],
    nonce: &[u8],
    ad: &[u8],
    ct: &[u8],
    tag: &[u8],
) -> OpResult<Vec<u8>> {
    let (cipher, nonce) = init::<A>(key, nonce)?;
    let tag = Tag::<A>::try_from(tag).map_err(|_| {
        format!(
            "tag must be {} bytes, got {}",
            Tag::<A>::default().len(),
            tag.len()
        )
    })?;
    let mut buf = ct.to_vec();
    cipher
        .decrypt_inout_detached(&nonce, ad, buf.as_mut_slice().into(), &tag)
        .map_err(|_| "authentication failed".to_string())?;
    Ok(buf)
}

const fn aead<A: KeyInit + AeadInOut>() -> Entry {
    Entry::Aead(AeadOps {
        seal: seal::<A>,
        open: open::<A>,
    })
}

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

/// Resolves a command-line algorithm name (case-insensitive).
pub fn lookup(name: &str) -> Option<Entry> {
    Some(match name.to_ascii_lowercase().as_str() {
        "ascon-aead128" => aead::<lwc::AsconAead128>(),
        "ascon-128" => aead::<lwc::Ascon128>(),
        "ascon-128a" => aead::<lwc::Ascon128a>(),
        "ascon-80pq" => aead::<lwc::Ascon80pq>(),
        "xoodyak" => aead::<lwc::Xoodyak>(),
        "isap-a-128a" => aead::<lwc::IsapA128a>(),
        "isap-a-128" => aead::<lwc::IsapA128>(),
        "isap-k-128a" => aead::<lwc::IsapK128a>(),
        "isap-k-128" => aead::<lwc::IsapK128>(),
        "ascon-hash256" => Entry::Hash(fixed::<lwc::AsconHash256>),
        "ascon-xof128" => Entry::Hash(xof::<lwc::AsconXof128>),
        "ascon-cxof128" => Entry::Hash(cxof),
        "ascon-hash" => Entry::Hash(fixed::<lwc::AsconHash>),
        "ascon-hasha" => Entry::Hash(fixed::<lwc::AsconHasha>),
        "ascon-xof" => Entry::Hash(xof::<lwc::AsconXof>),
        "ascon-xofa" => Entry::Hash(xof::<lwc::AsconXofa>),
        "xoodyak-hash" => Entry::Hash(fixed::<lwc::XoodyakHash>),
        _ => return None,
    })
}

/// Every name `lookup` knows, for error messages.
pub fn names() -> impl Iterator<Item = &'static str> {
    lwc::info::ALGORITHMS.iter().map(|a| a.name)
}
