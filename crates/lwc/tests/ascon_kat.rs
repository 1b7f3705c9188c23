//! Known-answer tests for every Ascon algorithm: every record of every file in
//! `kat/ascon/` (v1.2 and SP 800-232), after the built-in excerpts of those files
//! (cipherlab-testkit's `kat-excerpts/`), which run even without the KAT folder.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use cipherlab_lwc::aead::{AeadInOut, KeyInit, Nonce, Tag};
use cipherlab_lwc::digest::{
    Digest, ExtendableOutput, ExtendableOutputReset, Reset, Update, XofReader,
};
use cipherlab_lwc::{
    Ascon80pq, Ascon128, Ascon128a, AsconAead128, AsconCxof128, AsconHash, AsconHash256,
    AsconHasha, AsconXof, AsconXof128, AsconXofa,
};
use cipherlab_testkit::lwc::{counting, for_each_aead, for_each_hash};

/// Checks one AEAD vector: encryption gives `ct` (ciphertext || tag), decryption gives
/// `pt` back, and a flipped tag bit (`flip` selects which) is rejected with the output
/// buffer zeroed.
fn check_aead<A: AeadInOut + KeyInit>(
    key: &[u8],
    nonce: &[u8],
    pt: &[u8],
    ad: &[u8],
    ct: &[u8],
    flip: usize,
    what: &str,
) {
    let cipher = A::new_from_slice(key).unwrap();
    let nonce = Nonce::<A>::try_from(nonce).unwrap();
    assert_eq!(ct.len(), pt.len() + 16, "{what}: CT length");

    let mut buf = pt.to_vec();
    let tag = cipher
        .encrypt_inout_detached(&nonce, ad, buf.as_mut_slice().into())
        .unwrap();
    assert_eq!(
        hex::encode_upper(&buf),
        hex::encode_upper(&ct[..pt.len()]),
        "{what}: ciphertext"
    );
    assert_eq!(
        hex::encode_upper(&tag),
        hex::encode_upper(&ct[pt.len()..]),
        "{what}: tag"
    );

    // Separate in/out buffers, too.
    let mut out = vec![0u8; pt.len()];
    let tag2 = cipher
        .encrypt_inout_detached(&nonce, ad, cipher_inout(pt, &mut out))
        .unwrap();
    assert_eq!(tag2, tag, "{what}: tag (in/out buffers)");
    assert_eq!(out, buf, "{what}: ciphertext (in/out buffers)");

    let tag = Tag::<A>::try_from(&ct[pt.len()..]).unwrap();
    let mut buf = ct[..pt.len()].to_vec();
    cipher
        .decrypt_inout_detached(&nonce, ad, buf.as_mut_slice().into(), &tag)
        .unwrap_or_else(|_| panic!("{what}: decryption failed"));
    assert_eq!(buf, pt, "{what}: decryption");

    let mut bad = tag;
    bad[(flip / 8) % 16] ^= 1 << (flip % 8);
    let mut buf = ct[..pt.len()].to_vec();
    assert!(
        cipher
            .decrypt_inout_detached(&nonce, ad, buf.as_mut_slice().into(), &bad)
            .is_err(),
        "{what}: flipped tag bit accepted"
    );
    assert!(buf.iter().all(|&b| b == 0), "{what}: output not wiped");
}

fn cipher_inout<'a>(
    input: &'a [u8],
    out: &'a mut [u8],
) -> cipherlab_lwc::aead::inout::InOutBuf<'a, 'a, u8> {
    cipherlab_lwc::aead::inout::InOutBuf::new(input, out).unwrap()
}

fn aead_file<A: AeadInOut + KeyInit>(rel: &str) -> usize {
    for_each_aead(rel, |v| {
        check_aead::<A>(&v.key, &v.nonce, &v.pt, &v.ad, &v.ct, v.count * 7, &v.id);
    })
}

/// Hash check: one-shot, and fed in uneven pieces.
fn hash_digest<D: Digest + Clone>(msg: &[u8]) -> Vec<u8> {
    let one = D::digest(msg).to_vec();
    let mut h = D::new();
    for piece in msg.chunks(7) {
        Digest::update(&mut h, piece);
    }
    assert_eq!(h.finalize().to_vec(), one, "piecewise update");
    one
}

/// XOF output of length `n`, checked against byte-by-byte reading.
fn xof_output<X: ExtendableOutput + Default + Clone>(h: X, msg: &[u8], n: usize) -> Vec<u8> {
    let mut a = h.clone();
    a.update(msg);
    let mut out = vec![0u8; n];
    a.finalize_xof().read(&mut out);
    let mut b = h;
    for piece in msg.chunks(5) {
        b.update(piece);
    }
    let mut r = b.finalize_xof();
    let mut out2 = vec![0u8; n];
    for chunk in out2.chunks_mut(3) {
        r.read(chunk);
    }
    assert_eq!(out, out2, "piecewise update / read");
    out
}

fn hash_file<D: Digest + Clone>(rel: &str) -> usize {
    for_each_hash(rel, |v| {
        assert_eq!(v.msg, counting(v.count - 1), "{}: Msg", v.id);
        assert_eq!(v.custom, None, "{}: a Z field in a hash file", v.id);
        assert_eq!(
            hex::encode_upper(hash_digest::<D>(&v.msg)),
            hex::encode_upper(&v.md),
            "{}",
            v.id
        );
    })
}

fn xof_file<X: ExtendableOutput + Default + Clone>(rel: &str) -> usize {
    for_each_hash(rel, |v| {
        assert_eq!(v.custom, None, "{}: a Z field in an XOF file", v.id);
        let out = xof_output(X::default(), &v.msg, v.md.len());
        assert_eq!(
            hex::encode_upper(&out),
            hex::encode_upper(&v.md),
            "{}",
            v.id
        );
        // Shorter outputs are prefixes.
        let short = xof_output(X::default(), &v.msg, 13);
        assert_eq!(short, v.md[..13]);
    })
}

#[test]
fn aead128_kat() {
    aead_file::<AsconAead128>("ascon/sp800-232/asconaead128_LWC_AEAD_KAT_128_128.txt");
    aead_file::<AsconAead128>(
        "ascon/sp800-232/asconaead128_v1.3.0-inputs_LWC_AEAD_KAT_128_128.txt",
    );
}

#[test]
fn ascon128_kat() {
    aead_file::<Ascon128>("ascon/v1.2/ascon128v12_LWC_AEAD_KAT_128_128.txt");
}

#[test]
fn ascon128a_kat() {
    aead_file::<Ascon128a>("ascon/v1.2/ascon128av12_LWC_AEAD_KAT_128_128.txt");
}

#[test]
fn ascon80pq_kat() {
    aead_file::<Ascon80pq>("ascon/v1.2/ascon80pqv12_LWC_AEAD_KAT_160_128.txt");
}

const HASH256_FILE: &str = "ascon/sp800-232/asconhash256_LWC_HASH_KAT_128_256.txt";
const CXOF128_FILE: &str = "ascon/sp800-232/asconcxof128_LWC_CXOF_KAT_128_512.txt";

#[test]
fn hash256_kat() {
    hash_file::<AsconHash256>(HASH256_FILE);
}

#[test]
fn xof128_kat() {
    xof_file::<AsconXof128>("ascon/sp800-232/asconxof128_LWC_XOF_KAT_128_512.txt");
}

#[test]
fn v12_hash_kat() {
    hash_file::<AsconHash>("ascon/v1.2/asconhashv12_LWC_HASH_KAT_256.txt");
    hash_file::<AsconHasha>("ascon/v1.2/asconhashav12_LWC_HASH_KAT_256.txt");
}

#[test]
fn v12_xof_kat() {
    xof_file::<AsconXof>("ascon/v1.2/asconxofv12_LWC_HASH_KAT_256.txt");
    xof_file::<AsconXofa>("ascon/v1.2/asconxofav12_LWC_HASH_KAT_256.txt");
}

fn check_cxof(msg: &[u8], z: &[u8], md: &[u8], what: &str) {
    let h = AsconCxof128::new(z).unwrap();
    let out = xof_output(h.clone(), msg, md.len());
    assert_eq!(hex::encode_upper(&out), hex::encode_upper(md), "{what}");
    // Reset returns to the customized state.
    let mut h2 = h;
    h2.update(b"garbage");
    h2.reset();
    h2.update(msg);
    let mut out2 = vec![0u8; md.len()];
    h2.finalize_xof_reset().read(&mut out2);
    assert_eq!(out2, md, "{what}: after reset");
    h2.update(msg);
    let mut out3 = vec![0u8; md.len()];
    h2.finalize_xof().read(&mut out3);
    assert_eq!(out3, md, "{what}: after finalize_xof_reset");
}

#[test]
fn cxof128_kat() {
    for_each_hash(CXOF128_FILE, |v| {
        let z = v.custom.as_deref().expect("a CXOF file has Z");
        check_cxof(&v.msg, z, &v.md, &v.id);
    });
}

#[test]
fn cxof128_customization_limit() {
    assert!(AsconCxof128::new(&[0x42; 256]).is_ok());
    assert!(AsconCxof128::new(&[0x42; 257]).is_err());
    assert!(
        <AsconCxof128 as cipherlab_lwc::digest::TryCustomizedInit>::try_new_customized(&[0; 300])
            .is_err()
    );
    // Empty Z is not XOF128 (different IV).
    let mut a = [0u8; 32];
    let mut b = [0u8; 32];
    AsconCxof128::default().finalize_xof().read(&mut a);
    AsconXof128::default().finalize_xof().read(&mut b);
    assert_ne!(a, b);
    // Long customization strings (several blocks) differ from one another.
    let mut c = [0u8; 32];
    let mut h = AsconCxof128::new(&[0x42; 256]).unwrap();
    h.update(b"x");
    h.finalize_xof().read(&mut c);
    let mut d = [0u8; 32];
    let mut h = AsconCxof128::new(&[0x42; 255]).unwrap();
    h.update(b"x");
    h.finalize_xof().read(&mut d);
    assert_ne!(c, d);
}

/// Reset returns to the initial state, and finalize_reset leaves the hasher reset.
#[test]
fn hash_reset() {
    for_each_hash(HASH256_FILE, |v| {
        let mut h = AsconHash256::new();
        Digest::update(&mut h, b"abc");
        Digest::reset(&mut h);
        Digest::update(&mut h, &v.msg);
        assert_eq!(h.finalize_reset().as_slice(), v.md, "{}", v.id);
        Digest::update(&mut h, &v.msg);
        assert_eq!(
            h.finalize().as_slice(),
            v.md,
            "{}: after finalize_reset",
            v.id
        );
    });
}
