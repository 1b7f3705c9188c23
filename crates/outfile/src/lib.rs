//! # cipherlab-outfile: an output file appears whole or not at all
//!
//! Every file cipherlab writes (decrypted plaintext, containers, key files, PDFs) goes
//! through [`OutFile`]: it is written to a temporary file in the destination's directory
//! and put in place by [`OutFile::commit`] only when complete, so an error, a crash or an
//! interruption never leaves a half-written output -- above all no plaintext that was
//! verified chunk by chunk and then cut off.
//!
//! - Where the filesystem has it (Linux 3.11+: ext4, xfs, btrfs, tmpfs, ...), the temporary
//!   file is **unnamed** (`O_TMPFILE`): it has no name until [`OutFile::commit`] links it in
//!   (`linkat` through `/proc/self/fd`), so a process killed by any signal, even SIGKILL,
//!   leaves nothing behind -- the kernel frees the file with the last descriptor.
//! - Elsewhere it is a **named** file (`.NAME.XXXXXX.cipherlab-tmp`, mode 0600) that is
//!   removed when the [`OutFile`] is dropped, and registered while it exists so that a
//!   signal handler can remove it too: a program calls [`remove_pending`] from its handler
//!   for SIGINT, SIGTERM and SIGHUP (the `cipherlab` binary does). Only SIGKILL can leave
//!   one behind there.
//!
//! An existing destination is refused unless `force`; with `force` the new file is synced
//! to disk before it replaces the old one, so a crash cannot lose both. Without `force`
//! the unnamed file is linked with `linkat`, which refuses an existing name atomically.
//!
//! Setting `CIPHERLAB_OUTFILE_NAMED=1` in the environment forces named temporary files (the
//! tests use it to check the fallback on filesystems that have `O_TMPFILE`).

#![forbid(unsafe_code)]

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rustix::fs::{AtFlags, CWD, Mode, OFlags};

/// Named temporary files that exist right now, for [`remove_pending`].
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn pending() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    // A panic while the list was held cannot leave it inconsistent (push and retain).
    PENDING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A path in [`PENDING`] while this lives.
struct Registered(PathBuf);

impl Registered {
    fn new(p: &Path) -> Registered {
        pending().push(p.to_path_buf());
        Registered(p.to_path_buf())
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        pending().retain(|q| *q != self.0);
    }
}

/// Removes every named temporary file still being written; for a signal handler's thread
/// (not for the handler itself: it takes a lock). Unnamed files need nothing.
pub fn remove_pending() {
    for p in pending().drain(..) {
        let _ = std::fs::remove_file(p);
    }
}

/// How the temporary file exists.
enum Temp {
    /// Unnamed (`O_TMPFILE`).
    Unnamed(File),
    /// Named; deleted on drop, registered for [`remove_pending`] meanwhile.
    Named(tempfile::NamedTempFile, Registered),
}

/// An output file being written; see the crate documentation.
pub struct OutFile {
    temp: Temp,
    dest: PathBuf,
    force: bool,
    /// Synced to disk since the file was last handed out for writing
    /// ([`OutFile::sync_if_replacing`]); a cell because [`OutFile::as_file`] can write.
    synced: std::cell::Cell<bool>,
}

impl std::fmt::Debug for OutFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutFile")
            .field("dest", &self.dest)
            .field("unnamed", &self.is_unnamed())
            .finish_non_exhaustive()
    }
}

fn dir_of(dest: &Path) -> &Path {
    match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

fn named_temp(dest: &Path) -> io::Result<tempfile::NamedTempFile> {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // tempfile creates it with mode 0600.
    tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".cipherlab-tmp")
        .tempfile_in(dir_of(dest))
}

/// An unnamed file in `dir`, or `None` where the filesystem or kernel has none (or
/// `/proc/self/fd`, through which it is linked, is missing).
fn unnamed_in(dir: &Path, allowed: bool) -> io::Result<Option<File>> {
    if !allowed || !Path::new("/proc/self/fd").is_dir() {
        return Ok(None);
    }
    match rustix::fs::openat(
        CWD,
        dir,
        OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    ) {
        Ok(fd) => Ok(Some(File::from(fd))),
        // No O_TMPFILE here: an old kernel (EISDIR, EINVAL) or a filesystem without it
        // (EOPNOTSUPP).
        Err(e)
            if e == rustix::io::Errno::OPNOTSUPP
                || e == rustix::io::Errno::ISDIR
                || e == rustix::io::Errno::INVAL =>
        {
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

impl OutFile {
    /// A temporary file for `dest`; an existing `dest` is refused
    /// ([`io::ErrorKind::AlreadyExists`]) unless `force`.
    pub fn create(dest: &Path, force: bool) -> io::Result<OutFile> {
        let named = std::env::var_os("CIPHERLAB_OUTFILE_NAMED").is_some_and(|v| v == "1");
        OutFile::create_as(dest, force, !named)
    }

    /// [`OutFile::create`], with an unnamed file only if `unnamed` (and available).
    fn create_as(dest: &Path, force: bool, unnamed: bool) -> io::Result<OutFile> {
        if !force && dest.symlink_metadata().is_ok() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{} exists", dest.display()),
            ));
        }
        let temp = match unnamed_in(dir_of(dest), unnamed)? {
            Some(f) => Temp::Unnamed(f),
            None => {
                let t = named_temp(dest)?;
                let r = Registered::new(t.path());
                Temp::Named(t, r)
            }
        };
        Ok(OutFile {
            temp,
            dest: dest.to_path_buf(),
            force,
            synced: std::cell::Cell::new(false),
        })
    }

    /// Whether the temporary file has no name (nothing can be left behind).
    pub fn is_unnamed(&self) -> bool {
        matches!(self.temp, Temp::Unnamed(_))
    }

    /// The destination.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// The temporary file (for positioned writes; counted as written to, as
    /// [`OutFile::as_file_mut`]).
    pub fn as_file(&self) -> &File {
        self.synced.set(false);
        self.file()
    }

    fn file(&self) -> &File {
        match &self.temp {
            Temp::Unnamed(f) => f,
            Temp::Named(t, _) => t.as_file(),
        }
    }

    /// The temporary file, mutably (counted as written to: [`OutFile::commit`] syncs it
    /// again if it replaces a file).
    pub fn as_file_mut(&mut self) -> &mut File {
        self.synced.set(false);
        match &mut self.temp {
            Temp::Unnamed(f) => f,
            Temp::Named(t, _) => t.as_file_mut(),
        }
    }

    /// Whether [`OutFile::commit`] would replace a file now.
    fn replacing(&self) -> bool {
        self.force && self.dest.symlink_metadata().is_ok()
    }

    /// Syncs what was written to disk now if [`OutFile::commit`] would replace an existing
    /// file, so that the commit need not (unless more is written): for a caller with
    /// other work to do while the disk catches up.
    pub fn sync_if_replacing(&mut self) -> io::Result<()> {
        if self.replacing() {
            self.file().sync_all()?;
            self.synced.set(true);
        }
        Ok(())
    }

    /// Puts the file in place. An existing destination (present now, though absent at
    /// [`OutFile::create`]) is refused unless `force`; when one is replaced, the new
    /// content is synced to disk first (unless [`OutFile::sync_if_replacing`] did since
    /// the last write).
    pub fn commit(self) -> io::Result<()> {
        if !self.synced.get() && self.replacing() {
            self.file().sync_all()?;
        }
        match self.temp {
            Temp::Named(t, _registered) => {
                let r = if self.force {
                    t.persist(&self.dest)
                } else {
                    t.persist_noclobber(&self.dest)
                };
                r.map(|_| ()).map_err(|e| e.error)
            }
            Temp::Unnamed(f) => {
                let proc = format!("/proc/self/fd/{}", f.as_raw_fd());
                let link = |to: &Path| {
                    rustix::fs::linkat(CWD, proc.as_str(), CWD, to, AtFlags::SYMLINK_FOLLOW)
                        .map_err(io::Error::from)
                };
                if !self.force {
                    return link(&self.dest);
                }
                // linkat cannot replace a name: link under a fresh name, rename over.
                let named = named_temp(&self.dest)?;
                let tmp = named.into_temp_path();
                let path = tmp.to_path_buf();
                std::fs::remove_file(&path)?;
                let registered = Registered::new(&path);
                let r = link(&path).and_then(|()| std::fs::rename(&path, &self.dest));
                if r.is_err() {
                    let _ = std::fs::remove_file(&path);
                }
                drop(registered);
                // The TempPath's own removal finds nothing there now.
                drop(tmp);
                r
            }
        }
    }
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.as_file_mut().write(buf)
    }
    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.as_file_mut().write_vectored(bufs)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.as_file_mut().flush()
    }
}

/// Writes `bytes` to `dest` through an [`OutFile`].
pub fn write(dest: &Path, bytes: &[u8], force: bool) -> io::Result<()> {
    write_as(OutFile::create(dest, force)?, bytes)
}

fn write_as(mut f: OutFile, bytes: &[u8]) -> io::Result<()> {
    f.write_all(bytes)?;
    f.commit()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    use cipherlab_testkit::files::listing as names;

    #[test]
    fn whole_or_nothing_both_ways() {
        for unnamed in [true, false] {
            let d = tempfile::tempdir().unwrap();
            let dest = d.path().join("out.bin");
            let create = |force| OutFile::create_as(&dest, force, unnamed);
            let mut f = create(false).unwrap();
            println!(
                "asked for unnamed {unnamed}: got unnamed {}",
                f.is_unnamed()
            );
            assert!(unnamed || !f.is_unnamed());
            f.write_all(b"half").unwrap();
            assert_eq!(names(d.path()).is_empty(), f.is_unnamed());
            drop(f);
            assert!(
                names(d.path()).is_empty(),
                "a dropped output left {:?}",
                names(d.path())
            );

            write_as(create(false).unwrap(), b"one").unwrap();
            assert_eq!(std::fs::read(&dest).unwrap(), b"one");
            assert_eq!(
                create(false).unwrap_err().kind(),
                io::ErrorKind::AlreadyExists
            );
            write_as(create(true).unwrap(), b"two").unwrap();
            assert_eq!(std::fs::read(&dest).unwrap(), b"two");
            assert_eq!(names(d.path()), vec!["out.bin".to_string()]);
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&dest).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode & 0o077, 0, "mode {mode:o}");
        }
    }

    #[test]
    fn synced_early_then_written_again_commits_it_all() {
        // `sync_if_replacing` while replacing, then more written: the commit must see the
        // later write (synced again) and put the whole content in place.
        for unnamed in [true, false] {
            let d = tempfile::tempdir().unwrap();
            let dest = d.path().join("out.bin");
            std::fs::write(&dest, b"old").unwrap();
            let mut f = OutFile::create_as(&dest, true, unnamed).unwrap();
            f.write_all(b"new ").unwrap();
            f.sync_if_replacing().unwrap();
            assert!(f.synced.get());
            f.write_all(b"content").unwrap();
            assert!(
                !f.synced.get(),
                "a write after the sync must be synced again"
            );
            f.commit().unwrap();
            assert_eq!(std::fs::read(&dest).unwrap(), b"new content");
            // Not replacing, nothing is synced early.
            let fresh = d.path().join("fresh.bin");
            let mut f = OutFile::create_as(&fresh, true, unnamed).unwrap();
            f.write_all(b"x").unwrap();
            f.sync_if_replacing().unwrap();
            assert!(!f.synced.get());
            f.commit().unwrap();
            assert_eq!(std::fs::read(&fresh).unwrap(), b"x");
        }
    }

    #[test]
    fn created_meanwhile_is_not_overwritten() {
        for unnamed in [true, false] {
            let d = tempfile::tempdir().unwrap();
            let dest = d.path().join("late.bin");
            let mut f = OutFile::create_as(&dest, false, unnamed).unwrap();
            f.write_all(b"ours").unwrap();
            std::fs::write(&dest, b"theirs").unwrap();
            assert_eq!(f.commit().unwrap_err().kind(), io::ErrorKind::AlreadyExists);
            assert_eq!(std::fs::read(&dest).unwrap(), b"theirs");
            assert_eq!(names(d.path()), vec!["late.bin".to_string()]);
        }
    }

    #[test]
    fn pending_named_files_are_removed() {
        let d = tempfile::tempdir().unwrap();
        let t = named_temp(&d.path().join("x")).unwrap();
        let (_file, path) = t.keep().unwrap();
        let r = Registered::new(&path);
        assert!(path.exists());
        remove_pending();
        drop(r);
        assert!(!path.exists());
    }
}
