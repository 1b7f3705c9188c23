//! Run-time CPU feature detection for the x86-64 fast paths (no_std, so by CPUID
//! and XGETBV directly), cached after the first call.

use core::sync::atomic::{AtomicU8, Ordering};

const KNOWN: u8 = 1;
const AVX2: u8 = 2;

static FEATURES: AtomicU8 = AtomicU8::new(0);

#[allow(unsafe_code)]
fn detect() -> u8 {
    use core::arch::x86_64::{__cpuid, __cpuid_count, _xgetbv};
    let mut f = KNOWN;
    let max_leaf = __cpuid(0).eax;
    let leaf1 = __cpuid(1);
    let osxsave = leaf1.ecx & (1 << 27) != 0;
    let avx = leaf1.ecx & (1 << 28) != 0;
    if !(osxsave && avx) || max_leaf < 7 {
        return f;
    }
    // SAFETY: XGETBV is available because CPUID reported OSXSAVE; register 0 (XCR0)
    // always exists then.
    let xcr0 = unsafe { _xgetbv(0) };
    if xcr0 & 0b110 != 0b110 {
        // The OS does not save the YMM registers.
        return f;
    }
    let leaf7 = __cpuid_count(7, 0);
    let bmi1 = leaf7.ebx & (1 << 3) != 0;
    let avx2 = leaf7.ebx & (1 << 5) != 0;
    let bmi2 = leaf7.ebx & (1 << 8) != 0;
    if bmi1 && bmi2 && avx2 {
        f |= AVX2;
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
