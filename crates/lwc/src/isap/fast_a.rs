//! ISAP-A with the keystream and the MAC side by side (x86-64).
//!
//! IsapEnc and IsapMac are two independent Ascon-p chains; only the ciphertext
//! links them. One loop body runs the MAC's p^{sH} over block `i` and the
//! keystream's p^{sE} for block `i + 2`, interleaved round by round (s_H / s_E MAC
//! rounds per keystream round), so the out-of-order core overlaps the two
//! dependency chains; the keystream runs two blocks ahead so its latency never
//! holds up the MAC. Where the keystream state lives was measured (ISAP-A-128A,
//! AMD Zen 3, minimum over 64 KiB messages, rdtsc cycles/byte):
//!
//! * both states in general-purpose registers, with BMI1 `andn` and BMI2 `rorx`
//!   (chosen at run time when the CPU has them): 18.7;
//! * keystream in AVX2 registers, each word in both 64-bit lanes so the two
//!   rotations of a word are one pair of variable shifts: 19.2 (the vector round
//!   costs more instructions than the scalar one, and instruction dispatch, not
//!   the ALUs, is the limit);
//! * keystream in SSE2 registers with constant shifts: 22.1. This is still what
//!   CPUs without BMI get (x86-64 baseline, no run-time requirement): there the
//!   scalar round needs separate NOT and AND, so moving one chain to the vector
//!   units pays.
//!
//! The "complemented x2" trick (below) drops one NOT per round.
//!
//! Both round functions are the bitsliced Ascon round (AND-NOT/XOR and fixed
//! rotations; SSE2 has no rotate, so it is two shifts and an OR): no table, no
//! data-dependent branch.

use core::arch::x86_64::__m128i;

use super::Variant;
use super::portable;
use super::sponge::Sponge;
use crate::cpu::Avx2Token;
use crate::permutation::ascon::AsconState;

/// Ascon round constant of round index `i` (0..12 for p^12; p^a uses the last
/// `a`): `((0xf - i) << 4) | i` (Ascon v1.2 specification, Table 4).
#[inline(always)]
const fn rc(i: usize) -> u64 {
    (((0xf - i) << 4) | i) as u64
}

/// One scalar Ascon round (the round of [`crate::permutation::ascon`], written out
/// here so a loop body can interleave single rounds of two states), in the
/// "complemented x2" representation: the state holds `!x2`, so the round's final
/// NOT of x2 is dropped and the constant is XORed as `!c` (since the linear layer
/// commutes with complement, `!x2` in gives `!x2` out).
#[inline(always)]
fn round_scalar(s: &mut [u64; 5], c: u64) {
    let [mut x0, mut x1, mut x2, mut x3, mut x4] = *s;
    x2 ^= !c;
    x0 ^= x4;
    x4 ^= x3;
    x2 ^= x1;
    let t0 = !x0 & x1;
    let t1 = !x1 & x2;
    let t2 = !x2 & x3;
    let t3 = !x3 & x4;
    let t4 = !x4 & x0;
    x0 ^= t1;
    x1 ^= t2;
    x2 ^= t3;
    x3 ^= t4;
    x4 ^= t0;
    x1 ^= x0;
    x0 ^= x4;
    x3 ^= x2;
    x0 ^= x0.rotate_right(19) ^ x0.rotate_right(28);
    x1 ^= x1.rotate_right(61) ^ x1.rotate_right(39);
    x2 ^= x2.rotate_right(1) ^ x2.rotate_right(6);
    x3 ^= x3.rotate_right(10) ^ x3.rotate_right(17);
    x4 ^= x4.rotate_right(7) ^ x4.rotate_right(41);
    *s = [x0, x1, x2, x3, x4];
}

/// Where the keystream state lives (x2 complemented as in [`round_scalar`]).
trait KsState: Copy {
    /// Proof that the instructions are available.
    type Token: Copy;
    /// The vector form of `s` (with x2 complemented).
    fn load(t: Self::Token, s: &AsconState) -> Self;
    /// One round with constant `c` (complemented representation).
    fn round(&mut self, c: u64);
    /// Word x0 (the rate).
    fn x0(&self) -> u64;
}

/// SSE2 (x86-64 baseline): the state in the low 64-bit lane of five vectors;
/// rotations are two shifts and an OR.
#[derive(Clone, Copy)]
struct Sse2State([__m128i; 5]);

/// Both chains on the integer ALUs: the keystream in general-purpose registers
/// too (used with BMI1/BMI2).
#[derive(Clone, Copy)]
struct ScalarState([u64; 5]);

impl KsState for ScalarState {
    type Token = ();
    #[inline(always)]
    fn load((): (), s: &AsconState) -> Self {
        let mut w = s.0;
        w[2] = !w[2];
        ScalarState(w)
    }
    #[inline(always)]
    fn round(&mut self, c: u64) {
        round_scalar(&mut self.0, c);
    }
    #[inline(always)]
    fn x0(&self) -> u64 {
        self.0[0]
    }
}

#[allow(unsafe_code)]
mod imp {
    //! The SSE2 intrinsics (x86-64 baseline, so always available).
    use super::{KsState, Sse2State};
    use crate::permutation::ascon::AsconState;
    use core::arch::x86_64::*;

    /// The S-box layer (both lanes) in the complemented-x2 representation.
    #[inline(always)]
    fn sbox(x: &mut [__m128i; 5], c: __m128i) {
        // SAFETY: SSE2 only (x86-64 baseline); no memory access.
        unsafe {
            let [mut x0, mut x1, mut x2, mut x3, mut x4] = *x;
            x2 = _mm_xor_si128(x2, c);
            x0 = _mm_xor_si128(x0, x4);
            x4 = _mm_xor_si128(x4, x3);
            x2 = _mm_xor_si128(x2, x1);
            let t0 = _mm_andnot_si128(x0, x1);
            let t1 = _mm_andnot_si128(x1, x2);
            let t2 = _mm_andnot_si128(x2, x3);
            let t3 = _mm_andnot_si128(x3, x4);
            let t4 = _mm_andnot_si128(x4, x0);
            x0 = _mm_xor_si128(x0, t1);
            x1 = _mm_xor_si128(x1, t2);
            x2 = _mm_xor_si128(x2, t3);
            x3 = _mm_xor_si128(x3, t4);
            x4 = _mm_xor_si128(x4, t0);
            x1 = _mm_xor_si128(x1, x0);
            x0 = _mm_xor_si128(x0, x4);
            x3 = _mm_xor_si128(x3, x2);
            *x = [x0, x1, x2, x3, x4];
        }
    }

    /// `x ^ ror(x, R1) ^ ror(x, R2)` on both lanes with constant shifts (SSE2).
    #[inline(always)]
    fn sigma_sse2<const R1: i32, const L1: i32, const R2: i32, const L2: i32>(
        x: __m128i,
    ) -> __m128i {
        const { assert!(L1 == 64 - R1 && L2 == 64 - R2) };
        // SAFETY: SSE2 only; no memory access.
        unsafe {
            let a = _mm_or_si128(_mm_srli_epi64::<R1>(x), _mm_slli_epi64::<L1>(x));
            let b = _mm_or_si128(_mm_srli_epi64::<R2>(x), _mm_slli_epi64::<L2>(x));
            _mm_xor_si128(x, _mm_xor_si128(a, b))
        }
    }

    impl KsState for Sse2State {
        type Token = ();
        #[inline(always)]
        fn load((): (), s: &AsconState) -> Self {
            let mut w = s.0;
            w[2] = !w[2];
            // SAFETY: SSE2 only; no memory access.
            Sse2State(w.map(|v| unsafe { _mm_cvtsi64_si128(v as i64) }))
        }
        #[inline(always)]
        fn round(&mut self, c: u64) {
            // SAFETY: SSE2 only; no memory access.
            sbox(&mut self.0, unsafe { _mm_cvtsi64_si128(!c as i64) });
            let [x0, x1, x2, x3, x4] = self.0;
            self.0 = [
                sigma_sse2::<19, 45, 28, 36>(x0),
                sigma_sse2::<61, 3, 39, 25>(x1),
                sigma_sse2::<1, 63, 6, 58>(x2),
                sigma_sse2::<10, 54, 17, 47>(x3),
                sigma_sse2::<7, 57, 41, 23>(x4),
            ];
        }
        #[inline(always)]
        fn x0(&self) -> u64 {
            // SAFETY: SSE2 only.
            unsafe { _mm_cvtsi128_si64(self.0[0]) as u64 }
        }
    }
}

#[inline(always)]
fn load_be(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_be_bytes(w)
}

/// Keystream round `j` of p^{SE} followed by the MAC rounds that go with it.
#[inline(always)]
fn step<K: KsState, const SH: usize, const SE: usize>(m: &mut [u64; 5], k: &mut K, j: usize) {
    k.round(rc(12 - SE + j));
    for q in 0..SH / SE {
        round_scalar(m, rc(12 - SH + j * (SH / SE) + q));
    }
}

/// p^{SH} on the MAC state and p^{SE} on the keystream state, interleaved, fully
/// unrolled (SE is 6 or 12).
#[inline(always)]
fn interleave<K: KsState, const SH: usize, const SE: usize>(m: &mut [u64; 5], k: &mut K) {
    const { assert!(SE == 6 || SE == 12) };
    step::<K, SH, SE>(m, k, 0);
    step::<K, SH, SE>(m, k, 1);
    step::<K, SH, SE>(m, k, 2);
    step::<K, SH, SE>(m, k, 3);
    step::<K, SH, SE>(m, k, 4);
    step::<K, SH, SE>(m, k, 5);
    if SE == 12 {
        step::<K, SH, SE>(m, k, 6);
        step::<K, SH, SE>(m, k, 7);
        step::<K, SH, SE>(m, k, 8);
        step::<K, SH, SE>(m, k, 9);
        step::<K, SH, SE>(m, k, 10);
        step::<K, SH, SE>(m, k, 11);
    }
}

/// Encrypts (`DECRYPT = false`) or decrypts `buf` in place with the keystream of
/// `ks` (the IsapEnc state after re-keying), absorbing the ciphertext into `mac`
/// (the IsapMac state after the AD and the domain separation), with 10* padding.
/// Round counts: `SH` for the MAC, `SE` for the keystream, `SH` a multiple of `SE`.
#[inline(always)]
fn stream<K: KsState, const SH: usize, const SE: usize, const DECRYPT: bool>(
    token: K::Token,
    ks: &AsconState,
    mac: &mut AsconState,
    buf: &mut [u8],
) {
    const { assert!(SH <= 12 && SE <= SH && SH.is_multiple_of(SE)) };
    let mut k = K::load(token, ks);
    let mut m = mac.0;
    m[2] = !m[2];
    // Keystream for block 0, and the state for block 1: the keystream runs two
    // blocks ahead of the MAC, so its latency never stalls the MAC.
    for r in 12 - SE..12 {
        k.round(rc(r));
    }
    let mut next = k.x0();
    for r in 12 - SE..12 {
        k.round(rc(r));
    }
    let mut blocks = buf.chunks_exact_mut(8);
    for block in blocks.by_ref() {
        let key = next;
        next = k.x0();
        let input = load_be(block);
        let c = if DECRYPT { input } else { input ^ key };
        block.copy_from_slice(&(input ^ key).to_be_bytes());
        m[0] ^= c;
        // MAC p^{SH} over this block and the keystream p^{SE} two blocks ahead,
        // interleaved round by round (SH / SE MAC rounds per keystream round).
        interleave::<K, SH, SE>(&mut m, &mut k);
    }
    // Last, partial block (possibly empty), with the padding.
    let rest = blocks.into_remainder();
    let key = next.to_be_bytes();
    let mut pad = [0u8; 8];
    for ((p, b), kb) in pad.iter_mut().zip(rest.iter_mut()).zip(key) {
        let c = if DECRYPT { *b } else { *b ^ kb };
        *b ^= kb;
        *p = c;
    }
    pad[rest.len()] = 0x80;
    m[0] ^= u64::from_be_bytes(pad);
    for r in 12 - SH..12 {
        round_scalar(&mut m, rc(r));
    }
    m[2] = !m[2];
    mac.0 = m;
}

/// The MAC state after `N || IV_A`, the padded AD and the domain separation.
#[inline(always)]
fn mac_after_ad<V: Variant<S = AsconState>>(nonce: &[u8; 16], ad: &[u8]) -> AsconState {
    let mut s = portable::mac_init::<V>(nonce);
    portable::absorb::<V>(&mut s, ad);
    s.domain_separate();
    s
}

/// The whole of encryption (`DECRYPT = false`) or decryption in place; returns the
/// tag computed over the ciphertext.
#[inline(always)]
fn whole<
    K: KsState,
    V: Variant<S = AsconState>,
    const SH: usize,
    const SE: usize,
    const DECRYPT: bool,
>(
    t: K::Token,
    key: &[u8; 16],
    nonce: &[u8; 16],
    ad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    let ks = portable::enc_state::<V>(key, nonce);
    let mut mac = mac_after_ad::<V>(nonce, ad);
    stream::<K, SH, SE, DECRYPT>(t, &ks, &mut mac, buf);
    portable::mac_finish::<V>(mac, key)
}

/// [`whole`] with both chains in general-purpose registers, compiled with BMI1
/// and BMI2 (`andn`, `rorx`: fewer instructions per round, also in the
/// re-keying). The token also proves AVX2, which is not needed here.
#[target_feature(enable = "avx2,bmi1,bmi2")]
fn whole_bmi<V: Variant<S = AsconState>, const SH: usize, const SE: usize, const DECRYPT: bool>(
    token: Avx2Token,
    key: &[u8; 16],
    nonce: &[u8; 16],
    ad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    let _ = token;
    whole::<ScalarState, V, SH, SE, DECRYPT>((), key, nonce, ad, buf)
}

/// [`whole`] with the best instruction set the CPU offers.
#[inline(always)]
#[allow(unsafe_code)]
fn dispatch<V: Variant<S = AsconState>, const SH: usize, const SE: usize, const DECRYPT: bool>(
    key: &[u8; 16],
    nonce: &[u8; 16],
    ad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    match Kernel::detect() {
        // SAFETY: the token exists, so the CPU supports AVX2, BMI1 and BMI2 (and
        // the OS saves the vector state), checked by CPUID/XGETBV.
        Kernel::Bmi(token) => unsafe {
            whole_bmi::<V, SH, SE, DECRYPT>(token, key, nonce, ad, buf)
        },
        Kernel::Sse2 => whole::<Sse2State, V, SH, SE, DECRYPT>((), key, nonce, ad, buf),
    }
}

/// The ISAP-A code [`encrypt`] and [`decrypt`] run on this CPU, chosen here only, so
/// that [`Kernel::name`] (what `crate::kernels` reports) is the code that really runs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kernel {
    /// Ascon-p in general-purpose registers, compiled with AVX2, BMI1 and BMI2.
    Bmi(Avx2Token),
    /// Ascon-p in SSE2 registers.
    Sse2,
}

impl Kernel {
    /// `Bmi` where AVX2, BMI1 and BMI2 are usable, else `Sse2`.
    #[inline(always)]
    pub(crate) fn detect() -> Kernel {
        match Avx2Token::detect() {
            Some(t) => Kernel::Bmi(t),
            None => Kernel::Sse2,
        }
    }

    /// Its name in reports.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kernel::Bmi(_) => "avx2",
            Kernel::Sse2 => "sse2",
        }
    }
}

/// Encryption: keystream and MAC interleaved; returns the tag.
#[inline(always)]
pub(crate) fn encrypt<V: Variant<S = AsconState>, const SH: usize, const SE: usize>(
    key: &[u8; 16],
    nonce: &[u8; 16],
    ad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    dispatch::<V, SH, SE, false>(key, nonce, ad, buf)
}

/// Decryption: the MAC over the ciphertext and the keystream run side by side into
/// `buf`; the tag is then checked and `buf` wiped if it is wrong.
#[inline(always)]
pub(crate) fn decrypt<V: Variant<S = AsconState>, const SH: usize, const SE: usize>(
    key: &[u8; 16],
    nonce: &[u8; 16],
    ad: &[u8],
    buf: &mut [u8],
    tag: &[u8; 16],
) -> aead::Result<()> {
    let computed = dispatch::<V, SH, SE, true>(key, nonce, ad, buf);
    crate::tag::verify_or_wipe(&computed, tag, buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<K: KsState>(t: K::Token) {
        let init = [
            0x0123_4567_89ab_cdef,
            0xfedc_ba98_7654_3210,
            0x0f1e_2d3c_4b5a_6978,
            0x8877_6655_4433_2211,
            0xdead_beef_0bad_f00d,
        ];
        let mut a = AsconState(init);
        a.p12();
        let mut s = init;
        s[2] = !s[2];
        let mut v = K::load(t, &AsconState(init));
        for r in 0..12 {
            round_scalar(&mut s, rc(r));
            v.round(rc(r));
        }
        s[2] = !s[2];
        assert_eq!(s, a.0);
        assert_eq!(v.x0(), a.0[0]);
    }

    fn paths_agree<K: KsState, V: Variant<S = AsconState>, const SH: usize, const SE: usize>(
        t: K::Token,
    ) {
        let key = [0x42u8; 16];
        let nonce: [u8; 16] = core::array::from_fn(|i| i as u8 * 7);
        let data: [u8; 200] = core::array::from_fn(|i| (i * 31 + 5) as u8);
        for len in (0..=26).chain([63, 64, 65, 200]) {
            for ad_len in [0, 7, 8, 9, 33] {
                let ad = &data[..ad_len];
                let mut want = [0u8; 200];
                want[..len].copy_from_slice(&data[..len]);
                let want_tag = portable::encrypt::<V>(&key, &nonce, ad, &mut want[..len]);
                let mut got = data;
                let tag = whole::<K, V, SH, SE, false>(t, &key, &nonce, ad, &mut got[..len]);
                assert_eq!(
                    (&got[..len], tag),
                    (&want[..len], want_tag),
                    "encrypt {len} {ad_len}"
                );
                let tag = whole::<K, V, SH, SE, true>(t, &key, &nonce, ad, &mut got[..len]);
                assert_eq!(
                    (&got[..len], tag),
                    (&data[..len], want_tag),
                    "decrypt {len} {ad_len}"
                );
            }
        }
    }

    /// The SSE2 and scalar keystream paths give the portable mode's results (the
    /// KAT tests only reach the path this CPU selects).
    #[test]
    fn every_path_matches_portable() {
        paths_agree::<Sse2State, crate::IsapA128a, 12, 6>(());
        paths_agree::<Sse2State, crate::IsapA128, 12, 12>(());
        paths_agree::<ScalarState, crate::IsapA128a, 12, 6>(());
        paths_agree::<ScalarState, crate::IsapA128, 12, 12>(());
    }

    #[test]
    fn rounds_match_ascon_p() {
        check::<Sse2State>(());
        check::<ScalarState>(());
    }
}
