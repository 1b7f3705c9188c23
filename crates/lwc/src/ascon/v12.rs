//! Ascon v1.2 (the NIST LWC final-round submission): Ascon-128, Ascon-128a and
//! Ascon-80pq. Big-endian byte order, padding byte `0x80`, domain separation
//! `x4 ^= 1`.
//!
//! Constant time: the permutation is AND/NOT/XOR and fixed rotations on whole words;
//! the modes branch only on the public AD and message lengths; tags are compared in
//! constant time and the plaintext wiped on mismatch. No table look-ups.

use super::common::{impl_aead, load, load2, store2};
use crate::permutation::ascon::AsconState;
use aead::{Key, KeyInit};
use zeroize::Zeroize;

/// Ascon-128 v1.2 IV (k = 128, r = 64, a = 12, b = 6).
const IV_128: u64 = 0x8040_0c06_0000_0000;
/// Ascon-128a v1.2 IV (k = 128, r = 128, a = 12, b = 8).
const IV_128A: u64 = 0x8080_0c08_0000_0000;
/// Ascon-80pq v1.2 IV: 32 bits, followed by the 160-bit key.
const IV_80PQ: u64 = 0xa040_0c06;

macro_rules! ascon128_variant {
    ($(#[$doc:meta])* $ty:ident, $iv:expr, $rate:literal, $b:literal) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $ty {
            /// The key as two big-endian words.
            key: [u64; 2],
        }

        impl KeyInit for $ty {
            #[inline]
            fn new(key: &Key<Self>) -> Self {
                let (k0, k1) = load2::<true>(&key.0);
                Self { key: [k0, k1] }
            }
        }

        impl $ty {
            /// The state before the initial permutation: IV, key, nonce.
            #[inline(always)]
            pub(super) fn initial_state(&self, nonce: &[u8; 16]) -> AsconState {
                let [k0, k1] = self.key;
                let (n0, n1) = load2::<true>(nonce);
                AsconState([$iv, k0, k1, n0, n1])
            }

            /// The key addition after the initial p^12.
            #[inline(always)]
            pub(super) fn add_key_after_init(&self, s: &mut AsconState) {
                s.0[3] ^= self.key[0];
                s.0[4] ^= self.key[1];
            }

            /// The key addition before the final p^12: right after the rate.
            #[inline(always)]
            pub(super) fn add_key_before_final(&self, s: &mut AsconState) {
                let [k0, k1] = self.key;
                if $rate == 8 {
                    s.0[1] ^= k0;
                    s.0[2] ^= k1;
                } else {
                    s.0[2] ^= k0;
                    s.0[3] ^= k1;
                }
            }

            /// The tag, from the state after the final p^12.
            #[inline(always)]
            pub(super) fn tag(&self, s: &AsconState) -> [u8; 16] {
                store2::<true>(s.0[3] ^ self.key[0], s.0[4] ^ self.key[1])
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

        impl_aead!($ty, aead::consts::U16, $rate, true, $b);
    };
}

ascon128_variant!(
    /// Ascon-128 (v1.2): 16-byte key, nonce and tag; rate 8 bytes; a = 12, b = 6.
    ///
    /// The primary recommendation of the CAESAR portfolio and of the NIST LWC
    /// final-round submission, superseded by [`AsconAead128`](crate::AsconAead128).
    /// Implements the `aead` 0.6 traits; the key is zeroized on drop.
    Ascon128,
    IV_128,
    8,
    6
);

ascon128_variant!(
    /// Ascon-128a (v1.2): 16-byte key, nonce and tag; rate 16 bytes; a = 12, b = 8.
    ///
    /// Not interoperable with [`AsconAead128`](crate::AsconAead128) (byte order,
    /// padding, domain separation and IV differ). Implements the `aead` 0.6 traits;
    /// the key is zeroized on drop.
    Ascon128a,
    IV_128A,
    16,
    8
);

/// Ascon-80pq (v1.2): 20-byte key, 16-byte nonce and tag; rate 8 bytes; a = 12, b = 6.
///
/// The variant with a 160-bit key for more resistance against quantum key search.
/// Implements the `aead` 0.6 traits; the key is zeroized on drop.
#[derive(Clone)]
pub struct Ascon80pq {
    /// Key bytes 0..4 (as the low 32 bits), 4..12 and 12..20, big-endian.
    key: [u64; 3],
}

impl KeyInit for Ascon80pq {
    #[inline]
    fn new(key: &Key<Self>) -> Self {
        let k = &key.0;
        let mut w = [0u8; 8];
        w[4..].copy_from_slice(&k[..4]);
        let mut a = [0u8; 8];
        a.copy_from_slice(&k[4..12]);
        let mut b = [0u8; 8];
        b.copy_from_slice(&k[12..20]);
        Self {
            key: [load::<true>(w), load::<true>(a), load::<true>(b)],
        }
    }
}

impl Ascon80pq {
    #[inline(always)]
    fn init(&self, nonce: &[u8; 16]) -> AsconState {
        let [ka, kb, kc] = self.key;
        let (n0, n1) = load2::<true>(nonce);
        // IV (32 bits) || K (160 bits) || N (128 bits).
        let mut s = AsconState([(IV_80PQ << 32) | ka, kb, kc, n0, n1]);
        s.p12();
        // 0^160 || K.
        s.0[2] ^= ka;
        s.0[3] ^= kb;
        s.0[4] ^= kc;
        s
    }

    #[inline(always)]
    fn finalize(&self, mut s: AsconState) -> [u8; 16] {
        let [ka, kb, kc] = self.key;
        // 0^64 || K || 0^96.
        s.0[1] ^= (ka << 32) | (kb >> 32);
        s.0[2] ^= (kb << 32) | (kc >> 32);
        s.0[3] ^= kc << 32;
        s.p12();
        // The tag takes the last 128 bits of the key.
        store2::<true>(s.0[3] ^ kb, s.0[4] ^ kc)
    }

    fn zeroize_key(&mut self) {
        self.key.zeroize();
    }
}

impl_aead!(Ascon80pq, aead::consts::U20, 8, true, 6);
