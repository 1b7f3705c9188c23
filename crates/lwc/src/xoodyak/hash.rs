//! Xoodyak in hash mode: a 256-bit hash with the RustCrypto `digest` traits.

use super::cyclist::{HashBlocksJob, RHASH, dispatch};
use crate::permutation::xoodoo::XoodooState;
use digest::consts::U32;
use digest::{FixedOutput, FixedOutputReset, HashMarker, Output, OutputSizeUser, Reset, Update};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Xoodyak-Hash (NIST LWC final round): Cyclist in hash mode (rate 16 bytes) on
/// Xoodoo\[12\], `Absorb(M)` then `Squeeze(32)`; a 256-bit digest through the
/// [`digest`] traits. Constant time in the data (AND/NOT/XOR, fixed rotations; only
/// the public length decides the control flow). The state and the buffered input are
/// wiped when the hasher is dropped.
///
/// ```
/// use cipherlab_lwc::XoodyakHash;
/// use cipherlab_lwc::digest::Digest;
///
/// let d = XoodyakHash::digest(b"");
/// assert_eq!(d[..4], [0xea, 0x15, 0x2f, 0x2b]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct XoodyakHash {
    state: XoodooState,
    /// A partial block (`pos` bytes) not yet absorbed.
    buf: [u8; RHASH],
    pos: usize,
    /// Whether a block has been absorbed (the first one has no `Up` before it
    /// and carries `Cd`).
    started: bool,
}

impl XoodyakHash {
    /// `Up` (unless first) and `Down(block, Cd)`; `Cd` is 0x03 on the first block,
    /// of which hash mode keeps the low bit.
    #[inline]
    fn absorb_block(&mut self, block: &[u8]) {
        if self.started {
            self.state.permute_12();
        }
        let mut b = [0u8; 48];
        b[..block.len()].copy_from_slice(block);
        b[block.len()] = 0x01;
        if !self.started {
            b[47] = 0x03 & 0x01;
        }
        self.started = true;
        self.state.xor_bytes(&b);
    }
}

impl HashMarker for XoodyakHash {}

impl Drop for XoodyakHash {
    fn drop(&mut self) {
        self.state.0.zeroize();
        self.buf.zeroize();
    }
}

impl ZeroizeOnDrop for XoodyakHash {}

impl OutputSizeUser for XoodyakHash {
    type OutputSize = U32;
}

impl Update for XoodyakHash {
    fn update(&mut self, mut data: &[u8]) {
        if self.pos > 0 {
            let n = (RHASH - self.pos).min(data.len());
            self.buf[self.pos..self.pos + n].copy_from_slice(&data[..n]);
            self.pos += n;
            data = &data[n..];
            if self.pos < RHASH {
                return;
            }
            let block = self.buf;
            self.absorb_block(&block);
            self.pos = 0;
        }
        if !self.started && data.len() >= RHASH {
            self.absorb_block(&data[..RHASH]);
            data = &data[RHASH..];
        }
        let full = data.len() / RHASH * RHASH;
        if full > 0 {
            dispatch(HashBlocksJob {
                state: &mut self.state,
                data: &data[..full],
            });
            data = &data[full..];
        }
        self.buf[..data.len()].copy_from_slice(data);
        self.pos = data.len();
    }
}

impl FixedOutput for XoodyakHash {
    fn finalize_into(mut self, out: &mut Output<Self>) {
        self.finalize_into_reset(out);
    }
}

impl Reset for XoodyakHash {
    fn reset(&mut self) {
        *self = Self::default();
    }
}

impl FixedOutputReset for XoodyakHash {
    fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
        // The last (partial) block; an empty message is one empty block.
        if !self.started || self.pos > 0 {
            let block = self.buf;
            self.absorb_block(&block[..self.pos]);
        }
        // Squeeze(32): Up, 16 bytes, Down(ε, 0), Up, 16 bytes.
        self.state.permute_12();
        out[..16].copy_from_slice(&self.state.to_bytes()[..16]);
        self.state.xor_bytes(&[0x01]);
        self.state.permute_12();
        out[16..].copy_from_slice(&self.state.to_bytes()[..16]);
        self.reset();
    }
}
