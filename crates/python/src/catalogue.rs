//! The catalogue by name: `Cipher("aes-192-cbc", key, iv)` for every cipher `cipherlab
//! list` shows (a legacy or broken one, or ECB, warns as the command line does), and the
//! descriptors as dictionaries (`algorithms()`, `hash_algorithms()`).

use cipherlab_ciphers::catalogue::{ALGORITHMS, Algorithm, AlgorithmId, Kind};
use cipherlab_ciphers::{CipherSpec, HASHES, Mode, Padding, Status, providers};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::buffers::{Input, Output, run};
use crate::engine::{Engine, Pool, Src};
use crate::errors::{cipher_error, warn_legacy};

/// Any cipher of the catalogue by its name, keyed once.
#[pyclass(module = "cipherlab", frozen)]
pub struct Cipher {
    pool: Pool,
    iv: Option<Vec<u8>>,
}

impl Cipher {
    fn spec(&self) -> &CipherSpec {
        self.pool.spec()
    }

    /// The IV of a call: the call's own, else the constructor's.
    fn iv<'a>(&'a self, call: &'a Input<'_>) -> &'a [u8] {
        match call {
            Input::Empty => self.iv.as_deref().unwrap_or_default(),
            given => given.as_slice(),
        }
    }
}

/// What the command line warns about a spec (seal's raw-mode warnings, without the
/// ones about raw mode itself): a status other than modern, and ECB.
fn warnings(spec: &CipherSpec) -> Vec<String> {
    let mut w = Vec::new();
    if spec.algorithm.status != Status::Modern {
        w.push(format!(
            "{} is {} (catalogue status): use it to read old data or to measure, not to \
             protect new data",
            spec.algorithm.title,
            spec.algorithm.status.as_str()
        ));
    }
    if spec.mode == Some(Mode::Ecb) {
        w.push("ECB leaks the plaintext's patterns (equal blocks give equal ciphertext)".into());
    }
    w
}

#[pymethods]
impl Cipher {
    /// `name`: any catalogue name (`aes-192-cbc`, `3des-168-ofb`, `rc4-128`,
    /// `ascon-aead128`, OpenSSL's spellings too); `iv`: the IV or nonce, also settable
    /// per call; `padding`: `"pkcs7"` (ECB and CBC's default) or `"none"`;
    /// `effective_bits`: RC2's effective key bits; `provider`: one of the catalogue's
    /// (default: the fastest correct one).
    #[new]
    #[pyo3(signature = (name, key, iv=None, *, padding="pkcs7", effective_bits=None, provider=None))]
    fn new(
        py: Python<'_>,
        name: &str,
        key: &Bound<'_, PyAny>,
        iv: Option<&Bound<'_, PyAny>>,
        padding: &str,
        effective_bits: Option<u16>,
        provider: Option<&str>,
    ) -> PyResult<Self> {
        let mut spec = CipherSpec::parse(name).map_err(cipher_error)?;
        spec = spec.with_padding(match padding {
            "pkcs7" => Padding::Pkcs7,
            "none" => Padding::None,
            other => {
                return Err(PyValueError::new_err(format!(
                    "padding must be \"pkcs7\" or \"none\", not {other:?}"
                )));
            }
        });
        if let Some(bits) = effective_bits {
            if spec.algorithm.id != AlgorithmId::Rc2 || !(1..=1024).contains(&bits) {
                return Err(PyValueError::new_err(
                    "effective_bits is RC2's only (1 to 1024)",
                ));
            }
            spec.effective_bits = Some(bits);
        }
        let key = Input::new(key, "key")?;
        let iv = Input::optional(iv, "iv")?;
        let iv = match iv {
            Input::Empty => None,
            given => Some(given.as_slice().to_vec()),
        };
        if let Some(iv) = &iv
            && iv.len() != spec.iv_len()
        {
            return Err(cipher_error(cipherlab_ciphers::Error::IvLength {
                cipher: spec.to_string(),
                expected: spec.iv_len(),
                got: iv.len(),
            }));
        }
        let pool = Pool::new(spec, key.as_slice(), provider).map_err(cipher_error)?;
        for w in warnings(&spec) {
            warn_legacy(py, &w)?;
        }
        Ok(Cipher { pool, iv })
    }

    /// The canonical catalogue name.
    #[getter]
    fn name(&self) -> String {
        self.spec().to_string()
    }

    /// The provider that serves it.
    #[getter]
    fn provider(&self) -> String {
        self.pool.provider()
    }

    /// Key length in bytes.
    #[getter]
    fn key_size(&self) -> usize {
        self.spec().key_len()
    }

    /// IV or nonce length in bytes (0 for ECB and RC4).
    #[getter]
    fn iv_size(&self) -> usize {
        self.spec().iv_len()
    }

    /// Block size in bytes (1 for stream ciphers, the rate for the sponge AEADs).
    #[getter]
    fn block_size(&self) -> usize {
        self.spec().algorithm.block_bytes
    }

    /// Tag length in bytes (0 without authentication).
    #[getter]
    fn tag_size(&self) -> usize {
        self.spec().tag_len()
    }

    /// Whether it authenticates (AEAD).
    #[getter]
    fn is_aead(&self) -> bool {
        self.spec().is_aead()
    }

    /// `modern`, `legacy` or `broken`.
    #[getter]
    fn status(&self) -> &'static str {
        self.spec().algorithm.status.as_str()
    }

    /// Encrypts `data` (AEADs: ciphertext then tag; ECB/CBC: padded unless `padding="none"`).
    #[pyo3(signature = (data, associated_data=None, *, iv=None))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
        iv: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (data, ad, iv) = (
            Input::new(data, "data")?,
            Input::optional(associated_data, "associated_data")?,
            Input::optional(iv, "iv")?,
        );
        let (msg, ad, iv) = (data.as_slice(), ad.as_slice(), self.iv(&iv));
        let out_len = self.spec().output_len(msg.len());
        PyBytes::new_with(py, out_len, |out| {
            run(py, msg.len(), || {
                self.pool.seal(iv, ad, Src::Slice(msg), msg.len(), out)
            })
            .map(drop)
            .map_err(cipher_error)
        })
    }

    /// Decrypts `data`; raises `InvalidTag` (AEADs) or `ValueError` (bad padding).
    #[pyo3(signature = (data, associated_data=None, *, iv=None))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
        iv: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (data, ad, iv) = (
            Input::new(data, "data")?,
            Input::optional(associated_data, "associated_data")?,
            Input::optional(iv, "iv")?,
        );
        let (ct, ad, iv) = (data.as_slice(), ad.as_slice(), self.iv(&iv));
        let mut buf = zeroize::Zeroizing::new(ct.to_vec());
        let n = run(py, ct.len(), || {
            self.pool.open(iv, ad, Src::InPlace, &mut buf)
        })
        .map_err(cipher_error)?;
        Ok(PyBytes::new(py, &buf[..n]))
    }

    /// Encrypts into `out`; returns the bytes written.
    #[pyo3(signature = (data, out, associated_data=None, *, iv=None))]
    fn encrypt_into(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        out: &Bound<'_, PyAny>,
        associated_data: Option<&Bound<'_, PyAny>>,
        iv: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<usize> {
        let (data, ad, iv) = (
            Input::new(data, "data")?,
            Input::optional(associated_data, "associated_data")?,
            Input::optional(iv, "iv")?,
        );
        let mut out = Output::new(out)?;
        let msg_len = data.len();
        let need = self.spec().output_len(msg_len);
        if out.len() < need {
            return Err(PyValueError::new_err(format!(
                "out has {} bytes; the output needs {need}",
                out.len()
            )));
        }
        let copied = out.overlaps(&data).then(|| data.as_slice().to_vec());
        let src = Src::Slice(copied.as_deref().unwrap_or_else(|| data.as_slice()));
        let (ad, iv) = (ad.as_slice(), self.iv(&iv));
        let out = &mut out.as_mut_slice()[..need];
        run(py, msg_len, || self.pool.seal(iv, ad, src, msg_len, out)).map_err(cipher_error)
    }

    /// Decrypts into `out` (which needs room for the whole ciphertext: padding is removed
    /// after decryption); returns the plaintext length.
    #[pyo3(signature = (data, out, associated_data=None, *, iv=None))]
    fn decrypt_into(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        out: &Bound<'_, PyAny>,
        associated_data: Option<&Bound<'_, PyAny>>,
        iv: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<usize> {
        let (data, ad, iv) = (
            Input::new(data, "data")?,
            Input::optional(associated_data, "associated_data")?,
            Input::optional(iv, "iv")?,
        );
        let mut out = Output::new(out)?;
        let n = data.len();
        if out.len() < n {
            return Err(PyValueError::new_err(format!(
                "out has {} bytes; decrypting in it needs {n} (the ciphertext's length)",
                out.len()
            )));
        }
        let (ad, iv) = (ad.as_slice(), self.iv(&iv));
        if !out.overlaps(&data) {
            out.as_mut_slice()[..n].copy_from_slice(data.as_slice());
        } else {
            let copied = zeroize::Zeroizing::new(data.as_slice().to_vec());
            out.as_mut_slice()[..n].copy_from_slice(&copied);
        }
        let buf = &mut out.as_mut_slice()[..n];
        run(py, n, || self.pool.open(iv, ad, Src::InPlace, buf)).map_err(cipher_error)
    }

    fn __reduce__(&self) -> PyResult<()> {
        Err(pyo3::exceptions::PyTypeError::new_err(
            "Cipher objects hold a key and do not pickle; rebuild them where they are needed",
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "<cipherlab.Cipher {} ({})>",
            self.spec(),
            self.pool.provider()
        )
    }
}

fn kind_word(k: Kind) -> &'static str {
    match k {
        Kind::Block => "block",
        Kind::Stream => "stream",
        Kind::Aead => "aead",
    }
}

/// One algorithm as a dictionary (`cipherlab list --json`'s fields).
fn algorithm_dict<'py>(py: Python<'py>, a: &'static Algorithm) -> PyResult<Bound<'py, PyDict>> {
    let mode = (a.kind == Kind::Block).then_some(Mode::Cbc);
    let spec = CipherSpec::of(a, a.key_bits.default, mode);
    let modes: Vec<&str> = if a.kind == Kind::Block {
        Mode::ALL
            .iter()
            .filter(|m| **m != Mode::Gcm || a.id == AlgorithmId::Aes)
            .map(|m| m.as_str())
            .collect()
    } else {
        Vec::new()
    };
    let d = PyDict::new(py);
    d.set_item("name", a.name)?;
    d.set_item("title", a.title)?;
    d.set_item("kind", kind_word(a.kind))?;
    d.set_item("structure", a.structure.describe())?;
    d.set_item("key_bits", a.key_bits.all().collect::<Vec<u16>>())?;
    d.set_item("default_key_bits", a.key_bits.default)?;
    d.set_item("key_size", spec.key_len())?;
    d.set_item("block_size", a.block_bytes)?;
    d.set_item("rounds", a.rounds)?;
    d.set_item("nonce_size", spec.iv_len())?;
    d.set_item("tag_size", spec.tag_len())?;
    d.set_item("modes", modes)?;
    d.set_item("status", a.status.as_str())?;
    d.set_item("reference", a.reference)?;
    d.set_item("source", a.source)?;
    d.set_item(
        "aliases",
        a.aliases.iter().map(|x| x.name).collect::<Vec<_>>(),
    )?;
    d.set_item("providers", providers::supporting(&spec))?;
    d.set_item("lwc_kat", a.lwc_kat)?;
    Ok(d)
}

/// Every cipher of the catalogue, as `cipherlab list` shows them.
#[pyfunction]
pub fn algorithms(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    ALGORITHMS.iter().map(|a| algorithm_dict(py, a)).collect()
}

/// Every hash of the catalogue.
#[pyfunction]
pub fn hash_algorithms(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    HASHES
        .iter()
        .map(|h| {
            let d = PyDict::new(py);
            d.set_item("name", h.name)?;
            d.set_item("kind", h.kind.as_str())?;
            d.set_item("digest_size", h.output_len)?;
            d.set_item("block_size", h.rate)?;
            d.set_item("permutation", h.permutation)?;
            d.set_item("reference", h.reference)?;
            d.set_item("status", h.status.as_str())?;
            d.set_item("lwc_kat", h.lwc_kat)?;
            Ok(d)
        })
        .collect()
}

/// Registers the catalogue's class and functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Cipher>()?;
    m.add_function(pyo3::wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(pyo3::wrap_pyfunction!(hash_algorithms, m)?)?;
    Ok(())
}
