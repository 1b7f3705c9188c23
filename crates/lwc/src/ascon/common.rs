//! The duplex engine shared by all Ascon AEADs (v1.2 and SP 800-232), and small
//! byte-order helpers.
//!
//! Everything here is generic over three compile-time parameters, so each AEAD gets
//! its own fully specialised and inlined copy:
//!
//! * `R`: the rate in bytes, 8 or 16;
//! * `BE`: `true` for the v1.2 big-endian convention (pad byte `0x80`, domain
//!   separation `x4 ^= 1`), `false` for SP 800-232 little-endian (pad byte `0x01`,
//!   domain separation `x4 ^= 1 << 63`);
//! * `B`: the number of rounds of the permutation between data blocks.
//!
//! The five state words live in a local [`AsconState`] that never has its address
//! taken outside inlined code, so the bulk loops keep them in registers.
//!
//! Constant time: only the lengths of the AD and the message (public) decide branches,
//! loop counts and the position of the padding byte; data bytes are only XORed,
//! loaded and stored. No table look-ups.

use crate::permutation::ascon::AsconState;

/// Loads 8 bytes as a state word in the chosen byte order.
#[inline(always)]
pub(crate) fn load<const BE: bool>(b: [u8; 8]) -> u64 {
    if BE {
        u64::from_be_bytes(b)
    } else {
        u64::from_le_bytes(b)
    }
}

/// Stores a state word as 8 bytes in the chosen byte order.
#[inline(always)]
pub(crate) fn store<const BE: bool>(x: u64) -> [u8; 8] {
    if BE { x.to_be_bytes() } else { x.to_le_bytes() }
}

/// Loads 16 bytes as two state words (first 8 bytes in the first word).
#[inline(always)]
pub(crate) fn load2<const BE: bool>(b: &[u8; 16]) -> (u64, u64) {
    if BE {
        let v = u128::from_be_bytes(*b);
        ((v >> 64) as u64, v as u64)
    } else {
        let v = u128::from_le_bytes(*b);
        (v as u64, (v >> 64) as u64)
    }
}

/// Stores two state words as 16 bytes (the first word first).
#[inline(always)]
pub(crate) fn store2<const BE: bool>(a: u64, b: u64) -> [u8; 16] {
    if BE {
        (((a as u128) << 64) | b as u128).to_be_bytes()
    } else {
        (((b as u128) << 64) | a as u128).to_le_bytes()
    }
}

/// The padding byte appended after the data: `0x80` (v1.2) or `0x01` (SP 800-232).
/// Either way a single 1 bit right after the data, seen through the byte order.
#[inline(always)]
pub(crate) const fn pad_byte<const BE: bool>() -> u8 {
    if BE { 0x80 } else { 0x01 }
}

/// The domain-separation bit XORed into `x4` after the associated data.
#[inline(always)]
pub(crate) const fn dsep<const BE: bool>() -> u64 {
    if BE { 1 } else { 1 << 63 }
}

/// Copies a partial block (`rem.len() < R`) into a zeroed rate-sized buffer and
/// appends the padding byte.
#[inline(always)]
pub(crate) fn padded<const R: usize, const BE: bool>(rem: &[u8]) -> [u8; 16] {
    let mut buf = [0u8; 16];
    buf[..rem.len()].copy_from_slice(rem);
    buf[rem.len()] = pad_byte::<BE>();
    buf
}

/// XORs a rate-sized block (given as a 16-byte buffer; only the first `R` bytes count)
/// into the state.
#[inline(always)]
fn xor_block<const R: usize, const BE: bool>(s: &mut AsconState, buf: &[u8; 16]) {
    if R == 16 {
        let (a, b) = load2::<BE>(buf);
        s.0[0] ^= a;
        s.0[1] ^= b;
    } else {
        let (a, _) = load2::<BE>(buf);
        s.0[0] ^= a;
    }
}

/// The rate part of the state as bytes (a 16-byte buffer; only the first `R` count).
#[inline(always)]
fn rate_bytes<const BE: bool>(s: &AsconState) -> [u8; 16] {
    store2::<BE>(s.0[0], s.0[1])
}

/// Absorbs the associated data (skipped entirely when empty) and applies the
/// domain separation, which is always applied.
#[inline(always)]
pub(crate) fn absorb_ad<const R: usize, const BE: bool, const B: usize>(
    s: &mut AsconState,
    ad: &[u8],
) {
    if !ad.is_empty() {
        if R == 16 {
            let (blocks, rem) = ad.as_chunks::<16>();
            for blk in blocks {
                let (a, b) = load2::<BE>(blk);
                s.0[0] ^= a;
                s.0[1] ^= b;
                s.permute_const::<B>();
            }
            xor_block::<R, BE>(s, &padded::<R, BE>(rem));
        } else {
            let (blocks, rem) = ad.as_chunks::<8>();
            for blk in blocks {
                s.0[0] ^= load::<BE>(*blk);
                s.permute_const::<B>();
            }
            xor_block::<R, BE>(s, &padded::<R, BE>(rem));
        }
        s.permute_const::<B>();
    }
    s.0[4] ^= dsep::<BE>();
}

/// Encrypts `buf` in place. Leaves the state ready for the finalisation key addition
/// (the padded last block has been absorbed, no permutation after it).
#[inline(always)]
pub(crate) fn encrypt<const R: usize, const BE: bool, const B: usize>(
    s: &mut AsconState,
    buf: &mut [u8],
) {
    let rem = if R == 16 {
        let (blocks, rem) = buf.as_chunks_mut::<16>();
        for blk in blocks {
            let (a, b) = load2::<BE>(blk);
            s.0[0] ^= a;
            s.0[1] ^= b;
            *blk = store2::<BE>(s.0[0], s.0[1]);
            s.permute_const::<B>();
        }
        rem
    } else {
        let (blocks, rem) = buf.as_chunks_mut::<8>();
        for blk in blocks {
            s.0[0] ^= load::<BE>(*blk);
            *blk = store::<BE>(s.0[0]);
            s.permute_const::<B>();
        }
        rem
    };
    xor_block::<R, BE>(s, &padded::<R, BE>(rem));
    let out = rate_bytes::<BE>(s);
    let n = rem.len();
    rem.copy_from_slice(&out[..n]);
}

/// Decrypts `buf` in place (the plaintext is not yet verified). Leaves the state ready
/// for the finalisation key addition.
#[inline(always)]
pub(crate) fn decrypt<const R: usize, const BE: bool, const B: usize>(
    s: &mut AsconState,
    buf: &mut [u8],
) {
    let rem = if R == 16 {
        let (blocks, rem) = buf.as_chunks_mut::<16>();
        for blk in blocks {
            let (c0, c1) = load2::<BE>(blk);
            *blk = store2::<BE>(s.0[0] ^ c0, s.0[1] ^ c1);
            s.0[0] = c0;
            s.0[1] = c1;
            s.permute_const::<B>();
        }
        rem
    } else {
        let (blocks, rem) = buf.as_chunks_mut::<8>();
        for blk in blocks {
            let c = load::<BE>(*blk);
            *blk = store::<BE>(s.0[0] ^ c);
            s.0[0] = c;
            s.permute_const::<B>();
        }
        rem
    };
    // Last (partial or empty) block: plaintext = ciphertext ^ state; the state takes
    // the ciphertext bytes, then the padding byte is XORed in right after them.
    let n = rem.len();
    let mut st = rate_bytes::<BE>(s);
    for (c, k) in rem.iter_mut().zip(st.iter_mut()) {
        let ct = *c;
        *c = ct ^ *k;
        *k = ct;
    }
    st[n] ^= pad_byte::<BE>();
    let (a, b) = load2::<BE>(&st);
    s.0[0] = a;
    if R == 16 {
        s.0[1] = b;
    }
}

/// Implements the `aead` 0.6 traits for an Ascon AEAD type.
///
/// The type must provide `fn init(&self, nonce: &[u8; 16]) -> AsconState` (state
/// after initialisation and the key addition) and
/// `fn finalize(&self, s: AsconState) -> [u8; 16]` (the tag), and a `zeroize_key`
/// method for its `Drop`. `$r`, `$be`, `$b` are the rate, byte order and data rounds.
///
/// The whole computation (init, AD, message, finalisation) is one inlined function,
/// compiled twice on x86-64: once for the baseline target and once with BMI1/BMI2
/// enabled (`andn`, `rorx`), chosen at run time by `cpuid`.
macro_rules! impl_aead {
    ($ty:ident, $keysize:ty, $r:literal, $be:literal, $b:literal) => {
        impl aead::KeySizeUser for $ty {
            type KeySize = $keysize;
        }

        impl aead::AeadCore for $ty {
            type NonceSize = aead::consts::U16;
            type TagSize = aead::consts::U16;
            const TAG_POSITION: aead::TagPosition = aead::TagPosition::Postfix;
        }

        impl $ty {
            /// Encrypts `buf` in place and returns the tag.
            #[inline(always)]
            fn seal_inline(&self, nonce: &[u8; 16], ad: &[u8], buf: &mut [u8]) -> [u8; 16] {
                let mut s = self.init(nonce);
                $crate::ascon::common::absorb_ad::<$r, $be, $b>(&mut s, ad);
                $crate::ascon::common::encrypt::<$r, $be, $b>(&mut s, buf);
                self.finalize(s)
            }

            /// Decrypts `buf` in place and returns the computed tag (not yet compared).
            #[inline(always)]
            fn open_inline(&self, nonce: &[u8; 16], ad: &[u8], buf: &mut [u8]) -> [u8; 16] {
                let mut s = self.init(nonce);
                $crate::ascon::common::absorb_ad::<$r, $be, $b>(&mut s, ad);
                $crate::ascon::common::decrypt::<$r, $be, $b>(&mut s, buf);
                self.finalize(s)
            }

            #[inline(never)]
            pub(crate) fn seal_portable(
                &self,
                nonce: &[u8; 16],
                ad: &[u8],
                buf: &mut [u8],
            ) -> [u8; 16] {
                self.seal_inline(nonce, ad, buf)
            }

            #[inline(never)]
            pub(crate) fn open_portable(
                &self,
                nonce: &[u8; 16],
                ad: &[u8],
                buf: &mut [u8],
            ) -> [u8; 16] {
                self.open_inline(nonce, ad, buf)
            }

            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "bmi1,bmi2")]
            #[inline(never)]
            pub(crate) fn seal_bmi(&self, nonce: &[u8; 16], ad: &[u8], buf: &mut [u8]) -> [u8; 16] {
                self.seal_inline(nonce, ad, buf)
            }

            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "bmi1,bmi2")]
            #[inline(never)]
            pub(crate) fn open_bmi(&self, nonce: &[u8; 16], ad: &[u8], buf: &mut [u8]) -> [u8; 16] {
                self.open_inline(nonce, ad, buf)
            }

            /// Encrypts `buf` in place with the fastest one-message code on this CPU
            /// and returns the tag.
            #[inline]
            pub(crate) fn seal(&self, nonce: &[u8; 16], ad: &[u8], buf: &mut [u8]) -> [u8; 16] {
                #[cfg(target_arch = "x86_64")]
                if $crate::cpu::has_bmi() {
                    #[allow(unsafe_code)]
                    // SAFETY: `seal_bmi` only needs BMI1 and BMI2, which `has_bmi`
                    // has just confirmed with `cpuid` (or the build enables them).
                    return unsafe { self.seal_bmi(nonce, ad, buf) };
                }
                self.seal_portable(nonce, ad, buf)
            }

            /// Decrypts `buf` in place with the fastest one-message code on this CPU
            /// and returns the computed tag (not yet compared).
            #[inline]
            pub(crate) fn open(&self, nonce: &[u8; 16], ad: &[u8], buf: &mut [u8]) -> [u8; 16] {
                #[cfg(target_arch = "x86_64")]
                if $crate::cpu::has_bmi() {
                    #[allow(unsafe_code)]
                    // SAFETY: `open_bmi` only needs BMI1 and BMI2, which `has_bmi`
                    // has just confirmed with `cpuid` (or the build enables them).
                    return unsafe { self.open_bmi(nonce, ad, buf) };
                }
                self.open_portable(nonce, ad, buf)
            }
        }

        impl aead::AeadInOut for $ty {
            #[inline]
            fn encrypt_inout_detached(
                &self,
                nonce: &aead::Nonce<Self>,
                associated_data: &[u8],
                buffer: aead::inout::InOutBuf<'_, '_, u8>,
            ) -> aead::Result<aead::Tag<Self>> {
                let buf = buffer.into_out_with_copied_in();
                Ok(aead::array::Array(self.seal(
                    &nonce.0,
                    associated_data,
                    buf,
                )))
            }

            #[inline]
            fn decrypt_inout_detached(
                &self,
                nonce: &aead::Nonce<Self>,
                associated_data: &[u8],
                buffer: aead::inout::InOutBuf<'_, '_, u8>,
                tag: &aead::Tag<Self>,
            ) -> aead::Result<()> {
                let buf = buffer.into_out_with_copied_in();
                let computed = self.open(&nonce.0, associated_data, buf);
                $crate::tag::verify_or_wipe(&computed, &tag.0, buf)
            }
        }

        impl Drop for $ty {
            fn drop(&mut self) {
                self.zeroize_key();
            }
        }
    };
}
pub(crate) use impl_aead;

/// One Ascon round as a `const fn`, used only to precompute the initial states of the
/// hash functions at compile time (the run-time permutation is
/// [`AsconState::permute_const`]; a unit test checks that the two agree).
const fn const_round(x: &mut [u64; 5], c: u64) {
    x[2] ^= c;
    x[0] ^= x[4];
    x[4] ^= x[3];
    x[2] ^= x[1];
    let t0 = !x[0] & x[1];
    let t1 = !x[1] & x[2];
    let t2 = !x[2] & x[3];
    let t3 = !x[3] & x[4];
    let t4 = !x[4] & x[0];
    x[0] ^= t1;
    x[1] ^= t2;
    x[2] ^= t3;
    x[3] ^= t4;
    x[4] ^= t0;
    x[1] ^= x[0];
    x[0] ^= x[4];
    x[3] ^= x[2];
    x[2] = !x[2];
    x[0] ^= x[0].rotate_right(19) ^ x[0].rotate_right(28);
    x[1] ^= x[1].rotate_right(61) ^ x[1].rotate_right(39);
    x[2] ^= x[2].rotate_right(1) ^ x[2].rotate_right(6);
    x[3] ^= x[3].rotate_right(10) ^ x[3].rotate_right(17);
    x[4] ^= x[4].rotate_right(7) ^ x[4].rotate_right(41);
}

/// p^12 at compile time (see [`const_round`]).
pub(crate) const fn const_p12(mut x: [u64; 5]) -> [u64; 5] {
    const RC: [u64; 12] = [
        0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87, 0x78, 0x69, 0x5a, 0x4b,
    ];
    let mut i = 0;
    while i < 12 {
        const_round(&mut x, RC[i]);
        i += 1;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn const_p12_matches_runtime() {
        let x = [1, 2, 3, 0xdead_beef, u64::MAX];
        let mut s = AsconState(x);
        s.p12();
        assert_eq!(const_p12(x), s.0);
    }

    #[test]
    fn byte_order_helpers() {
        let b: [u8; 16] = core::array::from_fn(|i| i as u8);
        let (a, c) = load2::<true>(&b);
        assert_eq!(a, 0x0001020304050607);
        assert_eq!(c, 0x08090a0b0c0d0e0f);
        assert_eq!(store2::<true>(a, c), b);
        let (a, c) = load2::<false>(&b);
        assert_eq!(a, 0x0706050403020100);
        assert_eq!(c, 0x0f0e0d0c0b0a0908);
        assert_eq!(store2::<false>(a, c), b);
    }
}
