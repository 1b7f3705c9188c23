//! The PDFs the study encrypts, and which of them each mode uses.
//!
//! Where they come from, first match wins:
//!
//! 1. `--data DIR`: the user's PDFs under DIR (whole files: the `--quick` cut to 1 MiB
//!    that other studies apply to `--data` would break a PDF);
//! 2. `$CIPHERLAB_PDF_DIR`, else `../shared/pdf` beside the workspace (the developer
//!    corpus, found as the KAT tests find `../shared/kat`);
//! 3. the built-in PDFs ([`super::builtin`]).
//!
//! A source without a usable PDF falls through to the next, with a note saying so. A
//! file is a PDF when its name ends in `.pdf` or it starts with `%PDF-`; other files
//! (`--data` folders also feed the file studies) are ignored. An encrypted PDF is
//! decrypted first, with the passwords of the folder's `README.md` table (the `user pw`
//! and `owner pw` columns of `../shared/pdf/README.md`) or the empty user password, and
//! the plaintext is what the study encrypts; one no password opens, and one that cannot
//! be read or prepared for encryption, is skipped with a note naming the reason; so is a
//! file chosen for a run whose round trip through AES-128 and Ascon-AEAD128 fails (a bug
//! of ours, but one file must not stop a run of every study). Nothing here panics on a
//! hostile file: every failure becomes a note.
//!
//! Which files each mode uses ([`Selection`]): average time runs over all of them (at
//! `--quick`, up to [`QUICK_FILES`] of at most [`QUICK_MAX_BYTES`], spread over the
//! sizes); single shot takes one, the largest of those (the most work a reader does to
//! open one document, and the least timer noise on one call).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use cipherlab_pdf::Error as PdfError;

use super::super::{Config, Scale};
use super::builtin;
use super::work::{self, Payload};
use crate::corpus;

/// The variable naming a folder of PDFs (as `CIPHERLAB_KAT_DIR` names the KAT folder).
pub const ENV_DIR: &str = "CIPHERLAB_PDF_DIR";

/// At `--quick`, average time runs over at most this many PDFs ...
pub const QUICK_FILES: usize = 4;

/// ... of at most this many bytes each (when at least two are that small).
pub const QUICK_MAX_BYTES: u64 = 64 << 10;

/// PDFs larger than this are skipped: the study holds each file, its prepared objects and
/// its ciphertext in memory for every cipher.
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// Where the PDFs came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// `--data DIR`.
    User(PathBuf),
    /// `$CIPHERLAB_PDF_DIR` or `../shared/pdf`.
    Shared(PathBuf),
    /// [`super::builtin`].
    Builtin,
}

impl Origin {
    /// For notes and tables.
    pub fn describe(&self) -> String {
        match self {
            Origin::User(p) => format!("the PDFs under --data {}", p.display()),
            Origin::Shared(p) => format!("the PDFs of {}", p.display()),
            Origin::Builtin => "the built-in PDFs (no other PDFs were found)".to_string(),
        }
    }
}

/// One usable PDF.
#[derive(Debug, Clone)]
pub struct PdfFile {
    /// Its path relative to the folder (its name in benchmark ids and tables).
    pub label: String,
    /// Its size on disk.
    pub file_bytes: u64,
    /// The plaintext PDF the study encrypts (the file itself, or the file decrypted).
    pub plain: Arc<Vec<u8>>,
    /// How it was made usable (decrypted first, with which password).
    pub note: Option<String>,
    /// What the Standard handler's encryption phase processes in it.
    pub payload_std: Payload,
    /// What an LWC cipher's encryption phase processes in it.
    pub payload_lwc: Payload,
}

/// A PDF left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Its path relative to the folder.
    pub label: String,
    /// What was wrong, and what to do.
    pub reason: String,
}

/// The PDFs of one source.
#[derive(Debug)]
pub struct PdfSet {
    /// Where they came from.
    pub origin: Origin,
    /// The usable ones, by label.
    pub files: Vec<PdfFile>,
    /// The ones left out when loading (see [`PdfSet::skipped`] for all).
    skipped: Vec<Skipped>,
    /// Notes on the source (a fallback and its reason; files ignored as not PDFs).
    pub notes: Vec<String>,
    /// Files round-tripped so far: index, and why it failed.
    checked: Mutex<Vec<(usize, Option<String>)>>,
}

/// Which files a mode uses, as indices into [`PdfSet::files`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// Average time: all of these in one operation.
    pub average: Vec<usize>,
    /// Single shot: this one.
    pub single: usize,
}

impl PdfSet {
    /// The set for `cfg`, loaded once per process (the parent plans and reads findings,
    /// a fork child plans again).
    pub fn for_config(cfg: &Config) -> Arc<PdfSet> {
        let user = cfg.data.as_ref().map(|d| d.root.clone());
        static CACHE: Mutex<Vec<(Option<PathBuf>, Arc<PdfSet>)>> = Mutex::new(Vec::new());
        if let Ok(c) = CACHE.lock()
            && let Some((_, s)) = c.iter().find(|(k, _)| *k == user)
        {
            return Arc::clone(s);
        }
        let set = Arc::new(PdfSet::find(user.as_deref(), shared_dir()));
        if let Ok(mut c) = CACHE.lock() {
            c.push((user, Arc::clone(&set)));
        }
        set
    }

    /// The set from the first source with a usable PDF: `user`, then `shared` (each as
    /// `(folder, why it was chosen)`), then the built-in files.
    pub fn find(user: Option<&Path>, shared: Option<(PathBuf, String)>) -> PdfSet {
        let mut notes = Vec::new();
        let mut tried: Vec<(Origin, String)> = Vec::new();
        if let Some(dir) = user {
            tried.push((Origin::User(dir.to_path_buf()), "--data".to_string()));
        }
        match shared {
            Some((dir, why)) => tried.push((Origin::Shared(dir), why)),
            None => notes.push(format!(
                "no PDF folder: ${ENV_DIR} is not set and ../shared/pdf was not found"
            )),
        }
        let mut all_skipped = Vec::new();
        for (origin, why) in tried {
            let dir = match &origin {
                Origin::User(d) | Origin::Shared(d) => d.clone(),
                Origin::Builtin => continue,
            };
            let mut set = from_dir(origin.clone(), &dir);
            if !set.files.is_empty() {
                notes.append(&mut set.notes);
                set.notes = notes;
                return set;
            }
            notes.extend(set.notes);
            notes.push(format!(
                "{} ({why}) has no usable PDF; the study fell back to the next source",
                dir.display()
            ));
            all_skipped.extend(set.skipped);
        }
        let mut files = Vec::new();
        for (label, bytes) in builtin::files() {
            match usable(&bytes, &[]) {
                Ok(u) => files.push(PdfFile {
                    label,
                    file_bytes: bytes.len() as u64,
                    plain: Arc::new(u.plain),
                    note: Some("built-in".to_string()),
                    payload_std: u.std,
                    payload_lwc: u.lwc,
                }),
                // A bug in the writer or the generator; the tests catch it.
                Err(reason) => all_skipped.push(Skipped { label, reason }),
            }
        }
        PdfSet {
            origin: Origin::Builtin,
            files,
            skipped: all_skipped,
            notes,
            checked: Mutex::new(Vec::new()),
        }
    }

    /// Which files each mode uses at `scale`; `None` when no file is usable. The files
    /// chosen are round-tripped first ([`work::check_file`]); one that fails is left out
    /// (and listed by [`PdfSet::skipped`]) and the choice made again.
    pub fn selection(&self, scale: Scale) -> Option<Selection> {
        loop {
            let failed = self.failed();
            let mut by_size: Vec<usize> = (0..self.files.len())
                .filter(|i| !failed.contains(i))
                .collect();
            by_size.sort_by(|&a, &b| {
                let (x, y) = (&self.files[a], &self.files[b]);
                x.plain
                    .len()
                    .cmp(&y.plain.len())
                    .then(x.label.cmp(&y.label))
            });
            let mut average = match scale {
                Scale::Quick => quick_pick(&by_size, |i| self.files[i].plain.len() as u64),
                Scale::Full | Scale::Paper => by_size.clone(),
            };
            let single = *average.last()?;
            average.sort_unstable();
            if average.iter().all(|&i| self.check(i)) {
                return Some(Selection { average, single });
            }
        }
    }

    /// Whether file `i` round-trips (checked once).
    fn check(&self, i: usize) -> bool {
        if let Ok(c) = self.checked.lock()
            && let Some((_, r)) = c.iter().find(|(j, _)| *j == i)
        {
            return r.is_none();
        }
        let r = self
            .files
            .get(i)
            .and_then(|f| work::check_file(&f.label, &f.plain).err());
        let ok = r.is_none();
        if let Ok(mut c) = self.checked.lock() {
            c.push((i, r));
        }
        ok
    }

    fn failed(&self) -> Vec<usize> {
        self.checked.lock().map_or_else(
            |_| Vec::new(),
            |c| {
                c.iter()
                    .filter(|(_, r)| r.is_some())
                    .map(|(i, _)| *i)
                    .collect()
            },
        )
    }

    /// The files left out: when loading, and because their round trip failed.
    pub fn skipped(&self) -> Vec<Skipped> {
        let mut out = self.skipped.clone();
        if let Ok(c) = self.checked.lock() {
            for (i, r) in c.iter() {
                if let (Some(f), Some(reason)) = (self.files.get(*i), r) {
                    out.push(Skipped {
                        label: f.label.clone(),
                        reason: reason.clone(),
                    });
                }
            }
        }
        out
    }
}

/// Up to [`QUICK_FILES`] of the files (sorted by size) no larger than
/// [`QUICK_MAX_BYTES`], evenly spread from the smallest to the largest of them; when fewer
/// than two are that small, the two smallest.
fn quick_pick(by_size: &[usize], size: impl Fn(usize) -> u64) -> Vec<usize> {
    let small: Vec<usize> = by_size
        .iter()
        .copied()
        .filter(|&i| size(i) <= QUICK_MAX_BYTES)
        .collect();
    let pool: Vec<usize> = if small.len() >= 2 {
        small
    } else {
        by_size.iter().copied().take(2).collect()
    };
    if pool.len() <= QUICK_FILES {
        return pool;
    }
    let last = pool.len() - 1;
    let mut out: Vec<usize> = (0..QUICK_FILES)
        .map(|k| pool[(k * last + (QUICK_FILES - 1) / 2) / (QUICK_FILES - 1)])
        .collect();
    out.dedup();
    out
}

/// `$CIPHERLAB_PDF_DIR`, else `../shared/pdf` beside the workspace (from the crate's
/// source folder, where the developer corpus lives), else `../shared/pdf` from the
/// current folder; with the reason it was chosen.
pub fn shared_dir() -> Option<(PathBuf, String)> {
    if let Some(d) = std::env::var_os(ENV_DIR) {
        return Some((PathBuf::from(d), format!("${ENV_DIR}")));
    }
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/pdf");
    if beside.is_dir() {
        let shown = std::fs::canonicalize(&beside).unwrap_or(beside);
        return Some((shown, "../shared/pdf beside the workspace".to_string()));
    }
    let here = PathBuf::from("../shared/pdf");
    here.is_dir()
        .then(|| (here, "../shared/pdf from the current folder".to_string()))
}

/// Every PDF under `dir`.
fn from_dir(origin: Origin, dir: &Path) -> PdfSet {
    let mut set = PdfSet {
        origin,
        files: Vec::new(),
        skipped: Vec::new(),
        notes: Vec::new(),
        checked: Mutex::new(Vec::new()),
    };
    let listed = match corpus::load_dir(dir) {
        Ok(l) => l,
        Err(e) => {
            set.notes.push(e.to_string());
            return set;
        }
    };
    let passwords = Passwords::read(dir);
    let mut ignored = 0;
    for f in listed {
        let label = f.label(dir);
        let named_pdf = f
            .path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("pdf"));
        if !named_pdf && !starts_like_pdf(&f.path) {
            ignored += 1;
            continue;
        }
        if f.size > MAX_FILE_BYTES {
            set.skipped.push(Skipped {
                label,
                reason: format!(
                    "{} bytes: larger than the study's limit of {} MiB",
                    f.size,
                    MAX_FILE_BYTES >> 20
                ),
            });
            continue;
        }
        let bytes = match std::fs::read(&f.path) {
            Ok(b) => b,
            Err(e) => {
                set.skipped.push(Skipped {
                    label,
                    reason: format!("cannot be read: {e}"),
                });
                continue;
            }
        };
        match usable(&bytes, passwords.of(&label)) {
            Ok(u) => set.files.push(PdfFile {
                label,
                file_bytes: bytes.len() as u64,
                plain: Arc::new(u.plain),
                note: u.note,
                payload_std: u.std,
                payload_lwc: u.lwc,
            }),
            Err(reason) => set.skipped.push(Skipped { label, reason }),
        }
    }
    if ignored > 0 {
        set.notes.push(format!(
            "{ignored} {} under {} {} ignored",
            if ignored == 1 { "file" } else { "files" },
            dir.display(),
            if ignored == 1 {
                "is not a PDF and was"
            } else {
                "are not PDFs and were"
            }
        ));
    }
    set
}

fn starts_like_pdf(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 1024];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    head[..n].windows(5).any(|w| w == b"%PDF-")
}

/// The plaintext of `bytes` (decrypted first if it is encrypted), checked to go through
/// every step the study times; or why it cannot.
struct Usable {
    plain: Vec<u8>,
    note: Option<String>,
    std: Payload,
    lwc: Payload,
}

fn usable(bytes: &[u8], known: &[String]) -> Result<Usable, String> {
    let (plain, note) = match cipherlab_pdf::open::open(bytes, None) {
        Ok(o) if o.auth.is_none() && !o.protection.authenticated() => (bytes.to_vec(), None),
        Ok(_) => decrypted(bytes, None)?,
        Err(PdfError::PasswordRequired | PdfError::WrongPassword(_)) => known
            .iter()
            .find_map(|pw| decrypted(bytes, Some(pw)).ok())
            .ok_or_else(|| {
                if known.is_empty() {
                    "encrypted, and the empty user password does not open it: list its password \
                     in the folder's README.md (a `user pw` column) or decrypt it first"
                        .to_string()
                } else {
                    "encrypted, and none of the passwords README.md lists for it opens it"
                        .to_string()
                }
            })?,
        Err(e) => return Err(format!("not readable: {e}")),
    };
    // What the encryption jobs do first (open, prepare, lay out), for both layouts: a
    // file that fails here would stop the run in the middle of the measurements.
    let (std, lwc) =
        work::payloads(&plain).map_err(|e| format!("cannot be prepared for encryption: {e}"))?;
    Ok(Usable {
        plain,
        note,
        std,
        lwc,
    })
}

/// `bytes` decrypted with `password` (`None`: the empty user password), with a note.
fn decrypted(bytes: &[u8], password: Option<&str>) -> Result<(Vec<u8>, Option<String>), String> {
    let d = cipherlab_pdf::decrypt(bytes, password).map_err(|e| e.to_string())?;
    let how = match (&d.protection.lwc(), password) {
        (Some(c), _) => format!("an {} wrapper", c.name()),
        (None, _) => "encrypted".to_string(),
    };
    let which = match password {
        None | Some("") => "the empty user password".to_string(),
        Some(_) if d.auth.as_ref().is_some_and(|a| a.owner && !a.user) => {
            "the owner password from README.md".to_string()
        }
        Some(_) => "the password from README.md".to_string(),
    };
    Ok((
        d.bytes,
        Some(format!("{how}: decrypted first with {which}")),
    ))
}

/// Passwords by file name, from the folder's `README.md`: a Markdown table whose first
/// column is the file name (in backquotes or not) and which has `user pw` and `owner pw`
/// columns; `(empty)` is the empty password, `-` and `unknown` none.
#[derive(Debug, Default)]
struct Passwords(Vec<(String, Vec<String>)>);

impl Passwords {
    fn read(dir: &Path) -> Passwords {
        match std::fs::read_to_string(dir.join("README.md")) {
            Ok(text) => Passwords::parse(&text),
            Err(_) => Passwords::default(),
        }
    }

    fn parse(text: &str) -> Passwords {
        let mut out = Vec::new();
        let mut columns: Option<(usize, usize)> = None;
        for line in text.lines() {
            let line = line.trim();
            if !line.starts_with('|') {
                columns = None;
                continue;
            }
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            let find = |name: &str| cells.iter().position(|c| c.eq_ignore_ascii_case(name));
            if let (Some(u), Some(o)) = (find("user pw"), find("owner pw")) {
                columns = Some((u, o));
                continue;
            }
            let Some((u, o)) = columns else { continue };
            let (Some(file), Some(user), Some(owner)) = (cells.first(), cells.get(u), cells.get(o))
            else {
                continue;
            };
            let pws: Vec<String> = [user, owner].iter().filter_map(|c| password(c)).collect();
            out.push((file.trim_matches('`').to_string(), pws));
        }
        Passwords(out)
    }

    fn of(&self, label: &str) -> &[String] {
        self.0
            .iter()
            .find(|(f, _)| f == label)
            .map_or(&[], |(_, p)| p.as_slice())
    }
}

fn password(cell: &str) -> Option<String> {
    match cell {
        "(empty)" => Some(String::new()),
        "-" | "" | "unknown" => None,
        c if c.starts_with('`') && c.ends_with('`') && c.len() >= 2 => {
            Some(c[1..c.len() - 1].to_string())
        }
        c => Some(c.to_string()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn readme_passwords_are_read_from_the_table() {
        let p = Passwords::parse(
            "intro\n\n| file | bytes | user pw | owner pw |\n|---|---:|---|---|\n\
             | `a.pdf` | 1 | - | - |\n| `b.pdf` | 2 | `user` | `owner` |\n\
             | `c.pdf` | 3 | (empty) | unknown |\n\nafter\n| `d.pdf` | x | y | z |\n",
        );
        assert!(p.of("a.pdf").is_empty());
        assert_eq!(p.of("b.pdf"), ["user", "owner"]);
        assert_eq!(p.of("c.pdf"), [""]);
        assert!(
            p.of("d.pdf").is_empty(),
            "rows after the table are not read"
        );
    }

    #[test]
    fn quick_picks_a_few_small_files_spread_over_the_sizes() {
        let sizes = [1_000u64, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000, 100_000];
        let by_size: Vec<usize> = (0..sizes.len()).collect();
        let picked = quick_pick(&by_size, |i| sizes[i]);
        assert_eq!(picked.len(), QUICK_FILES);
        assert_eq!(picked.first(), Some(&0));
        assert_eq!(
            picked.last(),
            Some(&6),
            "the largest small file, not the big one"
        );
        let big = [100_000u64, 200_000, 300_000];
        assert_eq!(quick_pick(&[0, 1, 2], |i| big[i]), [0, 1]);
    }

    #[test]
    fn bad_and_locked_files_are_skipped_with_a_reason_and_the_rest_used() {
        let dir = tempfile::tempdir().unwrap();
        let (name, good) = builtin::files().remove(0);
        std::fs::write(dir.path().join(&name), &good).unwrap();
        std::fs::write(dir.path().join("broken.pdf"), b"%PDF-1.7\n1 0 obj << /Type").unwrap();
        std::fs::write(dir.path().join("notes.txt"), b"not a pdf").unwrap();
        let locked = cipherlab_pdf::encrypt(
            &good,
            &cipherlab_pdf::Options {
                cipher: cipherlab_pdf::Cipher::Standard(cipherlab_pdf::StdCipher::Aes128),
                user_password: "secret",
                owner_password: "owner",
                permissions: -4,
                encrypt_metadata: true,
                input_password: None,
                allow_weak: true,
            },
        )
        .unwrap();
        std::fs::write(dir.path().join("locked.pdf"), &locked.bytes).unwrap();
        std::fs::write(dir.path().join("opened.pdf"), &locked.bytes).unwrap();
        std::fs::write(
            dir.path().join("README.md"),
            "| file | user pw | owner pw |\n|---|---|---|\n| `opened.pdf` | `secret` | `owner` |\n",
        )
        .unwrap();
        let set = PdfSet::find(Some(dir.path()), None);
        assert_eq!(set.origin, Origin::User(dir.path().to_path_buf()));
        let labels: Vec<&str> = set.files.iter().map(|f| f.label.as_str()).collect();
        assert_eq!(labels, [name.as_str(), "opened.pdf"]);
        let opened = &set.files[1];
        assert!(opened.note.as_deref().unwrap().contains("decrypted first"));
        assert!(!opened.plain.windows(8).any(|w| w == b"/Encrypt"));
        let skipped: Vec<&str> = set.skipped.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(skipped, ["broken.pdf", "locked.pdf"]);
        assert_eq!(set.skipped().len(), 2);
        assert!(
            set.skipped[1].reason.contains("README.md"),
            "{:?}",
            set.skipped
        );
        assert!(
            set.notes
                .iter()
                .any(|n| n.contains("2 files") && n.contains("not PDFs"))
        );
    }

    #[test]
    fn no_pdf_anywhere_falls_back_to_the_built_in_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), b"text").unwrap();
        let set = PdfSet::find(
            Some(dir.path()),
            Some((dir.path().to_path_buf(), "test".into())),
        );
        assert_eq!(set.origin, Origin::Builtin);
        assert_eq!(set.files.len(), 3);
        assert!(
            set.notes.iter().any(|n| n.contains("no usable PDF")),
            "{:?}",
            set.notes
        );
        let sel = set.selection(Scale::Quick).unwrap();
        assert!(!sel.average.is_empty() && sel.average.contains(&sel.single));
    }
}
