//! Hashers, XOFs and XOF readers wipe their state and buffered input when dropped: after
//! the destructor has run, every state word and buffered byte is zero (only the small
//! counters, the buffered length and a started flag, are left).

#![allow(clippy::unwrap_used)]

use std::fmt::Debug;
use std::mem::ManuallyDrop;

use cipherlab_lwc::digest::{ExtendableOutput, Update, XofReader};
use cipherlab_lwc::{
    AsconCxof128, AsconHash, AsconHash256, AsconHasha, AsconXof, AsconXof128, AsconXofa,
    XoodyakHash,
};

/// The numbers in `value`'s `Debug` output that are not zero, leaving out the counters
/// (`pos`: the buffered length; `started`). The `Debug` output shows every field, so
/// this sees the state and the buffered bytes without relying on the memory layout.
fn nonzero_fields<T: Debug>(value: &T) -> usize {
    let text = format!("{value:?}");
    let mut count = 0;
    let mut counter = false;
    for token in text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_') {
        if token.is_empty() {
            continue;
        }
        if token == "pos" || token == "started" {
            counter = true;
            continue;
        }
        if let Ok(n) = token.parse::<u64>() {
            if !counter && n != 0 {
                count += 1;
            }
            counter = false;
        } else if token != "true" && token != "false" {
            counter = false;
        }
    }
    count
}

/// Runs `value`'s destructor in place and returns [`nonzero_fields`] of what it left.
fn nonzero_after_drop<T: Debug>(value: T) -> usize {
    let mut slot = ManuallyDrop::new(value);
    let p: *mut T = &mut *slot;
    #[allow(unsafe_code)]
    // SAFETY: `slot` is never used or dropped again; `drop_in_place` runs the destructor
    // exactly once. The memory stays owned by `slot` and every field of these types is
    // an integer or a byte array that the destructor overwrote with zeros or left as it
    // was, so formatting the fields afterwards reads initialised plain data.
    unsafe {
        std::ptr::drop_in_place(p);
        nonzero_fields(&*p)
    }
}

/// `value` must hold secret-dependent numbers before the drop and none after it.
fn check<T: Debug>(name: &str, value: T) {
    let before = nonzero_fields(&value);
    assert!(
        before > 8,
        "{name}: test input left the state nearly zero ({before})"
    );
    let after = nonzero_after_drop(value);
    assert_eq!(
        after, 0,
        "{name}: {after} non-zero state words or bytes survived the drop"
    );
    println!("{name}: {before} non-zero state words and buffered bytes before drop, {after} after");
}

/// 20 secret bytes: two full Ascon blocks absorbed and 4 bytes buffered (Xoodyak: one
/// 16-byte block and 4 buffered).
const SECRET: &[u8] = b"key=0123456789abcdef";

#[test]
fn ascon_hashers_and_xofs_are_wiped() {
    fn absorbed<H: Default + Update>() -> H {
        let mut h = H::default();
        h.update(SECRET);
        h
    }
    check("ascon-hash256", absorbed::<AsconHash256>());
    check("ascon-hash", absorbed::<AsconHash>());
    check("ascon-hasha", absorbed::<AsconHasha>());
    check("ascon-xof128", absorbed::<AsconXof128>());
    check("ascon-xof", absorbed::<AsconXof>());
    check("ascon-xofa", absorbed::<AsconXofa>());
    let mut c = AsconCxof128::new(b"custom").unwrap();
    c.update(SECRET);
    check("ascon-cxof128", c);
}

#[test]
fn ascon_xof_readers_are_wiped() {
    let mut x = AsconXof128::default();
    x.update(SECRET);
    let mut r = x.finalize_xof();
    let mut out = [0u8; 3];
    r.read(&mut out);
    check("ascon-xof128 reader", r);
    let mut c = AsconCxof128::new(b"custom").unwrap();
    c.update(SECRET);
    let mut r = c.finalize_xof();
    r.read(&mut out);
    check("ascon-cxof128 reader", r);
}

#[test]
fn xoodyak_hasher_is_wiped() {
    let mut h = XoodyakHash::default();
    h.update(SECRET);
    check("xoodyak-hash", h);
}
