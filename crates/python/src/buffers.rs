//! Bytes in and out of Python: any object with the buffer protocol (bytes, bytearray,
//! memoryview, array.array, NumPy arrays) read without copying, writable buffers for the
//! `*_into` methods, and when to release the GIL.
//!
//! `bytes` objects are immutable and borrowed through PyO3's safe API. Every other object
//! is taken through the buffer protocol (PEP 3118) as one contiguous run of bytes (NumPy
//! arrays of any dtype included); while we hold the export the exporter can neither free
//! nor resize the memory (a bytearray refuses to resize with `BufferError`). Reading and
//! writing it in place instead of copying saves a pass over the data at every call.
//!
//! The buffer calls are declared here, not taken from PyO3: the wheel targets the stable
//! ABI from CPython 3.9 on (abi3), whose headers list `PyObject_GetBuffer` and `Py_buffer`
//! only from 3.11, and PyO3 follows the headers. CPython exports both, with this layout,
//! since 3.0 (PEP 3118), and 3.11 froze exactly that layout into the stable ABI, so a
//! 3.9 interpreter serves them as well.

use std::ffi::{c_char, c_int, c_void};

use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::ffi::{Py_ssize_t, PyObject};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// `Py_buffer` (CPython's `Include/pybuffer.h`).
#[repr(C)]
struct RawBuffer {
    buf: *mut c_void,
    obj: *mut PyObject,
    len: Py_ssize_t,
    itemsize: Py_ssize_t,
    readonly: c_int,
    ndim: c_int,
    format: *mut c_char,
    shape: *mut Py_ssize_t,
    strides: *mut Py_ssize_t,
    suboffsets: *mut Py_ssize_t,
    internal: *mut c_void,
}

/// `PyBUF_SIMPLE`: one contiguous run of bytes, read-only is fine.
const PYBUF_SIMPLE: c_int = 0;
/// `PyBUF_WRITABLE`: as `PyBUF_SIMPLE`, and writable.
const PYBUF_WRITABLE: c_int = 0x0001;

#[allow(unsafe_code)]
unsafe extern "C" {
    fn PyObject_GetBuffer(obj: *mut PyObject, view: *mut RawBuffer, flags: c_int) -> c_int;
    fn PyBuffer_Release(view: *mut RawBuffer);
}

/// An exported buffer, released when dropped. Raw pointers make it neither `Send` nor
/// `Sync`, so it stays in the thread that holds the GIL (its release needs the GIL); the
/// GIL-free parts of a call get plain slices of it.
pub struct Buffer(Box<RawBuffer>);

impl Buffer {
    /// Exports `obj`'s buffer (`writable`: for writing); `None` with the Python error
    /// cleared when the object has none or refuses (not contiguous, read-only).
    fn get(obj: &Bound<'_, PyAny>, writable: bool) -> Option<Buffer> {
        let mut view = Box::new(RawBuffer {
            buf: std::ptr::null_mut(),
            obj: std::ptr::null_mut(),
            len: 0,
            itemsize: 0,
            readonly: 0,
            ndim: 0,
            format: std::ptr::null_mut(),
            shape: std::ptr::null_mut(),
            strides: std::ptr::null_mut(),
            suboffsets: std::ptr::null_mut(),
            internal: std::ptr::null_mut(),
        });
        let flags = if writable {
            PYBUF_WRITABLE
        } else {
            PYBUF_SIMPLE
        };
        #[allow(unsafe_code)]
        // SAFETY: `obj` is a live object and we hold the GIL (`Bound`); `view` points to a
        // `Py_buffer`-shaped struct the call fills in. On failure nothing needs releasing.
        let rc = unsafe { PyObject_GetBuffer(obj.as_ptr(), &mut *view, flags) };
        if rc != 0 {
            drop(PyErr::take(obj.py()));
            return None;
        }
        Some(Buffer(view))
    }

    fn len(&self) -> usize {
        usize::try_from(self.0.len).unwrap_or(0)
    }

    fn as_slice(&self) -> &[u8] {
        if self.len() == 0 || self.0.buf.is_null() {
            return &[];
        }
        #[allow(unsafe_code)]
        // SAFETY: a PyBUF_SIMPLE export is `len` contiguous bytes at `buf`, kept alive and
        // at that size until we release it in `drop`, which the borrow of `self` outlasts.
        // Another thread writing into the same object meanwhile would race with this read;
        // docs/python.md says not to (hashlib and cryptography read buffers the same way).
        unsafe {
            std::slice::from_raw_parts(self.0.buf as *const u8, self.len())
        }
    }

    fn as_mut_slice(&mut self) -> &mut [u8] {
        if self.len() == 0 || self.0.buf.is_null() || self.0.readonly != 0 {
            return &mut [];
        }
        #[allow(unsafe_code)]
        // SAFETY: as `as_slice`, and the export is writable (PyBUF_WRITABLE, checked
        // `readonly`); `&mut self` makes this the only slice of it we hand out.
        unsafe {
            std::slice::from_raw_parts_mut(self.0.buf as *mut u8, self.len())
        }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        #[allow(unsafe_code)]
        // SAFETY: the view came from a successful PyObject_GetBuffer and is released once.
        // A `Buffer` is not `Send`, so it is dropped on a thread that took it with the GIL,
        // and every function creating one holds the GIL until it is dropped.
        unsafe {
            PyBuffer_Release(&mut *self.0)
        }
    }
}

/// Inputs from this many bytes on are processed with the GIL released, so other Python
/// threads run meanwhile: hashlib's threshold (`HASHLIB_GIL_MINSIZE`, 2048 bytes). Below
/// it, releasing and taking back the GIL would cost more than the work.
pub const RELEASE_GIL_FROM: usize = 2048;

/// Runs `work` with the GIL released when `bytes` is at least [`RELEASE_GIL_FROM`].
pub fn run<T: Send>(py: Python<'_>, bytes: usize, work: impl FnOnce() -> T + Send) -> T {
    if bytes >= RELEASE_GIL_FROM {
        py.detach(work)
    } else {
        work()
    }
}

/// Read-only bytes from a Python object.
pub enum Input<'py> {
    /// A `bytes` object (immutable).
    Bytes(Bound<'py, PyBytes>),
    /// Any other object with the buffer protocol.
    Buffer(Buffer),
    /// `None` where the argument is optional (associated data): no bytes.
    Empty,
}

impl<'py> Input<'py> {
    /// The bytes of `obj`; `what` names the argument in errors.
    pub fn new(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Input<'py>> {
        if let Ok(b) = obj.cast::<PyBytes>() {
            return Ok(Input::Bytes(b.clone()));
        }
        let buf = Buffer::get(obj, false).ok_or_else(|| {
            PyTypeError::new_err(format!(
                "{what} must be bytes or another object with the buffer protocol (bytearray, \
                 memoryview, a C-contiguous NumPy array), not {}",
                type_name(obj)
            ))
        })?;
        Ok(Input::Buffer(buf))
    }

    /// [`Input::new`] for an optional argument (`None`: empty).
    pub fn optional(obj: Option<&Bound<'py, PyAny>>, what: &str) -> PyResult<Input<'py>> {
        match obj {
            Some(o) if !o.is_none() => Input::new(o, what),
            _ => Ok(Input::Empty),
        }
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        match self {
            Input::Bytes(b) => b.as_bytes(),
            Input::Buffer(buf) => buf.as_slice(),
            Input::Empty => &[],
        }
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// Where the bytes are, for the overlap check of [`Output`].
    fn range(&self) -> std::ops::Range<usize> {
        let s = self.as_slice();
        let start = s.as_ptr() as usize;
        start..start + s.len()
    }
}

/// A writable buffer given by the caller (`out` of the `*_into` methods).
pub struct Output(Buffer);

impl Output {
    /// The buffer of `obj`, which must be writable and contiguous.
    pub fn new(obj: &Bound<'_, PyAny>) -> PyResult<Output> {
        Buffer::get(obj, true).map(Output).ok_or_else(|| {
            PyBufferError::new_err(format!(
                "out must be a writable, contiguous buffer (bytearray, memoryview, a NumPy \
                 array), not {}",
                type_name(obj)
            ))
        })
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether `input` shares memory with this buffer (then it must be copied before the
    /// buffer is written: a slice and a mutable slice of the same bytes may not coexist).
    pub fn overlaps(&self, input: &Input<'_>) -> bool {
        let out = self.0.as_slice();
        let start = out.as_ptr() as usize;
        let r = input.range();
        !r.is_empty() && !out.is_empty() && r.start < start + out.len() && start < r.end
    }

    /// The bytes, to write.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        self.0.as_mut_slice()
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "this object".into())
}
