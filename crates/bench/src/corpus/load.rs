//! A user's own files (`--data DIR`): every regular file under a folder, with its size
//! and a guess of its [`DataType`] from its first bytes.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::DataType;
use cipherlab_harness::stats::byte_entropy;

/// Bytes read from the start of a file to guess its type.
const SNIFF: usize = 64 * 1024;

/// Why a folder could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// The path is not a folder.
    #[error("{0} is not a folder: --data needs a directory of files to encrypt")]
    NotADirectory(PathBuf),
    /// The folder holds no regular file.
    #[error(
        "{0} holds no regular files: put some files in it, or leave out --data to use the built-in corpus"
    )]
    Empty(PathBuf),
    /// A file or folder could not be read.
    #[error("cannot read {path}: {source}; fix its permissions or remove it from the folder")]
    Io {
        /// Which path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// A file of the user's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserFile {
    /// Where it is.
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// The guessed kind (from magic numbers, encodings and byte statistics).
    pub data_type: DataType,
}

impl UserFile {
    /// Reads the whole file.
    pub fn read(&self) -> Result<Vec<u8>, CorpusError> {
        std::fs::read(&self.path).map_err(|source| CorpusError::Io {
            path: self.path.clone(),
            source,
        })
    }

    /// A name for benchmark ids: the path relative to `root`, else the file name.
    pub fn label(&self, root: &Path) -> String {
        self.path
            .strip_prefix(root)
            .unwrap_or(&self.path)
            .to_string_lossy()
            .into_owned()
    }
}

/// Every regular file under `dir` (recursively, not following symbolic links), sorted by
/// path, with sizes and guessed types.
pub fn load_dir(dir: &Path) -> Result<Vec<UserFile>, CorpusError> {
    let meta = std::fs::metadata(dir).map_err(|source| CorpusError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    if !meta.is_dir() {
        return Err(CorpusError::NotADirectory(dir.to_path_buf()));
    }
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let io = |source| CorpusError::Io {
            path: d.clone(),
            source,
        };
        for entry in std::fs::read_dir(&d).map_err(io)? {
            let entry = entry.map_err(io)?;
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).map_err(|source| CorpusError::Io {
                path: path.clone(),
                source,
            })?;
            if meta.is_dir() {
                stack.push(path);
            } else if meta.is_file() {
                let head = sniff(&path)?;
                files.push(UserFile {
                    path,
                    size: meta.len(),
                    data_type: guess_type(&head),
                });
            }
        }
    }
    if files.is_empty() {
        return Err(CorpusError::Empty(dir.to_path_buf()));
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

fn sniff(path: &Path) -> Result<Vec<u8>, CorpusError> {
    let io = |source| CorpusError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut head = Vec::with_capacity(SNIFF);
    std::fs::File::open(path)
        .map_err(io)?
        .take(SNIFF as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    Ok(head)
}

/// Magic numbers of compressed formats (their contents are near-random bytes).
const COMPRESSED_MAGIC: &[&[u8]] = &[
    b"\x1f\x8b",           // gzip
    b"PK\x03\x04",         // zip, docx, jar
    b"\x89PNG",            // PNG
    b"\xff\xd8\xff",       // JPEG
    b"ID3",                // MP3 with tags
    b"\x28\xb5\x2f\xfd",   // zstd
    b"\xfd7zXZ\x00",       // xz
    b"BZh",                // bzip2
    b"7z\xbc\xaf\x27\x1c", // 7-Zip
    b"fLaC",               // FLAC
    b"OggS",               // Ogg
    b"GIF8",               // GIF
];

/// Guesses a file's kind from its first bytes: container magic numbers first (BMP, WAV,
/// AIFF, compressed formats, UTF-16 byte-order marks), then the share of zero bytes
/// (over 75%: sparse), then text encodings (ASCII, UTF-8), then entropy (over 7.9
/// bits/byte: compressed; else dense).
pub fn guess_type(head: &[u8]) -> DataType {
    if head.len() >= 26 && head.starts_with(b"BM") {
        return DataType::Bmp;
    }
    if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WAVE" {
        return DataType::Wav;
    }
    if head.len() >= 12 && head.starts_with(b"FORM") && matches!(&head[8..12], b"AIFF" | b"AIFC") {
        return DataType::Aiff;
    }
    if COMPRESSED_MAGIC.iter().any(|m| head.starts_with(m)) {
        return DataType::Compressed;
    }
    if head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
        return DataType::Utf16Text;
    }
    if head.is_empty() {
        return DataType::Sparse;
    }
    let zeros = head.iter().filter(|&&b| b == 0).count();
    if zeros * 4 > head.len() * 3 {
        return DataType::Sparse;
    }
    if head.is_ascii() && zeros == 0 {
        return DataType::AsciiText;
    }
    // Valid UTF-8, allowing a sequence cut off by the sniff window.
    let utf8 = match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && head.len() - e.valid_up_to() < 4,
    };
    if utf8 && zeros == 0 {
        return DataType::Utf8Text;
    }
    if byte_entropy(head) > 7.9 {
        DataType::Compressed
    } else {
        DataType::Dense
    }
}
