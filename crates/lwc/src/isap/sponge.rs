//! The two ISAP states (Ascon-p for ISAP-A, Keccak-p\[400\] for ISAP-K) behind one
//! byte-level interface, so the mode is written once.
//!
//! ISAP-A reads the 40-byte state as five big-endian 64-bit words; ISAP-K reads the
//! 50-byte state as 25 little-endian 16-bit lanes. The rate is the first 8 bytes
//! (ISAP-A) or 18 bytes (ISAP-K) of the state.

use crate::permutation::ascon::AsconState;
use crate::permutation::keccak_p400::KeccakP400State;

/// Byte-level access to an ISAP state. All lengths are public; nothing here branches
/// on data.
pub(crate) trait Sponge: Copy {
    /// Bytes absorbed or squeezed per permutation call (r_H / 8).
    const RATE: usize;

    /// The state `first || iv || 0*` (key or nonce, then an initial value).
    fn init(first: &[u8; 16], iv: &[u8; 8]) -> Self;

    /// XORs `bit` (0 or 1) into the most significant bit of state byte 0 (the
    /// one-bit rate r_B of the re-keying).
    fn xor_top_bit(&mut self, bit: u8);

    /// XORs a full rate block (`block.len() == RATE`) into the rate.
    fn xor_block(&mut self, block: &[u8]);

    /// XORs `data` (shorter than `RATE`) followed by the padding byte 0x80.
    fn xor_padded(&mut self, data: &[u8]);

    /// XORs the rate into `buf` (`buf.len() <= RATE`): stream encryption.
    fn squeeze_xor(&self, buf: &mut [u8]);

    /// Flips the last bit of the state (domain separation between A and C).
    fn domain_separate(&mut self);

    /// The first 16 bytes of the state.
    fn first16(&self) -> [u8; 16];

    /// Overwrites the first 16 bytes of the state.
    fn set_first16(&mut self, bytes: &[u8; 16]);

    /// Overwrites the last 16 bytes of the state (the nonce of IsapEnc).
    fn set_last16(&mut self, bytes: &[u8; 16]);
}

#[inline(always)]
fn be64(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_be_bytes(w)
}

impl Sponge for AsconState {
    const RATE: usize = 8;

    #[inline(always)]
    fn init(first: &[u8; 16], iv: &[u8; 8]) -> Self {
        AsconState([be64(&first[..8]), be64(&first[8..]), be64(iv), 0, 0])
    }

    #[inline(always)]
    fn xor_top_bit(&mut self, bit: u8) {
        self.0[0] ^= u64::from(bit) << 63;
    }

    #[inline(always)]
    fn xor_block(&mut self, block: &[u8]) {
        self.0[0] ^= be64(block);
    }

    #[inline(always)]
    fn xor_padded(&mut self, data: &[u8]) {
        let mut w = [0u8; 8];
        w[..data.len()].copy_from_slice(data);
        w[data.len()] = 0x80;
        self.0[0] ^= u64::from_be_bytes(w);
    }

    #[inline(always)]
    fn squeeze_xor(&self, buf: &mut [u8]) {
        let k = self.0[0].to_be_bytes();
        for (b, k) in buf.iter_mut().zip(k) {
            *b ^= k;
        }
    }

    #[inline(always)]
    fn domain_separate(&mut self) {
        self.0[4] ^= 1;
    }

    #[inline(always)]
    fn first16(&self) -> [u8; 16] {
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&self.0[0].to_be_bytes());
        out[8..].copy_from_slice(&self.0[1].to_be_bytes());
        out
    }

    #[inline(always)]
    fn set_first16(&mut self, bytes: &[u8; 16]) {
        self.0[0] = be64(&bytes[..8]);
        self.0[1] = be64(&bytes[8..]);
    }

    #[inline(always)]
    fn set_last16(&mut self, bytes: &[u8; 16]) {
        self.0[3] = be64(&bytes[..8]);
        self.0[4] = be64(&bytes[8..]);
    }
}

impl Sponge for KeccakP400State {
    const RATE: usize = 18;

    #[inline(always)]
    fn init(first: &[u8; 16], iv: &[u8; 8]) -> Self {
        let mut bytes = [0u8; 50];
        bytes[..16].copy_from_slice(first);
        bytes[16..24].copy_from_slice(iv);
        KeccakP400State::from_bytes(&bytes)
    }

    #[inline(always)]
    fn xor_top_bit(&mut self, bit: u8) {
        self.0[0] ^= u16::from(bit) << 7;
    }

    #[inline(always)]
    fn xor_block(&mut self, block: &[u8]) {
        for (lane, b) in self.0[..9].iter_mut().zip(block[..18].chunks_exact(2)) {
            *lane ^= u16::from_le_bytes([b[0], b[1]]);
        }
    }

    #[inline(always)]
    fn xor_padded(&mut self, data: &[u8]) {
        let mut w = [0u8; 18];
        w[..data.len()].copy_from_slice(data);
        w[data.len()] = 0x80;
        self.xor_block(&w);
    }

    #[inline(always)]
    fn squeeze_xor(&self, buf: &mut [u8]) {
        let mut k = [0u8; 18];
        for (b, lane) in k.chunks_exact_mut(2).zip(&self.0[..9]) {
            b.copy_from_slice(&lane.to_le_bytes());
        }
        for (b, k) in buf.iter_mut().zip(k) {
            *b ^= k;
        }
    }

    #[inline(always)]
    fn domain_separate(&mut self) {
        // Byte 49 is the high byte of lane 24.
        self.0[24] ^= 0x0100;
    }

    #[inline(always)]
    fn first16(&self) -> [u8; 16] {
        let mut out = [0u8; 16];
        for (b, lane) in out.chunks_exact_mut(2).zip(&self.0[..8]) {
            b.copy_from_slice(&lane.to_le_bytes());
        }
        out
    }

    #[inline(always)]
    fn set_first16(&mut self, bytes: &[u8; 16]) {
        for (lane, b) in self.0[..8].iter_mut().zip(bytes.chunks_exact(2)) {
            *lane = u16::from_le_bytes([b[0], b[1]]);
        }
    }

    #[inline(always)]
    fn set_last16(&mut self, bytes: &[u8; 16]) {
        // Bytes 34..50 are lanes 17..24.
        for (lane, b) in self.0[17..].iter_mut().zip(bytes.chunks_exact(2)) {
            *lane = u16::from_le_bytes([b[0], b[1]]);
        }
    }
}
