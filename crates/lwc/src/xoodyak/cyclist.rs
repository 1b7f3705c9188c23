//! The Cyclist operations of Xoodyak, generic over the Xoodoo implementation, and
//! the choice of implementation at run time.

use crate::permutation::xoodoo::{Engine, Kernel, XoodooState};

/// Keyed absorb rate `Rkin`.
pub(crate) const RKIN: usize = 44;
/// Keyed squeeze rate `Rkout` (the `Crypt` block).
pub(crate) const RKOUT: usize = 24;
/// Hash rate `Rhash`.
pub(crate) const RHASH: usize = 16;

/// A computation to run with the best Xoodoo implementation of the CPU.
pub(crate) trait Job {
    /// What it returns.
    type Output;
    /// Runs it with implementation `E`.
    fn run<E: Engine>(self) -> Self::Output;
}

/// Runs `job` with the implementation [`Kernel::detect`] picks.
#[inline]
#[allow(unsafe_code)]
pub(crate) fn dispatch<J: Job>(job: J) -> J::Output {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::permutation::xoodoo::x86::{Sse2, Ssse3};
        #[target_feature(enable = "ssse3")]
        fn with_ssse3<J: Job>(job: J) -> J::Output {
            job.run::<Ssse3>()
        }
        match Kernel::detect() {
            // SAFETY: the token proves AVX-512 F, VL and BW usable (CPUID and XCR0),
            // which imply SSSE3 and AVX2.
            Kernel::Avx512(_) => unsafe { with_avx512(job) },
            // SAFETY: the token proves CPUID reported SSSE3.
            Kernel::Ssse3(_) => unsafe { with_ssse3(job) },
            Kernel::Sse2 => job.run::<Sse2>(),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        job.run::<XoodooState>()
    }
}

/// Runs `job` with the SSSE3 implementation, compiled with AVX-512 F+VL+BW enabled:
/// the same source as the SSSE3 level, for which the compiler emits `vprold` for the
/// rotations and `vpternlogd` for the three-input logic.
///
/// # Safety
/// The CPU and OS must support AVX-512 F, VL and BW (see `cpu::Avx512Token`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3,avx2,avx512f,avx512vl,avx512bw")]
pub(crate) fn with_avx512<J: Job>(job: J) -> J::Output {
    job.run::<crate::permutation::xoodoo::x86::Ssse3>()
}

/// `Down(X, Cd)` in keyed mode, `X` at most 44 bytes.
#[inline(always)]
pub(crate) fn down<E: Engine>(s: &mut E, x: &[u8], cd: u8) {
    let mut b = [0u8; 48];
    b[..x.len()].copy_from_slice(x);
    b[x.len()] = 0x01;
    b[47] ^= cd;
    s.xor_state_bytes(&b);
}

/// `Up(Cu)` in keyed mode, without output.
#[inline(always)]
pub(crate) fn up<E: Engine>(s: &mut E, cu: u8) {
    if cu != 0 {
        let mut b = [0u8; 48];
        b[47] = cu;
        s.xor_state_bytes(&b);
    }
    s.permute_12();
}

/// `Cyclist(K, ε, ε)`, `Absorb(N)`, `Absorb(AD)`: the state before `Crypt`.
#[inline(always)]
pub(crate) fn keyed_start<E: Engine>(key: &[u8; 16], nonce: &[u8; 16], ad: &[u8]) -> E {
    // AbsorbKey(K): the block K ‖ enc8(|id|) = K ‖ 0x00, Cd = 0x02; the phase
    // starts as Up, so no Up before it.
    let mut s = E::from_state(&XoodooState::default());
    let mut kid = [0u8; 17];
    kid[..16].copy_from_slice(key);
    down(&mut s, &kid, 0x02);
    zeroize::Zeroize::zeroize(&mut kid);
    // Absorb(N).
    up(&mut s, 0);
    down(&mut s, nonce, 0x03);
    // Absorb(AD): at least one block.
    let blocks = ad.len().div_ceil(RKIN).max(1);
    let mut cd = 0x03;
    for i in 0..blocks {
        let chunk = &ad[RKIN * i..ad.len().min(RKIN * (i + 1))];
        up(&mut s, 0);
        down(&mut s, chunk, cd);
        cd = 0;
    }
    s
}

/// `Crypt` over the whole message in place, then `Squeeze(16)`: returns the tag.
#[inline(always)]
pub(crate) fn crypt_and_tag<E: Engine, const DECRYPT: bool>(s: &mut E, buf: &mut [u8]) -> [u8; 16] {
    let full = buf.len() / RKOUT * RKOUT;
    let (bulk, tail) = buf.split_at_mut(full);
    let mut cu = 0x80;
    if !bulk.is_empty() {
        s.crypt_blocks::<DECRYPT>(bulk, cu);
        cu = 0;
    }
    // The last, partial block; an empty message is one empty block.
    if !tail.is_empty() || bulk.is_empty() {
        up(s, cu);
        let ks = s.state_bytes();
        let mut p = [0u8; RKOUT];
        for (i, t) in tail.iter_mut().enumerate() {
            let o = *t ^ ks[i];
            p[i] = if DECRYPT { o } else { *t };
            *t = o;
        }
        down(s, &p[..tail.len()], 0);
        zeroize::Zeroize::zeroize(&mut p);
    }
    // Squeeze(16).
    up(s, 0x40);
    let b = s.state_bytes();
    let mut tag = [0u8; 16];
    tag.copy_from_slice(&b[..16]);
    tag
}

/// Encryption or decryption of a whole message, as one [`Job`].
pub(crate) struct AeadJob<'a, const DECRYPT: bool> {
    pub key: &'a [u8; 16],
    pub nonce: &'a [u8; 16],
    pub ad: &'a [u8],
    pub buf: &'a mut [u8],
}

impl<const DECRYPT: bool> Job for AeadJob<'_, DECRYPT> {
    type Output = [u8; 16];
    #[inline(always)]
    fn run<E: Engine>(self) -> [u8; 16] {
        let mut s = keyed_start::<E>(self.key, self.nonce, self.ad);
        crypt_and_tag::<E, DECRYPT>(&mut s, self.buf)
    }
}

/// Hash-mode absorption of whole 16-byte blocks that are not the first of the
/// message, as one [`Job`].
pub(crate) struct HashBlocksJob<'a> {
    pub state: &'a mut XoodooState,
    pub data: &'a [u8],
}

impl Job for HashBlocksJob<'_> {
    type Output = ();
    #[inline(always)]
    fn run<E: Engine>(self) {
        let mut e = E::from_state(self.state);
        e.hash_blocks(self.data);
        *self.state = e.to_state();
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    fn aead_with<E: Engine>(
        key: &[u8; 16],
        nonce: &[u8; 16],
        ad: &[u8],
        msg: &[u8],
    ) -> (Vec<u8>, [u8; 16]) {
        let mut buf = msg.to_vec();
        let tag = AeadJob::<false> {
            key,
            nonce,
            ad,
            buf: &mut buf,
        }
        .run::<E>();
        let mut back = buf.clone();
        let tag2 = AeadJob::<true> {
            key,
            nonce,
            ad,
            buf: &mut back,
        }
        .run::<E>();
        assert_eq!(tag, tag2);
        assert_eq!(back, msg);
        (buf, tag)
    }

    /// Every implementation (portable, SSE2, SSSE3 when present, and the
    /// dispatcher) gives the same ciphertext and tag, across the rate boundaries.
    #[test]
    fn implementations_agree() {
        let key: [u8; 16] = core::array::from_fn(|i| (i * 7 + 1) as u8);
        let nonce: [u8; 16] = core::array::from_fn(|i| (i * 13 + 5) as u8);
        let data: Vec<u8> = (0..400u32)
            .map(|i| (i.wrapping_mul(31) >> 2) as u8)
            .collect();
        for mlen in (0..=100).chain([239, 240, 241, 400]) {
            for alen in [0, 1, 43, 44, 45, 88, 89] {
                let msg = &data[..mlen];
                let ad = &data[data.len() - alen..];
                let want = aead_with::<XoodooState>(&key, &nonce, ad, msg);
                #[cfg(target_arch = "x86_64")]
                {
                    use crate::permutation::xoodoo::x86::{Sse2, Ssse3};
                    assert_eq!(
                        aead_with::<Sse2>(&key, &nonce, ad, msg),
                        want,
                        "sse2 {mlen} {alen}"
                    );
                    if Ssse3::detect().is_some() {
                        #[target_feature(enable = "ssse3")]
                        fn ssse3(
                            key: &[u8; 16],
                            nonce: &[u8; 16],
                            ad: &[u8],
                            msg: &[u8],
                        ) -> (Vec<u8>, [u8; 16]) {
                            aead_with::<Ssse3>(key, nonce, ad, msg)
                        }
                        // SAFETY: CPUID reported SSSE3.
                        #[allow(unsafe_code)]
                        let got = unsafe { ssse3(&key, &nonce, ad, msg) };
                        assert_eq!(got, want, "ssse3 {mlen} {alen}");
                    }
                }
                let mut buf = msg.to_vec();
                let tag = dispatch(AeadJob::<false> {
                    key: &key,
                    nonce: &nonce,
                    ad,
                    buf: &mut buf,
                });
                assert_eq!((buf, tag), want, "dispatch {mlen} {alen}");
            }
        }
    }

    /// The AVX-512 instance against the portable code: random key, nonce, associated
    /// data and message, every message length 0..=400 (every `Crypt` tail, many
    /// whole-block runs) with associated data lengths around the 44-byte rate, and
    /// hash-mode absorption of 0..=25 blocks. Prints `SKIP` where the CPU lacks
    /// AVX-512 F, VL or BW.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn avx512_matches_portable() {
        use rand::{Rng, RngCore, SeedableRng};
        if crate::cpu::Avx512Token::detect().is_none() {
            std::println!("SKIP: this CPU (or OS) lacks AVX-512 F, VL or BW");
            return;
        }
        fn avx512<J: Job>(job: J) -> J::Output {
            // SAFETY: the caller checked `Avx512Token::detect` above.
            #[allow(unsafe_code)]
            unsafe {
                with_avx512(job)
            }
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed_0512);
        let mut data = [0u8; 600];
        for mlen in 0..=400 {
            for alen in [0, rng.random_range(1..44), 44, rng.random_range(45..200)] {
                let key: [u8; 16] = rng.random();
                let nonce: [u8; 16] = rng.random();
                rng.fill_bytes(&mut data);
                let (msg, ad) = (&data[..mlen], &data[400..400 + alen]);
                let want = aead_with::<XoodooState>(&key, &nonce, ad, msg);
                let mut buf = msg.to_vec();
                let tag = avx512(AeadJob::<false> {
                    key: &key,
                    nonce: &nonce,
                    ad,
                    buf: &mut buf,
                });
                assert_eq!((&buf, tag), (&want.0, want.1), "encrypt {mlen} {alen}");
                let tag = avx512(AeadJob::<true> {
                    key: &key,
                    nonce: &nonce,
                    ad,
                    buf: &mut buf,
                });
                assert_eq!((&buf[..], tag), (msg, want.1), "decrypt {mlen} {alen}");
            }
        }
        for blocks in 0..=25 {
            let mut start = XoodooState::default();
            for w in start.0.iter_mut() {
                *w = rng.random();
            }
            rng.fill_bytes(&mut data);
            let data = &data[..16 * blocks];
            let mut want = start;
            want.hash_blocks(data);
            let mut got = start;
            avx512(HashBlocksJob {
                state: &mut got,
                data,
            });
            assert_eq!(got, want, "hash {blocks} blocks");
        }
        // The permutation itself, every round count, chained.
        let mut s = XoodooState::default();
        for w in s.0.iter_mut() {
            *w = rng.random();
        }
        for rounds in (1..=crate::permutation::xoodoo::MAX_ROUNDS)
            .cycle()
            .take(200)
        {
            let mut got = s;
            assert!(got.permute_avx512(rounds));
            s.permute_portable(rounds);
            assert_eq!(got, s, "{rounds} rounds");
        }
    }

    #[test]
    fn hash_blocks_agree() {
        let data: Vec<u8> = (0..160u32).map(|i| (i * 3) as u8).collect();
        let mut start = XoodooState::default();
        start.0[3] = 0xdead_beef;
        let mut want = start;
        want.hash_blocks(&data);
        let mut got = start;
        dispatch(HashBlocksJob {
            state: &mut got,
            data: &data,
        });
        assert_eq!(got, want);
        #[cfg(target_arch = "x86_64")]
        {
            use crate::permutation::xoodoo::x86::Sse2;
            let mut got = start;
            HashBlocksJob {
                state: &mut got,
                data: &data,
            }
            .run::<Sse2>();
            assert_eq!(got, want);
        }
    }
}
