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
use crate::password::{file_key_r4, o_value_r4, r4_password, r6_entries, r6_password, u_value_r4};
use crate::random;
use crate::security::{EncryptDict, Handler};

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
    d.set(b"Filter", Object::name("Standard"));
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
        f.set(b"Type", Object::name("CryptFilter"));
        f.set(b"AuthEvent", Object::name("DocOpen"));
        f.set(b"CFM", Object::name(cfm));
        f.set(b"Length", Object::Int(len));
        let mut cf = Dict::new();
        cf.set(b"StdCF", Object::Dict(f));
        d.set(b"CF", Object::Dict(cf));
        d.set(b"StmF", Object::name("StdCF"));
        d.set(b"StrF", Object::name("StdCF"));
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
        let key = file_key_r4(&enc, id0, &u);
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
