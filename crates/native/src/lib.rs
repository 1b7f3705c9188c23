//! C implementations of an AEAD written to the NIST LWC / SUPERCOP `crypto_aead` API,
//! made into cipherlab providers: **built** with every C compiler present and a
//! SUPERCOP-like set of flags ([`build`]), **loaded** in-process ([`load`]), **checked**
//! against the algorithm's official LWC KAT file and against forged tags ([`check`]), and
//! the fastest build that agrees offered as a [`cipherlab_ciphers::Provider`]
//! ([`load::NativeAead`]), which `providers::register` makes usable by name everywhere.
//!
//! C implementations of a catalogue hash written to the `crypto_hash` API are built,
//! loaded and checked against their KAT file the same way ([`check::Target::Hash`]); they
//! are not made providers (no study times hashes).
//!
//! # Safety of loading
//!
//! Loading a library runs its code (its initialisers run at load, its functions at every
//! call) inside this process, with this process's rights. Nothing here builds or loads
//! anything but the folder its caller names: build only C code you would run. The C
//! functions are called with buffers sized from the folder's `api.h`, and the lengths they
//! report are checked before anything is read back; a function that writes past the sizes
//! its `api.h` declares is beyond what a caller can guard.
//!
//! # The API contract
//!
//! The folder holds `api.h` (`CRYPTO_KEYBYTES`, `CRYPTO_NPUBBYTES`, `CRYPTO_ABYTES`, and
//! `CRYPTO_NSECBYTES` 0 if present) and `.c` files defining
//!
//! ```c
//! int crypto_aead_encrypt(unsigned char *c, unsigned long long *clen,
//!                         const unsigned char *m, unsigned long long mlen,
//!                         const unsigned char *ad, unsigned long long adlen,
//!                         const unsigned char *nsec, const unsigned char *npub,
//!                         const unsigned char *k);
//! int crypto_aead_decrypt(unsigned char *m, unsigned long long *mlen,
//!                         unsigned char *nsec, const unsigned char *c,
//!                         unsigned long long clen, const unsigned char *ad,
//!                         unsigned long long adlen, const unsigned char *npub,
//!                         const unsigned char *k);
//! ```
//!
//! returning 0 on success and non-zero when decryption's tag does not verify; `c` is the
//! ciphertext followed by the `CRYPTO_ABYTES`-byte tag (docs/native.md).
//!
//! A hash's folder holds `api.h` with `CRYPTO_BYTES` (the digest length) and no
//! `CRYPTO_KEYBYTES`, and `.c` files defining
//!
//! ```c
//! int crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long inlen);
//! ```
//!
//! writing `CRYPTO_BYTES` bytes to `out` and returning 0.

pub mod build;
pub mod check;
mod error;
pub mod load;
pub mod source;

pub use build::{Build, CRYPTO_AEAD_H, CRYPTO_HASH_H, Compiler, FLAG_SETS, Workshop, compilers};
pub use check::{
    BuildReport, Outcome, Report, Target, check_dir, check_target, identify, kat_folder, load_built,
};
pub use error::Error;
pub use load::{Library, NativeAead};
pub use source::{Api, ApiSizes, Source};
