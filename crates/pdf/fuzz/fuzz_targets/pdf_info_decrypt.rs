//! `cipherlab pdf info` and `pdf decrypt` on arbitrary bytes: no panic, no hang, and a
//! decrypted output that we can read back.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = cipherlab_pdf::info(data, None);
    let _ = cipherlab_pdf::info(data, Some("user"));
    let out =
        cipherlab_pdf::decrypt(data, None).or_else(|_| cipherlab_pdf::decrypt(data, Some("user")));
    if let Ok(d) = out {
        // What we write must read back, unencrypted, with the same objects.
        match cipherlab_pdf::decrypt(&d.bytes, None) {
            Ok(again) => assert!(again.auth.is_none(), "our output is encrypted"),
            Err(e) => panic!("our own output does not read back: {e}"),
        }
    }
});
