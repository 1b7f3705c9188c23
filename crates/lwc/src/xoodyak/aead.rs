//! The Xoodyak AEAD (NIST LWC submission): RustCrypto `aead` traits.

use super::cyclist::{AeadJob, dispatch};
use aead::array::Array;
use aead::consts::U16;
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, Nonce, Tag, TagPosition};
use zeroize::Zeroize;

/// Xoodyak authenticated encryption (NIST LWC final round): 128-bit key, 128-bit
/// nonce, 128-bit tag appended to the ciphertext.
///
/// Cyclist in keyed mode on Xoodoo\[12\] (absorb rate 44 bytes, squeeze rate 24):
/// `AbsorbKey(K)` with an empty key identifier, `Absorb(N)`, `Absorb(AD)`,
/// `Crypt(M)` in 24-byte blocks, `Squeeze(16)` for the tag. The permutation is
/// AND/NOT/XOR with fixed rotations and lane permutations, and the mode only
/// handles bytes at positions given by public lengths, so nothing branches on or
/// indexes memory by secret data; the tag check is constant-time and a wrong tag
/// zeroes the output buffer.
///
/// ```
/// use cipherlab_lwc::Xoodyak;
/// use cipherlab_lwc::aead::{AeadInOut, KeyInit};
///
/// let cipher = Xoodyak::new(&[7u8; 16].into());
/// let nonce = [1u8; 16].into();
/// let mut msg = *b"attack at dawn";
/// let tag = cipher.encrypt_inout_detached(&nonce, b"hdr", (&mut msg[..]).into()).unwrap();
/// cipher.decrypt_inout_detached(&nonce, b"hdr", (&mut msg[..]).into(), &tag).unwrap();
/// assert_eq!(&msg, b"attack at dawn");
/// ```
#[derive(Clone)]
pub struct Xoodyak {
    key: [u8; 16],
}

impl KeySizeUser for Xoodyak {
    type KeySize = U16;
}

impl KeyInit for Xoodyak {
    #[inline]
    fn new(key: &Key<Self>) -> Self {
        Xoodyak { key: (*key).into() }
    }
}

impl AeadCore for Xoodyak {
    type NonceSize = U16;
    type TagSize = U16;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl AeadInOut for Xoodyak {
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<Tag<Self>> {
        let nonce: [u8; 16] = (*nonce).into();
        let buf = buffer.into_out_with_copied_in();
        let tag = dispatch(AeadJob::<false> {
            key: &self.key,
            nonce: &nonce,
            ad: associated_data,
            buf,
        });
        Ok(Array::from(tag))
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &Tag<Self>,
    ) -> aead::Result<()> {
        let nonce: [u8; 16] = (*nonce).into();
        let buf = buffer.into_out_with_copied_in();
        let computed = dispatch(AeadJob::<true> {
            key: &self.key,
            nonce: &nonce,
            ad: associated_data,
            buf: &mut *buf,
        });
        crate::tag::verify_or_wipe(&computed, tag.as_slice(), buf)
    }
}

impl Drop for Xoodyak {
    fn drop(&mut self) {
        self.key.zeroize();
    }
}

impl core::fmt::Debug for Xoodyak {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Xoodyak { .. }")
    }
}
