//! Where results go, safely: a file output is written to a temporary file beside the
//! destination and renamed over it only once complete, so a failure (wrong key, corrupt
//! chunk, disk full, a crash) leaves neither a half-written file nor a damaged original.
//! An existing destination is refused unless `force`; with `force`, the new file is
//! synced to disk before the rename, so the old content cannot be lost to a crash.
//! `-` or no path means standard output (for pipelines): there the caller must report
//! a failure mid-stream, since what was written cannot be taken back.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::error::{Error, Result};

/// An output being written.
pub enum Output {
    /// Standard output (unbuffered, straight to file descriptor 1).
    Stdout(File),
    /// A temporary file that becomes `dest` on [`Output::commit`].
    File {
        /// The temporary file (deleted if dropped before commit).
        tmp: NamedTempFile,
        /// The destination.
        dest: PathBuf,
        /// Whether an existing destination may be replaced.
        force: bool,
    },
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

    /// A temporary file beside `dest` (owner-only permissions, 0600); refuses an
    /// existing `dest` unless `force`.
    pub fn file(dest: &Path, force: bool) -> Result<Output> {
        if !force && dest.symlink_metadata().is_ok() {
            return Err(Error::OutputExists(dest.to_path_buf()));
        }
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".cipherlab-tmp")
            .tempfile_in(dir)
            .map_err(|e| Error::io(format!("creating a temporary file in {}", dir.display()), e))?;
        Ok(Output::File {
            tmp,
            dest: dest.to_path_buf(),
            force,
        })
    }

    /// What to call the output in messages.
    pub fn name(&self) -> String {
        match self {
            Output::Stdout(_) => "standard output".into(),
            Output::File { dest, .. } => dest.display().to_string(),
        }
    }

    /// Finishes: flushes standard output, or moves the temporary file into place.
    pub fn commit(self) -> Result<()> {
        match self {
            Output::Stdout(mut f) => f
                .flush()
                .map_err(|e| Error::io("writing standard output", e)),
            Output::File { tmp, dest, force } => {
                let what = format!("writing {}", dest.display());
                let replacing = dest.exists();
                if replacing {
                    // Durable before the old file is replaced: a crash cannot lose both.
                    tmp.as_file().sync_all().map_err(|e| Error::io(&what, e))?;
                }
                let persisted = if force {
                    tmp.persist(&dest)
                } else {
                    tmp.persist_noclobber(&dest)
                };
                match persisted {
                    Ok(_) => Ok(()),
                    Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => {
                        Err(Error::OutputExists(dest))
                    }
                    Err(e) => Err(Error::io(
                        format!("renaming the output to {}", dest.display()),
                        e.error,
                    )),
                }
            }
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(f) => f.write(buf),
            Output::File { tmp, .. } => tmp.write(buf),
        }
    }
    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        match self {
            Output::Stdout(f) => f.write_vectored(bufs),
            Output::File { tmp, .. } => tmp.as_file_mut().write_vectored(bufs),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(f) => f.flush(),
            Output::File { tmp, .. } => tmp.flush(),
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
