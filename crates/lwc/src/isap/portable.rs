//! The ISAP v2.0 mode written once over [`Sponge`], in the order of the
//! specification: IsapRk, IsapEnc, IsapMac. Every variant can run on it; the fast
//! paths of the other submodules must agree with it (the unit tests check that).

use super::Variant;
use super::sponge::Sponge;

/// IsapRk: absorbs the 128 bits of `y` one bit per p^{sB} call (MSB of byte 0
/// first) into `key || iv || 0*` and returns the whole state; the caller takes the
/// bytes it needs (16 for K*_A, n-k for K*_E).
#[inline(always)]
pub(crate) fn rekey<V: Variant + ?Sized>(key: &[u8; 16], iv: &[u8; 8], y: &[u8; 16]) -> V::S {
    let mut s = V::S::init(key, iv);
    V::pk(&mut s);
    // Bits of y, most significant first. The loop count is public; the bit only
    // feeds an XOR.
    let w = u128::from_be_bytes(*y);
    for i in 0..127 {
        s.xor_top_bit(((w >> (127 - i)) & 1) as u8);
        V::pb(&mut s);
    }
    s.xor_top_bit((w & 1) as u8);
    V::pk(&mut s);
    s
}

/// The IsapEnc state after re-keying: K*_E (n-k bytes) followed by the nonce.
#[inline(always)]
pub(crate) fn enc_state<V: Variant + ?Sized>(key: &[u8; 16], nonce: &[u8; 16]) -> V::S {
    let mut s = rekey::<V>(key, &V::IV_KE, nonce);
    s.set_last16(nonce);
    s
}

/// The IsapMac state after `N || IV_A` and p^{sH}.
#[inline(always)]
pub(crate) fn mac_init<V: Variant + ?Sized>(nonce: &[u8; 16]) -> V::S {
    let mut s = V::S::init(nonce, &V::IV_A);
    V::ph(&mut s);
    s
}

/// Absorbs `data` with 10* padding (always at least one block) at the rate r_H.
#[inline(always)]
pub(crate) fn absorb<V: Variant + ?Sized>(s: &mut V::S, data: &[u8]) {
    let mut blocks = data.chunks_exact(V::S::RATE);
    for b in blocks.by_ref() {
        s.xor_block(b);
        V::ph(s);
    }
    s.xor_padded(blocks.remainder());
    V::ph(s);
}

/// IsapMac's end: K*_A from the first 16 bytes, then the tag.
#[inline(always)]
pub(crate) fn mac_finish<V: Variant + ?Sized>(mut s: V::S, key: &[u8; 16]) -> [u8; 16] {
    let y = s.first16();
    let ka = rekey::<V>(key, &V::IV_KA, &y).first16();
    s.set_first16(&ka);
    V::ph(&mut s);
    s.first16()
}

/// IsapMac over associated data `ad` and ciphertext `c`.
pub(crate) fn mac<V: Variant + ?Sized>(
    key: &[u8; 16],
    nonce: &[u8; 16],
    ad: &[u8],
    c: &[u8],
) -> [u8; 16] {
    let mut s = mac_init::<V>(nonce);
    absorb::<V>(&mut s, ad);
    s.domain_separate();
    absorb::<V>(&mut s, c);
    mac_finish::<V>(s, key)
}

/// IsapEnc: XORs the keystream into `buf` (encryption and decryption alike).
pub(crate) fn enc<V: Variant + ?Sized>(key: &[u8; 16], nonce: &[u8; 16], buf: &mut [u8]) {
    let mut s = enc_state::<V>(key, nonce);
    for chunk in buf.chunks_mut(V::S::RATE) {
        V::pe(&mut s);
        s.squeeze_xor(chunk);
    }
}

/// Encrypt-then-MAC, in place; returns the tag.
pub(crate) fn encrypt<V: Variant + ?Sized>(
    key: &[u8; 16],
    nonce: &[u8; 16],
    ad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    enc::<V>(key, nonce, buf);
    mac::<V>(key, nonce, ad, buf)
}

/// Verifies the tag over the ciphertext first; decrypts only when it matches. On
/// mismatch the buffer (still ciphertext) is zeroed as well.
pub(crate) fn decrypt<V: Variant + ?Sized>(
    key: &[u8; 16],
    nonce: &[u8; 16],
    ad: &[u8],
    buf: &mut [u8],
    tag: &[u8; 16],
) -> aead::Result<()> {
    let computed = mac::<V>(key, nonce, ad, buf);
    crate::tag::verify_or_wipe(&computed, tag, buf)?;
    enc::<V>(key, nonce, buf);
    Ok(())
}
