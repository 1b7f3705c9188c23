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

/// The kernel each algorithm family runs on this CPU, as `(family, kernel)` pairs, in
/// this order:
///
/// * `ascon`: one Ascon message (every Ascon AEAD and hash): `bmi2` (compiled with
///   BMI1 and BMI2) or `portable`;
/// * `ascon-batch`: the many-message API ([`batch::Backend::detect`]): `avx512`,
///   `avx2`, `xmm+gpr` or `serial`;
/// * `xoodyak`: Xoodoo under the Xoodyak AEAD and hash: `avx512` (the SSSE3 source
///   compiled for AVX-512 F+VL+BW), `ssse3`, `sse2` or `portable`;
/// * `isap-a`: `avx2` (Ascon-p in general-purpose registers, compiled with AVX2, BMI1
///   and BMI2), `sse2` or `portable`;
/// * `isap-k`: `avx512-vbmi2` (hand-written, after its self-test), `avx512` (the AVX2
///   source compiled for AVX-512 F+VL+BW), `avx2` or `portable`.
///
/// Each name comes from the same selection the dispatch runs, so a report that prints
/// it says which code produced its figures. Asking may run ISAP-K's first-use
/// self-test.
pub fn kernels() -> [(&'static str, &'static str); 5] {
    [
        ("ascon", ascon::kernel()),
        ("ascon-batch", batch::Backend::detect().name()),
        ("xoodyak", xoodyak::kernel()),
        ("isap-a", isap::kernel_a()),
        ("isap-k", isap::kernel_k()),
    ]
}

/// The kernel each permutation's `permute(rounds)` runs on this CPU (what the lwc
/// bench and the lwc study time by rounds), as `(permutation, kernel)` pairs, in this
/// order:
///
/// * `ascon-p`: [`permutation::ascon::AsconState::permute`], `portable` (one
///   implementation; the Ascon AEADs inline their rounds into their own `bmi2` or
///   `portable` code instead);
/// * `keccak-p400`: [`permutation::keccak_p400::KeccakP400State::permute`],
///   `portable` likewise;
/// * `xoodoo`: [`permutation::xoodoo::XoodooState::permute`], which dispatches
///   through the same selection as Xoodyak, so its name is always `kernels()`'s
///   `xoodyak`: `avx512`, `ssse3`, `sse2` or `portable`.
pub fn permutation_kernels() -> [(&'static str, &'static str); 3] {
    [
        ("ascon-p", permutation::ascon::KERNEL),
        ("keccak-p400", permutation::keccak_p400::KERNEL),
        ("xoodoo", permutation::xoodoo::Kernel::detect().name()),
    ]
}

pub use ascon::batch;
pub use ascon::*;
pub use isap::*;
pub use xoodyak::*;

#[cfg(test)]
mod kernel_tests {
    extern crate std;
    /// `kernels` names, for every family, the branch its dispatch takes: each name
    /// is checked against the CPU features that branch requires and excludes, so a
    /// name that drifted from the dispatch (or a dispatch changed without its name)
    /// fails here on the CPU that shows it.
    #[test]
    fn kernels_name_the_dispatched_code() {
        let k = super::kernels();
        let families: [&str; 5] = k.map(|(f, _)| f);
        assert_eq!(
            families,
            ["ascon", "ascon-batch", "xoodyak", "isap-a", "isap-k"]
        );
        let name = |f: &str| k.iter().find(|(g, _)| *g == f).map(|(_, n)| *n);
        assert_eq!(
            name("ascon-batch"),
            Some(super::batch::Backend::detect().name())
        );
        assert!(
            super::batch::Backend::all().any(|b| Some(b.name()) == name("ascon-batch")),
            "{k:?}"
        );
        #[cfg(target_arch = "x86_64")]
        {
            use crate::cpu::{Avx2Token, Avx512Token, Avx512Vbmi2Token, has_bmi};
            let avx512 = Avx512Token::detect().is_some();
            let avx2 = Avx2Token::detect().is_some();
            assert_eq!(
                name("ascon"),
                Some(if has_bmi() { "bmi2" } else { "portable" })
            );
            let ssse3 = crate::permutation::xoodoo::x86::Ssse3::detect().is_some();
            let xoodyak = match (avx512, ssse3) {
                (true, _) => "avx512",
                (false, true) => "ssse3",
                (false, false) => "sse2",
            };
            assert_eq!(name("xoodyak"), Some(xoodyak));
            assert_eq!(name("isap-a"), Some(if avx2 { "avx2" } else { "sse2" }));
            let isap_k = if Avx512Vbmi2Token::detect().is_some()
                && crate::simd_self_test_failures().next().is_none()
            {
                "avx512-vbmi2"
            } else if avx512 {
                "avx512"
            } else if avx2 {
                "avx2"
            } else {
                "portable"
            };
            assert_eq!(name("isap-k"), Some(isap_k));
            std::println!("kernels on this CPU: {k:?}");
        }
        #[cfg(not(target_arch = "x86_64"))]
        for f in ["ascon", "xoodyak", "isap-a", "isap-k"] {
            assert_eq!(name(f), Some("portable"));
        }
    }

    /// `permutation_kernels` names the code each `permute(rounds)` runs: Xoodoo's is
    /// checked against the CPU features its branch requires and excludes, and is
    /// Xoodyak's (one selection for both); Ascon-p and Keccak-p[400] have no dispatch.
    #[test]
    fn permutation_kernels_name_the_dispatched_code() {
        let p = super::permutation_kernels();
        assert_eq!(p.map(|(f, _)| f), ["ascon-p", "keccak-p400", "xoodoo"]);
        assert_eq!(p[0].1, "portable");
        assert_eq!(p[1].1, "portable");
        let xoodyak = super::kernels()
            .into_iter()
            .find(|(f, _)| *f == "xoodyak")
            .map(|(_, k)| k);
        assert_eq!(Some(p[2].1), xoodyak);
        #[cfg(target_arch = "x86_64")]
        {
            let avx512 = crate::cpu::Avx512Token::detect().is_some();
            let ssse3 = crate::permutation::xoodoo::x86::Ssse3::detect().is_some();
            let want = match (avx512, ssse3) {
                (true, _) => "avx512",
                (false, true) => "ssse3",
                (false, false) => "sse2",
            };
            assert_eq!(p[2].1, want);
            std::println!("permutation kernels on this CPU: {p:?}");
        }
        #[cfg(not(target_arch = "x86_64"))]
        assert_eq!(p[2].1, "portable");
    }
}
