//! # cipherlab-ciphers: the catalogue
//!
//! Every cipher cipherlab knows, by name, behind one API that keeps the phases a study
//! times apart (key generation, initialisation, encryption and decryption of many
//! messages), implemented by several providers that all pass the same vectors.
//!
//! ```
//! use cipherlab_ciphers::{CipherSpec, generate_key, providers};
//!
//! let spec = CipherSpec::parse("aes-128-cbc")?;          // names as OpenSSL spells them
//! let key = generate_key(&spec);                         // phase 1: OS RNG
//! let mut cipher = providers::init(&spec, &key, None)?;  // phase 2: key schedule, once
//! let iv = [7u8; 16];
//! let mut buf = *b"sixteen byte msg\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"; // room for padding
//! let n = cipher.encrypt(&iv, &[], &mut buf, 16)?;       // phase 3: in place, no allocation
//! assert_eq!(n, 32);
//! let m = cipher.decrypt(&iv, &[], &mut buf[..n])?;
//! assert_eq!(&buf[..m], b"sixteen byte msg");
//! # Ok::<(), cipherlab_ciphers::Error>(())
//! ```
//!
//! Output is byte-for-byte what OpenSSL and Java's JCE give for the same name, key, IV
//! and input. Legacy and broken ciphers (DES, 3DES, RC2, RC4, Blowfish, Skipjack, ECB)
//! are here to be measured and to read old data; [`Status`] says which is which.

pub mod api;
pub mod asym;
pub mod catalogue;
pub mod error;
pub mod hashes;
mod padding;
pub mod providers;
pub mod rc4;
pub mod skipjack;
pub mod spec;

pub use api::{BatchFailure, Cipher, Message, Provider, generate_iv, generate_key};
pub use catalogue::{ALGORITHMS, Algorithm, AlgorithmId, Kind, Status, Structure};
pub use error::{Error, ErrorKind};
pub use hashes::{HASHES, HashAlgorithm, HashKind};
pub use spec::{CipherSpec, Mode, Padding};
