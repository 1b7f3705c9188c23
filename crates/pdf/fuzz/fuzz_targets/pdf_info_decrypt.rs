//! `cipherlab pdf info` and `pdf decrypt` on arbitrary bytes: no panic, no hang, and a
//! decrypted output that we can read back. The bytes also go straight into the strict
//! reader of authenticated LWC payloads (the path `pdf decrypt` takes for a wrapper
//! document), which must never return a document unless every object authenticates.
//! A file called authenticated must not open with the empty password as such.
//! Damaged inputs take the repair path (`repair::load`: the reading as written, gaps
//! filled, rebuilt) in every call; once more with tight limits, so that hitting a limit
//! in the middle of a repair is exercised too.
#![no_main]

use cipherlab_pdf::Limits;
use libfuzzer_sys::fuzz_target;

/// Limits small enough for fuzz inputs to reach.
const TIGHT: Limits = Limits {
    stream_bytes: 64 << 10,
    objects: 64,
    values: 4096,
    depth: 16,
};

fuzz_target!(|data: &[u8]| {
    let _ = cipherlab_pdf::info(data, None);
    let _ = cipherlab_pdf::info(data, Some("user"));
    let out =
        cipherlab_pdf::decrypt(data, None).or_else(|_| cipherlab_pdf::decrypt(data, Some("user")));
    if let Ok(d) = out {
        // Authenticated means only a password's holders could have written it: never a
        // file that the empty password opens.
        if d.protection.authenticated() {
            assert!(
                cipherlab_pdf::decrypt(data, Some("")).is_err(),
                "a file the empty password opens was called authenticated"
            );
        }
        // What we write must read back, unencrypted, with the same objects.
        match cipherlab_pdf::decrypt(&d.bytes, None) {
            Ok(again) => assert!(again.auth.is_none(), "our output is encrypted"),
            Err(e) => panic!("our own output does not read back: {e}"),
        }
    }
    if let Ok(d) = cipherlab_pdf::decrypt_with(data, None, &TIGHT)
        && let Err(e) = cipherlab_pdf::decrypt(&d.bytes, None)
    {
        panic!("our own output (tight limits) does not read back: {e}");
    }
    if let Ok(o) = cipherlab_pdf::lwc::open::decrypt_payload(data, Some("user")) {
        // Only a payload we wrote (the seeds) gets here; its document must write out.
        let layout = cipherlab_pdf::writer::Layout::like_input(&o.doc);
        let bytes = cipherlab_pdf::writer::write(o.doc, layout);
        assert!(cipherlab_pdf::decrypt(&bytes, None).is_ok(), "decrypted payload unreadable");
    }
});
