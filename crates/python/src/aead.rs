//! The AEAD classes, shaped like `cryptography`'s `AESGCM`: `Class(key)`,
//! `.encrypt(nonce, data, associated_data)` returning ciphertext followed by the tag,
//! `.decrypt(...)` raising `InvalidTag`, `generate_key()`, plus `encrypt_into` /
//! `decrypt_into` writing into a caller's buffer. Each class is one descriptor of the
//! catalogue: its name and sizes come from there.

use cipherlab_ciphers::catalogue::{self, Algorithm};
use cipherlab_ciphers::{CipherSpec, Mode, generate_key};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffers::{Input, Output, run};
use crate::engine::{Engine, Lwc, Pool, Src};
use crate::errors::cipher_error;

/// A keyed AEAD: the engine, and the calls every class shares.
pub struct Aead {
    engine: Box<dyn Engine>,
}

impl Aead {
    fn spec(&self) -> &CipherSpec {
        self.engine.spec()
    }

    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        ad: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (nonce, data, ad) = inputs(nonce, data, ad)?;
        let (nonce, msg, ad) = (nonce.as_slice(), data.as_slice(), ad.as_slice());
        let out_len = self.spec().output_len(msg.len());
        PyBytes::new_with(py, out_len, |out| {
            run(py, msg.len() + ad.len(), || {
                self.engine.seal(nonce, ad, Src::Slice(msg), msg.len(), out)
            })
            .map(drop)
            .map_err(cipher_error)
        })
    }

    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        ad: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (nonce, data, ad) = inputs(nonce, data, ad)?;
        let (nonce, ct, ad) = (nonce.as_slice(), data.as_slice(), ad.as_slice());
        let Some(pt_len) = ct.len().checked_sub(self.spec().tag_len()) else {
            return Err(cipher_error(cipherlab_ciphers::Error::Authentication));
        };
        // The bytes object is dropped, never returned, when the tag fails; the engine has
        // wiped it by then.
        PyBytes::new_with(py, pt_len, |out| {
            run(py, ct.len() + ad.len(), || {
                self.engine.open(nonce, ad, Src::Slice(ct), out)
            })
            .map(drop)
            .map_err(cipher_error)
        })
    }

    fn encrypt_into(
        &self,
        py: Python<'_>,
        nonce: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        ad: Option<&Bound<'_, PyAny>>,
        out: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let (nonce, data, ad) = inputs(nonce, data, ad)?;
        let mut out = Output::new(out)?;
        let msg_len = data.len();
        let out_len = self.spec().output_len(msg_len);
        if out.len() < out_len {
            return Err(PyValueError::new_err(format!(
                "out has {} bytes; the ciphertext and tag need {out_len}",
                out.len()
            )));
        }
        let (nonce, ad) = (nonce.as_slice(), ad.as_slice());
        let copied;
        let src = if out.overlaps(&data) {
            copied = data.as_slice().to_vec();
            Src::Slice(&copied)
        } else {
            Src::Slice(data.as_slice())
        };
        let out = &mut out.as_mut_slice()[..out_len];
        run(py, msg_len + ad.len(), || {
            self.engine.seal(nonce, ad, src, msg_len, out)
        })
        .map_err(cipher_error)
    }

    fn decrypt_into(
        &self,
        py: Python<'_>,
        nonce: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        ad: Option<&Bound<'_, PyAny>>,
        out: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let (nonce, data, ad) = inputs(nonce, data, ad)?;
        let mut out = Output::new(out)?;
        let Some(pt_len) = data.len().checked_sub(self.spec().tag_len()) else {
            return Err(cipher_error(cipherlab_ciphers::Error::Authentication));
        };
        if out.len() < pt_len {
            return Err(PyValueError::new_err(format!(
                "out has {} bytes; the plaintext needs {pt_len}",
                out.len()
            )));
        }
        let (nonce, ad) = (nonce.as_slice(), ad.as_slice());
        let copied;
        let src = if out.overlaps(&data) {
            copied = zeroize::Zeroizing::new(data.as_slice().to_vec());
            Src::Slice(&copied[..])
        } else {
            Src::Slice(data.as_slice())
        };
        let n = data.len();
        let out = &mut out.as_mut_slice()[..pt_len];
        run(py, n + ad.len(), || self.engine.open(nonce, ad, src, out)).map_err(cipher_error)
    }
}

fn inputs<'py>(
    nonce: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
    ad: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Input<'py>, Input<'py>, Input<'py>)> {
    Ok((
        Input::new(nonce, "nonce")?,
        Input::new(data, "data")?,
        Input::optional(ad, "associated_data")?,
    ))
}

/// The key's bytes (any buffer), for a constructor.
fn key_input<'py>(key: &Bound<'py, PyAny>) -> PyResult<Input<'py>> {
    Input::new(key, "key")
}

/// Refuses to pickle a keyed object: its key would travel in the clear (through a Dask
/// scheduler, say). Rebuild it where it is needed, from a key file.
fn refuse_pickle(class: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "{class} objects hold a key and do not pickle; rebuild them where they are needed \
         (on each worker, from a key file: cipherlab.seal.KeyFile.load)"
    ))
}

/// Defines the class of one fixed-key AEAD of the catalogue: `$alg` is its descriptor,
/// `$engine` builds the engine from the spec and the key.
macro_rules! aead_class {
    ($class:ident, $alg:path, $engine:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(module = "cipherlab", frozen)]
        pub struct $class {
            inner: Aead,
        }

        impl $class {
            const SPEC: CipherSpec = CipherSpec::aead(&$alg);
        }

        #[pymethods]
        impl $class {
            #[new]
            fn new(key: &Bound<'_, PyAny>) -> PyResult<Self> {
                let key = key_input(key)?;
                let engine: Box<dyn Engine> =
                    $engine(Self::SPEC, key.as_slice()).map_err(cipher_error)?;
                Ok($class {
                    inner: Aead { engine },
                })
            }

            /// A fresh random key from the operating system's generator.
            #[staticmethod]
            fn generate_key(py: Python<'_>) -> Bound<'_, PyBytes> {
                PyBytes::new(py, &generate_key(&Self::SPEC))
            }

            /// The catalogue name.
            #[classattr]
            fn name() -> String {
                Self::SPEC.to_string()
            }

            /// Key length in bytes.
            #[classattr]
            fn key_size() -> usize {
                Self::SPEC.key_len()
            }

            /// Nonce length in bytes.
            #[classattr]
            fn nonce_size() -> usize {
                Self::SPEC.iv_len()
            }

            /// Tag length in bytes (appended to the ciphertext).
            #[classattr]
            fn tag_size() -> usize {
                Self::SPEC.tag_len()
            }

            /// Encrypts `data` and returns the ciphertext followed by the tag.
            #[pyo3(signature = (nonce, data, associated_data=None))]
            fn encrypt<'py>(
                &self,
                py: Python<'py>,
                nonce: &Bound<'py, PyAny>,
                data: &Bound<'py, PyAny>,
                associated_data: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Bound<'py, PyBytes>> {
                self.inner.encrypt(py, nonce, data, associated_data)
            }

            /// Checks the tag and returns the plaintext, or raises `InvalidTag`.
            #[pyo3(signature = (nonce, data, associated_data=None))]
            fn decrypt<'py>(
                &self,
                py: Python<'py>,
                nonce: &Bound<'py, PyAny>,
                data: &Bound<'py, PyAny>,
                associated_data: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Bound<'py, PyBytes>> {
                self.inner.decrypt(py, nonce, data, associated_data)
            }

            /// Encrypts into `out` (ciphertext, then tag); returns the bytes written.
            #[pyo3(signature = (nonce, data, associated_data, out))]
            fn encrypt_into(
                &self,
                py: Python<'_>,
                nonce: &Bound<'_, PyAny>,
                data: &Bound<'_, PyAny>,
                associated_data: Option<&Bound<'_, PyAny>>,
                out: &Bound<'_, PyAny>,
            ) -> PyResult<usize> {
                self.inner
                    .encrypt_into(py, nonce, data, associated_data, out)
            }

            /// Decrypts into `out`; returns the plaintext length, or raises `InvalidTag`
            /// (then `out` holds no plaintext).
            #[pyo3(signature = (nonce, data, associated_data, out))]
            fn decrypt_into(
                &self,
                py: Python<'_>,
                nonce: &Bound<'_, PyAny>,
                data: &Bound<'_, PyAny>,
                associated_data: Option<&Bound<'_, PyAny>>,
                out: &Bound<'_, PyAny>,
            ) -> PyResult<usize> {
                self.inner
                    .decrypt_into(py, nonce, data, associated_data, out)
            }

            fn __reduce__(&self) -> PyResult<()> {
                Err(refuse_pickle(stringify!($class)))
            }

            fn __repr__(&self) -> String {
                format!("<cipherlab.{} {}>", stringify!($class), Self::SPEC)
            }
        }
    };
}

fn lwc<A: cipherlab_lwc::aead::AeadInOut + cipherlab_lwc::aead::KeyInit + Send + Sync + 'static>(
    spec: CipherSpec,
    key: &[u8],
) -> Result<Box<dyn Engine>, cipherlab_ciphers::Error> {
    Ok(Box::new(Lwc::<A>::new(spec, key)?))
}

fn pooled(spec: CipherSpec, key: &[u8]) -> Result<Box<dyn Engine>, cipherlab_ciphers::Error> {
    Ok(Box::new(Pool::new(spec, key, None)?))
}

aead_class!(
    AsconAead128,
    catalogue::ASCON_AEAD128,
    lwc::<cipherlab_lwc::AsconAead128>,
    "Ascon-AEAD128 (NIST SP 800-232): 16-byte key, nonce and tag."
);
aead_class!(
    Ascon128,
    catalogue::ASCON_128,
    lwc::<cipherlab_lwc::Ascon128>,
    "Ascon-128 (v1.2, NIST LWC final round): 16-byte key, nonce and tag."
);
aead_class!(
    Ascon128a,
    catalogue::ASCON_128A,
    lwc::<cipherlab_lwc::Ascon128a>,
    "Ascon-128a (v1.2, NIST LWC final round): 16-byte key, nonce and tag."
);
aead_class!(
    Ascon80pq,
    catalogue::ASCON_80PQ,
    lwc::<cipherlab_lwc::Ascon80pq>,
    "Ascon-80pq (v1.2, NIST LWC final round): 20-byte key, 16-byte nonce and tag."
);
aead_class!(
    Xoodyak,
    catalogue::XOODYAK,
    lwc::<cipherlab_lwc::Xoodyak>,
    "Xoodyak (NIST LWC final round): 16-byte key, nonce and tag."
);
aead_class!(
    IsapA128A,
    catalogue::ISAP_A_128A,
    lwc::<cipherlab_lwc::IsapA128a>,
    "ISAP-A-128A (ISAP v2.0): 16-byte key, nonce and tag."
);
aead_class!(
    IsapA128,
    catalogue::ISAP_A_128,
    lwc::<cipherlab_lwc::IsapA128>,
    "ISAP-A-128 (ISAP v2.0): 16-byte key, nonce and tag."
);
aead_class!(
    IsapK128A,
    catalogue::ISAP_K_128A,
    lwc::<cipherlab_lwc::IsapK128a>,
    "ISAP-K-128A (ISAP v2.0): 16-byte key, nonce and tag."
);
aead_class!(
    IsapK128,
    catalogue::ISAP_K_128,
    lwc::<cipherlab_lwc::IsapK128>,
    "ISAP-K-128 (ISAP v2.0): 16-byte key, nonce and tag."
);
aead_class!(
    ChaCha20Poly1305,
    catalogue::CHACHA20_POLY1305,
    pooled,
    "ChaCha20-Poly1305 (RFC 8439) from the catalogue's fastest provider: 32-byte key, 12-byte nonce, 16-byte tag."
);

/// AES-GCM (SP 800-38D) from the catalogue's fastest provider: a 16-, 24- or 32-byte key,
/// 12-byte nonce, 16-byte tag.
#[pyclass(module = "cipherlab", name = "AESGCM", frozen)]
pub struct AesGcm {
    inner: Aead,
}

/// The AES-GCM spec of a `bits`-bit key.
fn aes_gcm(bits: usize) -> PyResult<CipherSpec> {
    let a: &'static Algorithm = &catalogue::AES;
    u16::try_from(bits)
        .ok()
        .filter(|b| a.key_bits.accepts(*b))
        .map(|b| CipherSpec::of(a, b, Some(Mode::Gcm)))
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "AES-GCM takes a key of {} bits, not {bits}",
                a.key_bits.describe()
            ))
        })
}

#[pymethods]
impl AesGcm {
    #[new]
    fn new(key: &Bound<'_, PyAny>) -> PyResult<Self> {
        let key = key_input(key)?;
        let spec = aes_gcm(key.len() * 8)?;
        let engine: Box<dyn Engine> = pooled(spec, key.as_slice()).map_err(cipher_error)?;
        Ok(AesGcm {
            inner: Aead { engine },
        })
    }

    /// A fresh random key of `bit_length` bits (128, 192 or 256).
    #[staticmethod]
    fn generate_key(py: Python<'_>, bit_length: usize) -> PyResult<Bound<'_, PyBytes>> {
        Ok(PyBytes::new(py, &generate_key(&aes_gcm(bit_length)?)))
    }

    /// The catalogue name (`aes-128-gcm`, ...).
    #[getter]
    fn name(&self) -> String {
        self.inner.spec().to_string()
    }

    /// Key length in bytes.
    #[getter]
    fn key_size(&self) -> usize {
        self.inner.spec().key_len()
    }

    /// Nonce length in bytes.
    #[classattr]
    fn nonce_size() -> usize {
        aes_gcm(128).map(|s| s.iv_len()).unwrap_or_default()
    }

    /// Tag length in bytes.
    #[classattr]
    fn tag_size() -> usize {
        aes_gcm(128).map(|s| s.tag_len()).unwrap_or_default()
    }

    /// Encrypts `data` and returns the ciphertext followed by the tag.
    #[pyo3(signature = (nonce, data, associated_data=None))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.inner.encrypt(py, nonce, data, associated_data)
    }

    /// Checks the tag and returns the plaintext, or raises `InvalidTag`.
    #[pyo3(signature = (nonce, data, associated_data=None))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.inner.decrypt(py, nonce, data, associated_data)
    }

    /// Encrypts into `out` (ciphertext, then tag); returns the bytes written.
    #[pyo3(signature = (nonce, data, associated_data, out))]
    fn encrypt_into(
        &self,
        py: Python<'_>,
        nonce: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        associated_data: Option<&Bound<'_, PyAny>>,
        out: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        self.inner
            .encrypt_into(py, nonce, data, associated_data, out)
    }

    /// Decrypts into `out`; returns the plaintext length, or raises `InvalidTag`.
    #[pyo3(signature = (nonce, data, associated_data, out))]
    fn decrypt_into(
        &self,
        py: Python<'_>,
        nonce: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        associated_data: Option<&Bound<'_, PyAny>>,
        out: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        self.inner
            .decrypt_into(py, nonce, data, associated_data, out)
    }

    fn __reduce__(&self) -> PyResult<()> {
        Err(refuse_pickle("AESGCM"))
    }

    fn __repr__(&self) -> String {
        format!("<cipherlab.AESGCM {}>", self.inner.spec())
    }
}

/// Registers the AEAD classes.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<AsconAead128>()?;
    m.add_class::<Ascon128>()?;
    m.add_class::<Ascon128a>()?;
    m.add_class::<Ascon80pq>()?;
    m.add_class::<Xoodyak>()?;
    m.add_class::<IsapA128A>()?;
    m.add_class::<IsapA128>()?;
    m.add_class::<IsapK128A>()?;
    m.add_class::<IsapK128>()?;
    m.add_class::<ChaCha20Poly1305>()?;
    m.add_class::<AesGcm>()?;
    Ok(())
}
