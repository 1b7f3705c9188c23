//! Ascon: the NIST lightweight-cryptography standard (SP 800-232) and its
//! predecessor, the v1.2 final-round submission.
//!
//! | Type | Specification | Kind |
//! |---|---|---|
//! | [`AsconAead128`] | SP 800-232 | AEAD, 16-byte key/nonce/tag, rate 16 |
//! | [`AsconHash256`] | SP 800-232 | hash, 32 bytes |
//! | [`AsconXof128`] | SP 800-232 | XOF |
//! | [`AsconCxof128`] | SP 800-232 | customizable XOF (string of at most 256 bytes) |
//! | [`Ascon128`], [`Ascon128a`], [`Ascon80pq`] | v1.2 | AEADs (rate 8, 16, 8; 80pq has a 20-byte key) |
//! | [`AsconHash`], [`AsconHasha`] | v1.2 | hashes, 32 bytes |
//! | [`AsconXof`], [`AsconXofa`] | v1.2 | XOFs |
//!
//! The two generations share the permutation ([`crate::permutation::ascon`]) but not
//! the byte order (v1.2 big-endian, SP 800-232 little-endian), the padding byte, the
//! domain-separation bit or the IVs; no vector of one passes in the other.
//!
//! ## Constant time
//!
//! * The permutation is the bitsliced S-box (AND/NOT/XOR on whole 64-bit words) and
//!   fixed rotations: no table look-ups and no data-dependent branches.
//! * The modes branch and index only on public lengths (of the associated data,
//!   message, customization string and output). Bytes are moved with fixed-size
//!   loads and stores whose positions depend on those lengths only.
//! * Tags are compared in constant time ([`subtle`]); on mismatch the output buffer
//!   is zeroed before the error is returned. Keys are kept as pre-loaded state words
//!   and zeroized on drop.

mod aead128;
mod common;
#[cfg(target_arch = "x86_64")]
mod cpu;
mod hash;
mod v12;

pub use aead128::AsconAead128;
pub use hash::{
    AsconCxof128, AsconCxof128Reader, AsconHash, AsconHash256, AsconHasha, AsconXof, AsconXof128,
    AsconXof128Reader, AsconXofReader, AsconXofa, AsconXofaReader, CXOF128_MAX_CUSTOMIZATION,
    CustomizationTooLong,
};
pub use v12::{Ascon80pq, Ascon128, Ascon128a};
