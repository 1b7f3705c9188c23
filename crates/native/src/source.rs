//! The folder a user names: its `api.h` (which API, and its sizes), its `.c` files, and a
//! hash over them.

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

/// What `api.h` declares: the `crypto_aead` API with its sizes, or the `crypto_hash` API
/// with its digest length (`CRYPTO_BYTES` without `CRYPTO_KEYBYTES`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Api {
    /// `crypto_aead_encrypt` and `crypto_aead_decrypt`.
    Aead(ApiSizes),
    /// `crypto_hash`.
    Hash {
        /// `CRYPTO_BYTES`: the digest length.
        bytes: usize,
    },
}

impl Api {
    /// The API's name: `crypto_aead` or `crypto_hash`.
    pub fn name(&self) -> &'static str {
        match self {
            Api::Aead(_) => "crypto_aead",
            Api::Hash { .. } => "crypto_hash",
        }
    }

    /// The AEAD sizes, when it is the `crypto_aead` API.
    pub fn aead(&self) -> Option<ApiSizes> {
        match self {
            Api::Aead(s) => Some(*s),
            Api::Hash { .. } => None,
        }
    }

    /// How api.h reads, for messages: `key 16 B, nonce 16 B, tag 16 B` or
    /// `CRYPTO_BYTES 32`.
    pub fn describe(&self) -> String {
        match self {
            Api::Aead(s) => format!("key {} B, nonce {} B, tag {} B", s.key, s.nonce, s.tag),
            Api::Hash { bytes } => format!("crypto_hash, CRYPTO_BYTES {bytes}"),
        }
    }
}

/// A folder of C code under the `crypto_aead` or the `crypto_hash` API.
#[derive(Clone, Debug)]
pub struct Source {
    /// The folder.
    pub dir: PathBuf,
    /// What its `api.h` declares.
    pub api: Api,
    /// Its `.c` files, sorted by name.
    pub c_files: Vec<PathBuf>,
    /// SHA-256 (hex) over every `.c` and `.h` file, sorted by name: each name, a 0 byte,
    /// its length (8 bytes, little-endian), its contents.
    pub hash: String,
}

/// The largest size api.h may declare (bytes): the LWC AEADs use 16 to 32, the hashes 32.
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

/// The API and sizes of an `api.h`: `#define CRYPTO_KEYBYTES 16` lines (a `U`/`u` suffix
/// or parentheses allowed). With `CRYPTO_KEYBYTES` it is the `crypto_aead` API; with
/// `CRYPTO_BYTES` and no `CRYPTO_KEYBYTES`, the `crypto_hash` API.
pub fn parse_api(text: &str) -> Result<Api, String> {
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
    if get("CRYPTO_KEYBYTES")?.is_none() {
        return match get("CRYPTO_BYTES")? {
            Some(0) => Err("CRYPTO_BYTES is 0: a hash gives at least one byte".into()),
            Some(bytes) => Ok(Api::Hash { bytes }),
            None => Err(
                "no #define CRYPTO_KEYBYTES (an AEAD's api.h) or CRYPTO_BYTES (a hash's)".into(),
            ),
        };
    }
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
    Ok(Api::Aead(api))
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
        .unwrap()
        .aead()
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
        // A hash: CRYPTO_BYTES without CRYPTO_KEYBYTES.
        assert_eq!(
            parse_api("#define CRYPTO_BYTES 32\n").unwrap(),
            Api::Hash { bytes: 32 }
        );
        assert!(
            parse_api("#define CRYPTO_BYTES 0\n")
                .unwrap_err()
                .contains("0")
        );
        assert!(
            parse_api("/* nothing */\n")
                .unwrap_err()
                .contains("CRYPTO_BYTES")
        );
        // CRYPTO_KEYBYTES makes it an AEAD, whatever else is there.
        assert!(
            parse_api("#define CRYPTO_KEYBYTES 16\n#define CRYPTO_BYTES 32\n")
                .unwrap_err()
                .contains("CRYPTO_NPUBBYTES")
        );
    }
}
