//! Run-time detection of the x86-64 bit-manipulation extensions BMI1 (`andn`) and
//! BMI2 (`rorx`), which cut the Ascon round from about 60 to about 40 instructions.
//! `no_std`, so `cpuid` is read directly; the answer is cached in an atomic.
//!
//! Constant time: the choice of code path depends only on the CPU, never on data; both
//! paths compute the same branch-free rounds.

use core::sync::atomic::{AtomicU8, Ordering};

/// 0: not yet probed, 1: absent, 2: present.
static BMI: AtomicU8 = AtomicU8::new(0);

/// Whether the CPU supports both BMI1 and BMI2.
#[inline]
pub(crate) fn has_bmi() -> bool {
    if cfg!(all(target_feature = "bmi1", target_feature = "bmi2")) {
        return true;
    }
    match BMI.load(Ordering::Relaxed) {
        0 => probe(),
        v => v == 2,
    }
}

#[cold]
fn probe() -> bool {
    use core::arch::x86_64::{__cpuid, __cpuid_count};
    let max_leaf = __cpuid(0).eax;
    let ok = max_leaf >= 7 && {
        let ebx = __cpuid_count(7, 0).ebx;
        // CPUID.(EAX=7,ECX=0):EBX bit 3 = BMI1, bit 8 = BMI2.
        ebx & (1 << 3) != 0 && ebx & (1 << 8) != 0
    };
    BMI.store(if ok { 2 } else { 1 }, Ordering::Relaxed);
    ok
}
