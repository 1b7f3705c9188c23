//! `cipherlab pdf encrypt` on arbitrary bytes: the first byte picks the cipher (standard
//! or lightweight), the rest is the input (opened with the password "user" if it is
//! encrypted). No panic, no hang; and when encryption succeeds, the output must decrypt
//! with the new user password to a readable, unencrypted file.
#![no_main]

use cipherlab_pdf::{Cipher, LwcCipher, Options, StdCipher};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, input)) = data.split_first() else {
        return;
    };
    let cipher = match pick % 6 {
        0 => Cipher::Standard(StdCipher::Aes256),
        1 => Cipher::Standard(StdCipher::Aes128),
        2 => Cipher::Standard(StdCipher::Rc4_128),
        3 => Cipher::Lwc(LwcCipher::ASCON_AEAD128),
        4 => Cipher::Lwc(LwcCipher::XOODYAK),
        _ => Cipher::Lwc(LwcCipher::ISAP_A_128A),
    };
    let opts = Options {
        cipher,
        user_password: "u",
        owner_password: "o",
        permissions: -4,
        encrypt_metadata: pick & 0x80 == 0 || matches!(cipher, Cipher::Lwc(_)),
        input_password: Some("user"),
        allow_weak: true,
    };
    let Ok(e) = cipherlab_pdf::encrypt(input, &opts) else {
        return;
    };
    match cipherlab_pdf::decrypt(&e.bytes, Some("u")) {
        Ok(d) => {
            assert!(d.auth.is_some(), "our encrypted output reads as unencrypted");
            if let Err(err) = cipherlab_pdf::decrypt(&d.bytes, None) {
                panic!("the decryption of our output does not read back: {err}");
            }
        }
        Err(err) => panic!("our encrypted output does not decrypt: {err}"),
    }
});
