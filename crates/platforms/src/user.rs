//! Runners of the user's own: any executable that speaks platforms/PROTOCOL.md, named on
//! the command line (`--runner NAME=COMMAND`) or in a `runners.toml` (the file named by
//! `$CIPHERLAB_RUNNERS`, else `./runners.toml`). Each gets the conformance vectors of the
//! runtimes of the list and joins the studies that time runners under its NAME
//! (docs/platforms.md, "A runner of your own").
//!
//! COMMAND is split into a program and its arguments without a shell, as a POSIX shell
//! splits words: blanks separate, `'...'` keeps everything literally, `"..."` keeps
//! everything but `\"` and `\\`, a `\` outside quotes escapes the next character. No
//! variables, globs or pipes: a runner that needs a shell says so (`sh -c '...'`).
//!
//! `runners.toml` is a small subset of TOML, one `key = value` per line:
//!
//! ```toml
//! # comments are whole lines
//! [runner.perl]
//! command = "perl runner.pl --fast"    # split as COMMAND above
//!
//! [runner.my-c]
//! argv = ["./build/runner", "--json"]  # or the words themselves, no splitting
//! ```
//!
//! A relative program path with a `/` in it (`./build/runner`) is taken from the file's
//! folder; a bare word (`perl`) is looked up on PATH when the runner starts. A
//! `--runner` of a name the file has replaces the file's.

use std::path::{Path, PathBuf};

use crate::Error;

/// The environment variable that names the runners file.
pub const RUNNERS_ENV: &str = "CIPHERLAB_RUNNERS";

/// The runners file looked for in the working directory.
pub const RUNNERS_FILE: &str = "runners.toml";

/// One runner of the user's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserRunner {
    /// Its runtime id: the name given (`perl`), what the results store keeps and the
    /// prefix of its clashing provider names.
    pub name: String,
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// Where it was declared: `--runner` or the file's path.
    pub from: String,
}

impl UserRunner {
    /// The command as one line for people (words with blanks or quotes quoted).
    pub fn command_line(&self) -> String {
        self.argv
            .iter()
            .map(|w| {
                if !w.is_empty()
                    && w.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b))
                {
                    w.clone()
                } else {
                    format!("'{}'", w.replace('\'', "'\\''"))
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn bad(from: &str, message: impl Into<String>) -> Error {
    Error::UserRunner {
        from: from.to_string(),
        message: message.into(),
    }
}

/// Whether `name` may name a user runner: lower-case letters, digits and `-`, not `rust`
/// and not a runtime of the list (their stored figures must not mix).
pub fn check_name(name: &str) -> Result<(), String> {
    let simple = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if !simple {
        return Err(format!(
            "runner name `{name}` is not lower-case letters, digits and -"
        ));
    }
    if name == "rust" || crate::runtimes().iter().any(|d| d.id == name) {
        return Err(format!(
            "runner name `{name}` is a built-in runtime's; give yours another name"
        ));
    }
    Ok(())
}

/// Splits `command` into words as described in the module's documentation.
pub fn split_command(command: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
            }
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err(format!("an unclosed ' in: {command}")),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => w.push(c),
                            Some(c) => {
                                w.push('\\');
                                w.push(c);
                            }
                            None => return Err(format!("an unclosed \" in: {command}")),
                        },
                        Some(c) => w.push(c),
                        None => return Err(format!("an unclosed \" in: {command}")),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => word.get_or_insert_with(String::new).push(c),
                None => return Err(format!("a \\ at the end of: {command}")),
            },
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    if words.is_empty() {
        return Err("an empty command".into());
    }
    Ok(words)
}

/// One `--runner NAME=COMMAND`.
pub fn parse_flag(flag: &str) -> Result<UserRunner, Error> {
    let from = "--runner";
    let (name, command) = flag
        .split_once('=')
        .ok_or_else(|| bad(from, format!("`{flag}` is not NAME=COMMAND")))?;
    let name = name.trim();
    check_name(name).map_err(|e| bad(from, e))?;
    let argv = split_command(command).map_err(|e| bad(from, format!("{name}: {e}")))?;
    Ok(UserRunner {
        name: name.to_string(),
        argv,
        from: from.to_string(),
    })
}

/// A TOML basic string (`"..."` with `\"`, `\\`, `\n`, `\t` escapes) at the start of
/// `s`, and what follows it.
fn toml_string(s: &str) -> Result<(String, &str), String> {
    let rest = s
        .strip_prefix('"')
        .ok_or_else(|| format!("not a \"string\": {s}"))?;
    let mut out = String::new();
    let mut chars = rest.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((out, &rest[i + 1..])),
            '\\' => match chars.next() {
                Some((_, '"')) => out.push('"'),
                Some((_, '\\')) => out.push('\\'),
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                other => {
                    return Err(format!(
                        "an escape TOML has but this file does not: \\{}",
                        other.map_or(' ', |o| o.1)
                    ));
                }
            },
            c => out.push(c),
        }
    }
    Err(format!("an unclosed string: {s}"))
}

/// A one-line list of strings.
fn toml_list(s: &str) -> Result<Vec<String>, String> {
    let mut rest = s
        .strip_prefix('[')
        .ok_or_else(|| format!("not a [list]: {s}"))?
        .trim_start();
    let mut out = Vec::new();
    loop {
        if let Some(after) = rest.strip_prefix(']') {
            if !after.trim().is_empty() {
                return Err(format!("something after the list: {after}"));
            }
            return Ok(out);
        }
        let (item, after) = toml_string(rest)?;
        out.push(item);
        let after = after.trim_start();
        rest = match after.strip_prefix(',') {
            Some(a) => a.trim_start(),
            None if after.starts_with(']') => after,
            None => return Err(format!("expected , or ] in: {s}")),
        };
    }
}

/// Parses a runners file's `text`; `path` names it in errors and anchors relative
/// program paths.
pub fn parse_file(text: &str, path: &Path) -> Result<Vec<UserRunner>, Error> {
    let from = path.display().to_string();
    let folder = path.parent().unwrap_or(Path::new("."));
    let mut out: Vec<UserRunner> = Vec::new();
    let mut current: Option<(String, Option<Vec<String>>)> = None;
    let finish = |cur: Option<(String, Option<Vec<String>>)>,
                  out: &mut Vec<UserRunner>|
     -> Result<(), Error> {
        if let Some((name, argv)) = cur {
            let mut argv =
                argv.ok_or_else(|| bad(&from, format!("[runner.{name}] has no command or argv")))?;
            if argv.is_empty() || argv[0].is_empty() {
                return Err(bad(&from, format!("[runner.{name}]: an empty command")));
            }
            let program = Path::new(&argv[0]);
            if program.is_relative() && argv[0].contains('/') {
                argv[0] = folder.join(program).display().to_string();
            }
            out.push(UserRunner {
                name,
                argv,
                from: from.clone(),
            });
        }
        Ok(())
    };
    for (n, line) in text.lines().enumerate() {
        let at = |m: String| bad(&from, format!("line {}: {m}", n + 1));
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(header) = line.strip_prefix('[') {
            let name = header
                .strip_suffix(']')
                .and_then(|h| h.trim().strip_prefix("runner."))
                .ok_or_else(|| at(format!("a table other than [runner.NAME]: {line}")))?
                .trim()
                .to_string();
            check_name(&name).map_err(at)?;
            if out.iter().any(|u| u.name == name) || current.as_ref().is_some_and(|c| c.0 == name) {
                return Err(at(format!("[runner.{name}] twice")));
            }
            finish(current.take(), &mut out)?;
            current = Some((name, None));
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .ok_or_else(|| at(format!("not `key = value`: {line}")))?;
        let (key, value) = (key.trim(), value.trim());
        let Some((name, argv)) = current.as_mut() else {
            return Err(at("a key before the first [runner.NAME]".into()));
        };
        if argv.is_some() {
            return Err(at(format!(
                "[runner.{name}] has its command already (one of command, argv)"
            )));
        }
        *argv = Some(match key {
            "command" => {
                let (s, rest) = toml_string(value).map_err(&at)?;
                if !rest.trim().is_empty() && !rest.trim().starts_with('#') {
                    return Err(at(format!("something after the string: {rest}")));
                }
                split_command(&s).map_err(&at)?
            }
            "argv" => toml_list(value).map_err(&at)?,
            k => return Err(at(format!("unknown key `{k}` (command or argv)"))),
        });
    }
    finish(current, &mut out)?;
    Ok(out)
}

/// The runners file in use: `$CIPHERLAB_RUNNERS` (which must exist), else
/// `./runners.toml` if there is one.
pub fn runners_file() -> Result<Option<PathBuf>, Error> {
    if let Some(p) = std::env::var_os(RUNNERS_ENV) {
        let p = PathBuf::from(p);
        if !p.is_file() {
            return Err(bad(
                &p.display().to_string(),
                format!("${RUNNERS_ENV} names no file"),
            ));
        }
        return Ok(Some(p));
    }
    let here = PathBuf::from(RUNNERS_FILE);
    Ok(here.is_file().then_some(here))
}

/// The user's runners: those of the runners file ([`runners_file`]), then the
/// `--runner NAME=COMMAND` flags (a flag replaces the file's runner of its name).
pub fn gather(flags: &[String]) -> Result<Vec<UserRunner>, Error> {
    let mut out = match runners_file()? {
        Some(path) => {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| bad(&path.display().to_string(), e.to_string()))?;
            parse_file(&text, &path)?
        }
        None => Vec::new(),
    };
    for f in flags {
        let u = parse_flag(f)?;
        if let Some(pos) = out.iter().position(|o| o.name == u.name) {
            if out[pos].from == "--runner" {
                return Err(bad("--runner", format!("{} given twice", u.name)));
            }
            out[pos] = u;
        } else {
            out.push(u);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_as_a_shell_would_without_one() {
        assert_eq!(
            split_command("perl  runner.pl --x").unwrap(),
            ["perl", "runner.pl", "--x"]
        );
        assert_eq!(
            split_command(r#"'/opt/my dir/run' "a \"b\" c" d\ e $HOME"#).unwrap(),
            ["/opt/my dir/run", "a \"b\" c", "d e", "$HOME"]
        );
        assert!(split_command("run 'open").is_err());
        assert!(split_command("   ").is_err());
    }

    #[test]
    fn a_flag_is_name_equals_command() {
        let u = parse_flag("perl=perl /x/runner.pl").unwrap();
        assert_eq!(u.name, "perl");
        assert_eq!(u.argv, ["perl", "/x/runner.pl"]);
        assert!(parse_flag("perl").is_err(), "no =");
        assert!(parse_flag("Perl=perl").is_err(), "upper case");
        assert!(
            parse_flag("java=java -jar x").is_err(),
            "a built-in runtime"
        );
        assert!(parse_flag("rust=x").is_err(), "rust");
        assert_eq!(
            parse_flag("p=sh -c 'a | b'").unwrap().argv,
            ["sh", "-c", "a | b"]
        );
    }

    #[test]
    fn the_runners_file_reads_and_refuses_what_it_does_not_know() {
        let path = Path::new("/etc/cipherlab/runners.toml");
        let text = "# mine\n[runner.perl]\ncommand = \"perl 'my runner.pl'\"\n\n\
                    [runner.c]\nargv = [\"./build/run\", \"--json\"]\n";
        let list = parse_file(text, path).unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].argv, ["perl", "my runner.pl"]);
        assert_eq!(list[1].argv, ["/etc/cipherlab/./build/run", "--json"]);
        assert_eq!(list[1].from, "/etc/cipherlab/runners.toml");
        for broken in [
            "[runner.a]\n",
            "command = \"x\"\n",
            "[runner.a]\ncmd = \"x\"\n",
            "[runner.a]\ncommand = \"x\"\nargv = [\"y\"]\n",
            "[runner.a]\ncommand = \"x\"\n[runner.a]\ncommand = \"y\"\n",
            "[runners.a]\ncommand = \"x\"\n",
            "[runner.go]\ncommand = \"x\"\n",
            "[runner.a]\nargv = [\"x\" \"y\"]\n",
        ] {
            assert!(parse_file(broken, path).is_err(), "{broken}");
        }
    }
}
