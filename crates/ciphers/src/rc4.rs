//! RC4, written here because the `rc4` crate cannot keep a scheduled key (its state is
//! not `Clone`, so every message would redo the key schedule) and runs at about twice
//! OpenSSL's cost per byte.
//!
//! **Not constant time.** RC4's keystream generator indexes its state with secret
//! values; that is the algorithm, and one of the reasons it is broken (RFC 7465). It is
//! in the catalogue for measurement and old data only.

use zeroize::Zeroize;

/// A scheduled RC4 key: the permutation after the key schedule, before any output.
/// Each message starts from a copy, so one key set-up serves many messages.
#[derive(Clone)]
pub struct Rc4Key {
    // u32 cells rather than u8: byte stores and loads to neighbouring cells make the
    // core's memory disambiguation stall; word cells are what OpenSSL's RC4_INT does.
    s: [u32; 256],
}

impl Rc4Key {
    /// Runs the key schedule (KSA). Keys of 1 to 256 bytes; `None` otherwise.
    pub fn new(key: &[u8]) -> Option<Rc4Key> {
        if key.is_empty() || key.len() > 256 {
            return None;
        }
        let mut s = [0u32; 256];
        for (i, cell) in s.iter_mut().enumerate() {
            *cell = i as u32;
        }
        let mut j = 0u8;
        for i in 0..256 {
            j = j.wrapping_add(s[i] as u8).wrapping_add(key[i % key.len()]);
            s.swap(i, usize::from(j));
        }
        Some(Rc4Key { s })
    }

    /// XORs the keystream from the start into `data` (encryption and decryption alike).
    pub fn apply_keystream_vartime(&self, data: &mut [u8]) {
        let mut s = self.s;
        let (mut i, mut j) = (0u8, 0u8);
        for byte in data.iter_mut() {
            i = i.wrapping_add(1);
            let a = s[usize::from(i)];
            j = j.wrapping_add(a as u8);
            let b = s[usize::from(j)];
            s[usize::from(i)] = b;
            s[usize::from(j)] = a;
            *byte ^= s[usize::from((a as u8).wrapping_add(b as u8))] as u8;
        }
        s.zeroize();
    }
}

impl Drop for Rc4Key {
    fn drop(&mut self) {
        self.s.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6229_40_bit_key_offset_0() {
        // RFC 6229, key 0x0102030405, keystream bytes 0..16.
        let k = Rc4Key::new(&[1, 2, 3, 4, 5]).expect("key");
        let mut ks = [0u8; 16];
        k.apply_keystream_vartime(&mut ks);
        assert_eq!(
            ks,
            [
                0xb2, 0x39, 0x63, 0x05, 0xf0, 0x3d, 0xc0, 0x27, 0xcc, 0xc3, 0x52, 0x4a, 0x0a, 0x11,
                0x18, 0xa8
            ]
        );
    }

    #[test]
    fn every_message_starts_from_the_scheduled_key() {
        let k = Rc4Key::new(b"Key").expect("key");
        let (mut a, mut b) = (*b"Plaintext", *b"Plaintext");
        k.apply_keystream_vartime(&mut a);
        k.apply_keystream_vartime(&mut b);
        assert_eq!(a, b);
        assert_eq!(a, [0xBB, 0xF3, 0x16, 0xE8, 0xD9, 0x40, 0xAF, 0x0A, 0xD3]); // Wikipedia's "Key"/"Plaintext" example
        assert!(Rc4Key::new(&[]).is_none() && Rc4Key::new(&[0; 257]).is_none());
    }
}
