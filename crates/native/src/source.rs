//! The folder a user names: its `api.h` sizes, its `.c` files, and a hash over them.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::Error;

/// The sizes `api.h` declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ApiSizes {
    /// `CRYPTO_KEYBYTES`.
    pub key: usize,
    /// `CRYPTO_NPUBBYTES`.
    pub nonce: usize,
    /// `CRYPTO_ABYTES` (the tag).
    pub tag: usize,
    /// `CRYPTO_NSECBYTES` (0 when absent; only 0 is supported).
    pub nsec: usize,
}

/// A folder of C code under the `crypto_aead` API.
#[derive(Clone, Debug)]
pub struct Source {
    /// The folder.
    pub dir: PathBuf,
    /// `api.h`'s sizes.
    pub api: ApiSizes,
    /// Its `.c` files, sorted by name.
    pub c_files: Vec<PathBuf>,
    /// SHA-256 (hex) over every `.c` and `.h` file, sorted by name: each name, a 0 byte,
    /// its length (8 bytes, little-endian), its contents.
    pub hash: String,
}

/// The largest size api.h may declare (bytes): the LWC AEADs use 16 to 32.
const MAX_SIZE: usize = 1024;

impl Source {
    /// Reads `dir`: `api.h`'s sizes, the `.c` files, the hash.
    pub fn read(dir: &Path) -> Result<Source, Error> {
        if !dir.is_dir() {
            return Err(Error::NotAFolder(dir.to_path_buf()));
        }
        let api_path = dir.join("api.h");
        let api_text = std::fs::read_to_string(&api_path).map_err(|e| Error::ApiH {
            path: api_path.clone(),
            message: format!("cannot be read: {e}"),
        })?;
        let api = parse_api(&api_text).map_err(|message| Error::ApiH {
            path: api_path.clone(),
            message,
        })?;
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| Error::io(format!("reading {}", dir.display()), e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && matches!(ext(p), Some("c" | "h")))
            .collect();
        files.sort();
        let mut h = Sha256::new();
        for f in &files {
            let bytes =
                std::fs::read(f).map_err(|e| Error::io(format!("reading {}", f.display()), e))?;
            let name = f.file_name().map(|n| n.to_string_lossy().into_owned());
            h.update(name.unwrap_or_default().as_bytes());
            h.update([0]);
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(&bytes);
        }
        let c_files: Vec<PathBuf> = files.into_iter().filter(|p| ext(p) == Some("c")).collect();
        if c_files.is_empty() {
            return Err(Error::NoSources(dir.to_path_buf()));
        }
        Ok(Source {
            dir: dir.to_path_buf(),
            api,
            c_files,
            hash: hex::encode(h.finalize()),
        })
    }
}

fn ext(p: &Path) -> Option<&str> {
    p.extension().and_then(|e| e.to_str())
}

/// The sizes of an `api.h`: `#define CRYPTO_KEYBYTES 16` lines (a `U`/`u` suffix or
/// parentheses allowed).
pub fn parse_api(text: &str) -> Result<ApiSizes, String> {
    let get = |name: &str| -> Result<Option<usize>, String> {
        for line in text.lines() {
            let mut words = line.split_whitespace();
            if words.next() == Some("#define") && words.next() == Some(name) {
                let value = words.next().unwrap_or("");
                let digits = value
                    .trim_matches(|c| c == '(' || c == ')')
                    .trim_end_matches(['u', 'U', 'l', 'L']);
                let n: usize = digits
                    .parse()
                    .map_err(|_| format!("{name} is \"{value}\", not a number"))?;
                if n > MAX_SIZE {
                    return Err(format!("{name} is {n}, more than {MAX_SIZE}"));
                }
                return Ok(Some(n));
            }
        }
        Ok(None)
    };
    let need = |name: &str| get(name)?.ok_or_else(|| format!("no #define {name}"));
    let api = ApiSizes {
        key: need("CRYPTO_KEYBYTES")?,
        nonce: need("CRYPTO_NPUBBYTES")?,
        tag: need("CRYPTO_ABYTES")?,
        nsec: get("CRYPTO_NSECBYTES")?.unwrap_or(0),
    };
    if api.nsec != 0 {
        return Err(format!(
            "CRYPTO_NSECBYTES is {}: secret message numbers are not supported (the LWC AEADs have none)",
            api.nsec
        ));
    }
    Ok(api)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn api_h_sizes_are_read_and_checked() {
        let api = parse_api(
            "#define CRYPTO_KEYBYTES 16\n#define CRYPTO_NSECBYTES 0\n#define CRYPTO_NPUBBYTES (16)\n#define CRYPTO_ABYTES 16U\n",
        )
        .unwrap();
        assert_eq!((api.key, api.nonce, api.tag, api.nsec), (16, 16, 16, 0));
        assert!(
            parse_api("#define CRYPTO_KEYBYTES 16\n#define CRYPTO_ABYTES 16\n")
                .unwrap_err()
                .contains("CRYPTO_NPUBBYTES")
        );
        assert!(
            parse_api("#define CRYPTO_KEYBYTES x\n")
                .unwrap_err()
                .contains("not a number")
        );
        assert!(
            parse_api("#define CRYPTO_KEYBYTES 16\n#define CRYPTO_NPUBBYTES 16\n#define CRYPTO_ABYTES 99999\n")
                .unwrap_err()
                .contains("more than")
        );
        assert!(
            parse_api("#define CRYPTO_KEYBYTES 16\n#define CRYPTO_NPUBBYTES 16\n#define CRYPTO_ABYTES 16\n#define CRYPTO_NSECBYTES 8\n")
                .unwrap_err()
                .contains("NSECBYTES")
        );
    }
}
