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
pub mod batch;
mod common;
mod hash;
mod v12;

pub use aead128::AsconAead128;

/// The one-message code every Ascon AEAD and hash runs on this CPU (see
/// `crate::kernels`): `bmi2` when `cpu::has_bmi`, the test their `seal`, `open` and
/// absorb calls make, else `portable`.
pub(crate) fn kernel() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::has_bmi() {
        return "bmi2";
    }
    "portable"
}
pub use hash::{
    AsconCxof128, AsconCxof128Reader, AsconHash, AsconHash256, AsconHasha, AsconXof, AsconXof128,
    AsconXof128Reader, AsconXofReader, AsconXofa, AsconXofaReader, CXOF128_MAX_CUSTOMIZATION,
    CustomizationTooLong,
};
pub use v12::{Ascon80pq, Ascon128, Ascon128a};

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    //! The AEADs are compiled twice (baseline and BMI1/BMI2); the integration tests
    //! only reach the one this CPU selects, so compare the two directly here.

    use super::*;
    use aead::KeyInit;

    macro_rules! both_paths_agree {
        ($ty:ty, $klen:literal, $rate:literal) => {{
            if !crate::cpu::has_bmi() {
                return;
            }
            let key: [u8; $klen] = core::array::from_fn(|i| (i * 7 + 1) as u8);
            let c = <$ty>::new(&key.into());
            let nonce: [u8; 16] = core::array::from_fn(|i| (i * 13 + 5) as u8);
            let data: [u8; 4 * $rate + 3] = core::array::from_fn(|i| (i * 29 + 3) as u8);
            for ad_len in 0..=3 * $rate + 1 {
                for msg_len in 0..=3 * $rate + 1 {
                    let ad = &data[..ad_len];
                    let mut a = [0u8; 4 * $rate + 3];
                    let mut b = a;
                    a[..msg_len].copy_from_slice(&data[..msg_len]);
                    b[..msg_len].copy_from_slice(&data[..msg_len]);
                    let ta = c.seal_portable(&nonce, ad, &mut a[..msg_len]);
                    #[allow(unsafe_code)]
                    // SAFETY: `has_bmi` returned true above.
                    let tb = unsafe { c.seal_bmi(&nonce, ad, &mut b[..msg_len]) };
                    assert_eq!(ta, tb, "seal tag, ad {ad_len} msg {msg_len}");
                    assert_eq!(a, b, "seal ct, ad {ad_len} msg {msg_len}");
                    let ta = c.open_portable(&nonce, ad, &mut a[..msg_len]);
                    #[allow(unsafe_code)]
                    // SAFETY: as above.
                    let tb = unsafe { c.open_bmi(&nonce, ad, &mut b[..msg_len]) };
                    assert_eq!(ta, tb, "open tag, ad {ad_len} msg {msg_len}");
                    assert_eq!(a, b, "open pt, ad {ad_len} msg {msg_len}");
                    assert_eq!(&a[..msg_len], &data[..msg_len]);
                }
            }
        }};
    }

    #[test]
    fn aead128_portable_and_bmi_agree() {
        both_paths_agree!(AsconAead128, 16, 16);
    }

    #[test]
    fn ascon128_portable_and_bmi_agree() {
        both_paths_agree!(Ascon128, 16, 8);
    }

    #[test]
    fn ascon128a_portable_and_bmi_agree() {
        both_paths_agree!(Ascon128a, 16, 16);
    }

    #[test]
    fn ascon80pq_portable_and_bmi_agree() {
        both_paths_agree!(Ascon80pq, 20, 8);
    }

    /// Count 545 of the SP 800-232 new-input KAT (16-byte PT and AD) through the
    /// portable path, which the integration tests do not reach on a BMI2 machine.
    #[test]
    fn aead128_portable_kat() {
        let key: [u8; 16] = core::array::from_fn(|i| i as u8);
        let nonce: [u8; 16] = core::array::from_fn(|i| 0x10 + i as u8);
        let ad: [u8; 16] = core::array::from_fn(|i| 0x30 + i as u8);
        let mut buf: [u8; 16] = core::array::from_fn(|i| 0x20 + i as u8);
        let tag = AsconAead128::new(&key.into()).seal_portable(&nonce, &ad, &mut buf);
        let expect = *b"\x63\x73\xEB\xB2\x8B\xE9\x7C\x9B\xAC\x09\x0C\xF3\x99\xC1\x3E\xF1\
            \x3A\xBF\xC0\xD2\x09\xE8\xF4\x84\x4C\x90\x81\x4D\x13\xF3\x2C\x59";
        assert_eq!(buf, expect[..16]);
        assert_eq!(tag, expect[16..]);
    }
}
