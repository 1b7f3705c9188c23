//! The package's exceptions and warnings, and how the Rust errors become them: a failed
//! tag is [`InvalidTag`] (opaque, as every AEAD error is), bad arguments `ValueError`,
//! files `OSError`; every message is the Rust error's, which says what to do.

use std::ffi::CString;

use cipherlab_ciphers::Error as CipherError;
use cipherlab_seal::Error as SealError;
use pyo3::exceptions::{
    PyException, PyFileExistsError, PyOSError, PyRuntimeError, PyUserWarning, PyValueError,
};
use pyo3::prelude::*;

use crate::seal::PyFileError;

pyo3::create_exception!(
    cipherlab,
    InvalidTag,
    PyException,
    "Authentication failed: wrong key, nonce or associated data, or the data was modified. \
     No plaintext was released."
);

pyo3::create_exception!(
    cipherlab,
    LegacyCipherWarning,
    PyUserWarning,
    "A legacy or broken cipher (catalogue status), or ECB, was chosen: fine for reading old \
     data and for measuring, not for protecting new data."
);

/// A catalogue error as a Python exception.
pub fn cipher_error(e: CipherError) -> PyErr {
    match e {
        CipherError::Authentication => InvalidTag::new_err(e.to_string()),
        CipherError::Provider { .. } => PyRuntimeError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// A container error as a Python exception: authentication failures (wrong key or
/// passphrase, a modified or truncated file) are [`InvalidTag`], refusals of the input
/// or the options `ValueError`, input/output failures `OSError`.
pub fn seal_error(e: SealError) -> PyErr {
    let msg = e.to_string();
    match e {
        SealError::WrongKey(_)
        | SealError::Truncated(_)
        | SealError::CorruptChunk { .. }
        | SealError::Cipher(CipherError::Authentication) => InvalidTag::new_err(msg),
        SealError::OutputExists(_) => PyFileExistsError::new_err(msg),
        SealError::Io { source, .. } => {
            // A Python file object's own exception comes back unchanged.
            if source.get_ref().is_some_and(|e| e.is::<PyFileError>())
                && let Some(inner) = source.into_inner()
                && let Ok(e) = inner.downcast::<PyFileError>()
            {
                return e.0;
            }
            PyOSError::new_err(msg)
        }
        SealError::DiskFull(_) => PyOSError::new_err(msg),
        _ => PyValueError::new_err(msg),
    }
}

/// Issues a [`LegacyCipherWarning`] pointing at the caller's line.
pub fn warn_legacy(py: Python<'_>, message: &str) -> PyResult<()> {
    let text = CString::new(message).map_err(|e| PyValueError::new_err(e.to_string()))?;
    PyErr::warn(py, &py.get_type::<LegacyCipherWarning>(), &text, 1)
}
