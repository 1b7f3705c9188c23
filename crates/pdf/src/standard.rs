//! A new Standard security handler for writing (ISO 32000-2 §7.6.4): the /Encrypt
//! dictionary and the file key, from a user and an owner password, for
//!
//! - `aes-256`: V 5, R 6, crypt filter /AESV3 -- a random 256-bit file key wrapped for
//!   each password (Algorithms 8, 9, 10, with the hash of Algorithm 2.B);
//! - `aes-128`: V 4, R 4, crypt filter /AESV2 -- the file key from the user password
//!   (Algorithms 2, 3, 5), as revision 4 defines it;
//! - `rc4-128`: V 2, R 3 -- the same algorithms with RC4; weak (RC4 is broken, and PDF 2.0
//!   deprecates it), so callers must ask for it explicitly.
//!
//! The dictionary is built first and then read back with [`EncryptDict::parse`], so the
//! handler that encrypts is exactly the one a reader of the dictionary gets.

use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::object::{Dict, Object, StrForm};
use crate::security::{
    EncryptDict, Handler, PAD, aes_cbc_encrypt, aes256_block, file_key_r4, hash_r6, md5,
    pad_password, pdfdoc_bytes, rc4,
};
use crate::{par, random};

/// The standard ciphers we write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StdCipher {
    /// AES-256, V 5 R 6 (/AESV3).
    Aes256,
    /// AES-128, V 4 R 4 (/AESV2).
    Aes128,
    /// RC4 with a 128-bit key, V 2 R 3. Weak.
    Rc4_128,
}

impl StdCipher {
    /// Every standard cipher, the default first.
    pub const ALL: [StdCipher; 3] = [StdCipher::Aes256, StdCipher::Aes128, StdCipher::Rc4_128];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            StdCipher::Aes256 => "aes-256",
            StdCipher::Aes128 => "aes-128",
            StdCipher::Rc4_128 => "rc4-128",
        }
    }

    /// The cipher called `name`.
    pub fn parse(name: &str) -> Option<StdCipher> {
        Self::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name.trim()))
    }

    /// RC4: broken, deprecated by PDF 2.0; written only when asked for explicitly.
    pub fn weak(self) -> bool {
        self == StdCipher::Rc4_128
    }

    /// /V and /R.
    pub fn v_r(self) -> (i64, i64) {
        match self {
            StdCipher::Aes256 => (5, 6),
            StdCipher::Aes128 => (4, 4),
            StdCipher::Rc4_128 => (2, 3),
        }
    }

    /// The lowest PDF version that has this encryption: 1.7 (with Adobe extension level
    /// 8, written into the catalog) for R6, 1.6 for AESV2, 1.4 for 128-bit RC4.
    pub fn min_version(self) -> &'static str {
        match self {
            StdCipher::Aes256 => "1.7",
            StdCipher::Aes128 => "1.6",
            StdCipher::Rc4_128 => "1.4",
        }
    }
}

/// A new handler and the /Encrypt dictionary that describes it.
pub struct NewHandler {
    /// Encrypts strings and streams.
    pub handler: Handler,
    /// The /Encrypt dictionary to write (never encrypted itself).
    pub dict: Dict,
    /// Things the user should know (a password truncated, both passwords equal).
    pub warnings: Vec<String>,
}

fn hex(b: &[u8]) -> Object {
    Object::Str(b.to_vec(), StrForm::Hex)
}

fn name(n: &str) -> Object {
    Object::Name(n.as_bytes().to_vec())
}

/// A password as revision 6 hashes it: SASLprep'd (RFC 4013) UTF-8, at most 127 bytes
/// (ISO 32000-2 §7.6.4.3.3); a longer one is cut, with a warning, since every byte past
/// the 127th is then ignored by every reader.
pub(crate) fn r6_password(
    pw: &str,
    which: &str,
    warnings: &mut Vec<String>,
) -> Result<Zeroizing<Vec<u8>>> {
    let prepped = Zeroizing::new(
        stringprep::saslprep(pw)
            .map_err(|e| {
                Error::Invalid(format!(
                    "the {which} password cannot be used: SASLprep (RFC 4013), which PDF 2.0 \
                     requires, rejects it ({e}); avoid control and unassigned characters"
                ))
            })?
            .into_owned(),
    );
    let b = prepped.as_bytes();
    if b.len() > 127 {
        warnings.push(format!(
            "the {which} password is {} bytes long (UTF-8, after SASLprep); aes-256 (revision \
             6) uses only its first 127: any password that starts with the same 127 bytes \
             opens the file",
            b.len()
        ));
    }
    Ok(Zeroizing::new(b[..b.len().min(127)].to_vec()))
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
fn r4_password(pw: &str, which: &str, warnings: &mut Vec<String>) -> Result<Zeroizing<Vec<u8>>> {
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
    Ok(Zeroizing::new(b))
}

/// Algorithm 3: /O from the owner and user passwords (R3 and R4; 128-bit key).
fn o_value_r4(owner: &[u8], user: &[u8]) -> [u8; 32] {
    let mut k = Zeroizing::new(md5(&[&pad_password(owner)]));
    for _ in 0..50 {
        *k = md5(&[&k[..]]);
    }
    let mut o = pad_password(user);
    rc4(&k[..], &mut o);
    for i in 1..=19u8 {
        let ki = Zeroizing::new(k.iter().map(|b| b ^ i).collect::<Vec<u8>>());
        rc4(&ki, &mut o);
    }
    o
}

/// Algorithm 5: /U from the file key (R3 and R4); the last 16 bytes are arbitrary.
fn u_value_r4(key: &[u8], id0: &[u8]) -> Result<[u8; 32]> {
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

/// Makes a handler for `cipher` with the two passwords, permissions `p` (see
/// [`crate::permissions`]), and whether metadata streams are encrypted. `id0` is the
/// first element of the /ID the file will have (revisions 3 and 4 mix it into the key).
pub fn new_handler(
    cipher: StdCipher,
    user: &str,
    owner: &str,
    p: i32,
    encrypt_metadata: bool,
    id0: &[u8],
) -> Result<NewHandler> {
    let mut warnings = Vec::new();
    if owner.is_empty() {
        return Err(Error::Invalid(
            "the owner password is empty: anyone could open the file as its owner and lift the \
             permissions; give a non-empty --owner-password"
                .into(),
        ));
    }
    if owner == user {
        warnings.push(
            "the user and owner passwords are the same: whoever opens the file is its owner, so \
             the permissions restrict nobody"
                .into(),
        );
    }
    if cipher == StdCipher::Aes128 {
        warnings.push(
            "aes-128 (revision 4) is legacy: its file key comes from the user password by MD5 \
             and RC4 rounds (Algorithms 2 and 3), cheap to guess at; use aes-256 unless a reader \
             older than Acrobat X must open the file"
                .into(),
        );
    }
    if !encrypt_metadata && cipher == StdCipher::Rc4_128 {
        return Err(Error::Invalid(
            "rc4-128 (revision 3) always encrypts metadata; EncryptMetadata false needs aes-128 \
             or aes-256"
                .into(),
        ));
    }
    let (v, r) = cipher.v_r();
    let mut d = Dict::new();
    d.set(b"Filter", name("Standard"));
    d.set(b"V", Object::Int(v));
    d.set(b"R", Object::Int(r));
    d.set(
        b"Length",
        Object::Int(if cipher == StdCipher::Aes256 {
            256
        } else {
            128
        }),
    );
    if cipher != StdCipher::Rc4_128 {
        let (cfm, len) = if cipher == StdCipher::Aes256 {
            ("AESV3", 32)
        } else {
            ("AESV2", 16)
        };
        let mut f = Dict::new();
        f.set(b"Type", name("CryptFilter"));
        f.set(b"AuthEvent", name("DocOpen"));
        f.set(b"CFM", name(cfm));
        f.set(b"Length", Object::Int(len));
        let mut cf = Dict::new();
        cf.set(b"StdCF", Object::Dict(f));
        d.set(b"CF", Object::Dict(cf));
        d.set(b"StmF", name("StdCF"));
        d.set(b"StrF", name("StdCF"));
    }
    d.set(b"P", Object::Int(i64::from(p)));
    if cipher != StdCipher::Rc4_128 {
        d.set(b"EncryptMetadata", Object::Bool(encrypt_metadata));
    }
    let identity = |o: &Object| o.clone();
    let key: Zeroizing<Vec<u8>> = if cipher == StdCipher::Aes256 {
        let file_key = random::key::<32>()?;
        let e = r6_entries(
            &r6_password(user, "user", &mut warnings)?,
            &r6_password(owner, "owner", &mut warnings)?,
            &file_key,
            p,
            encrypt_metadata,
        )?;
        d.set(b"O", hex(&e.o));
        d.set(b"U", hex(&e.u));
        d.set(b"OE", hex(&e.oe));
        d.set(b"UE", hex(&e.ue));
        d.set(b"Perms", hex(&e.perms));
        Zeroizing::new(file_key.to_vec())
    } else {
        let u = r4_password(user, "user", &mut warnings)?;
        let o = r4_password(owner, "owner", &mut warnings)?;
        d.set(b"O", hex(&o_value_r4(&o, &u)));
        d.set(b"U", hex(&[0u8; 32]));
        let enc = EncryptDict::parse(&d, &identity)?;
        let key = Zeroizing::new(file_key_r4(&enc, id0, &u));
        d.set(b"U", hex(&u_value_r4(&key, id0)?));
        key
    };
    let enc = EncryptDict::parse(&d, &identity)?;
    Ok(NewHandler {
        handler: Handler::new(enc, key),
        dict: d,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Every cipher's dictionary opens with both passwords, through the reading code,
    /// to the same file key; a wrong password does not open it.
    #[test]
    fn new_dictionaries_open_with_both_passwords() {
        let id0 = [7u8; 16];
        for c in StdCipher::ALL {
            for em in [true, false] {
                if !em && c == StdCipher::Rc4_128 {
                    assert!(new_handler(c, "u", "o", -4, em, &id0).is_err());
                    continue;
                }
                // "ü" is Latin-1, so PDFDocEncoding has it for R3 and R4 too.
                let n = new_handler(c, "üser", "owner", -3904, em, &id0)
                    .unwrap_or_else(|e| panic!("{c:?}: {e}"));
                let enc = &n.handler.enc;
                let (h, a) = Handler::authenticate(enc, &id0, "üser").unwrap();
                assert!(a.user && !a.owner, "{c:?}");
                assert_eq!(h.file_key(), n.handler.file_key(), "{c:?} user");
                let (h, a) = Handler::authenticate(enc, &id0, "owner").unwrap();
                assert!(a.owner, "{c:?}");
                assert_eq!(h.file_key(), n.handler.file_key(), "{c:?} owner");
                if c == StdCipher::Aes256 {
                    assert_eq!(a.perms_ok, Some(true));
                }
                assert!(Handler::authenticate(enc, &id0, "wrong").is_err());
                assert_eq!(enc.encrypt_metadata, em || c == StdCipher::Rc4_128);
            }
        }
        assert!(new_handler(StdCipher::Aes128, "\u{4e2d}", "o", -4, true, &id0).is_err());
        assert!(new_handler(StdCipher::Aes256, "\u{4e2d}", "o", -4, true, &id0).is_ok());
        assert!(new_handler(StdCipher::Aes256, "u", "", -4, true, &id0).is_err());
    }
}
