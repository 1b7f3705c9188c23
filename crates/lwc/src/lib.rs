//! # cipherlab-lwc
//!
//! The NIST lightweight authenticated ciphers, written for cipherlab: Ascon (NIST
//! SP 800-232 and the v1.2 final-round submission), Xoodyak and ISAP v2.0, with the
//! permutations under them (Ascon-p, Xoodoo, Keccak-p\[400\]).
//!
//! Every AEAD implements the RustCrypto [`aead`] 0.6 traits (`KeyInit`, `AeadCore`,
//! `AeadInOut`), so it drops into code written for `aes-gcm`; the hashes and XOFs
//! implement the [`digest`] traits.
//!
//! ```
//! use cipherlab_lwc::AsconAead128;
//! use cipherlab_lwc::aead::{AeadInOut, KeyInit};
//!
//! let cipher = AsconAead128::new(&[7u8; 16].into());
//! let nonce = [1u8; 16].into();
//! let mut msg = *b"attack at dawn";
//! let tag = cipher.encrypt_inout_detached(&nonce, b"header", (&mut msg[..]).into()).unwrap();
//! cipher.decrypt_inout_detached(&nonce, b"header", (&mut msg[..]).into(), &tag).unwrap();
//! assert_eq!(&msg, b"attack at dawn");
//! ```
//!
//! ## Security properties, for every algorithm here
//!
//! * Decryption computes the tag, compares it with the received one in constant time
//!   ([`subtle`]), and on mismatch zeroes the output buffer before returning the
//!   opaque [`aead::Error`]: unverified plaintext is never handed out.
//! * Keys are held in types that zeroize on drop ([`zeroize`]); hashers, XOFs and XOF
//!   readers wipe their state and buffered input on drop.
//! * No branch or memory index depends on a secret: the permutations use only
//!   AND/NOT/XOR and fixed rotations (each module says how), and lengths are public.
//!   `SIDE-CHANNELS.md` (beside this crate's `Cargo.toml`) sets out the rules part by
//!   part; `cargo bench -p cipherlab-lwc --bench constant_time` measures them.
//!
//! Many independent messages at once (the chunks of a file, the objects of a PDF): the
//! [`batch`] API runs Ascon-AEAD128 and Ascon-128a in SIMD lanes, with the same results
//! as one message at a time.
//!
//! `no_std` by default; the `alloc` feature adds the allocating `aead::Aead` API.

#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "std")]
extern crate std;

pub use aead;
pub use digest;

pub mod permutation;

mod ascon;
#[cfg(target_arch = "x86_64")]
mod cpu;
mod isap;
mod tag;
mod xoodyak;

/// The hand-written SIMD paths disabled in this process because their first-use
/// self-test disagreed with the portable code (the compiler-generated path of the
/// same feature level then runs instead, with identical results). Empty on a healthy
/// CPU, and always on CPUs that never reach a hand-written path. With the `std`
/// feature a failure is also noted once on standard error.
pub fn simd_self_test_failures() -> impl Iterator<Item = &'static str> {
    #[cfg(target_arch = "x86_64")]
    {
        cpu::self_test_failures()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        core::iter::empty()
    }
}

pub use ascon::batch;
pub use ascon::*;
pub use isap::*;
pub use xoodyak::*;
