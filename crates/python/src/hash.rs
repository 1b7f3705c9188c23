//! The hashes and XOFs of the catalogue, shaped like `hashlib` objects: `update`,
//! `digest`, `hexdigest`, `copy`, `name`, `digest_size`, `block_size`. An XOF's
//! `digest(length)` gives any length (default: the descriptor's output length), and
//! reading a digest does not end the computation, as with `hashlib`.

use std::sync::Mutex;

use cipherlab_ciphers::hashes::{self, HashAlgorithm, HashKind, Hasher};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffers::{Input, RELEASE_GIL_FROM};
use crate::errors::cipher_error;

/// A computation in progress, shared by the classes below.
pub struct State {
    algorithm: &'static HashAlgorithm,
    hasher: Mutex<Box<dyn Hasher>>,
}

impl State {
    fn new(
        name: &str,
        data: Option<&Bound<'_, PyAny>>,
        customization: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<State> {
        let algorithm = hashes::find(name)
            .ok_or_else(|| PyRuntimeError::new_err(format!("{name} is not in the catalogue")))?;
        let custom = Input::optional(customization, "customization")?;
        let hasher = (algorithm.new)(custom.as_slice()).map_err(cipher_error)?;
        let state = State {
            algorithm,
            hasher: Mutex::new(hasher),
        };
        if let Some(data) = data.filter(|d| !d.is_none()) {
            state.update(data)?;
        }
        Ok(state)
    }

    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, Box<dyn Hasher>>> {
        self.hasher
            .lock()
            .map_err(|_| PyRuntimeError::new_err("the hash state was poisoned by a panic"))
    }

    fn update(&self, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = data.py();
        let data = Input::new(data, "data")?;
        let bytes = data.as_slice();
        if bytes.len() >= RELEASE_GIL_FROM {
            // Wait for the lock without the GIL too: a thread holding it may be hashing
            // without the GIL and must not wait for us.
            let hasher = &self.hasher;
            py.detach(|| match hasher.lock() {
                Ok(mut h) => {
                    h.update(bytes);
                    Ok(())
                }
                Err(_) => Err("poisoned"),
            })
            .map_err(|_| PyRuntimeError::new_err("the hash state was poisoned by a panic"))
        } else {
            self.lock()?.update(bytes);
            Ok(())
        }
    }

    fn digest(&self, length: Option<usize>) -> PyResult<Vec<u8>> {
        let n = self
            .algorithm
            .output_len_for(length)
            .map_err(cipher_error)?;
        let mut out = vec![0u8; n];
        self.lock()?.finish_into(&mut out);
        Ok(out)
    }

    fn copy(&self) -> PyResult<State> {
        Ok(State {
            algorithm: self.algorithm,
            hasher: Mutex::new(self.lock()?.box_clone()),
        })
    }
}

/// Defines one hash class. `$name` is the catalogue name (the descriptor is found by it);
/// `custom` adds the CXOF's `customization` argument.
macro_rules! hash_class {
    ($class:ident, $name:literal, $doc:literal $(, $custom:ident)?) => {
        #[doc = $doc]
        #[pyclass(module = "cipherlab", frozen)]
        pub struct $class {
            state: State,
        }

        #[pymethods]
        impl $class {
            #[new]
            #[pyo3(signature = (data=None $(, *, $custom=None)?))]
            fn new(data: Option<&Bound<'_, PyAny>> $(, $custom: Option<&Bound<'_, PyAny>>)?) -> PyResult<Self> {
                #[allow(unused_mut, unused_assignments)]
                let mut customization: Option<&Bound<'_, PyAny>> = None;
                $(customization = $custom;)?
                Ok($class { state: State::new($name, data, customization)? })
            }

            /// The catalogue name.
            #[classattr]
            fn name() -> &'static str {
                $name
            }

            /// Output length in bytes (for an XOF, the default length of `digest()`).
            #[classattr]
            fn digest_size() -> usize {
                hashes::find($name).map_or(0, |h| h.output_len)
            }

            /// Bytes absorbed per permutation call (the rate).
            #[classattr]
            fn block_size() -> usize {
                hashes::find($name).map_or(0, |h| h.rate)
            }

            /// Whether `digest` takes any `length` (an extendable-output function).
            #[classattr]
            fn is_xof() -> bool {
                hashes::find($name).is_some_and(|h| h.kind != HashKind::Hash)
            }

            /// Absorbs `data` (any buffer).
            fn update(&self, data: &Bound<'_, PyAny>) -> PyResult<()> {
                self.state.update(data)
            }

            /// The digest of what was absorbed so far (`length`: XOFs only).
            #[pyo3(signature = (length=None))]
            fn digest<'py>(&self, py: Python<'py>, length: Option<usize>) -> PyResult<Bound<'py, PyBytes>> {
                Ok(PyBytes::new(py, &self.state.digest(length)?))
            }

            /// [`digest`] in hexadecimal.
            #[pyo3(signature = (length=None))]
            fn hexdigest(&self, length: Option<usize>) -> PyResult<String> {
                Ok(hex::encode(self.state.digest(length)?))
            }

            /// An independent copy of the computation.
            fn copy(&self) -> PyResult<Self> {
                Ok($class { state: self.state.copy()? })
            }

            fn __repr__(&self) -> String {
                format!("<cipherlab.{} {}>", stringify!($class), $name)
            }
        }
    };
}

hash_class!(
    AsconHash256,
    "ascon-hash256",
    "Ascon-Hash256 (NIST SP 800-232): 32-byte digest."
);
hash_class!(
    AsconXof128,
    "ascon-xof128",
    "Ascon-XOF128 (NIST SP 800-232): any output length."
);
hash_class!(
    AsconCxof128,
    "ascon-cxof128",
    "Ascon-CXOF128 (NIST SP 800-232): any output length, with a customization string of at most 256 bytes.",
    customization
);
hash_class!(
    AsconHash,
    "ascon-hash",
    "Ascon-Hash (v1.2): 32-byte digest."
);
hash_class!(
    AsconHasha,
    "ascon-hasha",
    "Ascon-Hasha (v1.2): 32-byte digest."
);
hash_class!(
    AsconXof,
    "ascon-xof",
    "Ascon-XOF (v1.2): any output length."
);
hash_class!(
    AsconXofa,
    "ascon-xofa",
    "Ascon-XOFa (v1.2): any output length."
);
hash_class!(
    XoodyakHash,
    "xoodyak-hash",
    "Xoodyak in hash mode (NIST LWC final round): 32-byte digest."
);

/// Registers the hash classes.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<AsconHash256>()?;
    m.add_class::<AsconXof128>()?;
    m.add_class::<AsconCxof128>()?;
    m.add_class::<AsconHash>()?;
    m.add_class::<AsconHasha>()?;
    m.add_class::<AsconXof>()?;
    m.add_class::<AsconXofa>()?;
    m.add_class::<XoodyakHash>()?;
    Ok(())
}
