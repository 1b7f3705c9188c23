//! Where results go, safely: a file output is a [`cipherlab_outfile::OutFile`], written to
//! a temporary file in the destination's directory (unnamed where the filesystem allows)
//! and put in place only once complete, so a failure (wrong key, corrupt chunk, disk full,
//! a crash, an interruption) leaves neither a half-written file nor a damaged original.
//! An existing destination is refused unless `force`; with `force`, the new file is
//! synced to disk before it replaces the old one, so the old content cannot be lost to a
//! crash.
//! `-` or no path means standard output (for pipelines): there the caller must report
//! a failure mid-stream, since what was written cannot be taken back.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::path::Path;

use cipherlab_outfile::OutFile;

use crate::error::{Error, Result};

/// An output being written.
pub enum Output {
    /// Standard output (unbuffered, straight to file descriptor 1).
    Stdout(File),
    /// A temporary file that becomes its destination on [`Output::commit`] (nothing is
    /// left if it is dropped before).
    File(OutFile),
}

/// Whether `path` names standard input/output (`-` or nothing).
pub fn is_std(path: Option<&Path>) -> bool {
    path.is_none_or(|p| p.as_os_str() == "-")
}

impl Output {
    /// Standard output for `-` or `None`, else a file (see [`Output::file`]).
    pub fn open(path: Option<&Path>, force: bool) -> Result<Output> {
        match path {
            Some(p) if !is_std(Some(p)) => Output::file(p, force),
            _ => Ok(Output::Stdout(
                io::stdout()
                    .as_fd()
                    .try_clone_to_owned()
                    .map(File::from)
                    .map_err(|e| Error::io("opening standard output", e))?,
            )),
        }
    }

    /// A temporary file for `dest` (owner-only permissions, 0600); refuses an existing
    /// `dest` unless `force`.
    pub fn file(dest: &Path, force: bool) -> Result<Output> {
        OutFile::create(dest, force)
            .map(Output::File)
            .map_err(|e| exists_or(e, dest, "creating the output"))
    }

    /// What to call the output in messages.
    pub fn name(&self) -> String {
        match self {
            Output::Stdout(_) => "standard output".into(),
            Output::File(f) => f.dest().display().to_string(),
        }
    }

    /// Finishes: flushes standard output, or puts the file in place.
    pub fn commit(self) -> Result<()> {
        match self {
            Output::Stdout(mut f) => f
                .flush()
                .map_err(|e| Error::io("writing standard output", e)),
            Output::File(f) => {
                let dest = f.dest().to_path_buf();
                f.commit()
                    .map_err(|e| exists_or(e, &dest, "putting the output in place"))
            }
        }
    }
}

/// [`Error::OutputExists`] for an existing `dest`, else an I/O error.
fn exists_or(e: io::Error, dest: &Path, what: &str) -> Error {
    if e.kind() == io::ErrorKind::AlreadyExists {
        Error::OutputExists(dest.to_path_buf())
    } else {
        Error::io(format!("{what} {}", dest.display()), e)
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(f) => f.write(buf),
            Output::File(f) => f.write(buf),
        }
    }
    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        match self {
            Output::Stdout(f) => f.write_vectored(bufs),
            Output::File(f) => f.write_vectored(bufs),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(f) => f.flush(),
            Output::File(f) => f.flush(),
        }
    }
}

/// Opens an input: standard input for `-` or `None` (unbuffered), else the file.
/// Returns the reader and its size when known.
pub fn open_input(path: Option<&Path>) -> Result<(File, Option<u64>)> {
    match path {
        Some(p) if !is_std(Some(p)) => {
            let f = File::open(p).map_err(|e| Error::io(format!("opening {}", p.display()), e))?;
            let len = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
            Ok((f, len))
        }
        _ => {
            let f = io::stdin()
                .as_fd()
                .try_clone_to_owned()
                .map(File::from)
                .map_err(|e| Error::io("opening standard input", e))?;
            let len = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
            Ok((f, len))
        }
    }
}
