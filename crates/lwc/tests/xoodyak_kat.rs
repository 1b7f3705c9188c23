//! Xoodyak AEAD and hash against the NIST LWC KAT files (every record), plus a few
//! records copied into this file that run even without the KAT folder.

// A test fails by panicking; unwrap on known-good inputs is the point.
#![allow(clippy::unwrap_used)]

mod common;

use cipherlab_lwc::aead::{AeadInOut, KeyInit};
use cipherlab_lwc::digest::Digest;
use cipherlab_lwc::{Xoodyak, XoodyakHash};

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
    let n = common::for_each_record(AEAD_FILE, |r| {
        let what = format!("{AEAD_FILE} Count {}", r.count);
        let (key, nonce, pt, ad, ct) = (
            r.bytes("Key"),
            r.bytes("Nonce"),
            r.bytes("PT"),
            r.bytes("AD"),
            r.bytes("CT"),
        );
        check_aead(&key, &nonce, &pt, &ad, &ct, &what);
    });
    assert!(n == 0 || n == 1089, "{n} records");
}

#[test]
fn hash_kat_file() {
    let n = common::for_each_record(HASH_FILE, |r| {
        let (msg, md) = (r.bytes("Msg"), r.bytes("MD"));
        assert_eq!(
            XoodyakHash::digest(&msg).as_slice(),
            md.as_slice(),
            "Count {}",
            r.count
        );
        // Byte-at-a-time and split updates agree with one-shot hashing.
        let mut h = XoodyakHash::new();
        for b in &msg {
            h.update([*b]);
        }
        assert_eq!(
            h.finalize().as_slice(),
            md.as_slice(),
            "Count {} bytewise",
            r.count
        );
        let cut = msg.len() / 3;
        let mut h = XoodyakHash::new();
        h.update(&msg[..cut]);
        h.update(&msg[cut..]);
        assert_eq!(
            h.finalize_reset().as_slice(),
            md.as_slice(),
            "Count {} split",
            r.count
        );
        h.update(&msg);
        assert_eq!(
            h.finalize().as_slice(),
            md.as_slice(),
            "Count {} after reset",
            r.count
        );
    });
    assert!(n == 0 || n == 1025, "{n} records");
}

/// Records copied from xoodyak_LWC_AEAD_KAT_128_128.txt (NIST LWC submission
/// package, via shared/kat): Count 1, 34, 545, 836, 1089. Key = Nonce = 00..0F, PT and
/// AD are counting sequences.
#[test]
fn aead_builtin_vectors() {
    let cases = [
        (1usize, 0usize, 0usize, "4BF0E393144CB58069FC1FEBCAFCFB3C"),
        (34, 1, 0, "890788EAC729D9539F401845B35A34D19F"),
        (
            545,
            16,
            16,
            "D69753865422CBB82FABD13C4B5996417211FC2BC37B98C1BCC0964D39227C0E",
        ),
        (
            836,
            25,
            10,
            "685F855E65048E5B9FC9ADF6339112BEADE9934059B1F819F744C36258B6C2C171229B5DF724170A94",
        ),
        (
            1089,
            32,
            32,
            "DC56EC14215C53A5F2A2A5B957865F46F6201A071795A20FFA0116AD49DE4DE4007C270D39722FF5F3271700B1935B97",
        ),
    ];
    for (count, pt_len, ad_len, want) in cases {
        let key = common::counting(16);
        let pt = common::counting(pt_len);
        let ad = common::counting(ad_len);
        check_aead(
            &key,
            &key,
            &pt,
            &ad,
            &hex::decode(want).unwrap(),
            &format!("built-in Count {count}"),
        );
    }
}

/// Records copied from xoodyak_LWC_HASH_KAT_256.txt: Count 1, 2, 17, 1025 (Msg = 00 01 .., length Count - 1).
#[test]
fn hash_builtin_vectors() {
    let cases = [
        (
            0usize,
            "EA152F2B47BCE24EFB66C479D4ADF17BD324D806E85FF75EE369EE50DC8F8BD1",
        ),
        (
            1,
            "27921F8DDF392894460B70B3ED6C091E6421B7D2147DCD6031D7EFEBAD3030CC",
        ),
        (
            16,
            "9EA695347CDDDFF9BC63ECE30FE231441D581768FE223DD6BD7367094FD216B3",
        ),
        (
            1024,
            "FCC4D63932D98C30CAB597E60B7CCA475BD9FBF984838C5CB5615C949F814615",
        ),
    ];
    for (len, want) in cases {
        let d = XoodyakHash::digest(common::counting(len));
        assert_eq!(hex::encode_upper(d), want, "Msg length {len}");
    }
}
