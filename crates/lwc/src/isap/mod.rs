//! ISAP v2.0 (NIST LWC final round): ISAP-A-128A, ISAP-A-128 (on Ascon-p) and
//! ISAP-K-128A, ISAP-K-128 (on Keccak-p\[400\]). 128-bit key, nonce and tag.
//!
//! ISAP is Encrypt-then-MAC built from three sponge functions:
//!
//! * IsapRk re-keys: it absorbs a 128-bit value one bit per p^{sB} call into
//!   `K || IV || 0*` and outputs a session key (K*_E for the nonce, K*_A for the
//!   hash of the ciphertext).
//! * IsapEnc squeezes a keystream at rate r_H from `K*_E || N` with p^{sE}.
//! * IsapMac hashes `N || IV_A`, the padded associated data, a domain-separation
//!   bit and the padded ciphertext with p^{sH}, then keys the result with K*_A.
//!
//! | Variant | permutation | r_H | s_H | s_B | s_E | s_K |
//! |---|---|---|---|---|---|---|
//! | ISAP-A-128A | Ascon-p | 64 | 12 | 1 | 6 | 12 |
//! | ISAP-A-128 | Ascon-p | 64 | 12 | 12 | 12 | 12 |
//! | ISAP-K-128A | Keccak-p\[400\] | 144 | 16 | 1 | 8 | 8 |
//! | ISAP-K-128 | Keccak-p\[400\] | 144 | 20 | 12 | 12 | 12 |
//!
//! (Parameters of the ISAP v2.0 specification; the IV bytes are `flag, k, r_H,
//! r_B, s_H, s_B, s_E, s_K` with flag 1 for IV_A, 2 for IV_KA, 3 for IV_KE.)
//!
//! Implementations: `portable` follows the specification step by step on any
//! target. On x86-64, IsapEnc and IsapMac (independent except through the
//! ciphertext) run side by side in one loop: for ISAP-A both Ascon-p chains on
//! the integer ALUs with BMI1/BMI2 (or the keystream in SSE2 registers without
//! them), see `fast_a`; for ISAP-K, with AVX2, Keccak-p\[400\] in vector registers
//! with the keystream and the MAC in the two halves of 256-bit registers, and the
//! re-keying for K*_E interleaved with the absorption of the AD, see `fast_k`.
//! Run-time CPU detection picks the path; unit tests pin every path to `portable`.
//!
//! Decryption computes the MAC over the ciphertext and checks the tag before any
//! plaintext is handed out: the portable path decrypts only after the tag matched;
//! the fast paths, which run the keystream and the MAC side by side, write the
//! plaintext into the caller's buffer and wipe it if the tag does not match. Either
//! way a wrong tag leaves the buffer zeroed.
//!
//! Constant time: the permutations are bitsliced (Ascon-p) or lane-wise
//! (Keccak-p\[400\]) AND/NOT/XOR and fixed rotations, in scalar or SIMD registers,
//! with no table look-ups. The re-keying absorbs each key-dependent bit by an XOR
//! of `bit << 7`, never by a branch. Tags are compared in constant time. Only
//! public lengths steer control flow; the SIMD path is chosen from the CPU's
//! features, not from data.

#[cfg(target_arch = "x86_64")]
mod fast_a;
#[cfg(target_arch = "x86_64")]
mod fast_k;
mod portable;
mod sponge;

/// The code ISAP-A runs on this CPU (see `crate::kernels`).
pub(crate) fn kernel_a() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        fast_a::Kernel::detect().name()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        "portable"
    }
}

/// The code ISAP-K runs on this CPU (see `crate::kernels`).
pub(crate) fn kernel_k() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        fast_k::Kernel::detect().name()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        "portable"
    }
}

use aead::consts::U16;
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, Nonce, Tag, TagPosition};
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::permutation::ascon::AsconState;
use crate::permutation::keccak_p400::KeccakP400State;
use sponge::Sponge;

/// One ISAP instance: its state, initial values and round counts, and the
/// implementation of encryption and decryption (the portable mode by default).
pub(crate) trait Variant {
    /// The permutation state.
    type S: Sponge;
    /// IV_A of IsapMac.
    const IV_A: [u8; 8];
    /// IV_KA of the re-keying for the MAC.
    const IV_KA: [u8; 8];
    /// IV_KE of the re-keying for the encryption.
    const IV_KE: [u8; 8];
    /// p^{sH}.
    fn ph(s: &mut Self::S);
    /// p^{sB}.
    fn pb(s: &mut Self::S);
    /// p^{sE}.
    fn pe(s: &mut Self::S);
    /// p^{sK}.
    fn pk(s: &mut Self::S);

    /// Encrypts `buf` in place and returns the tag.
    fn encrypt(key: &[u8; 16], nonce: &[u8; 16], ad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        portable::encrypt::<Self>(key, nonce, ad, buf)
    }

    /// Decrypts `buf` in place if `tag` is right; otherwise zeroes `buf` and fails.
    fn decrypt(
        key: &[u8; 16],
        nonce: &[u8; 16],
        ad: &[u8],
        buf: &mut [u8],
        tag: &[u8; 16],
    ) -> aead::Result<()> {
        portable::decrypt::<Self>(key, nonce, ad, buf, tag)
    }
}

/// The IV bytes `flag, k, r_H, r_B, s_H, s_B, s_E, s_K` (ISAP v2.0, section 2).
const fn iv(flag: u8, rh_bits: u8, sh: u8, sb: u8, se: u8, sk: u8) -> [u8; 8] {
    [flag, 128, rh_bits, 1, sh, sb, se, sk]
}

macro_rules! isap_variant {
    (
        $(#[$doc:meta])*
        $name:ident, $state:ty, rh = $rh:expr,
        sh = $sh:literal, sb = $sb:literal, se = $se:literal, sk = $sk:literal
    ) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            key: [u8; 16],
        }

        impl $name {
            const IV_A_: [u8; 8] = iv(1, $rh, $sh, $sb, $se, $sk);
            const IV_KA_: [u8; 8] = iv(2, $rh, $sh, $sb, $se, $sk);
            const IV_KE_: [u8; 8] = iv(3, $rh, $sh, $sb, $se, $sk);
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(concat!(stringify!($name), " { .. }"))
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                self.key.zeroize();
            }
        }

        impl ZeroizeOnDrop for $name {}

        impl KeySizeUser for $name {
            type KeySize = U16;
        }

        impl KeyInit for $name {
            fn new(key: &Key<Self>) -> Self {
                Self { key: (*key).into() }
            }
        }

        impl AeadCore for $name {
            type NonceSize = U16;
            type TagSize = U16;
            const TAG_POSITION: TagPosition = TagPosition::Postfix;
        }

        impl AeadInOut for $name {
            fn encrypt_inout_detached(
                &self,
                nonce: &Nonce<Self>,
                associated_data: &[u8],
                buffer: InOutBuf<'_, '_, u8>,
            ) -> aead::Result<Tag<Self>> {
                let buf = buffer.into_out_with_copied_in();
                let tag = <Self as Variant>::encrypt(&self.key, &(*nonce).into(), associated_data, buf);
                Ok(tag.into())
            }

            fn decrypt_inout_detached(
                &self,
                nonce: &Nonce<Self>,
                associated_data: &[u8],
                buffer: InOutBuf<'_, '_, u8>,
                tag: &Tag<Self>,
            ) -> aead::Result<()> {
                let buf = buffer.into_out_with_copied_in();
                <Self as Variant>::decrypt(
                    &self.key,
                    &(*nonce).into(),
                    associated_data,
                    buf,
                    &(*tag).into(),
                )
            }
        }
    };
}

isap_variant!(
    /// ISAP-A-128A (ISAP v2.0): Ascon-p with s_H = 12, s_B = 1, s_E = 6, s_K = 12;
    /// 8-byte rate. The primary ISAP recommendation.
    IsapA128a, AsconState, rh = 64, sh = 12, sb = 1, se = 6, sk = 12
);
isap_variant!(
    /// ISAP-A-128 (ISAP v2.0): Ascon-p with s_H = s_B = s_E = s_K = 12; 8-byte rate.
    IsapA128, AsconState, rh = 64, sh = 12, sb = 12, se = 12, sk = 12
);
isap_variant!(
    /// ISAP-K-128A (ISAP v2.0): Keccak-p\[400\] with s_H = 16, s_B = 1, s_E = 8,
    /// s_K = 8; 18-byte rate.
    IsapK128a, KeccakP400State, rh = 144, sh = 16, sb = 1, se = 8, sk = 8
);
isap_variant!(
    /// ISAP-K-128 (ISAP v2.0): Keccak-p\[400\] with s_H = 20, s_B = 12, s_E = 12,
    /// s_K = 12; 18-byte rate.
    IsapK128, KeccakP400State, rh = 144, sh = 20, sb = 12, se = 12, sk = 12
);

impl Variant for IsapA128a {
    type S = AsconState;
    const IV_A: [u8; 8] = Self::IV_A_;
    const IV_KA: [u8; 8] = Self::IV_KA_;
    const IV_KE: [u8; 8] = Self::IV_KE_;
    #[inline(always)]
    fn ph(s: &mut AsconState) {
        s.permute_const::<12>();
    }
    #[inline(always)]
    fn pb(s: &mut AsconState) {
        s.permute_const::<1>();
    }
    #[inline(always)]
    fn pe(s: &mut AsconState) {
        s.permute_const::<6>();
    }
    #[inline(always)]
    fn pk(s: &mut AsconState) {
        s.permute_const::<12>();
    }
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn encrypt(key: &[u8; 16], nonce: &[u8; 16], ad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        fast_a::encrypt::<Self, 12, 6>(key, nonce, ad, buf)
    }
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn decrypt(
        key: &[u8; 16],
        nonce: &[u8; 16],
        ad: &[u8],
        buf: &mut [u8],
        tag: &[u8; 16],
    ) -> aead::Result<()> {
        fast_a::decrypt::<Self, 12, 6>(key, nonce, ad, buf, tag)
    }
}

impl Variant for IsapA128 {
    type S = AsconState;
    const IV_A: [u8; 8] = Self::IV_A_;
    const IV_KA: [u8; 8] = Self::IV_KA_;
    const IV_KE: [u8; 8] = Self::IV_KE_;
    #[inline(always)]
    fn ph(s: &mut AsconState) {
        s.permute_const::<12>();
    }
    #[inline(always)]
    fn pb(s: &mut AsconState) {
        s.permute_const::<12>();
    }
    #[inline(always)]
    fn pe(s: &mut AsconState) {
        s.permute_const::<12>();
    }
    #[inline(always)]
    fn pk(s: &mut AsconState) {
        s.permute_const::<12>();
    }
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn encrypt(key: &[u8; 16], nonce: &[u8; 16], ad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        fast_a::encrypt::<Self, 12, 12>(key, nonce, ad, buf)
    }
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn decrypt(
        key: &[u8; 16],
        nonce: &[u8; 16],
        ad: &[u8],
        buf: &mut [u8],
        tag: &[u8; 16],
    ) -> aead::Result<()> {
        fast_a::decrypt::<Self, 12, 12>(key, nonce, ad, buf, tag)
    }
}

impl Variant for IsapK128a {
    type S = KeccakP400State;
    const IV_A: [u8; 8] = Self::IV_A_;
    const IV_KA: [u8; 8] = Self::IV_KA_;
    const IV_KE: [u8; 8] = Self::IV_KE_;
    #[inline(always)]
    fn ph(s: &mut KeccakP400State) {
        s.permute_const::<16>();
    }
    #[inline(always)]
    fn pb(s: &mut KeccakP400State) {
        s.permute_const::<1>();
    }
    #[inline(always)]
    fn pe(s: &mut KeccakP400State) {
        s.permute_const::<8>();
    }
    #[inline(always)]
    fn pk(s: &mut KeccakP400State) {
        s.permute_const::<8>();
    }
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn encrypt(key: &[u8; 16], nonce: &[u8; 16], ad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        fast_k::encrypt::<Self, 16, 1, 8, 8>(key, nonce, ad, buf)
    }
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn decrypt(
        key: &[u8; 16],
        nonce: &[u8; 16],
        ad: &[u8],
        buf: &mut [u8],
        tag: &[u8; 16],
    ) -> aead::Result<()> {
        fast_k::decrypt::<Self, 16, 1, 8, 8>(key, nonce, ad, buf, tag)
    }
}

impl Variant for IsapK128 {
    type S = KeccakP400State;
    const IV_A: [u8; 8] = Self::IV_A_;
    const IV_KA: [u8; 8] = Self::IV_KA_;
    const IV_KE: [u8; 8] = Self::IV_KE_;
    #[inline(always)]
    fn ph(s: &mut KeccakP400State) {
        s.permute_const::<20>();
    }
    #[inline(always)]
    fn pb(s: &mut KeccakP400State) {
        s.permute_const::<12>();
    }
    #[inline(always)]
    fn pe(s: &mut KeccakP400State) {
        s.permute_const::<12>();
    }
    #[inline(always)]
    fn pk(s: &mut KeccakP400State) {
        s.permute_const::<12>();
    }
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn encrypt(key: &[u8; 16], nonce: &[u8; 16], ad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        fast_k::encrypt::<Self, 20, 12, 12, 12>(key, nonce, ad, buf)
    }
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn decrypt(
        key: &[u8; 16],
        nonce: &[u8; 16],
        ad: &[u8],
        buf: &mut [u8],
        tag: &[u8; 16],
    ) -> aead::Result<()> {
        fast_k::decrypt::<Self, 20, 12, 12, 12>(key, nonce, ad, buf, tag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dispatched implementation (a fast path on x86-64) and the portable mode
    /// agree, in both directions, and a wrong tag wipes the buffer on both.
    fn agree<V: Variant>(rate: usize) {
        let key: [u8; 16] = core::array::from_fn(|i| (i * 3 + 1) as u8);
        let nonce: [u8; 16] = core::array::from_fn(|i| (200 - i) as u8);
        let data: [u8; 300] = core::array::from_fn(|i| (i * 13 + 7) as u8);
        let lens = (0..=3 * rate + 1).chain([100, 300]);
        for len in lens {
            for ad_len in [0, 1, rate - 1, rate, rate + 1, 2 * rate + 3] {
                let ad = &data[..ad_len];
                let mut a = data;
                let mut b = data;
                let ta = V::encrypt(&key, &nonce, ad, &mut a[..len]);
                let tb = portable::encrypt::<V>(&key, &nonce, ad, &mut b[..len]);
                assert_eq!((&a[..len], ta), (&b[..len], tb), "encrypt {len} {ad_len}");
                let mut c = a;
                assert!(V::decrypt(&key, &nonce, ad, &mut a[..len], &ta).is_ok());
                assert!(portable::decrypt::<V>(&key, &nonce, ad, &mut b[..len], &tb).is_ok());
                assert_eq!(&a[..len], &data[..len]);
                assert_eq!(&b[..len], &data[..len]);
                let mut bad = ta;
                bad[len % 16] ^= 0x40;
                let mut d = c;
                assert!(V::decrypt(&key, &nonce, ad, &mut c[..len], &bad).is_err());
                assert!(portable::decrypt::<V>(&key, &nonce, ad, &mut d[..len], &bad).is_err());
                assert!(c[..len].iter().chain(&d[..len]).all(|&x| x == 0));
            }
        }
    }

    #[test]
    fn fast_paths_match_portable() {
        agree::<IsapA128a>(8);
        agree::<IsapA128>(8);
        agree::<IsapK128a>(18);
        agree::<IsapK128>(18);
    }
}
