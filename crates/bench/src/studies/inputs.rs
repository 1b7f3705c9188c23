//! What the studies encrypt: files of the built-in corpus, or the user's own
//! (`--data DIR`), described at plan time and loaded only when a benchmark runs, so a
//! plan of gigabytes costs nothing until it is measured.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::corpus::{self, CorpusError, DataType};

/// The seed of every corpus input: the same bytes on every machine and run.
pub const CORPUS_SEED: u64 = 1;

/// Where an input's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    Corpus { kind: DataType, size: usize },
    File { path: PathBuf, limit: Option<u64> },
}

/// One input, described but not loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// Its name in benchmark ids (`data_type` column): a corpus type, or the user file's
    /// path relative to the folder.
    pub label: String,
    /// Its kind (guessed, for user files).
    pub data_type: DataType,
    /// Its size in bytes (after any `--quick` limit).
    pub size: u64,
    source: Source,
}

impl Input {
    /// `size` bytes of the corpus type `kind`.
    pub fn corpus(kind: DataType, size: usize) -> Input {
        Input {
            label: kind.name().to_string(),
            data_type: kind,
            size: size as u64,
            source: Source::Corpus { kind, size },
        }
    }

    /// Loads the bytes. The last input loaded is kept, so consecutive benchmarks of one
    /// input (the studies plan them input by input) do not load it again.
    pub fn load(&self) -> Result<Rc<Vec<u8>>, CorpusError> {
        thread_local! {
            static LAST: RefCell<Option<(Source, Rc<Vec<u8>>)>> = const { RefCell::new(None) };
        }
        if let Some(hit) = LAST.with_borrow(|last| {
            last.as_ref()
                .filter(|(s, _)| *s == self.source)
                .map(|(_, b)| Rc::clone(b))
        }) {
            return Ok(hit);
        }
        // Drop the old one first: two large inputs need not sit in memory together.
        LAST.with_borrow_mut(|last| *last = None);
        let bytes = Rc::new(match &self.source {
            Source::Corpus { kind, size } => corpus::generate(*kind, *size, CORPUS_SEED),
            Source::File { path, limit } => read_prefix(path, *limit)?,
        });
        LAST.with_borrow_mut(|last| *last = Some((self.source.clone(), Rc::clone(&bytes))));
        Ok(bytes)
    }
}

fn read_prefix(path: &Path, limit: Option<u64>) -> Result<Vec<u8>, CorpusError> {
    use std::io::Read;
    let io = |source| CorpusError::Io {
        path: path.to_path_buf(),
        source,
    };
    let f = std::fs::File::open(path).map_err(io)?;
    let mut out = Vec::new();
    f.take(limit.unwrap_or(u64::MAX))
        .read_to_end(&mut out)
        .map_err(io)?;
    Ok(out)
}

/// The user's files, as inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inputs {
    /// The folder they came from.
    pub root: PathBuf,
    /// One per regular file, sorted by path; empty files are left out.
    pub files: Vec<Input>,
}

impl Inputs {
    /// Every regular file under `dir`; with `limit`, only the first `limit` bytes of each
    /// (`--quick` keeps runs short on large files).
    pub fn from_dir(dir: &Path, limit: Option<u64>) -> Result<Inputs, CorpusError> {
        let files = corpus::load_dir(dir)?
            .into_iter()
            .filter(|f| f.size > 0)
            .map(|f| Input {
                label: f.label(dir),
                data_type: f.data_type,
                size: limit.map_or(f.size, |l| f.size.min(l)),
                source: Source::File {
                    path: f.path.clone(),
                    limit,
                },
            })
            .collect::<Vec<_>>();
        if files.is_empty() {
            return Err(CorpusError::Empty(dir.to_path_buf()));
        }
        Ok(Inputs {
            root: dir.to_path_buf(),
            files,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_inputs_load_the_corpus_bytes_and_reuse_the_last() {
        let a = Input::corpus(DataType::Bmp, 4096);
        let x = a.load().unwrap();
        assert_eq!(*x, corpus::generate(DataType::Bmp, 4096, CORPUS_SEED));
        let y = a.load().unwrap();
        assert!(
            Rc::ptr_eq(&x, &y),
            "the same input is not loaded twice in a row"
        );
        let b = Input::corpus(DataType::Wav, 4096);
        assert_eq!(b.load().unwrap().len(), 4096);
        assert_eq!(b.label, "wav");
    }

    #[test]
    fn user_files_are_limited_and_empty_ones_skipped() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("big.txt"), "hello world ".repeat(1000)).unwrap();
        std::fs::write(dir.path().join("empty"), b"").unwrap();
        let inputs = Inputs::from_dir(dir.path(), Some(100)).unwrap();
        assert_eq!(inputs.files.len(), 1);
        let f = &inputs.files[0];
        assert_eq!((f.label.as_str(), f.size), ("big.txt", 100));
        assert_eq!(f.data_type, DataType::AsciiText);
        assert_eq!(f.load().unwrap().len(), 100);
        let only_empty = tempfile::tempdir().unwrap();
        std::fs::write(only_empty.path().join("e"), b"").unwrap();
        assert!(Inputs::from_dir(only_empty.path(), None).is_err());
    }
}
