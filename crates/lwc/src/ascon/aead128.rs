//! Ascon-AEAD128 (NIST SP 800-232): 128-bit key, nonce and tag; rate 16 bytes;
//! p^12 for initialisation and finalisation, p^8 between data blocks; little-endian.
//!
//! Constant time: the permutation is AND/NOT/XOR and fixed rotations on whole words;
//! the mode branches only on the public AD and message lengths; the tag is compared
//! in constant time and the plaintext wiped on mismatch. No table look-ups.

use super::common::{impl_aead, load2, store2};
use crate::permutation::ascon::AsconState;
use aead::{Key, KeyInit};
use zeroize::Zeroize;

/// Initial value of Ascon-AEAD128 (SP 800-232, Sec. 4.1.1), as the word `x0`.
const IV: u64 = 0x0000_1000_808c_0001;

/// Ascon-AEAD128, the authenticated cipher of NIST SP 800-232.
///
/// 16-byte key, 16-byte nonce, 16-byte tag appended to the ciphertext. Implements the
/// `aead` 0.6 traits ([`KeyInit`], [`aead::AeadInOut`]). The key is stored as two
/// pre-loaded state words and zeroized on drop.
///
/// ```
/// use cipherlab_lwc::AsconAead128;
/// use cipherlab_lwc::aead::{AeadInOut, KeyInit};
///
/// let cipher = AsconAead128::new(&[0u8; 16].into());
/// let mut buf = *b"hello";
/// let tag = cipher
///     .encrypt_inout_detached(&[0u8; 16].into(), b"ad", (&mut buf[..]).into())
///     .unwrap();
/// cipher
///     .decrypt_inout_detached(&[0u8; 16].into(), b"ad", (&mut buf[..]).into(), &tag)
///     .unwrap();
/// assert_eq!(&buf, b"hello");
/// ```
#[derive(Clone)]
pub struct AsconAead128 {
    /// The key as two little-endian words.
    key: [u64; 2],
}

impl KeyInit for AsconAead128 {
    #[inline]
    fn new(key: &Key<Self>) -> Self {
        let (k0, k1) = load2::<false>(&key.0);
        Self { key: [k0, k1] }
    }
}

impl AsconAead128 {
    /// The state before the initial permutation: IV, key, nonce.
    #[inline(always)]
    pub(super) fn initial_state(&self, nonce: &[u8; 16]) -> AsconState {
        let [k0, k1] = self.key;
        let (n0, n1) = load2::<false>(nonce);
        AsconState([IV, k0, k1, n0, n1])
    }

    /// The key addition after the initial p^12.
    #[inline(always)]
    pub(super) fn add_key_after_init(&self, s: &mut AsconState) {
        s.0[3] ^= self.key[0];
        s.0[4] ^= self.key[1];
    }

    /// The key addition before the final p^12.
    #[inline(always)]
    pub(super) fn add_key_before_final(&self, s: &mut AsconState) {
        s.0[2] ^= self.key[0];
        s.0[3] ^= self.key[1];
    }

    /// The tag, from the state after the final p^12.
    #[inline(always)]
    pub(super) fn tag(&self, s: &AsconState) -> [u8; 16] {
        store2::<false>(s.0[3] ^ self.key[0], s.0[4] ^ self.key[1])
    }

    #[inline(always)]
    pub(super) fn init(&self, nonce: &[u8; 16]) -> AsconState {
        let mut s = self.initial_state(nonce);
        s.p12();
        self.add_key_after_init(&mut s);
        s
    }

    #[inline(always)]
    pub(super) fn finalize(&self, mut s: AsconState) -> [u8; 16] {
        self.add_key_before_final(&mut s);
        s.p12();
        self.tag(&s)
    }

    fn zeroize_key(&mut self) {
        self.key.zeroize();
    }
}

impl_aead!(AsconAead128, aead::consts::U16, 16, false, 8);
