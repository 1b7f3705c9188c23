//! Block ciphers of the cipherlab catalogue, each behind the RustCrypto `cipher` 0.5
//! traits so that the RustCrypto mode crates (`cbc`, `ctr`, `ecb`, `cfb-mode`, `cfb8`,
//! `ofb`) can drive them.

pub mod skipjack;
