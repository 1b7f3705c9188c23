//! `cipherlab vectors`' request parser: any input line gets an answer, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for line in text.lines() {
        let _ = cipherlab_cli::vectors::answer(line);
    }
});
