//! Tag verification shared by every AEAD: constant-time comparison, and the wipe of
//! the output buffer when the tag is wrong, so unverified plaintext never escapes.

use subtle::ConstantTimeEq;
use zeroize::Zeroize;

/// Compares `computed` with `received` in constant time. On mismatch, zeroes
/// `plaintext` (which already holds the decrypted, unverified bytes) and returns the
/// opaque [`aead::Error`].
#[inline]
pub(crate) fn verify_or_wipe(
    computed: &[u8],
    received: &[u8],
    plaintext: &mut [u8],
) -> aead::Result<()> {
    if bool::from(computed.ct_eq(received)) {
        Ok(())
    } else {
        plaintext.zeroize();
        Err(aead::Error)
    }
}
