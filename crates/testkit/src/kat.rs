//! Where the known-answer vectors are.
//!
//! The official files live outside the repository (`../shared/kat`, about 33 MB). A developer
//! without them still gets a useful run: each test prints a `SKIP` line and runs the vectors
//! built into the repository. CI must not pass that way, so it sets `CIPHERLAB_REQUIRE_KAT=1`
//! and a missing folder fails every test that wanted it.

use std::path::{Path, PathBuf};

/// Names the KAT folder when it is not `../shared/kat` beside the workspace.
pub const KAT_DIR_VAR: &str = "CIPHERLAB_KAT_DIR";

/// Set to `1` (CI does) to make a missing KAT folder a failure instead of a skip.
pub const REQUIRE_VAR: &str = "CIPHERLAB_REQUIRE_KAT";

/// The workspace root (this crate is `crates/testkit`).
pub fn workspace_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether a missing KAT folder fails the test (`CIPHERLAB_REQUIRE_KAT` set, and not `0`).
pub fn required() -> bool {
    std::env::var(REQUIRE_VAR).is_ok_and(|v| !v.trim().is_empty() && v.trim() != "0")
}

/// The official KAT folder: `$CIPHERLAB_KAT_DIR`, else `../shared/kat` beside the
/// workspace.
///
/// When it is missing this returns `None` after printing a `SKIP` line (the caller then
/// runs what it can, its built-in vectors), unless `CIPHERLAB_REQUIRE_KAT=1`, where it
/// panics: in CI a missing folder fails every test that wanted it.
pub fn kat_dir() -> Option<PathBuf> {
    let default = workspace_dir().join("../shared/kat");
    match locate(
        std::env::var_os(KAT_DIR_VAR).map(PathBuf::from),
        default,
        required(),
    ) {
        Ok(Found::Dir(dir)) => Some(dir),
        Ok(Found::Missing(dir)) => {
            println!(
                "SKIP: KAT folder {} not found (set {KAT_DIR_VAR}); only the built-in vectors ran",
                dir.display()
            );
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// What [`locate`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Found {
    /// The KAT folder.
    Dir(PathBuf),
    /// The folder that was looked for is not there (and may be skipped).
    Missing(PathBuf),
}

/// The decision [`kat_dir`] takes, from its inputs: `from_var` (the value of
/// `CIPHERLAB_KAT_DIR`, if set) else `default`; a missing folder is an error when
/// `required` (CI), else [`Found::Missing`].
pub fn locate(
    from_var: Option<PathBuf>,
    default: PathBuf,
    required: bool,
) -> Result<Found, String> {
    let named_by_var = from_var.is_some();
    let dir = from_var.unwrap_or(default);
    if dir.is_dir() {
        return Ok(Found::Dir(dir));
    }
    if !required {
        return Ok(Found::Missing(dir));
    }
    let how = if named_by_var {
        format!("named by {KAT_DIR_VAR}")
    } else {
        format!("(the default; {KAT_DIR_VAR} is not set)")
    };
    Err(format!(
        "the KAT folder {} {how} is missing and {REQUIRE_VAR} is set (as in CI): \
         put the vectors there or point {KAT_DIR_VAR} at them",
        dir.display()
    ))
}

/// The built-in excerpts of the KAT folder: a few records of some files, copied byte for
/// byte under the same relative paths, each file naming its source in a header comment.
/// They run everywhere; this crate's tests check them against the whole files.
pub fn excerpts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("kat-excerpts")
}

/// How a file is named in messages: the last component of its folder, then `rel`
/// (`kat/aes/gcm/gcmDecrypt128.rsp`, `kat-excerpts/xoodyak/...`, `data/aes.txt`).
pub fn label(dir: &Path, rel: &str) -> String {
    match dir.file_name() {
        Some(d) => format!("{}/{rel}", d.to_string_lossy()),
        None => rel.to_string(),
    }
}

/// A file holding vectors of a KAT file: the whole file, or its built-in excerpt.
#[derive(Clone, Debug)]
pub struct Source {
    /// The folder: the KAT folder or [`excerpts_dir`].
    pub dir: PathBuf,
    /// The path inside it, the same for both.
    pub rel: String,
    /// Whether this is the whole file (else the excerpt).
    pub whole: bool,
}

impl Source {
    /// "kat/<rel>" or "kat-excerpts/<rel>", for messages.
    pub fn label(&self) -> String {
        label(&self.dir, &self.rel)
    }

    /// The file's path.
    pub fn path(&self) -> PathBuf {
        self.dir.join(&self.rel)
    }
}

/// The files holding the vectors of `rel` (a path inside the KAT folder): its built-in
/// excerpt, if there is one, then the whole file if the KAT folder is present (else a
/// `SKIP` line, or a failure in CI: [`kat_dir`]).
pub fn sources(rel: &str) -> Vec<Source> {
    let mut out = Vec::new();
    let excerpts = excerpts_dir();
    if excerpts.join(rel).is_file() {
        out.push(Source {
            dir: excerpts,
            rel: rel.to_string(),
            whole: false,
        });
    }
    if let Some(dir) = kat_dir() {
        out.push(Source {
            dir,
            rel: rel.to_string(),
            whole: true,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_missing_folder_skips_unless_required() {
        let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let nowhere = here.join("no-such-kat-folder");
        for var in [None, Some(nowhere.clone())] {
            let default = if var.is_some() {
                here.clone()
            } else {
                nowhere.clone()
            };
            assert_eq!(
                locate(var.clone(), default.clone(), false),
                Ok(Found::Missing(nowhere.clone()))
            );
            let e = locate(var, default, true).unwrap_err();
            assert!(
                e.contains(REQUIRE_VAR) && e.contains("no-such-kat-folder"),
                "{e}"
            );
        }
        // A folder that is there is found, required or not; the variable wins.
        for required in [false, true] {
            assert_eq!(
                locate(Some(here.clone()), nowhere.clone(), required),
                Ok(Found::Dir(here.clone()))
            );
            assert_eq!(
                locate(None, here.clone(), required),
                Ok(Found::Dir(here.clone()))
            );
        }
    }
}
