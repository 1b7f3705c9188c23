//! Skipjack: the 80-bit-key, 64-bit-block cipher of "SKIPJACK and KEA Algorithm
//! Specifications", Version 2.0, 29 May 1998 (NSA, published by NIST).
//!
//! 32 rounds of two stepping rules (A for rounds 1-8 and 17-24, B for rounds 9-16
//! and 25-32) over four big-endian 16-bit words `w1 w2 w3 w4`; each round applies
//! the keyed permutation G (a 4-round byte Feistel through the F-table using key
//! bytes `cv[4k..4k+3 mod 10]`, `k` the 0-based round) and XORs in the 1-based
//! round counter.
//!
//! # Security: legacy, broken, variable-time
//!
//! Skipjack is in the catalogue as a **legacy cipher** for measurement and for
//! reading old data: its 80-bit key is within reach of exhaustive search and
//! 31 of its 32 rounds fall to impossible-differential cryptanalysis. Do not use it
//! to protect anything new.
//!
//! **Every operation here is variable-time.** The G permutation indexes byte tables
//! with bytes that depend on the key and the data (that is inherent to the cipher's
//! design, not an implementation accident), so cache-timing side channels can
//! reveal them. Key set-up, encryption, decryption and the test hook all share that
//! property.
//!
//! # Speed
//!
//! Key set-up precomputes, per key byte `cv[i]`, the 256-byte table
//! `T_i[x] = F[x ^ cv[i]]` (2,560 bytes per key), so each G step is one lookup and
//! one XOR. The 32 rounds are fully unrolled with the rule of every round fixed at
//! compile time, and the multi-block path ([`PAR_BLOCKS`] blocks at once, which the
//! mode crates use for ECB, CTR and CBC/CFB decryption) interleaves independent
//! blocks so the out-of-order core overlaps their table look-ups.
//!
//! # Use
//!
//! [`Skipjack`] implements `KeyInit`, `BlockCipherEncrypt` and `BlockCipherDecrypt`
//! of `cipher` 0.5 with a 10-byte key and an 8-byte block, so the RustCrypto mode
//! crates take it like `aes::Aes128`:
//!
//! ```
//! use cipher::{BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, KeyInit, KeyIvInit};
//! use cipherlab_ciphers::skipjack::Skipjack;
//!
//! // One block, the specification's test vector.
//! let key = [0x00, 0x99, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11];
//! let mut block = [0x33, 0x22, 0x11, 0x00, 0xdd, 0xcc, 0xbb, 0xaa].into();
//! Skipjack::new(&key.into()).encrypt_block(&mut block);
//! assert_eq!(block, [0x25u8, 0x87, 0xca, 0xe2, 0x7a, 0x12, 0xd3, 0x00]);
//!
//! // CBC through the `cbc` crate (CTR: `ctr::Ctr64BE<Skipjack>`, and so on).
//! type SkipjackCbcEnc = cbc::Encryptor<Skipjack>;
//! type SkipjackCbcDec = cbc::Decryptor<Skipjack>;
//! let iv = [0x24; 8];
//! let mut blocks = [[0x42u8; 8].into(); 4];
//! SkipjackCbcEnc::new(&key.into(), &iv.into()).encrypt_blocks(&mut blocks);
//! SkipjackCbcDec::new(&key.into(), &iv.into()).decrypt_blocks(&mut blocks);
//! assert!(blocks.iter().all(|b| b == &[0x42u8; 8]));
//! ```
//!
//! The key schedule is zeroized on drop.

use core::fmt;

use cipher::{
    AlgorithmName, Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherDecrypt,
    BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, InOut, Key,
    KeyInit, KeySizeUser, ParBlocks, ParBlocksSizeUser,
    consts::{U8, U10},
};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Number of blocks the multi-block path processes at once.
pub const PAR_BLOCKS: usize = 8;
/// [`PAR_BLOCKS`] as a type-level number.
type ParBlocksType = U8;

/// The F-table, a fixed byte permutation: Section II.B.7 ("F-Table", page 8) of
/// "SKIPJACK and KEA Algorithm Specifications", Version 2.0, 29 May 1998, as
/// transcribed from the NIST publication to the cryptography@c2.net list on
/// 24 June 1998 (P. Metzger, confirmed by C. Plumb's independent transcription).
/// Row `0x`..`Fx` is the high nibble of the input, column the low nibble.
#[rustfmt::skip]
const F: [u8; 256] = [
    0xa3, 0xd7, 0x09, 0x83, 0xf8, 0x48, 0xf6, 0xf4, 0xb3, 0x21, 0x15, 0x78, 0x99, 0xb1, 0xaf, 0xf9,
    0xe7, 0x2d, 0x4d, 0x8a, 0xce, 0x4c, 0xca, 0x2e, 0x52, 0x95, 0xd9, 0x1e, 0x4e, 0x38, 0x44, 0x28,
    0x0a, 0xdf, 0x02, 0xa0, 0x17, 0xf1, 0x60, 0x68, 0x12, 0xb7, 0x7a, 0xc3, 0xe9, 0xfa, 0x3d, 0x53,
    0x96, 0x84, 0x6b, 0xba, 0xf2, 0x63, 0x9a, 0x19, 0x7c, 0xae, 0xe5, 0xf5, 0xf7, 0x16, 0x6a, 0xa2,
    0x39, 0xb6, 0x7b, 0x0f, 0xc1, 0x93, 0x81, 0x1b, 0xee, 0xb4, 0x1a, 0xea, 0xd0, 0x91, 0x2f, 0xb8,
    0x55, 0xb9, 0xda, 0x85, 0x3f, 0x41, 0xbf, 0xe0, 0x5a, 0x58, 0x80, 0x5f, 0x66, 0x0b, 0xd8, 0x90,
    0x35, 0xd5, 0xc0, 0xa7, 0x33, 0x06, 0x65, 0x69, 0x45, 0x00, 0x94, 0x56, 0x6d, 0x98, 0x9b, 0x76,
    0x97, 0xfc, 0xb2, 0xc2, 0xb0, 0xfe, 0xdb, 0x20, 0xe1, 0xeb, 0xd6, 0xe4, 0xdd, 0x47, 0x4a, 0x1d,
    0x42, 0xed, 0x9e, 0x6e, 0x49, 0x3c, 0xcd, 0x43, 0x27, 0xd2, 0x07, 0xd4, 0xde, 0xc7, 0x67, 0x18,
    0x89, 0xcb, 0x30, 0x1f, 0x8d, 0xc6, 0x8f, 0xaa, 0xc8, 0x74, 0xdc, 0xc9, 0x5d, 0x5c, 0x31, 0xa4,
    0x70, 0x88, 0x61, 0x2c, 0x9f, 0x0d, 0x2b, 0x87, 0x50, 0x82, 0x54, 0x64, 0x26, 0x7d, 0x03, 0x40,
    0x34, 0x4b, 0x1c, 0x73, 0xd1, 0xc4, 0xfd, 0x3b, 0xcc, 0xfb, 0x7f, 0xab, 0xe6, 0x3e, 0x5b, 0xa5,
    0xad, 0x04, 0x23, 0x9c, 0x14, 0x51, 0x22, 0xf0, 0x29, 0x79, 0x71, 0x7e, 0xff, 0x8c, 0x0e, 0xe2,
    0x0c, 0xef, 0xbc, 0x72, 0x75, 0x6f, 0x37, 0xa1, 0xec, 0xd3, 0x8e, 0x62, 0x8b, 0x86, 0x10, 0xe8,
    0x08, 0x77, 0x11, 0xbe, 0x92, 0x4f, 0x24, 0xc5, 0x32, 0x36, 0x9d, 0xcf, 0xf3, 0xa6, 0xbb, 0xac,
    0x5e, 0x6c, 0xa9, 0x13, 0x57, 0x25, 0xb5, 0xe3, 0xbd, 0xa8, 0x3a, 0x01, 0x05, 0x59, 0x2a, 0x46,
];

/// Keyed tables: `T[i][x] = F[x ^ cv[i]]` for the ten key bytes.
type Tables = [[u8; 256]; 10];

/// State of `N` independent blocks: `s[j][lane]` is word `w(j+1)` of block `lane`.
type Lanes<const N: usize> = [[u16; N]; 4];

/// G^k (k = 0-based round) on every lane: four Feistel steps on the bytes of `w`.
#[inline(always)]
fn g<const N: usize>(t: &Tables, k: usize, w: [u16; N]) -> [u16; N] {
    let (t0, t1, t2, t3) = (
        &t[(4 * k) % 10],
        &t[(4 * k + 1) % 10],
        &t[(4 * k + 2) % 10],
        &t[(4 * k + 3) % 10],
    );
    let mut out = [0u16; N];
    for (o, &x) in out.iter_mut().zip(w.iter()) {
        let g1 = (x >> 8) as u8;
        let g2 = x as u8;
        let g3 = t0[usize::from(g2)] ^ g1;
        let g4 = t1[usize::from(g3)] ^ g2;
        let g5 = t2[usize::from(g4)] ^ g3;
        let g6 = t3[usize::from(g5)] ^ g4;
        *o = u16::from_be_bytes([g5, g6]);
    }
    out
}

/// (G^k)^-1 on every lane.
#[inline(always)]
fn g_inv<const N: usize>(t: &Tables, k: usize, w: [u16; N]) -> [u16; N] {
    let (t0, t1, t2, t3) = (
        &t[(4 * k) % 10],
        &t[(4 * k + 1) % 10],
        &t[(4 * k + 2) % 10],
        &t[(4 * k + 3) % 10],
    );
    let mut out = [0u16; N];
    for (o, &x) in out.iter_mut().zip(w.iter()) {
        let g5 = (x >> 8) as u8;
        let g6 = x as u8;
        let g4 = t3[usize::from(g5)] ^ g6;
        let g3 = t2[usize::from(g4)] ^ g5;
        let g2 = t1[usize::from(g3)] ^ g4;
        let g1 = t0[usize::from(g2)] ^ g3;
        *o = u16::from_be_bytes([g1, g2]);
    }
    out
}

#[inline(always)]
fn xor3<const N: usize>(a: [u16; N], b: [u16; N], c: u16) -> [u16; N] {
    let mut out = a;
    for (o, &y) in out.iter_mut().zip(b.iter()) {
        *o ^= y ^ c;
    }
    out
}

/// Rule A, round `k` (0-based; the counter is `k + 1`).
#[inline(always)]
fn rule_a<const N: usize>(t: &Tables, k: usize, [w1, w2, w3, w4]: Lanes<N>) -> Lanes<N> {
    let gw = g(t, k, w1);
    [xor3(gw, w4, (k + 1) as u16), gw, w2, w3]
}

/// Rule B, round `k` (0-based; the counter is `k + 1`).
#[inline(always)]
fn rule_b<const N: usize>(t: &Tables, k: usize, [w1, w2, w3, w4]: Lanes<N>) -> Lanes<N> {
    [w4, g(t, k, w1), xor3(w1, w2, (k + 1) as u16), w3]
}

/// Inverse of rule A, round `k`.
#[inline(always)]
fn rule_a_inv<const N: usize>(t: &Tables, k: usize, [w1, w2, w3, w4]: Lanes<N>) -> Lanes<N> {
    [g_inv(t, k, w2), w3, w4, xor3(w1, w2, (k + 1) as u16)]
}

/// Inverse of rule B, round `k`.
#[inline(always)]
fn rule_b_inv<const N: usize>(t: &Tables, k: usize, [w1, w2, w3, w4]: Lanes<N>) -> Lanes<N> {
    let gw = g_inv(t, k, w2);
    [gw, xor3(gw, w3, (k + 1) as u16), w4, w1]
}

/// Rule A applies in rounds 0..8 and 16..24 (0-based), rule B in the others.
#[inline(always)]
const fn is_rule_a(k: usize) -> bool {
    k & 8 == 0
}

/// Applies `$rule` for the eight rounds `$base..$base + 8`, unrolled.
macro_rules! eight_rounds {
    ($rule:ident, $t:expr, $s:ident, $base:expr, [$($i:expr),*]) => {
        $( $s = $rule($t, $base + $i, $s); )*
    };
}

/// All 32 encryption rounds, fully unrolled.
#[inline(always)]
fn encrypt_lanes<const N: usize>(t: &Tables, mut s: Lanes<N>) -> Lanes<N> {
    eight_rounds!(rule_a, t, s, 0, [0, 1, 2, 3, 4, 5, 6, 7]);
    eight_rounds!(rule_b, t, s, 8, [0, 1, 2, 3, 4, 5, 6, 7]);
    eight_rounds!(rule_a, t, s, 16, [0, 1, 2, 3, 4, 5, 6, 7]);
    eight_rounds!(rule_b, t, s, 24, [0, 1, 2, 3, 4, 5, 6, 7]);
    s
}

/// All 32 decryption rounds (round 31 down to 0), fully unrolled.
#[inline(always)]
fn decrypt_lanes<const N: usize>(t: &Tables, mut s: Lanes<N>) -> Lanes<N> {
    eight_rounds!(rule_b_inv, t, s, 24, [7, 6, 5, 4, 3, 2, 1, 0]);
    eight_rounds!(rule_a_inv, t, s, 16, [7, 6, 5, 4, 3, 2, 1, 0]);
    eight_rounds!(rule_b_inv, t, s, 8, [7, 6, 5, 4, 3, 2, 1, 0]);
    eight_rounds!(rule_a_inv, t, s, 0, [7, 6, 5, 4, 3, 2, 1, 0]);
    s
}

/// Loads `N` blocks (big-endian words) into lanes.
#[inline(always)]
fn load<const N: usize>(blocks: &[Block<Skipjack>]) -> Lanes<N> {
    let mut s = [[0u16; N]; 4];
    for (lane, b) in blocks.iter().take(N).enumerate() {
        for (j, w) in s.iter_mut().enumerate() {
            w[lane] = u16::from_be_bytes([b[2 * j], b[2 * j + 1]]);
        }
    }
    s
}

/// Stores lanes into `N` blocks (big-endian words).
#[inline(always)]
fn store<const N: usize>(s: &Lanes<N>, blocks: &mut [Block<Skipjack>]) {
    for (lane, b) in blocks.iter_mut().take(N).enumerate() {
        for (j, w) in s.iter().enumerate() {
            let [hi, lo] = w[lane].to_be_bytes();
            b[2 * j] = hi;
            b[2 * j + 1] = lo;
        }
    }
}

/// Skipjack with an expanded (per-key-byte) key schedule.
///
/// Variable-time (table look-ups indexed by secret bytes); see the
/// [module documentation](self). The schedule is zeroized on drop.
#[derive(Clone)]
pub struct Skipjack {
    t: Tables,
}

impl Skipjack {
    /// Key set-up from the 10 key bytes `cv0..cv9`, `cv0` first as printed in the
    /// specification.
    pub fn from_key_bytes(key: &[u8; 10]) -> Self {
        let mut s = Self {
            t: [[0u8; 256]; 10],
        };
        for (table, &cv) in s.t.iter_mut().zip(key.iter()) {
            for (x, e) in table.iter_mut().enumerate() {
                *e = F[x ^ usize::from(cv)];
            }
        }
        s
    }

    /// Test hook: encrypts one block and returns the state `w1 w2 w3 w4` (each word
    /// big-endian) after each of the 32 rounds; entry 31 is the ciphertext. Runs the
    /// same round functions as the fast path, one round at a time. Variable-time.
    #[doc(hidden)]
    pub fn encrypt_rounds_trace(&self, block: &[u8; 8]) -> [[u8; 8]; 32] {
        let mut s: Lanes<1> = load::<1>(&[Block::<Self>::from(*block)]);
        let mut out = [[0u8; 8]; 32];
        for (k, o) in out.iter_mut().enumerate() {
            s = if is_rule_a(k) {
                rule_a(&self.t, k, s)
            } else {
                rule_b(&self.t, k, s)
            };
            let mut b = [Block::<Self>::default()];
            store::<1>(&s, &mut b);
            *o = b[0].into();
        }
        out
    }
}

impl KeySizeUser for Skipjack {
    type KeySize = U10;
}

impl KeyInit for Skipjack {
    #[inline]
    fn new(key: &Key<Self>) -> Self {
        Self::from_key_bytes(&key.0)
    }
}

impl BlockSizeUser for Skipjack {
    type BlockSize = U8;
}

impl ParBlocksSizeUser for Skipjack {
    type ParBlocksSize = ParBlocksType;
}

impl BlockCipherEncrypt for Skipjack {
    #[inline]
    fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = Self::BlockSize>) {
        f.call(self);
    }
}

impl BlockCipherEncBackend for Skipjack {
    #[inline]
    fn encrypt_block(&self, mut block: InOut<'_, '_, Block<Self>>) {
        let s = load::<1>(core::slice::from_ref(block.get_in()));
        let s = encrypt_lanes::<1>(&self.t, s);
        store::<1>(&s, core::slice::from_mut(block.get_out()));
    }

    #[inline]
    fn encrypt_par_blocks(&self, mut blocks: InOut<'_, '_, ParBlocks<Self>>) {
        let s = load::<PAR_BLOCKS>(blocks.get_in());
        let s = encrypt_lanes::<PAR_BLOCKS>(&self.t, s);
        store::<PAR_BLOCKS>(&s, blocks.get_out());
    }
}

impl BlockCipherDecrypt for Skipjack {
    #[inline]
    fn decrypt_with_backend(&self, f: impl BlockCipherDecClosure<BlockSize = Self::BlockSize>) {
        f.call(self);
    }
}

impl BlockCipherDecBackend for Skipjack {
    #[inline]
    fn decrypt_block(&self, mut block: InOut<'_, '_, Block<Self>>) {
        let s = load::<1>(core::slice::from_ref(block.get_in()));
        let s = decrypt_lanes::<1>(&self.t, s);
        store::<1>(&s, core::slice::from_mut(block.get_out()));
    }

    #[inline]
    fn decrypt_par_blocks(&self, mut blocks: InOut<'_, '_, ParBlocks<Self>>) {
        let s = load::<PAR_BLOCKS>(blocks.get_in());
        let s = decrypt_lanes::<PAR_BLOCKS>(&self.t, s);
        store::<PAR_BLOCKS>(&s, blocks.get_out());
    }
}

impl fmt::Debug for Skipjack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Skipjack { ... }")
    }
}

impl AlgorithmName for Skipjack {
    fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Skipjack")
    }
}

impl Drop for Skipjack {
    fn drop(&mut self) {
        self.t.zeroize();
    }
}

impl ZeroizeOnDrop for Skipjack {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f_table_is_a_permutation() {
        let mut seen = [false; 256];
        for &v in &F {
            assert!(!seen[usize::from(v)], "duplicate {v:#04x}");
            seen[usize::from(v)] = true;
        }
    }

    #[test]
    fn g_inv_inverts_g() {
        let sj = Skipjack::from_key_bytes(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        for k in 0..32 {
            for w in (0..=u16::MAX).step_by(97) {
                assert_eq!(g_inv::<1>(&sj.t, k, g::<1>(&sj.t, k, [w])), [w]);
            }
        }
    }
}
