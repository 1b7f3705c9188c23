//! Loading a built library and calling it: [`Library`] holds the two `crypto_aead`
//! functions or the `crypto_hash` function (as its api.h declares), [`NativeAead`] offers
//! the former as a cipherlab provider for one catalogue AEAD.
//!
//! Loading runs the library's code (see the crate's safety note). Every call passes
//! buffers sized from `api.h` and the message, and the lengths the C code reports are
//! checked against those sizes before a byte is read back.

// The only unsafe code of the crate: loading a library and calling its functions.
#![allow(unsafe_code)]

use std::os::raw::{c_int, c_uchar, c_ulonglong};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cipherlab_ciphers::{Cipher, CipherSpec, Error as CipherError, Provider};
use zeroize::{Zeroize, Zeroizing};

use crate::error::Error;
use crate::source::{Api, ApiSizes};

type EncryptFn = unsafe extern "C" fn(
    c: *mut c_uchar,
    clen: *mut c_ulonglong,
    m: *const c_uchar,
    mlen: c_ulonglong,
    ad: *const c_uchar,
    adlen: c_ulonglong,
    nsec: *const c_uchar,
    npub: *const c_uchar,
    k: *const c_uchar,
) -> c_int;

type DecryptFn = unsafe extern "C" fn(
    m: *mut c_uchar,
    mlen: *mut c_ulonglong,
    nsec: *mut c_uchar,
    c: *const c_uchar,
    clen: c_ulonglong,
    ad: *const c_uchar,
    adlen: c_ulonglong,
    npub: *const c_uchar,
    k: *const c_uchar,
) -> c_int;

type HashFn =
    unsafe extern "C" fn(out: *mut c_uchar, input: *const c_uchar, inlen: c_ulonglong) -> c_int;

/// The functions of a loaded library, by API.
#[derive(Debug, Clone, Copy)]
enum Functions {
    Aead {
        sizes: ApiSizes,
        encrypt: EncryptFn,
        decrypt: DecryptFn,
    },
    Hash {
        bytes: usize,
        hash: HashFn,
    },
}

/// A loaded library with the functions of the API its `api.h` declared
/// (`crypto_aead_encrypt` and `crypto_aead_decrypt`, or `crypto_hash`), and its sizes.
#[derive(Debug)]
pub struct Library {
    path: PathBuf,
    api: Api,
    functions: Functions,
    // Kept loaded as long as the function pointers above live.
    _lib: libloading::Library,
}

impl Library {
    /// Loads the library at `path`, which implements the API `api` (its sizes).
    ///
    /// This runs the library's initialisers: load only what the user named and built.
    pub fn load(path: &Path, api: Api) -> Result<Library, Error> {
        let err = |message: String| Error::Load {
            path: path.to_path_buf(),
            message,
        };
        // SAFETY: loading runs the library's initialisers, which is what the user asked
        // for by naming its source folder (the crate's safety note); the path is the
        // library this crate just built from that folder (or, in a fork child, the one
        // its parent built and checked).
        let lib = unsafe { libloading::Library::new(path) }.map_err(|e| err(e.to_string()))?;
        // SAFETY: the symbols are declared by the NIST LWC API with exactly these
        // signatures (unsigned long long lengths, int return); the pointers are copied
        // out and only used while `lib` is kept loaded (it is a field of the result).
        let functions = unsafe {
            match api {
                Api::Aead(sizes) => {
                    let e: libloading::Symbol<'_, EncryptFn> = lib
                        .get(b"crypto_aead_encrypt\0")
                        .map_err(|e| err(format!("no crypto_aead_encrypt: {e}")))?;
                    let d: libloading::Symbol<'_, DecryptFn> = lib
                        .get(b"crypto_aead_decrypt\0")
                        .map_err(|e| err(format!("no crypto_aead_decrypt: {e}")))?;
                    Functions::Aead {
                        sizes,
                        encrypt: *e,
                        decrypt: *d,
                    }
                }
                Api::Hash { bytes } => {
                    let h: libloading::Symbol<'_, HashFn> = lib
                        .get(b"crypto_hash\0")
                        .map_err(|e| err(format!("no crypto_hash: {e}")))?;
                    Functions::Hash { bytes, hash: *h }
                }
            }
        };
        Ok(Library {
            path: path.to_path_buf(),
            api,
            functions,
            _lib: lib,
        })
    }

    /// `crypto_hash` of `msg`, as a hash whose digest is `want` bytes: refused before the
    /// call unless `want` is api.h's `CRYPTO_BYTES` (the output buffer is allocated with
    /// exactly that many bytes, the most the API lets the function write).
    pub fn hash(&self, msg: &[u8], want: usize) -> Result<Vec<u8>, String> {
        let Functions::Hash { bytes, hash } = self.functions else {
            return Err("the library implements crypto_aead, not crypto_hash".into());
        };
        if want != bytes {
            return Err(format!(
                "a {want}-byte digest asked of a library whose api.h says CRYPTO_BYTES {bytes}"
            ));
        }
        let mut out = vec![0u8; bytes];
        // SAFETY: `out` holds CRYPTO_BYTES bytes (api.h), which is what the API lets the
        // function write; `msg` is valid for the length passed.
        let rc = unsafe { hash(out.as_mut_ptr(), msg.as_ptr(), msg.len() as c_ulonglong) };
        if rc != 0 {
            return Err(format!("crypto_hash returned {rc}"));
        }
        Ok(out)
    }

    /// The AEAD functions and sizes, or why not.
    fn aead(&self) -> Result<(ApiSizes, EncryptFn, DecryptFn), String> {
        match self.functions {
            Functions::Aead {
                sizes,
                encrypt,
                decrypt,
            } => Ok((sizes, encrypt, decrypt)),
            Functions::Hash { .. } => {
                Err("the library implements crypto_hash, not crypto_aead".into())
            }
        }
    }

    /// Where it was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its `api.h`: the API and sizes.
    pub fn api(&self) -> Api {
        self.api
    }

    /// `crypto_aead_encrypt` of `m` into `out` (which must hold `m.len()` + tag bytes);
    /// returns the C function's return code and the length it reported, checked to fit.
    fn encrypt_raw(
        &self,
        out: &mut [u8],
        m: &[u8],
        ad: &[u8],
        npub: &[u8],
        k: &[u8],
    ) -> Result<usize, String> {
        let (api, encrypt, _) = self.aead()?;
        let need = m.len() + api.tag;
        if out.len() < need || npub.len() != api.nonce || k.len() != api.key {
            return Err("buffer or sizes do not match api.h".into());
        }
        let mut clen: c_ulonglong = 0;
        // SAFETY: `out` holds mlen + CRYPTO_ABYTES bytes, the most the API lets the
        // function write; `m`, `ad`, `npub` and `k` are valid for the lengths passed
        // (npub and k checked against api.h above); nsec is NULL, as CRYPTO_NSECBYTES is
        // 0 (checked when api.h was read); clen is a valid place for the output length.
        let rc = unsafe {
            encrypt(
                out.as_mut_ptr(),
                &mut clen,
                m.as_ptr(),
                m.len() as c_ulonglong,
                ad.as_ptr(),
                ad.len() as c_ulonglong,
                std::ptr::null(),
                npub.as_ptr(),
                k.as_ptr(),
            )
        };
        if rc != 0 {
            return Err(format!("crypto_aead_encrypt returned {rc}"));
        }
        if clen != need as c_ulonglong {
            return Err(format!(
                "crypto_aead_encrypt reported {clen} bytes, not {need} (message + CRYPTO_ABYTES)"
            ));
        }
        Ok(need)
    }

    /// `crypto_aead_decrypt` of `c` into `out` (at least `c.len()` bytes): `Ok(Some(n))`
    /// with the plaintext length, `Ok(None)` when the tag did not verify (non-zero
    /// return); `out` is wiped on anything but success.
    fn decrypt_raw(
        &self,
        out: &mut [u8],
        c: &[u8],
        ad: &[u8],
        npub: &[u8],
        k: &[u8],
    ) -> Result<Option<usize>, String> {
        let (api, _, decrypt) = self.aead()?;
        if c.len() < api.tag {
            return Ok(None);
        }
        if out.len() < c.len() || npub.len() != api.nonce || k.len() != api.key {
            return Err("buffer or sizes do not match api.h".into());
        }
        let want = c.len() - api.tag;
        let mut mlen: c_ulonglong = 0;
        // SAFETY: `out` holds clen bytes, more than the clen - CRYPTO_ABYTES the API lets
        // the function write; `c`, `ad`, `npub`, `k` are valid for the lengths passed
        // (npub and k checked against api.h above); nsec is NULL (CRYPTO_NSECBYTES 0);
        // mlen is a valid place for the output length.
        let rc = unsafe {
            decrypt(
                out.as_mut_ptr(),
                &mut mlen,
                std::ptr::null_mut(),
                c.as_ptr(),
                c.len() as c_ulonglong,
                ad.as_ptr(),
                ad.len() as c_ulonglong,
                npub.as_ptr(),
                k.as_ptr(),
            )
        };
        if rc != 0 {
            out.zeroize();
            return Ok(None);
        }
        if mlen != want as c_ulonglong {
            out.zeroize();
            return Err(format!(
                "crypto_aead_decrypt reported {mlen} bytes, not {want} (ciphertext - CRYPTO_ABYTES)"
            ));
        }
        Ok(Some(want))
    }
}

/// A loaded C implementation offered as a provider for one catalogue AEAD.
#[derive(Debug)]
pub struct NativeAead {
    name: &'static str,
    spec: CipherSpec,
    lib: Arc<Library>,
}

impl NativeAead {
    /// `lib` as provider `name` of `spec`; refused when api.h's sizes are not the
    /// spec's.
    pub fn new(name: &str, spec: CipherSpec, lib: Library) -> Result<NativeAead, Error> {
        sizes_match(&spec, lib.api(), lib.path())?;
        Ok(NativeAead {
            // A provider's name is &'static (providers are program-long); one leak per
            // provider made.
            name: Box::leak(name.to_string().into_boxed_str()),
            spec,
            lib: Arc::new(lib),
        })
    }

    /// The AEAD it implements.
    pub fn spec(&self) -> CipherSpec {
        self.spec
    }

    /// The library behind it.
    pub fn library(&self) -> &Library {
        &self.lib
    }
}

/// Refuses `api` when it is not the `crypto_aead` API with `spec`'s key, nonce and tag
/// sizes.
pub(crate) fn sizes_match(spec: &CipherSpec, api: Api, folder: &Path) -> Result<(), Error> {
    let api = match api {
        Api::Aead(sizes) => sizes,
        Api::Hash { .. } => {
            return Err(Error::ApiMismatch {
                folder: folder.to_path_buf(),
                api: "crypto_hash",
                algorithm: spec.to_string(),
                what: if spec.is_aead() {
                    "an AEAD (crypto_aead)"
                } else {
                    "not an AEAD"
                },
            });
        }
    };
    if !spec.is_aead()
        || api.key != spec.key_len()
        || api.nonce != spec.iv_len()
        || api.tag != spec.tag_len()
    {
        return Err(Error::SizesMismatch {
            folder: folder.to_path_buf(),
            cipher: spec.to_string(),
            key: api.key,
            nonce: api.nonce,
            tag: api.tag,
            want_key: spec.key_len(),
            want_nonce: spec.iv_len(),
            want_tag: spec.tag_len(),
        });
    }
    Ok(())
}

impl Provider for NativeAead {
    fn name(&self) -> &'static str {
        self.name
    }

    fn supports(&self, spec: &CipherSpec) -> bool {
        *spec == self.spec
    }

    fn init(&self, spec: &CipherSpec, key: &[u8]) -> Result<Box<dyn Cipher>, CipherError> {
        if !self.supports(spec) {
            return Err(CipherError::Unsupported {
                provider: self.name.into(),
                cipher: spec.to_string(),
                available: Vec::new(),
            });
        }
        if key.len() != spec.key_len() {
            return Err(CipherError::KeyLength {
                cipher: spec.to_string(),
                expected: spec.key_len(),
                got: key.len(),
            });
        }
        Ok(Box::new(NativeCipher {
            name: self.name,
            spec: self.spec,
            lib: Arc::clone(&self.lib),
            key: Zeroizing::new(key.to_vec()),
            scratch: Zeroizing::new(Vec::new()),
        }))
    }
}

/// An initialised [`NativeAead`]: the key kept, and a scratch buffer (grown, never
/// shrunk) for the ciphertext, which the C functions write (encryption) or read
/// (decryption) apart from the caller's buffer, since the API does not promise in-place work.
struct NativeCipher {
    name: &'static str,
    spec: CipherSpec,
    lib: Arc<Library>,
    key: Zeroizing<Vec<u8>>,
    scratch: Zeroizing<Vec<u8>>,
}

impl NativeCipher {
    fn check_iv(&self, iv: &[u8]) -> Result<(), CipherError> {
        if iv.len() != self.spec.iv_len() {
            return Err(CipherError::IvLength {
                cipher: self.spec.to_string(),
                expected: self.spec.iv_len(),
                got: iv.len(),
            });
        }
        Ok(())
    }

    fn failed(&self, message: String) -> CipherError {
        CipherError::Provider {
            provider: self.name,
            message,
        }
    }
}

impl Cipher for NativeCipher {
    fn spec(&self) -> &CipherSpec {
        &self.spec
    }

    fn provider(&self) -> &'static str {
        self.name
    }

    fn encrypt(
        &mut self,
        iv: &[u8],
        ad: &[u8],
        buf: &mut [u8],
        msg_len: usize,
    ) -> Result<usize, CipherError> {
        self.check_iv(iv)?;
        let need = self.spec.output_len(msg_len);
        if buf.len() < need || msg_len > buf.len() {
            return Err(CipherError::BufferTooSmall {
                need,
                have: buf.len(),
            });
        }
        if self.scratch.len() < need {
            self.scratch.resize(need, 0);
        }
        let n = self
            .lib
            .encrypt_raw(
                &mut self.scratch[..need],
                &buf[..msg_len],
                ad,
                iv,
                &self.key,
            )
            .map_err(|m| self.failed(m))?;
        buf[..n].copy_from_slice(&self.scratch[..n]);
        Ok(n)
    }

    fn decrypt(&mut self, iv: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<usize, CipherError> {
        self.check_iv(iv)?;
        // The ciphertext goes to the scratch buffer (nothing secret to wipe there) and the
        // plaintext straight into `buf`: one copy, as encryption makes, and no second copy
        // of the plaintext to wipe (which made decryption 7% dearer than the C code's own
        // at 4 KiB, docs/BENCHMARKS.md).
        let len = buf.len();
        if self.scratch.len() < len {
            self.scratch.resize(len, 0);
        }
        self.scratch[..len].copy_from_slice(buf);
        let r = self
            .lib
            .decrypt_raw(buf, &self.scratch[..len], ad, iv, &self.key);
        match r {
            Ok(Some(n)) => Ok(n),
            Ok(None) => {
                buf.zeroize();
                Err(CipherError::Authentication)
            }
            Err(m) => {
                buf.zeroize();
                Err(self.failed(m))
            }
        }
    }
}
