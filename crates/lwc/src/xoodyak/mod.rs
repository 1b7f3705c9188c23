//! Xoodyak (NIST LWC final round): the Cyclist mode of operation on Xoodoo\[12\].
//!
//! * [`Xoodyak`]: the AEAD of the NIST submission, 128-bit key, nonce and tag.
//!   Cyclist in keyed mode (`Rkin` = 44, `Rkout` = 24): `AbsorbKey(K)` with an
//!   empty key identifier, `Absorb(N)`, `Absorb(AD)`, `Crypt(M)`, `Squeeze(16)`.
//! * [`XoodyakHash`]: Cyclist in hash mode (`Rhash` = 16), `Absorb(M)` then
//!   `Squeeze(32)`; implements the [`digest`] traits.
//!
//! Cyclist, as the Xoodyak specification defines it: `Down(X, Cd)` XORs
//! `X ‖ 0x01 ‖ 0…` into the state and `Cd` into the last byte (only its low bit in
//! hash mode); `Up(Cu)` XORs `Cu` into the last byte (keyed mode only) and applies
//! Xoodoo\[12\]. Absorbing splits the input into blocks of the absorb rate (at least
//! one, possibly empty, block), each block preceded by `Up(0)` when the previous
//! call was a `Down`; the first block carries `Cd` = 0x02 for the key and 0x03 for
//! `Absorb`. `Crypt` splits the message into 24-byte blocks (at least one) and
//! for each does `Up(0x80` first, then `0)`, outputs the first bytes of the state
//! XORed with the block, then `Down(plaintext block, 0)`. `Squeeze` is `Up(0x40)`.
//!
//! Constant time: the permutation is AND/NOT/XOR, fixed rotations and fixed lane
//! permutations (see [`crate::permutation::xoodoo`]); the mode only XORs and
//! copies bytes at positions that depend on public lengths. No branch or memory
//! index depends on the key, the data or the tag; the tag comparison is
//! constant-time ([`subtle`]), and a wrong tag wipes the output buffer.
//!
//! Speed: the whole AEAD is generic over the Xoodoo implementation and compiled
//! once per implementation (portable scalar; SSE2 and, when CPUID reports it,
//! SSSE3 on x86_64), so the bulk `Crypt` loop keeps the state in three 128-bit
//! registers and handles each 24-byte block inline.

mod aead;
mod cyclist;
mod hash;

pub use aead::Xoodyak;

/// The Xoodoo implementation Xoodyak runs on this CPU (see `crate::kernels`): the
/// same selection as `XoodooState::permute`.
pub(crate) fn kernel() -> &'static str {
    crate::permutation::xoodoo::Kernel::detect().name()
}
pub use hash::XoodyakHash;
