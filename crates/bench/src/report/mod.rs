//! The report: what `cipherlab report` writes. One self-contained HTML page per set of
//! runs (plots as inline SVG, images as `data:` URIs, inline CSS, no script, nothing
//! fetched), and CSV and JSON exports of the measurements behind one [`export::Exporter`]
//! trait.
//!
//! | module | job |
//! |---|---|
//! | [`svg`] | draws plots with whiskers and byte histograms |
//! | [`figures`] | decides each study's plots (x axis, series, throughput or time) |
//! | [`html`] | escaping, `data:` URIs, tables, the style sheet |
//! | [`page`] | puts the page together: runs, machine, validity, the studies |
//! | [`export`] | CSV and JSON |
//!
//! Files are written with [`write_atomic`]: a reader (or a crash) never sees half a
//! report.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use cipherlab_bench::report;
//! use cipherlab_bench::store::{NewRun, Store};
//! let mut store = Store::open_in_memory()?;
//! let id = store.save_run(&NewRun::now("doc"), &[], 0)?;
//! let page = report::html(&[store.load_run(id)?], "memory");
//! assert!(page.starts_with("<!DOCTYPE html>"));
//! # Ok(()) }
//! ```

pub mod export;
pub mod figures;
pub mod gbench;
pub mod html;
pub mod jmh;
pub mod page;
pub mod svg;

use std::io::Write;
use std::path::Path;

use crate::store::Run;

/// The report page for `runs`, read from `source` (named in the page's header).
pub fn html(runs: &[Run], source: &str) -> String {
    page::render(runs, source)
}

/// Writes `bytes` to `path` so that `path` holds either its old content or all of the
/// new, never a part: the bytes go to a temporary file in the same directory (so the
/// rename cannot cross file systems), are flushed to disk, and the file is renamed over
/// `path`. On failure the temporary file is removed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{} is not a file name", path.display()),
            )
        })?
        .to_string_lossy()
        .into_owned();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Unix milliseconds as `YYYY-MM-DD HH:MM:SS` UTC.
pub fn utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01: H. Hinnant's
/// `civil_from_days` ("chrono-Compatible Low-Level Date Algorithms", 2013).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00");
        assert_eq!(utc(1_700_000_000_123), "2023-11-14 22:13:20");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00");
        assert_eq!(utc(-1000), "1969-12-31 23:59:59");
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.html");
        std::fs::write(&p, "old").unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        // A directory that does not exist: an error, and the old file elsewhere is safe.
        assert!(write_atomic(&dir.path().join("no/such/r.html"), b"x").is_err());
    }
}
