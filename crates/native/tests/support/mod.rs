//! What the C tests share: where the C written here lives, and whether it can be built.

use std::path::{Path, PathBuf};

use cipherlab_native::compilers;

/// The test folder `name` under tests/c/.
pub fn c_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/c")
        .join(name)
}

/// The KAT folder and whether a compiler is here; `None` (after SKIP) when either is
/// missing and that may be skipped.
pub fn ready() -> Option<PathBuf> {
    if compilers().is_empty() {
        assert!(
            std::env::var_os("CI").is_none(),
            "no C compiler (gcc, clang, cc) and CI is set: install one"
        );
        println!("SKIP: no C compiler (gcc, clang or cc) on PATH");
        return None;
    }
    cipherlab_testkit::kat::kat_dir()
}
