//! Keccak-p\[400\]: the 400-bit member of the Keccak-p family (FIPS 202, section 3),
//! used by ISAP-K.
//!
//! The state is 25 lanes of 16 bits, lane `(x, y)` at index `x + 5*y`. Bytes map to
//! lanes little-endian (byte `2*i` is the low byte of lane `i`), as in the Keccak
//! reference code and the ISAP-K submission. Keccak-f\[400\] has 20 rounds;
//! Keccak-p\[400, n\] applies the *last* `n` of them (round indices `20-n .. 19`).
//!
//! Constant time: θ, ρ, π, χ and ι use only XOR, AND, NOT and rotations by fixed
//! amounts on whole lanes. No table is indexed by data, no branch depends on data;
//! the round count is public.

/// The code [`KeccakP400State::permute`] runs on every CPU (see
/// `crate::permutation_kernels`): it has one implementation, compiled for the build's
/// baseline target, and no run-time selection.
pub(crate) const KERNEL: &str = "portable";

/// Round constants of Keccak-f\[400\]: the first 20 Keccak round constants
/// (FIPS 202, Algorithm 5 / the Keccak reference), truncated to 16 bits.
pub(crate) const ROUND_CONSTANTS: [u16; 20] = [
    0x0001, 0x8082, 0x808a, 0x8000, 0x808b, 0x0001, 0x8081, 0x8009, 0x008a, 0x0088, 0x8009, 0x000a,
    0x808b, 0x008b, 0x8089, 0x8003, 0x8002, 0x0080, 0x800a, 0x000a,
];

/// ρ offsets of lane `x + 5*y` (FIPS 202, Table 2), reduced modulo the lane width 16.
pub(crate) const RHO: [u32; 25] = [
    0,
    1,
    62 % 16,
    28 % 16,
    27 % 16, //
    36 % 16,
    44 % 16,
    6,
    55 % 16,
    20 % 16, //
    3,
    10,
    43 % 16,
    25 % 16,
    39 % 16, //
    41 % 16,
    45 % 16,
    15,
    21 % 16,
    8, //
    18 % 16,
    2,
    61 % 16,
    56 % 16,
    14,
];

/// Number of rounds of Keccak-f\[400\].
pub const MAX_ROUNDS: usize = ROUND_CONSTANTS.len();

/// The Keccak-p\[400\] state: 25 lanes of 16 bits, lane `(x, y)` at `x + 5*y`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeccakP400State(pub [u16; 25]);

impl KeccakP400State {
    /// The state whose 50 bytes are `bytes` (lanes little-endian).
    pub fn from_bytes(bytes: &[u8; 50]) -> Self {
        let mut s = [0u16; 25];
        for (lane, b) in s.iter_mut().zip(bytes.chunks_exact(2)) {
            *lane = u16::from_le_bytes([b[0], b[1]]);
        }
        Self(s)
    }

    /// The 50 bytes of the state (lanes little-endian).
    pub fn to_bytes(&self) -> [u8; 50] {
        let mut out = [0u8; 50];
        for (b, lane) in out.chunks_exact_mut(2).zip(self.0.iter()) {
            b.copy_from_slice(&lane.to_le_bytes());
        }
        out
    }

    /// Applies the last `ROUNDS` rounds of Keccak-f\[400\] with the round count known
    /// at compile time (the loop unrolls and the constants fold).
    #[inline(always)]
    pub fn permute_const<const ROUNDS: usize>(&mut self) {
        const { assert!(ROUNDS >= 1 && ROUNDS <= MAX_ROUNDS) };
        let mut a = self.0;
        let mut i = MAX_ROUNDS - ROUNDS;
        while i < MAX_ROUNDS {
            round(&mut a, ROUND_CONSTANTS[i]);
            i += 1;
        }
        self.0 = a;
    }

    /// Applies the last `rounds` rounds of Keccak-f\[400\] (1 to 20), i.e.
    /// Keccak-p\[400, rounds\]; for benchmarks and experiments.
    ///
    /// # Panics
    /// If `rounds` is 0 or above [`MAX_ROUNDS`].
    pub fn permute(&mut self, rounds: usize) {
        assert!(
            (1..=MAX_ROUNDS).contains(&rounds),
            "Keccak-p[400] takes 1 to 20 rounds"
        );
        let mut a = self.0;
        for &c in &ROUND_CONSTANTS[MAX_ROUNDS - rounds..] {
            round(&mut a, c);
        }
        self.0 = a;
    }
}

/// One round θ ρ π χ ι on the lanes `a`, with round constant `rc`.
#[inline(always)]
pub(crate) fn round(a: &mut [u16; 25], rc: u16) {
    // θ: column parities, then each lane gets C[x-1] ^ rot(C[x+1], 1).
    let mut c = [0u16; 5];
    for x in 0..5 {
        c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
    }
    for x in 0..5 {
        let d = c[(x + 4) % 5] ^ c[(x + 1) % 5].rotate_left(1);
        for y in 0..5 {
            a[x + 5 * y] ^= d;
        }
    }
    // ρ and π: lane (x, y) rotated by RHO moves to (y, 2x + 3y).
    let mut b = [0u16; 25];
    for y in 0..5 {
        for x in 0..5 {
            b[y + 5 * ((2 * x + 3 * y) % 5)] = a[x + 5 * y].rotate_left(RHO[x + 5 * y]);
        }
    }
    // χ along each row, then ι.
    for y in 0..5 {
        for x in 0..5 {
            a[x + 5 * y] = b[x + 5 * y] ^ (!b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y]);
        }
    }
    a[0] ^= rc;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn const_and_dynamic_rounds_agree() {
        let mut init = [0u16; 25];
        for (i, l) in init.iter_mut().enumerate() {
            *l = (i as u16).wrapping_mul(0x9e37) ^ 0x5a5a;
        }
        let mut a = KeccakP400State(init);
        let mut b = a;
        a.permute_const::<16>();
        b.permute(16);
        assert_eq!(a, b);
        let mut a = KeccakP400State(init);
        let mut b = a;
        a.permute_const::<1>();
        b.permute(1);
        assert_eq!(a, b);
    }

    #[test]
    fn rounds_compose() {
        // Keccak-p[400, 20] = last 12 rounds after the first 8.
        let mut a = KeccakP400State([3; 25]);
        let mut b = a;
        a.permute(20);
        for &c in &ROUND_CONSTANTS[..8] {
            round(&mut b.0, c);
        }
        b.permute(12);
        assert_eq!(a, b);
    }

    #[test]
    fn bytes_roundtrip() {
        let mut bytes = [0u8; 50];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = i as u8;
        }
        let s = KeccakP400State::from_bytes(&bytes);
        assert_eq!(s.0[1], 0x0302);
        assert_eq!(s.to_bytes(), bytes);
    }
}
