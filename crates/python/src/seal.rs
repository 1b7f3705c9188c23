//! The file container of `cipherlab encrypt`/`decrypt` (docs/format.md): key files,
//! whole files (`encrypt_file`/`decrypt_file`: written to a temporary file and put in
//! place only once complete), bytes in memory, and the cores of the file-like
//! `SealWriter`/`SealReader` (python/cipherlab/seal.py wraps them in `io.RawIOBase`).
//! Nothing here returns plaintext of a chunk that failed authentication.

use std::fmt;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use cipherlab_seal::format::{ARGON2_OPEN_LIMIT, Argon2Params};
use cipherlab_seal::output::Output as OutFile;
use cipherlab_seal::{CipherSpec, Error, KeyFile as RustKeyFile, SealOptions, Secret, Summary};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use zeroize::Zeroizing;

use crate::buffers::{Input, Output, RELEASE_GIL_FROM, run};
use crate::errors::seal_error;

/// A key file: a cipher of the catalogue and its key (`cipherlab keygen` writes them).
/// It does not pickle: load it where it is needed.
#[pyclass(module = "cipherlab.seal", name = "KeyFile", frozen)]
pub struct KeyFile(RustKeyFile);

#[pymethods]
impl KeyFile {
    /// A fresh random key for `cipher` from the operating system's generator.
    #[staticmethod]
    fn generate(cipher: &str) -> PyResult<KeyFile> {
        Ok(KeyFile(RustKeyFile::generate(parse(cipher)?)))
    }

    /// Reads a key file (the error names the line at fault, never its bytes).
    #[staticmethod]
    fn load(path: PathBuf) -> PyResult<KeyFile> {
        RustKeyFile::load(&path).map(KeyFile).map_err(seal_error)
    }

    /// A key given by the caller, for `cipher`.
    #[staticmethod]
    fn from_key(cipher: &str, key: &Bound<'_, PyAny>) -> PyResult<KeyFile> {
        let key = Input::new(key, "key")?;
        RustKeyFile::from_key(parse(cipher)?, key.as_slice())
            .map(KeyFile)
            .map_err(seal_error)
    }

    /// Writes it with owner-only permissions (0600), whole or not at all; an existing
    /// file is kept unless `force`.
    #[pyo3(signature = (path, *, force=false))]
    fn save(&self, path: PathBuf, force: bool) -> PyResult<()> {
        self.0.save(&path, force).map_err(seal_error)
    }

    /// The cipher's catalogue name.
    #[getter]
    fn cipher(&self) -> String {
        self.0.spec().to_string()
    }

    /// The key itself (a `bytes` object, which Python cannot wipe: prefer passing the
    /// KeyFile around).
    #[getter]
    fn key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.key())
    }

    fn __reduce__(&self) -> PyResult<()> {
        Err(PyTypeError::new_err(
            "KeyFile objects hold a key and do not pickle: send the key file's path and \
             load it where it is needed (KeyFile.load)",
        ))
    }

    fn __repr__(&self) -> String {
        format!("<cipherlab.seal.KeyFile {} key=<secret>>", self.0.spec())
    }
}

fn parse(cipher: &str) -> PyResult<CipherSpec> {
    CipherSpec::parse(cipher).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The secret of a call: a key file (a `KeyFile` or its path) or a passphrase.
enum Credentials {
    Key(RustKeyFile),
    Passphrase(Zeroizing<Vec<u8>>),
}

impl Credentials {
    fn new(
        key_file: Option<&Bound<'_, PyAny>>,
        passphrase: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        match (
            key_file.filter(|k| !k.is_none()),
            passphrase.filter(|p| !p.is_none()),
        ) {
            (Some(k), None) => {
                if let Ok(k) = k.cast::<KeyFile>() {
                    return Ok(Credentials::Key(k.get().0.clone()));
                }
                let path: PathBuf = k.extract().map_err(|_| {
                    PyTypeError::new_err("key_file must be a KeyFile or the path of a key file")
                })?;
                RustKeyFile::load(&path)
                    .map(Credentials::Key)
                    .map_err(seal_error)
            }
            (None, Some(p)) => {
                let bytes = match p.extract::<String>() {
                    Ok(s) => Zeroizing::new(s.into_bytes()),
                    Err(_) => Zeroizing::new(Input::new(p, "passphrase")?.as_slice().to_vec()),
                };
                if bytes.is_empty() {
                    return Err(PyValueError::new_err(
                        "the passphrase is empty; choose a long one",
                    ));
                }
                Ok(Credentials::Passphrase(bytes))
            }
            (Some(_), Some(_)) => Err(PyValueError::new_err(
                "give key_file or passphrase, not both",
            )),
            (None, None) => Err(PyValueError::new_err(
                "give key_file (a KeyFile or its path; see KeyFile.generate) or passphrase",
            )),
        }
    }

    fn secret(&self) -> Secret<'_> {
        match self {
            Credentials::Key(k) => Secret::Key(k),
            Credentials::Passphrase(p) => Secret::Passphrase(p),
        }
    }
}

/// Sealing options from keyword arguments (the command line's defaults).
#[allow(clippy::too_many_arguments)]
fn seal_options(
    cipher: Option<&str>,
    chunk_kib: u32,
    argon2_memory_mib: u32,
    argon2_passes: u32,
    argon2_lanes: u8,
    allow_weak_argon2: bool,
    threads: usize,
    provider: Option<String>,
) -> PyResult<SealOptions> {
    if !chunk_kib.is_power_of_two() || chunk_kib > 16384 {
        return Err(PyValueError::new_err(format!(
            "chunk_kib {chunk_kib} is not a power of two from 1 to 16384"
        )));
    }
    Ok(SealOptions {
        cipher: cipher.map(parse).transpose()?,
        chunk_log2: chunk_kib.trailing_zeros() as u8 + 10,
        argon2: Argon2Params {
            memory_kib: argon2_memory_mib.saturating_mul(1024),
            passes: argon2_passes,
            lanes: argon2_lanes,
        },
        allow_weak_argon2,
        threads,
        provider,
        ..SealOptions::default()
    })
}

/// Opening options: the Argon2id limit a header may ask for (raised only for trusted
/// files), threads and provider.
fn open_options(
    argon2_max_memory_mib: Option<u32>,
    argon2_max_passes: Option<u32>,
    threads: usize,
    provider: Option<String>,
) -> SealOptions {
    let mut limit = ARGON2_OPEN_LIMIT;
    if let Some(m) = argon2_max_memory_mib {
        limit.memory_kib = m.saturating_mul(1024);
    }
    if let Some(p) = argon2_max_passes {
        limit.passes = p;
    }
    SealOptions {
        argon2_limit: limit,
        threads,
        provider,
        ..SealOptions::default()
    }
}

fn summary<'py>(py: Python<'py>, s: &Summary) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("cipher", s.header.cipher.to_string())?;
    d.set_item("bytes_in", s.bytes_in)?;
    d.set_item("bytes_out", s.bytes_out)?;
    d.set_item("chunks", s.chunks)?;
    d.set_item("threads", s.threads)?;
    Ok(d)
}

fn open_input(path: &PathBuf) -> PyResult<File> {
    File::open(path).map_err(|e| seal_error(Error::io(format!("opening {}", path.display()), e)))
}

/// Encrypts the file `src` into the container at `dst`, on every core (`threads`), with
/// the GIL released; `dst` appears only once complete. Returns a summary.
#[pyfunction]
#[pyo3(signature = (src, dst, *, key_file=None, passphrase=None, cipher=None, chunk_kib=64,
    argon2_memory_mib=64, argon2_passes=3, argon2_lanes=4, allow_weak_argon2=false,
    threads=0, provider=None, force=false))]
#[allow(clippy::too_many_arguments)]
fn encrypt_file<'py>(
    py: Python<'py>,
    src: PathBuf,
    dst: PathBuf,
    key_file: Option<&Bound<'py, PyAny>>,
    passphrase: Option<&Bound<'py, PyAny>>,
    cipher: Option<&str>,
    chunk_kib: u32,
    argon2_memory_mib: u32,
    argon2_passes: u32,
    argon2_lanes: u8,
    allow_weak_argon2: bool,
    threads: usize,
    provider: Option<String>,
    force: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let creds = Credentials::new(key_file, passphrase)?;
    let opts = seal_options(
        cipher,
        chunk_kib,
        argon2_memory_mib,
        argon2_passes,
        argon2_lanes,
        allow_weak_argon2,
        threads,
        provider,
    )?;
    let input = open_input(&src)?;
    let secret = creds.secret();
    let s = py
        .detach(|| {
            let mut out = OutFile::file(&dst, force)?;
            let s = cipherlab_seal::encrypt_to(input, &mut out, secret, &opts, None)?;
            out.commit()?; // dropped uncommitted on error: the temporary file goes
            Ok::<_, Error>(s)
        })
        .map_err(seal_error)?;
    summary(py, &s)
}

/// Decrypts the container `src` into `dst`, which appears only if every chunk
/// authenticated. Returns a summary.
#[pyfunction]
#[pyo3(signature = (src, dst, *, key_file=None, passphrase=None, argon2_max_memory_mib=None,
    argon2_max_passes=None, threads=0, provider=None, force=false))]
#[allow(clippy::too_many_arguments)]
fn decrypt_file<'py>(
    py: Python<'py>,
    src: PathBuf,
    dst: PathBuf,
    key_file: Option<&Bound<'py, PyAny>>,
    passphrase: Option<&Bound<'py, PyAny>>,
    argon2_max_memory_mib: Option<u32>,
    argon2_max_passes: Option<u32>,
    threads: usize,
    provider: Option<String>,
    force: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let creds = Credentials::new(key_file, passphrase)?;
    let opts = open_options(argon2_max_memory_mib, argon2_max_passes, threads, provider);
    let input = open_input(&src)?;
    let secret = creds.secret();
    let s = py
        .detach(|| {
            let mut out = OutFile::file(&dst, force)?;
            let s = cipherlab_seal::decrypt_to(input, &mut out, secret, &opts, None)?;
            out.commit()?;
            Ok::<_, Error>(s)
        })
        .map_err(seal_error)?;
    summary(py, &s)
}

/// Seals `data` (any buffer) into a container in memory.
#[pyfunction]
#[pyo3(signature = (data, *, key_file=None, passphrase=None, cipher=None, chunk_kib=64,
    argon2_memory_mib=64, argon2_passes=3, argon2_lanes=4, allow_weak_argon2=false,
    threads=0, provider=None))]
#[allow(clippy::too_many_arguments)]
fn encrypt<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    key_file: Option<&Bound<'py, PyAny>>,
    passphrase: Option<&Bound<'py, PyAny>>,
    cipher: Option<&str>,
    chunk_kib: u32,
    argon2_memory_mib: u32,
    argon2_passes: u32,
    argon2_lanes: u8,
    allow_weak_argon2: bool,
    threads: usize,
    provider: Option<String>,
) -> PyResult<Bound<'py, PyBytes>> {
    let creds = Credentials::new(key_file, passphrase)?;
    let opts = seal_options(
        cipher,
        chunk_kib,
        argon2_memory_mib,
        argon2_passes,
        argon2_lanes,
        allow_weak_argon2,
        threads,
        provider,
    )?;
    let data = Input::new(data, "data")?;
    let (bytes, secret) = (data.as_slice(), creds.secret());
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 1024 + 256);
    py.detach(|| cipherlab_seal::encrypt(bytes, &mut out, secret, &opts, None))
        .map_err(seal_error)?;
    Ok(PyBytes::new(py, &out))
}

/// Opens a container held in memory; raises `InvalidTag` (and returns nothing) if any
/// chunk fails.
#[pyfunction]
#[pyo3(signature = (data, *, key_file=None, passphrase=None, argon2_max_memory_mib=None,
    argon2_max_passes=None, threads=0, provider=None))]
#[allow(clippy::too_many_arguments)]
fn decrypt<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    key_file: Option<&Bound<'py, PyAny>>,
    passphrase: Option<&Bound<'py, PyAny>>,
    argon2_max_memory_mib: Option<u32>,
    argon2_max_passes: Option<u32>,
    threads: usize,
    provider: Option<String>,
) -> PyResult<Bound<'py, PyBytes>> {
    let creds = Credentials::new(key_file, passphrase)?;
    let opts = open_options(argon2_max_memory_mib, argon2_max_passes, threads, provider);
    let data = Input::new(data, "data")?;
    let (bytes, secret) = (data.as_slice(), creds.secret());
    // Wiped when dropped: on failure it may hold the chunks that verified before.
    let mut out = Zeroizing::new(Vec::with_capacity(bytes.len()));
    py.detach(|| cipherlab_seal::decrypt(bytes, &mut *out, secret, &opts, None))
        .map_err(seal_error)?;
    Ok(PyBytes::new(py, &out))
}

/// A Python file object as a Rust reader or writer (calls its `read`/`write`/`flush`,
/// taking the GIL for each call).
struct PyFile(Py<PyAny>);

/// A Python exception raised inside a file call, carried through `io::Error` so the
/// caller gets it back unchanged ([`crate::errors::seal_error`] unwraps it).
#[derive(Debug)]
pub struct PyFileError(pub PyErr);

impl fmt::Display for PyFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for PyFileError {}

fn to_io(e: PyErr) -> io::Error {
    io::Error::other(PyFileError(e))
}

impl Write for PyFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Python::attach(|py| {
            let n = self
                .0
                .bind(py)
                .call_method1("write", (PyBytes::new(py, buf),))
                .map_err(to_io)?;
            if n.is_none() {
                // A non-blocking raw file that could not take anything now.
                return Err(io::Error::from(io::ErrorKind::WouldBlock));
            }
            n.extract::<usize>().map_err(to_io)
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        Python::attach(|py| {
            let f = self.0.bind(py);
            if f.hasattr("flush").map_err(to_io)? {
                f.call_method0("flush").map_err(to_io)?;
            }
            Ok(())
        })
    }
}

impl Read for PyFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Python::attach(|py| {
            let got = self
                .0
                .bind(py)
                .call_method1("read", (buf.len(),))
                .map_err(to_io)?;
            if got.is_none() {
                return Err(io::Error::from(io::ErrorKind::WouldBlock));
            }
            let got = Input::new(&got, "read()'s result").map_err(to_io)?;
            let bytes = got.as_slice();
            if bytes.len() > buf.len() {
                return Err(io::Error::other(format!(
                    "the file's read({}) returned {} bytes",
                    buf.len(),
                    bytes.len()
                )));
            }
            buf[..bytes.len()].copy_from_slice(bytes);
            Ok(bytes.len())
        })
    }
}

fn poisoned() -> PyErr {
    PyRuntimeError::new_err("an earlier call panicked; this object cannot be used any more")
}

/// The sealing side of `cipherlab.seal.SealWriter`.
#[pyclass(module = "cipherlab._cipherlab", frozen)]
pub struct SealWriterCore {
    inner: Mutex<Option<cipherlab_seal::SealWriter<PyFile>>>,
    cipher: String,
}

impl SealWriterCore {
    fn lock(&self) -> PyResult<MutexGuard<'_, Option<cipherlab_seal::SealWriter<PyFile>>>> {
        self.inner.lock().map_err(|_| poisoned())
    }
}

#[pymethods]
impl SealWriterCore {
    #[new]
    #[pyo3(signature = (file, *, key_file=None, passphrase=None, cipher=None, chunk_kib=64,
        argon2_memory_mib=64, argon2_passes=3, argon2_lanes=4, allow_weak_argon2=false, provider=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        file: Py<PyAny>,
        key_file: Option<&Bound<'_, PyAny>>,
        passphrase: Option<&Bound<'_, PyAny>>,
        cipher: Option<&str>,
        chunk_kib: u32,
        argon2_memory_mib: u32,
        argon2_passes: u32,
        argon2_lanes: u8,
        allow_weak_argon2: bool,
        provider: Option<String>,
    ) -> PyResult<Self> {
        let creds = Credentials::new(key_file, passphrase)?;
        let opts = seal_options(
            cipher,
            chunk_kib,
            argon2_memory_mib,
            argon2_passes,
            argon2_lanes,
            allow_weak_argon2,
            0,
            provider,
        )?;
        let secret = creds.secret();
        let file = PyFile(file);
        // Argon2id runs here for a passphrase: without the GIL.
        let w = py
            .detach(|| cipherlab_seal::SealWriter::new(file, secret, &opts))
            .map_err(seal_error)?;
        let cipher = w.header().cipher.to_string();
        Ok(SealWriterCore {
            inner: Mutex::new(Some(w)),
            cipher,
        })
    }

    /// The cipher's catalogue name.
    #[getter]
    fn cipher(&self) -> String {
        self.cipher.clone()
    }

    /// Encrypts and writes all of `data`; returns its length.
    fn write(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<usize> {
        let data = Input::new(data, "data")?;
        let bytes = data.as_slice();
        let inner = &self.inner;
        run(py, bytes.len(), || -> Result<(), Error> {
            let mut guard = inner.lock().map_err(|_| Error::Usage("poisoned".into()))?;
            let w = guard
                .as_mut()
                .ok_or_else(|| Error::Usage("write to a closed SealWriter".into()))?;
            w.write_all(bytes).map_err(|e| Error::io("writing", e))
        })
        .map_err(seal_error)?;
        Ok(bytes.len())
    }

    /// Seals the final chunk and flushes the file (which stays open). Idempotent.
    fn finish(&self, py: Python<'_>) -> PyResult<()> {
        let Some(w) = self.lock()?.take() else {
            return Ok(());
        };
        py.detach(|| w.finish().map(drop).map_err(|e| Error::io("finishing", e)))
            .map_err(seal_error)
    }

    /// Whether `finish` ran.
    #[getter]
    fn finished(&self) -> PyResult<bool> {
        Ok(self.lock()?.is_none())
    }
}

/// The opening side of `cipherlab.seal.SealReader`.
#[pyclass(module = "cipherlab._cipherlab", frozen)]
pub struct SealReaderCore {
    inner: Mutex<cipherlab_seal::SealReader<PyFile>>,
    cipher: String,
}

#[pymethods]
impl SealReaderCore {
    #[new]
    #[pyo3(signature = (file, *, key_file=None, passphrase=None, argon2_max_memory_mib=None,
        argon2_max_passes=None, provider=None))]
    fn new(
        py: Python<'_>,
        file: Py<PyAny>,
        key_file: Option<&Bound<'_, PyAny>>,
        passphrase: Option<&Bound<'_, PyAny>>,
        argon2_max_memory_mib: Option<u32>,
        argon2_max_passes: Option<u32>,
        provider: Option<String>,
    ) -> PyResult<Self> {
        let creds = Credentials::new(key_file, passphrase)?;
        let opts = open_options(argon2_max_memory_mib, argon2_max_passes, 0, provider);
        let secret = creds.secret();
        let file = PyFile(file);
        let r = py
            .detach(|| cipherlab_seal::SealReader::with_options(file, secret, &opts))
            .map_err(seal_error)?;
        let cipher = r.header().cipher.to_string();
        Ok(SealReaderCore {
            inner: Mutex::new(r),
            cipher,
        })
    }

    /// The cipher's catalogue name.
    #[getter]
    fn cipher(&self) -> String {
        self.cipher.clone()
    }

    /// Reads verified plaintext into `buffer`; returns the count (0 at the end).
    fn readinto(&self, py: Python<'_>, buffer: &Bound<'_, PyAny>) -> PyResult<usize> {
        let mut out = Output::new(buffer)?;
        let n = out.len();
        let buf = out.as_mut_slice();
        let inner = &self.inner;
        run(py, n.max(RELEASE_GIL_FROM), || -> Result<usize, Error> {
            let mut r = inner.lock().map_err(|_| Error::Usage("poisoned".into()))?;
            r.read(buf).map_err(|e| Error::io("reading", e))
        })
        .map_err(seal_error)
    }
}

/// Registers the container's classes and functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<KeyFile>()?;
    m.add_class::<SealWriterCore>()?;
    m.add_class::<SealReaderCore>()?;
    m.add_function(pyo3::wrap_pyfunction!(encrypt_file, m)?)?;
    m.add_function(pyo3::wrap_pyfunction!(decrypt_file, m)?)?;
    m.add_function(pyo3::wrap_pyfunction!(encrypt, m)?)?;
    m.add_function(pyo3::wrap_pyfunction!(decrypt, m)?)?;
    Ok(())
}
