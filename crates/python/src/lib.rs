//! # cipherlab-python: the `cipherlab` Python package
//!
//! The extension module `cipherlab._cipherlab`, which `python/cipherlab/` re-exports:
//!
//! * [`aead`]: the lightweight AEADs of `cipherlab-lwc` and the catalogue's AES-GCM and
//!   ChaCha20-Poly1305, shaped like `cryptography`'s `AESGCM`;
//! * [`hash`]: the hashes and XOFs, shaped like `hashlib` objects;
//! * [`catalogue`]: every cipher by name (`Cipher`), and the descriptors;
//! * [`seal`]: the file container of `cipherlab encrypt`/`decrypt`.
//!
//! Names and sizes come from the catalogue's descriptors, never typed here. Bytes come in
//! through the buffer protocol without copies ([`buffers`]); work on large inputs runs with
//! the GIL released; keys live in Rust types that wipe them on drop. Built with maturin
//! (`pip install ./crates/python`); docs/python.md is the guide.

mod aead;
mod buffers;
mod catalogue;
mod engine;
mod errors;
mod hash;
mod seal;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _cipherlab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("InvalidTag", py.get_type::<errors::InvalidTag>())?;
    m.add(
        "LegacyCipherWarning",
        py.get_type::<errors::LegacyCipherWarning>(),
    )?;
    aead::register(m)?;
    hash::register(m)?;
    catalogue::register(m)?;
    seal::register(m)?;
    Ok(())
}
