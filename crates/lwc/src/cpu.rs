//! Run-time CPU feature detection for the x86-64 fast paths, shared by every module
//! that has one. `no_std`, so by CPUID and XGETBV directly (not
//! `is_x86_feature_detected!`, which needs `std`); the answer is cached in an atomic
//! after the first call.
//!
//! Constant time: the choice of code path depends only on the CPU, never on data.

use core::sync::atomic::{AtomicU8, Ordering};

/// Bit set once the CPU has been probed.
const KNOWN: u8 = 1;
/// BMI1 and BMI2 (`andn`, `rorx`).
const BMI: u8 = 2;
/// AVX2 usable (CPU and OS), together with BMI1 and BMI2.
const AVX2: u8 = 4;
/// AVX-512 F, VL and BW usable (CPU and OS), together with AVX2, BMI1 and BMI2.
const AVX512: u8 = 8;
/// AVX-512 VBMI2 as well, besides everything `AVX512` stands for.
const AVX512_VBMI2: u8 = 16;
/// An AMD Zen 1 or Zen+ core (see [`single_vector_shift_pipe`]).
const ZEN1: u8 = 32;

static FEATURES: AtomicU8 = AtomicU8::new(0);

#[allow(unsafe_code)]
fn detect() -> u8 {
    use core::arch::x86_64::{__cpuid, __cpuid_count, _xgetbv};
    let mut f = KNOWN;
    let leaf0 = __cpuid(0);
    if is_zen1(leaf0.ebx, leaf0.ecx, leaf0.edx, __cpuid(1).eax) {
        f |= ZEN1;
    }
    let max_leaf = leaf0.eax;
    if max_leaf < 7 {
        return f;
    }
    let leaf7 = __cpuid_count(7, 0);
    // CPUID.(EAX=7,ECX=0):EBX bit 3 = BMI1, bit 5 = AVX2, bit 8 = BMI2.
    let bmi1 = leaf7.ebx & (1 << 3) != 0;
    let avx2 = leaf7.ebx & (1 << 5) != 0;
    let bmi2 = leaf7.ebx & (1 << 8) != 0;
    if !(bmi1 && bmi2) {
        return f;
    }
    f |= BMI;
    let leaf1 = __cpuid(1);
    let osxsave = leaf1.ecx & (1 << 27) != 0;
    let avx = leaf1.ecx & (1 << 28) != 0;
    if !(osxsave && avx && avx2) {
        return f;
    }
    // SAFETY: XGETBV is available because CPUID reported OSXSAVE; register 0 (XCR0)
    // always exists then.
    let xcr0 = unsafe { _xgetbv(0) };
    // The OS saves the XMM and YMM registers.
    if xcr0 & 0b110 != 0b110 {
        return f;
    }
    f |= AVX2;
    // CPUID.(EAX=7,ECX=0):EBX bit 16 = AVX512F, bit 30 = AVX512BW, bit 31 = AVX512VL.
    let avx512 =
        leaf7.ebx & (1 << 16) != 0 && leaf7.ebx & (1 << 30) != 0 && leaf7.ebx & (1 << 31) != 0;
    // XCR0 bits 5, 6, 7: the OS saves the opmask registers, the upper halves of
    // ZMM0-15 and ZMM16-31. Without them a context switch would corrupt the state.
    if avx512 && xcr0 & 0b1110_0000 == 0b1110_0000 {
        f |= AVX512;
        // CPUID.(EAX=7,ECX=0):ECX bit 6 = AVX512_VBMI2.
        if leaf7.ecx & (1 << 6) != 0 {
            f |= AVX512_VBMI2;
        }
    }
    f
}

#[inline]
fn features() -> u8 {
    let f = FEATURES.load(Ordering::Relaxed);
    if f & KNOWN != 0 {
        return f;
    }
    let f = detect();
    FEATURES.store(f, Ordering::Relaxed);
    f
}

/// Whether the CPU supports both BMI1 and BMI2.
#[inline]
pub(crate) fn has_bmi() -> bool {
    cfg!(all(target_feature = "bmi1", target_feature = "bmi2")) || features() & BMI != 0
}

/// Proof that AVX2, BMI1 and BMI2 are usable (the CPU has them and the OS saves
/// the YMM state). It can only be obtained from [`Avx2Token::detect`], so code that
/// takes one may use those instructions.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2Token(());

impl Avx2Token {
    /// The token, if the CPU and OS support AVX2, BMI1 and BMI2.
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        (features() & AVX2 != 0).then_some(Avx2Token(()))
    }
}

/// Proof that AVX-512 F, VL and BW are usable (the CPU has them and the OS saves the
/// opmask and ZMM state), together with everything [`Avx2Token`] stands for. It can
/// only be obtained from [`Avx512Token::detect`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512Token(());

impl Avx512Token {
    /// The token, if the CPU and OS support AVX-512 F, VL and BW (and AVX2, BMI1,
    /// BMI2).
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        (features() & AVX512 != 0).then_some(Avx512Token(()))
    }

    /// The AVX2 token this one implies (AVX-512 is detected only together with
    /// AVX2, BMI1 and BMI2).
    #[inline]
    pub(crate) fn avx2(self) -> Avx2Token {
        Avx2Token(())
    }
}

/// Whether this is an AMD Zen 1 or Zen+ core (family 17h, models 00h-2Fh), whose
/// vector shifts issue on a single pipe: there the many-message Ascon backend that
/// runs two states in general-purpose registers beside two in vector registers was
/// measured faster than four states in AVX2 registers; on the other CPUs measured
/// (AMD Zen 4, an Intel Xeon) the AVX2 one is faster (docs/BENCHMARKS.md). Read
/// from the cached probe: CPUID is slow, and a VM exit under a hypervisor.
#[inline]
pub(crate) fn single_vector_shift_pipe() -> bool {
    features() & ZEN1 != 0
}

/// From CPUID leaf 0 (vendor in EBX, EDX, ECX) and leaf 1 EAX (family and model).
fn is_zen1(ebx: u32, ecx: u32, edx: u32, leaf1_eax: u32) -> bool {
    // "AuthenticAMD"
    let amd = ebx == 0x6874_7541 && edx == 0x6974_6e65 && ecx == 0x444d_4163;
    let base_family = (leaf1_eax >> 8) & 0xf;
    let family = if base_family == 0xf {
        base_family + ((leaf1_eax >> 20) & 0xff)
    } else {
        base_family
    };
    let model = ((leaf1_eax >> 4) & 0xf) | (((leaf1_eax >> 16) & 0xf) << 4);
    amd && family == 0x17 && model < 0x30
}
/// Proof that AVX-512 VBMI2 is usable, together with everything [`Avx512Token`]
/// stands for. It can only be obtained from [`Avx512Vbmi2Token::detect`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512Vbmi2Token(());

impl Avx512Vbmi2Token {
    /// The token, if the CPU and OS support AVX-512 F, VL, BW and VBMI2 (and AVX2,
    /// BMI1, BMI2).
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        (features() & AVX512_VBMI2 != 0).then_some(Avx512Vbmi2Token(()))
    }

    /// The AVX2 token this one implies.
    #[inline]
    pub(crate) fn avx2(self) -> Avx2Token {
        Avx2Token(())
    }
}

/// Bit of [`SELF_TEST_FAILURES`]: ISAP-K's hand-written AVX-512 VBMI2 path.
pub(crate) const SELF_TEST_ISAP_K_VBMI2: u8 = 1;
/// Bit of [`SELF_TEST_FAILURES`]: the Ascon batch's hand-written AVX-512 block moves.
pub(crate) const SELF_TEST_ASCON_BATCH_AVX512: u8 = 2;

/// The hand-written SIMD paths whose first-use self-test failed in this process.
static SELF_TEST_FAILURES: AtomicU8 = AtomicU8::new(0);

/// Records that a hand-written path failed its self-test and was replaced by a
/// compiler-generated one; with the `std` feature, says so once on standard error.
pub(crate) fn note_self_test_failure(bit: u8) {
    let before = SELF_TEST_FAILURES.fetch_or(bit, Ordering::Relaxed);
    #[cfg(feature = "std")]
    if before & bit == 0 {
        std::eprintln!(
            "cipherlab-lwc: note: a hand-written SIMD path failed its self-test on this CPU \
             and is disabled: {}",
            self_test_failures()
                .collect::<std::vec::Vec<_>>()
                .join(", ")
        );
    }
    #[cfg(not(feature = "std"))]
    let _ = before;
}

/// The hand-written SIMD paths disabled in this process because their first-use
/// self-test disagreed with the portable code (the compiler-generated path of the
/// same feature level runs instead). Empty on a healthy CPU.
pub fn self_test_failures() -> impl Iterator<Item = &'static str> {
    let f = SELF_TEST_FAILURES.load(Ordering::Relaxed);
    [
        (
            SELF_TEST_ISAP_K_VBMI2,
            "isap-k avx512-vbmi2 (rho by vpshldvw)",
        ),
        (
            SELF_TEST_ASCON_BATCH_AVX512,
            "ascon batch avx512 (block moves by vpermt2q)",
        ),
    ]
    .into_iter()
    .filter(move |(bit, _)| f & bit != 0)
    .map(|(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::is_zen1;

    const AMD: (u32, u32, u32) = (0x6874_7541, 0x444d_4163, 0x6974_6e65);

    #[test]
    fn zen1_by_family_and_model() {
        let (b, c, d) = AMD;
        // EPYC 7601 (Zen 1): family 17h, model 01h.
        assert!(is_zen1(b, c, d, 0x0080_0f12));
        // Ryzen 2700X (Zen+): family 17h, model 08h.
        assert!(is_zen1(b, c, d, 0x0080_0f82));
        // EPYC 7742 (Zen 2): family 17h, model 31h.
        assert!(!is_zen1(b, c, d, 0x0083_0f10));
        // EPYC 9654 (Zen 4): family 19h, model 11h.
        assert!(!is_zen1(b, c, d, 0x00a1_0f11));
        // The same signature from another vendor.
        assert!(!is_zen1(0x756e_6547, 0x6c65_746e, 0x4965_6e69, 0x0080_0f12));
    }
}
