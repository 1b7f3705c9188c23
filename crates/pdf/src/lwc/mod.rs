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

use cipherlab_ciphers::{ALGORITHMS, Algorithm, CipherSpec, catalogue};

/// The security handler's name: the payload's /Encrypt /Filter and the wrapper's
/// /EncryptedPayload /Subtype.
pub const HANDLER: &str = "CipherlabAEAD";

/// The version of this design that is written (/V of the payload's /Encrypt, /Version of
/// the wrapper's /EncryptedPayload). Version 2 separated the password entries from the
/// Standard handler's ([`keys::separated`]) and made an absent /Info its own value in the
/// manifest ([`seal::manifest`]). Version 3 authenticates the payload's `%PDF-x.y` header
/// and gives the payload a fresh /ID, the document's own /ID travelling sealed in the
/// manifest ([`seal::Origin`]); docs/pdf-lwc.md has why.
pub const VERSION: i64 = 3;

/// The versions read: 1 (files written before version 2; see docs/pdf-lwc.md for what
/// their password entries do not guarantee), 2 (its header version is not authenticated)
/// and 3.
pub const READS: [i64; 3] = [1, 2, 3];

/// A lightweight AEAD of crates/lwc as a PDF crypt filter: a catalogue algorithm that has
/// a /CFM name ([`cipherlab_ciphers::Algorithm::pdf_cfm`]). Everything about it -- its
/// name, its /CFM, its sizes -- is its catalogue descriptor's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LwcCipher(&'static Algorithm);

impl LwcCipher {
    /// Ascon-AEAD128 (NIST SP 800-232), the default.
    pub const ASCON_AEAD128: LwcCipher = LwcCipher(&catalogue::ASCON_AEAD128);
    /// Ascon-128 (v1.2).
    pub const ASCON_128: LwcCipher = LwcCipher(&catalogue::ASCON_128);
    /// Xoodyak.
    pub const XOODYAK: LwcCipher = LwcCipher(&catalogue::XOODYAK);
    /// ISAP-A-128A.
    pub const ISAP_A_128A: LwcCipher = LwcCipher(&catalogue::ISAP_A_128A);

    /// Every one, in catalogue order (the default first).
    pub fn all() -> impl Iterator<Item = LwcCipher> {
        ALGORITHMS
            .iter()
            .copied()
            .filter(|a| a.pdf_cfm.is_some())
            .map(LwcCipher)
    }

    /// Its catalogue descriptor.
    pub fn algorithm(self) -> &'static Algorithm {
        self.0
    }

    /// The catalogue's (and the command line's) name.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// The crypt filter method (/CFM) written in the payload.
    pub fn cfm(self) -> &'static str {
        self.0.pdf_cfm.unwrap_or_default()
    }

    /// The cipher called `name` on the command line.
    pub fn parse(name: &str) -> Option<LwcCipher> {
        let spec = CipherSpec::parse(name).ok()?;
        Self::all().find(|c| c.0.id == spec.algorithm.id)
    }

    /// The cipher whose /CFM is `cfm`.
    pub fn from_cfm(cfm: &[u8]) -> Option<LwcCipher> {
        catalogue::by_pdf_cfm(cfm).map(LwcCipher)
    }

    /// The catalogue's spec (key, nonce and tag lengths; the implementations).
    pub fn spec(self) -> CipherSpec {
        CipherSpec::aead(self.0)
    }
}
