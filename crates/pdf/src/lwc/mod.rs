//! Lightweight ciphers as authenticated crypt filters: Ascon, Xoodyak and ISAP encrypt
//! every string and stream of a PDF, each with a fresh nonce and a tag that binds it to
//! its place in the file. The design, and why it is better than the paper's (which
//! dropped the tag), is in docs/pdf-lwc.md; in short:
//!
//! - a random 256-bit file key, wrapped for the user and the owner password exactly as
//!   revision 6 of the Standard handler does (/U, /UE, /O, /OE, /Perms; Algorithm 2.B);
//!   the cipher's key is HKDF-SHA-256 of it with the cipher's name ([`keys`]);
//! - every string and stream (object streams as a whole, the metadata too; nothing is left
//!   in the clear or under an identity filter) is `nonce || ciphertext || tag`, the nonce
//!   fresh from the OS generator, the associated data binding the file /ID, the object
//!   number and generation, the kind (string or stream), a string's place in its object
//!   and a stream's dictionary ([`keys::LwcKeys::ad`]);
//! - an encrypted manifest in the /Encrypt dictionary binds /Root, /Info and the exact set
//!   of objects and their tags ([`seal`], [`open`]), so objects cannot be removed, added,
//!   moved or replaced by older ones;
//! - decryption ([`open`]) rejects any object that does not authenticate, any plaintext
//!   object, and any difference from the manifest, before anything is released.
//!
//! PDF readers do not know these filters, so the encrypted document (the "payload") is
//! carried in an unencrypted PDF 2.0 wrapper document ([`crate::wrapper`]).

pub mod keys;
pub mod open;
pub mod seal;

use cipherlab_ciphers::CipherSpec;

use crate::error::{Error, Result};

/// The security handler's name: the payload's /Encrypt /Filter and the wrapper's
/// /EncryptedPayload /Subtype.
pub const HANDLER: &str = "CipherlabAEAD";

/// The version of this design that is written (/V of the payload's /Encrypt, /Version of
/// the wrapper's /EncryptedPayload). Version 2 separated the password entries from the
/// Standard handler's ([`keys::separated`]) and made an absent /Info its own value in the
/// manifest ([`seal::manifest`]); docs/pdf-lwc.md has why.
pub const VERSION: i64 = 2;

/// The versions read: 1 (files written before version 2; see docs/pdf-lwc.md for what
/// their password entries do not guarantee) and 2.
pub const READS: [i64; 2] = [1, 2];

/// The lightweight AEADs of crates/lwc, by their catalogue names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LwcCipher {
    /// Ascon-AEAD128 (NIST SP 800-232), the default.
    AsconAead128,
    /// Ascon-128 (v1.2).
    Ascon128,
    /// Ascon-128a (v1.2).
    Ascon128a,
    /// Ascon-80pq (v1.2), 160-bit key.
    Ascon80pq,
    /// Xoodyak.
    Xoodyak,
    /// ISAP-A-128A.
    IsapA128a,
    /// ISAP-A-128.
    IsapA128,
    /// ISAP-K-128A.
    IsapK128a,
    /// ISAP-K-128.
    IsapK128,
}

impl LwcCipher {
    /// Every one, the default first.
    pub const ALL: [LwcCipher; 9] = [
        LwcCipher::AsconAead128,
        LwcCipher::Ascon128,
        LwcCipher::Ascon128a,
        LwcCipher::Ascon80pq,
        LwcCipher::Xoodyak,
        LwcCipher::IsapA128a,
        LwcCipher::IsapA128,
        LwcCipher::IsapK128a,
        LwcCipher::IsapK128,
    ];

    /// The catalogue's (and the command line's) name.
    pub fn name(self) -> &'static str {
        match self {
            LwcCipher::AsconAead128 => "ascon-aead128",
            LwcCipher::Ascon128 => "ascon-128",
            LwcCipher::Ascon128a => "ascon-128a",
            LwcCipher::Ascon80pq => "ascon-80pq",
            LwcCipher::Xoodyak => "xoodyak",
            LwcCipher::IsapA128a => "isap-a-128a",
            LwcCipher::IsapA128 => "isap-a-128",
            LwcCipher::IsapK128a => "isap-k-128a",
            LwcCipher::IsapK128 => "isap-k-128",
        }
    }

    /// The crypt filter method (/CFM) written in the payload.
    pub fn cfm(self) -> &'static str {
        match self {
            LwcCipher::AsconAead128 => "AsconAEAD128",
            LwcCipher::Ascon128 => "Ascon128",
            LwcCipher::Ascon128a => "Ascon128a",
            LwcCipher::Ascon80pq => "Ascon80pq",
            LwcCipher::Xoodyak => "Xoodyak",
            LwcCipher::IsapA128a => "ISAPA128a",
            LwcCipher::IsapA128 => "ISAPA128",
            LwcCipher::IsapK128a => "ISAPK128a",
            LwcCipher::IsapK128 => "ISAPK128",
        }
    }

    /// The cipher called `name` on the command line.
    pub fn parse(name: &str) -> Option<LwcCipher> {
        Self::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The cipher whose /CFM is `cfm`.
    pub fn from_cfm(cfm: &[u8]) -> Option<LwcCipher> {
        Self::ALL.into_iter().find(|c| c.cfm().as_bytes() == cfm)
    }

    /// The catalogue's spec (key, nonce and tag lengths; the implementations).
    pub fn spec(self) -> Result<CipherSpec> {
        CipherSpec::parse(self.name())
            .map_err(|e| Error::Unsupported(format!("{} in the catalogue: {e}", self.name())))
    }
}
