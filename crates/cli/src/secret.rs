//! Secrets (passwords, passphrases, raw keys): read here from every source, for every
//! command.
//!
//! - the command line: accepted for scripts that have no other way, and called out every
//!   time it is used ([`warn_command_line`]), since `--help` is not read by every
//!   script's author;
//! - a file: its first line, without the line ending (`\n` or `\r\n`); where the command
//!   allows it ([`Dash::Stdin`]), `-` is the first line of standard input;
//! - an environment variable;
//! - the terminal ([`ask`], [`ask_twice`]);
//! - a key file, loaded by `cipherlab_seal::KeyFile::load`, after a warning here when others
//!   can read it ([`warn_if_others_can_read`]).
//!
//! Every value is held in [`Zeroizing`], so it is wiped when dropped. The callers turn a
//! [`ReadError`] into their own error, with their own words.

use std::io::{self, BufRead, IsTerminal, Read};
use std::path::{Path, PathBuf};

use zeroize::Zeroizing;

/// Says that the secret given with `flag` can be seen by others, and what to use instead.
pub fn warn_command_line(flag: &str, instead: &str) {
    eprintln!(
        "cipherlab: warning: {flag} on the command line: other users of this machine can \
         read it in ps, and it stays in the shell's history; prefer {instead}"
    );
}

/// Warns when a key file (at `path`) can be read by others.
pub fn warn_if_others_can_read(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(m) = std::fs::metadata(path) {
        let mode = m.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            eprintln!(
                "cipherlab: warning: key file {} can be read by others (mode {mode:o}): \
                 chmod 600 {}",
                path.display(),
                path.display()
            );
        }
    }
}

/// A secret given on the command line, held from parsing on as a secret that is wiped
/// when dropped (a clap `value_parser`).
pub fn from_arg(s: &str) -> Result<Zeroizing<String>, std::convert::Infallible> {
    Ok(Zeroizing::new(s.to_owned()))
}

/// A secret's bytes, wiped when dropped.
pub type Bytes = Zeroizing<Vec<u8>>;

/// A secret's text, wiped when dropped.
pub type Text = Zeroizing<String>;

/// What `-` means as a secret's file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dash {
    /// A file named `-`.
    File,
    /// Standard input; `taken` when the command reads its data from there too (then it
    /// is refused).
    Stdin {
        /// Whether standard input is already the command's input.
        taken: bool,
    },
}

/// A secret given on the command line.
pub struct Arg<'a> {
    /// The value.
    pub value: &'a Zeroizing<String>,
    /// The option that gave it (`--password`).
    pub flag: &'a str,
    /// The better ways, for the warning (`--password-file FILE or $VAR`).
    pub instead: &'a str,
}

/// Where a secret may come from, tried in this order: the command line, the file, the
/// environment variable. (The command line and the file exclude each other in clap.)
pub struct Sources<'a> {
    /// Given on the command line.
    pub arg: Option<Arg<'a>>,
    /// The file to read its first line from.
    pub file: Option<&'a Path>,
    /// What `-` as `file` means.
    pub dash: Dash,
    /// The environment variable.
    pub env: Option<&'a str>,
}

/// Where a secret was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The command line.
    Arg,
    /// A file.
    File(PathBuf),
    /// Standard input (`-`).
    Stdin,
    /// The environment variable of that name.
    Env(String),
}

/// A secret that could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// `-` names standard input, which the command reads its data from.
    StdinTaken,
    /// The file could not be opened.
    Open(PathBuf, io::Error),
    /// The file or standard input (`None`) could not be read.
    Read(Option<PathBuf>, io::Error),
    /// A secret that must be text is not UTF-8.
    NotUtf8(Origin),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Arg => f.write_str("the command line"),
            Origin::File(p) => write!(f, "{}", p.display()),
            Origin::Stdin => f.write_str("standard input"),
            Origin::Env(name) => write!(f, "${name}"),
        }
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::StdinTaken => f.write_str(
                "the secret cannot be read from standard input when the data is read from there",
            ),
            ReadError::Open(p, e) => write!(f, "opening {}: {e}", p.display()),
            ReadError::Read(Some(p), e) => write!(f, "reading {}: {e}", p.display()),
            ReadError::Read(None, e) => write!(f, "reading standard input: {e}"),
            ReadError::NotUtf8(o) => write!(f, "the secret in {o} is not UTF-8"),
        }
    }
}

impl Sources<'_> {
    /// The secret's bytes, from the first source that has one (a command-line value is
    /// warned about); `None` when none has one.
    pub fn read(&self) -> Result<Option<(Bytes, Origin)>, ReadError> {
        if let Some(a) = &self.arg {
            warn_command_line(a.flag, a.instead);
            return Ok(Some((
                Zeroizing::new(a.value.as_bytes().to_vec()),
                Origin::Arg,
            )));
        }
        if let Some(path) = self.file {
            return first_line_of(path, self.dash).map(Some);
        }
        if let Some(name) = self.env
            && let Some(v) = std::env::var_os(name)
        {
            return Ok(Some((
                Zeroizing::new(v.into_encoded_bytes()),
                Origin::Env(name.to_string()),
            )));
        }
        Ok(None)
    }

    /// As [`Sources::read`], for a secret that must be text.
    pub fn read_text(&self) -> Result<Option<(Text, Origin)>, ReadError> {
        self.read()?
            .map(|(bytes, origin)| match text(&bytes) {
                Some(s) => Ok((s, origin)),
                None => Err(ReadError::NotUtf8(origin)),
            })
            .transpose()
    }
}

/// `bytes` as text, if UTF-8.
pub fn text(bytes: &[u8]) -> Option<Zeroizing<String>> {
    std::str::from_utf8(bytes)
        .ok()
        .map(|s| Zeroizing::new(s.to_string()))
}

/// The first line of `bytes`, without its line ending (`\n` or `\r\n`).
pub fn first_line(bytes: &[u8]) -> &[u8] {
    let line = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The first line of the file `path` (or of standard input, as `dash` says).
fn first_line_of(path: &Path, dash: Dash) -> Result<(Bytes, Origin), ReadError> {
    if let Dash::Stdin { taken } = dash
        && path.as_os_str() == "-"
    {
        if taken {
            return Err(ReadError::StdinTaken);
        }
        let mut line = Zeroizing::new(Vec::new());
        io::stdin()
            .lock()
            .read_until(b'\n', &mut line)
            .map_err(|e| ReadError::Read(None, e))?;
        return Ok((Zeroizing::new(first_line(&line).to_vec()), Origin::Stdin));
    }
    let mut f = std::fs::File::open(path).map_err(|e| ReadError::Open(path.to_path_buf(), e))?;
    let mut all = Zeroizing::new(Vec::new());
    f.read_to_end(&mut all)
        .map_err(|e| ReadError::Read(Some(path.to_path_buf()), e))?;
    Ok((
        Zeroizing::new(first_line(&all).to_vec()),
        Origin::File(path.to_path_buf()),
    ))
}

/// Whether there is a terminal to ask on (standard error is one).
pub fn can_ask() -> bool {
    io::stderr().is_terminal()
}

/// Asks for a secret on the terminal, without echo.
pub fn ask(question: &str) -> io::Result<Zeroizing<String>> {
    rpassword::prompt_password(question).map(Zeroizing::new)
}

/// A secret asked twice on the terminal.
#[derive(Debug)]
pub enum Asked {
    /// The same both times.
    Same(Zeroizing<String>),
    /// The two differ.
    Differ,
}

/// Asks for a new secret on the terminal, then asks `again` to confirm it.
pub fn ask_twice(question: &str, again: &str) -> io::Result<Asked> {
    let first = ask(question)?;
    let second = ask(again)?;
    Ok(if *first == *second {
        Asked::Same(first)
    } else {
        Asked::Differ
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_line_without_its_ending() {
        assert_eq!(first_line(b"pw\nmore\n"), b"pw");
        assert_eq!(first_line(b"pw\r\n"), b"pw");
        assert_eq!(first_line(b"pw"), b"pw");
        assert_eq!(first_line(b""), b"");
        assert_eq!(first_line(b"\n"), b"");
        // Only the line ending goes: other spaces are part of the secret.
        assert_eq!(first_line(b" pw \n"), b" pw ");
    }

    #[test]
    fn sources_in_order_and_files_read_by_the_rule() {
        let dir = std::env::temp_dir().join(format!("cipherlab-secret-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("pw");
        std::fs::write(&file, b"from the file\r\nsecond line\n").unwrap();
        let none = Sources {
            arg: None,
            file: None,
            dash: Dash::File,
            env: None,
        };
        assert!(none.read().unwrap().is_none());
        let from_file = Sources {
            file: Some(&file),
            ..none
        };
        let (pw, origin) = from_file.read_text().unwrap().unwrap();
        assert_eq!(pw.as_str(), "from the file");
        assert_eq!(origin, Origin::File(file.clone()));
        let missing = dir.join("missing");
        let r = Sources {
            arg: None,
            file: Some(&missing),
            dash: Dash::File,
            env: None,
        }
        .read();
        assert!(matches!(r, Err(ReadError::Open(p, _)) if p == missing));
        let dash = Path::new("-");
        let r = Sources {
            arg: None,
            file: Some(dash),
            dash: Dash::Stdin { taken: true },
            env: None,
        }
        .read();
        assert!(matches!(r, Err(ReadError::StdinTaken)));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
