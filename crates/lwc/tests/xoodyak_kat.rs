//! Xoodyak AEAD and hash against the NIST LWC KAT files (every record), after their
//! built-in excerpts (cipherlab-testkit's `kat-excerpts/`), which run even without the KAT
//! folder.

// A test fails by panicking; unwrap on known-good inputs is the point.
#![allow(clippy::unwrap_used)]

use cipherlab_lwc::aead::{AeadInOut, KeyInit};
use cipherlab_lwc::digest::Digest;
use cipherlab_lwc::{Xoodyak, XoodyakHash};
use cipherlab_testkit::lwc::{for_each_aead, for_each_hash};

const AEAD_FILE: &str = "xoodyak/xoodyak_LWC_AEAD_KAT_128_128.txt";
const HASH_FILE: &str = "xoodyak/xoodyak_LWC_HASH_KAT_256.txt";

/// Encrypts (must give `ct_tag`), decrypts, and checks that a flipped tag bit fails
/// and zeroes the buffer.
fn check_aead(key: &[u8], nonce: &[u8], pt: &[u8], ad: &[u8], ct_tag: &[u8], what: &str) {
    let cipher = Xoodyak::new_from_slice(key).unwrap();
    let nonce = nonce.try_into().unwrap();
    let mut buf = pt.to_vec();
    let tag = cipher
        .encrypt_inout_detached(&nonce, ad, buf.as_mut_slice().into())
        .unwrap();
    buf.extend_from_slice(&tag);
    assert_eq!(
        hex::encode_upper(&buf),
        hex::encode_upper(ct_tag),
        "{what}: encryption"
    );

    let (ct, tag) = ct_tag.split_at(pt.len());
    let mut buf = ct.to_vec();
    cipher
        .decrypt_inout_detached(
            &nonce,
            ad,
            buf.as_mut_slice().into(),
            tag.try_into().unwrap(),
        )
        .unwrap_or_else(|_| panic!("{what}: decryption rejected"));
    assert_eq!(buf, pt, "{what}: decryption");

    for bit in [0, 77, 127] {
        let mut bad = tag.to_vec();
        bad[bit / 8] ^= 1 << (bit % 8);
        let mut buf = ct.to_vec();
        let r = cipher.decrypt_inout_detached(
            &nonce,
            ad,
            buf.as_mut_slice().into(),
            bad.as_slice().try_into().unwrap(),
        );
        assert!(r.is_err(), "{what}: flipped tag bit {bit} accepted");
        assert!(buf.iter().all(|&b| b == 0), "{what}: buffer not wiped");
    }
}

#[test]
fn aead_kat_file() {
    let n = for_each_aead(AEAD_FILE, |v| {
        check_aead(&v.key, &v.nonce, &v.pt, &v.ad, &v.ct, &v.id);
    });
    assert!(n > 0);
}

#[test]
fn hash_kat_file() {
    let n = for_each_hash(HASH_FILE, |v| {
        let (msg, md, id) = (&v.msg, v.md.as_slice(), &v.id);
        assert_eq!(v.custom, None, "{id}: a Z field in a hash file");
        assert_eq!(XoodyakHash::digest(msg).as_slice(), md, "{id}");
        // Byte-at-a-time and split updates agree with one-shot hashing.
        let mut h = XoodyakHash::new();
        for b in msg {
            h.update([*b]);
        }
        assert_eq!(h.finalize().as_slice(), md, "{id} bytewise");
        let cut = msg.len() / 3;
        let mut h = XoodyakHash::new();
        h.update(&msg[..cut]);
        h.update(&msg[cut..]);
        assert_eq!(h.finalize_reset().as_slice(), md, "{id} split");
        h.update(msg);
        assert_eq!(h.finalize().as_slice(), md, "{id} after reset");
    });
    assert!(n > 0);
}
