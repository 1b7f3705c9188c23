//! Passwords, in one place: how a password becomes bytes (PDFDocEncoding for revisions
//! 2-4, SASLprep'd UTF-8 for 5 and 6), the key and check algorithms of ISO 32000-2 §7.6.4
//! that read them (Algorithms 2, 2.A, 2.B, 4-7: [`Handler::authenticate`]) and that write
//! them (Algorithms 3, 5, 8-10: for [`crate::standard`] and [`crate::lwc::keys`], whose
//! version-2 domain separation is built on `sasl_forms` and `saslprep`). SASLprep
//! comes from `stringprep`, SHA-2 from `sha2`. Every byte
//! string derived from a password is wiped when dropped.
//!
//! The library's API takes passwords as borrowed `&str` ([`crate::Options`],
//! [`crate::decrypt()`], [`crate::phases::unlock`]) rather than a secret type of its own: the
//! caller owns the one copy (the CLI holds it in a `Zeroizing<String>` from parsing on), the
//! library never keeps one beyond a call, and each byte string it derives is wiped here. A
//! wrapper type would add a conversion at every call without removing a copy.

use aes::Aes256;
use cipher::array::Array;
use cipher::{BlockCipherDecrypt, KeyInit};
use md5::{Digest, Md5};
use sha2::{Sha256, Sha384, Sha512};
use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::security::{
    Auth, EncryptDict, Handler, aes_cbc_decrypt, aes_cbc_encrypt, aes128_cbc_encrypt, aes256_block,
    md5, rc4,
};
use crate::{par, random};

/// The 32-byte padding string of Algorithm 2 step (a).
pub const PAD: [u8; 32] = [
    0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
    0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
];

fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// Pads or truncates a password to 32 bytes (Algorithm 2 step a).
pub(crate) fn pad_password(pw: &[u8]) -> Zeroizing<[u8; 32]> {
    let mut out = Zeroizing::new(PAD);
    let n = pw.len().min(32);
    out[..n].copy_from_slice(&pw[..n]);
    out[n..].copy_from_slice(&PAD[..32 - n]);
    out
}

/// Algorithm 2: the file key from a (user) password, R2-R4.
pub(crate) fn file_key_r4(e: &EncryptDict, id0: &[u8], pw: &[u8]) -> Zeroizing<Vec<u8>> {
    let n = e.key_len();
    let mut h = Md5::new();
    h.update(*pad_password(pw));
    h.update(&e.o[..32]);
    h.update(e.p.to_le_bytes());
    h.update(id0);
    if e.r >= 4 && !e.encrypt_metadata {
        h.update([0xff; 4]);
    }
    let mut k = Zeroizing::new(<[u8; 16]>::from(h.finalize()));
    if e.r >= 3 {
        for _ in 0..50 {
            *k = md5(&[&k[..n]]);
        }
    }
    Zeroizing::new(k[..n].to_vec())
}

/// Algorithms 4 and 5: the /U value a key gives (first 16 bytes compared for R3+).
fn user_check_r4(e: &EncryptDict, id0: &[u8], key: &[u8]) -> bool {
    if e.r == 2 {
        let mut u = PAD;
        rc4(key, &mut u);
        return e.u.len() >= 32 && u[..] == e.u[..32];
    }
    let mut x = md5(&[&PAD, id0]);
    rc4(key, &mut x);
    for i in 1..=19u8 {
        let k = Zeroizing::new(key.iter().map(|b| b ^ i).collect::<Vec<u8>>());
        rc4(&k, &mut x);
    }
    x[..] == e.u[..16]
}

/// Algorithm 7 (run as Algorithm 3 backwards): the padded user password from /O and an
/// owner password, R2-R4.
fn user_password_from_owner(e: &EncryptDict, owner_pw: &[u8]) -> Zeroizing<[u8; 32]> {
    let n = if e.r == 2 { 5 } else { e.key_len() };
    let mut k = Zeroizing::new(md5(&[&pad_password(owner_pw)[..]]));
    if e.r >= 3 {
        for _ in 0..50 {
            *k = md5(&[&k[..]]);
        }
    }
    let key = &k[..n];
    let mut out = Zeroizing::new([0u8; 32]);
    out.copy_from_slice(&e.o[..32]);
    if e.r == 2 {
        rc4(key, &mut out[..]);
    } else {
        for i in (0..=19u8).rev() {
            let ki = Zeroizing::new(key.iter().map(|b| b ^ i).collect::<Vec<u8>>());
            rc4(&ki, &mut out[..]);
        }
    }
    out
}

/// Algorithm 2.B (R6): the hash of a password with a salt and (for the owner) /U.
/// R5 (Adobe extension level 3) uses plain SHA-256.
pub(crate) fn hash_r6(r: i64, pw: &[u8], salt: &[u8], udata: &[u8]) -> [u8; 32] {
    let k0 = sha256(&[pw, salt, udata]);
    if r == 5 {
        return k0;
    }
    // K and K1 are derived from the password: wiped when dropped; K1 reuses one buffer.
    let mut k = Zeroizing::new(Vec::with_capacity(64));
    k.extend_from_slice(&k0);
    let mut k1 = Zeroizing::new(Vec::with_capacity(64 * (pw.len() + 64 + udata.len())));
    let mut round = 0u32;
    loop {
        k1.clear();
        for _ in 0..64 {
            k1.extend_from_slice(pw);
            k1.extend_from_slice(&k);
            k1.extend_from_slice(udata);
        }
        aes128_cbc_encrypt(&k[..16], &k[16..32], &mut k1);
        let sum: u32 = k1[..16].iter().map(|&b| u32::from(b)).sum();
        k.clear();
        match sum % 3 {
            0 => k.extend_from_slice(&Sha256::digest(&k1[..])),
            1 => k.extend_from_slice(&Sha384::digest(&k1[..])),
            _ => k.extend_from_slice(&Sha512::digest(&k1[..])),
        }
        let last = u32::from(k1[k1.len() - 1]);
        round += 1;
        if round >= 64 && last <= round - 32 {
            break;
        }
        if round > 10_000 {
            break; // cannot happen (last <= 255); a bound for the reader's peace of mind
        }
    }
    let mut out = [0u8; 32];
    out.copy_from_slice(&k[..32]);
    out
}

/// PDFDocEncoding's bytes 0x18-0x1F and 0x80-0xA0 (ISO 32000-2 Annex D.2).
fn pdfdoc_special(c: u32) -> Option<u8> {
    const HIGH: [u32; 33] = [
        0x2022, 0x2020, 0x2021, 0x2026, 0x2014, 0x2013, 0x0192, 0x2044, 0x2039, 0x203A, 0x2212,
        0x2030, 0x201E, 0x201C, 0x201D, 0x2018, 0x2019, 0x201A, 0x2122, 0xFB01, 0xFB02, 0x0141,
        0x0152, 0x0160, 0x0178, 0x017D, 0x0131, 0x0142, 0x0153, 0x0161, 0x017E, 0xFFFF, 0x20AC,
    ];
    const LOW: [u32; 8] = [
        0x02D8, 0x02C7, 0x02C6, 0x02D9, 0x02DD, 0x02DB, 0x02DA, 0x02DC,
    ];
    if let Some(i) = HIGH.iter().position(|&u| u == c) {
        return Some(0x80 + i as u8);
    }
    LOW.iter().position(|&u| u == c).map(|i| 0x18 + i as u8)
}

/// Maps a password to PDFDocEncoding bytes for R2-R4 (ASCII and Latin-1 map directly);
/// `None` if a character has no PDFDocEncoding byte.
pub(crate) fn pdfdoc_bytes(pw: &str) -> Option<Zeroizing<Vec<u8>>> {
    pw.chars()
        .map(|c| {
            let c = c as u32;
            if c < 0x80 || (0xa1..=0xff).contains(&c) {
                Some(c as u8)
            } else {
                pdfdoc_special(c)
            }
        })
        .collect::<Option<Vec<u8>>>()
        .map(Zeroizing::new)
}

/// The forms a password may have been written in where revisions 5 and 6 (and the LWC
/// payload) use it, best first: SASLprep'd UTF-8 (what writers use; RFC 4013) and the
/// bytes as given (what some writers use), without repeats.
pub(crate) fn sasl_forms(pw: &str) -> Vec<Zeroizing<Vec<u8>>> {
    let mut out = Vec::new();
    if let Ok(p) = stringprep::saslprep(pw) {
        out.push(Zeroizing::new(p.into_owned().into_bytes()));
    }
    out.push(Zeroizing::new(pw.as_bytes().to_vec()));
    out.dedup();
    out
}

/// `pw` SASLprep'd (RFC 4013) for writing, as PDF 2.0 asks of revision 6 passwords; an
/// error naming the `which` password if SASLprep rejects it.
pub(crate) fn saslprep(pw: &str, which: &str) -> Result<Zeroizing<String>> {
    stringprep::saslprep(pw)
        .map(|p| Zeroizing::new(p.into_owned()))
        .map_err(|e| {
            Error::Invalid(format!(
                "the {which} password cannot be used: SASLprep (RFC 4013), which PDF 2.0 \
                 asks of revision 6 passwords, rejects it ({}); avoid control and unassigned \
                 characters",
                // Escaped: a control character printed raw could act on the terminal.
                e.to_string().escape_debug()
            ))
        })
}

/// The byte strings to try for `pw` at revision `r`, best first.
fn candidates(r: i64, pw: &str) -> Vec<Zeroizing<Vec<u8>>> {
    let mut out = Vec::new();
    if r >= 5 {
        out.extend(sasl_forms(pw).into_iter().map(|b| cut_127(&b)));
    } else {
        out.extend(pdfdoc_bytes(pw));
        out.push(Zeroizing::new(pw.as_bytes().to_vec()));
    }
    out.dedup();
    out
}

/// The first 127 bytes of a password, all that revisions 5 and 6 use (ISO 32000-2
/// §7.6.4.3.3).
pub(crate) fn cut_127(b: &[u8]) -> Zeroizing<Vec<u8>> {
    Zeroizing::new(b[..b.len().min(127)].to_vec())
}

/// A password as revision 6 hashes it: SASLprep'd (RFC 4013) UTF-8, at most 127 bytes
/// (ISO 32000-2 §7.6.4.3.3); a longer one is cut, with a warning, since every byte past
/// the 127th is then ignored by every reader.
pub(crate) fn r6_password(
    pw: &str,
    which: &str,
    warnings: &mut Vec<String>,
) -> Result<Zeroizing<Vec<u8>>> {
    let prepped = saslprep(pw, which)?;
    let b = prepped.as_bytes();
    if b.len() > 127 {
        warnings.push(format!(
            "the {which} password is {} bytes long (UTF-8, after SASLprep); aes-256 (revision \
             6) uses only its first 127: any password that starts with the same 127 bytes \
             opens the file",
            b.len()
        ));
    }
    Ok(cut_127(b))
}

/// /U, /UE, /O, /OE and /Perms of revision 6.
pub(crate) struct R6Entries {
    pub u: [u8; 48],
    pub ue: [u8; 32],
    pub o: [u8; 48],
    pub oe: [u8; 32],
    pub perms: [u8; 16],
}

/// Algorithms 8, 9 and 10: the entries that let `user` and `owner` (prepared with
/// [`r6_password`]) unwrap `file_key`, and /Perms binding `p` and EncryptMetadata.
pub(crate) fn r6_entries(
    user: &[u8],
    owner: &[u8],
    file_key: &[u8; 32],
    p: i32,
    encrypt_metadata: bool,
) -> Result<R6Entries> {
    // Algorithm 8: 8 bytes of validation salt and 8 of key salt for the user password.
    // The two hashes are independent, and so are the owner's two (which need /U): each
    // pair runs on two threads.
    let salts: [u8; 16] = random::bytes()?;
    let (check, ikey) = par::join(
        || hash_r6(6, user, &salts[..8], &[]),
        || Zeroizing::new(hash_r6(6, user, &salts[8..], &[])),
    );
    let mut u = [0u8; 48];
    u[..32].copy_from_slice(&check);
    u[32..].copy_from_slice(&salts);
    let mut ue = *file_key;
    aes_cbc_encrypt(&ikey[..], &[0u8; 16], &mut ue)?;
    // Algorithm 9: the same for the owner password, with /U mixed in.
    let salts: [u8; 16] = random::bytes()?;
    let (check, ikey) = par::join(
        || hash_r6(6, owner, &salts[..8], &u),
        || Zeroizing::new(hash_r6(6, owner, &salts[8..], &u)),
    );
    let mut o = [0u8; 48];
    o[..32].copy_from_slice(&check);
    o[32..].copy_from_slice(&salts);
    let mut oe = *file_key;
    aes_cbc_encrypt(&ikey[..], &[0u8; 16], &mut oe)?;
    // Algorithm 10: /Perms = AES-256-ECB(P, 0xFFFFFFFF, T|F, "adb", 4 random bytes).
    let mut perms = [0u8; 16];
    perms[..4].copy_from_slice(&p.to_le_bytes());
    perms[4..8].fill(0xff);
    perms[8] = if encrypt_metadata { b'T' } else { b'F' };
    perms[9..12].copy_from_slice(b"adb");
    perms[12..].copy_from_slice(&random::bytes::<4>()?);
    aes256_block(file_key, &mut perms)?;
    Ok(R6Entries {
        u,
        ue,
        o,
        oe,
        perms,
    })
}

/// A password as revisions 2-4 use it: PDFDocEncoding bytes, padded or cut to 32.
pub(crate) fn r4_password(
    pw: &str,
    which: &str,
    warnings: &mut Vec<String>,
) -> Result<Zeroizing<Vec<u8>>> {
    let b = pdfdoc_bytes(pw).ok_or_else(|| {
        Error::Invalid(format!(
            "the {which} password has characters that PDFDocEncoding cannot represent, which \
             aes-128 and rc4-128 need; use --cipher aes-256 (Unicode passwords) or another \
             password"
        ))
    })?;
    if b.len() > 32 {
        warnings.push(format!(
            "the {which} password is {} bytes long; aes-128 and rc4-128 use only its first 32 \
             (aes-256 uses up to 127)",
            b.len()
        ));
    }
    Ok(b)
}

/// Algorithm 3: /O from the owner and user passwords (R3 and R4; 128-bit key).
pub(crate) fn o_value_r4(owner: &[u8], user: &[u8]) -> [u8; 32] {
    let mut k = Zeroizing::new(md5(&[&pad_password(owner)[..]]));
    for _ in 0..50 {
        *k = md5(&[&k[..]]);
    }
    let mut o = *pad_password(user);
    rc4(&k[..], &mut o);
    for i in 1..=19u8 {
        let ki = Zeroizing::new(k.iter().map(|b| b ^ i).collect::<Vec<u8>>());
        rc4(&ki, &mut o);
    }
    o
}

/// Algorithm 5: /U from the file key (R3 and R4); the last 16 bytes are arbitrary.
pub(crate) fn u_value_r4(key: &[u8], id0: &[u8]) -> Result<[u8; 32]> {
    let mut x = md5(&[&PAD, id0]);
    rc4(key, &mut x);
    for i in 1..=19u8 {
        let ki = Zeroizing::new(key.iter().map(|b| b ^ i).collect::<Vec<u8>>());
        rc4(&ki, &mut x);
    }
    let mut u = [0u8; 32];
    u[..16].copy_from_slice(&x);
    u[16..].copy_from_slice(&random::bytes::<16>()?);
    Ok(u)
}

impl Handler {
    /// Authenticates `password` as user or owner password (both are tried) and derives
    /// the file key. `id0` is the first element of the trailer's /ID (empty if absent).
    pub fn authenticate(enc: &EncryptDict, id0: &[u8], password: &str) -> Result<(Handler, Auth)> {
        for pw in candidates(enc.r, password) {
            if let Some(r) = Self::try_bytes(enc, id0, &pw) {
                return Ok(r);
            }
        }
        Err(Error::WrongPassword(format!(
            "revision {}, {} password{}",
            enc.r,
            if password.is_empty() {
                "empty"
            } else {
                "given"
            },
            if enc.r >= 5 { ", SASLprep'd" } else { "" }
        )))
    }

    /// [`Handler::authenticate`] with the password's bytes as given.
    pub fn try_bytes(enc: &EncryptDict, id0: &[u8], pw: &[u8]) -> Option<(Handler, Auth)> {
        if enc.r <= 4 {
            let user_key = file_key_r4(enc, id0, pw);
            let user = user_check_r4(enc, id0, &user_key);
            let upw = user_password_from_owner(enc, pw);
            let owner_key = file_key_r4(enc, id0, &upw[..]);
            let owner = user_check_r4(enc, id0, &owner_key);
            let key = if owner {
                owner_key
            } else if user {
                user_key
            } else {
                return None;
            };
            let recovered = owner.then(|| {
                let end = (0..=32).find(|&i| upw[i..] == PAD[..32 - i]).unwrap_or(32);
                Zeroizing::new(upw[..end].to_vec())
            });
            let h = Handler::new(enc.clone(), key);
            return Some((
                h,
                Auth {
                    user,
                    owner,
                    perms_ok: None,
                    recovered_user_password: recovered,
                    empty_password: pw.is_empty(),
                },
            ));
        }
        let (u, o) = (&enc.u[..48], &enc.o[..48]);
        // The two checks are independent; side by side they cost one hash's time.
        let (owner, user) = crate::par::join(
            || hash_r6(enc.r, pw, &o[32..40], u) == o[..32],
            || hash_r6(enc.r, pw, &u[32..40], &[]) == u[..32],
        );
        let (ikey, wrapped) = if owner {
            (hash_r6(enc.r, pw, &o[40..48], u), &enc.oe[..32])
        } else if user {
            (hash_r6(enc.r, pw, &u[40..48], &[]), &enc.ue[..32])
        } else {
            return None;
        };
        let ikey = Zeroizing::new(ikey);
        let mut key = Zeroizing::new(wrapped.to_vec());
        aes_cbc_decrypt(&*ikey, &[0u8; 16], &mut key);
        let perms_ok = (enc.perms.len() >= 16).then(|| {
            let c = Aes256::new_from_slice(&key).ok();
            let mut b = Array::<u8, cipher::consts::U16>::default();
            b.copy_from_slice(&enc.perms[..16]);
            if let Some(c) = c {
                c.decrypt_block(&mut b);
            }
            &b[9..12] == b"adb"
                && b[..4] == enc.p.to_le_bytes()
                && (b[8] == b'T') == enc.encrypt_metadata
                && matches!(b[8], b'T' | b'F')
        });
        Some((
            Handler::new(enc.clone(), key),
            Auth {
                user,
                owner,
                perms_ok: if enc.r == 6 { perms_ok } else { None },
                recovered_user_password: None,
                empty_password: pw.is_empty(),
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn pad_and_candidates() {
        assert_eq!(*pad_password(b""), PAD);
        assert_eq!(&pad_password(b"ab")[..3], &[b'a', b'b', 0x28]);
        // SASLprep maps the non-ASCII space U+00A0 to a space and removes U+00AD.
        assert_eq!(*candidates(6, "a\u{a0}b\u{ad}c")[0], b"a bc");
        assert_eq!(*candidates(4, "\u{e9}")[0], vec![0xe9]);
    }
}
