//! `cipherlab pdf info` and `pdf decrypt` on arbitrary bytes: no panic, no hang, and a
//! decrypted output that we can read back. The bytes also go straight into the strict
//! reader of authenticated LWC payloads (the path `pdf decrypt` takes for a wrapper
//! document), which must never return a document unless every object authenticates.
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
    if let Ok(o) = cipherlab_pdf::lwc::open::decrypt_payload(data, Some("user")) {
        // Only a payload we wrote (the seeds) gets here; its document must write out.
        let layout = cipherlab_pdf::writer::Layout::like_input(&o.doc);
        let bytes = cipherlab_pdf::writer::write(o.doc, layout);
        assert!(cipherlab_pdf::decrypt(&bytes, None).is_ok(), "decrypted payload unreadable");
    }
});
