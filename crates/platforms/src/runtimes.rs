//! The one list of runtimes with a runner: `platforms/runtimes.toml`, embedded and parsed
//! once. Every other place that needs the runtimes — the results' [`Runtime`] identity,
//! the `platforms` study's columns, `cipherlab platforms`, `platforms/setup` — reads it
//! from here (or, for the shell script, from the same file).
//!
//! The file is a small subset of TOML (one `key = value` per line; `[[runtime]]` blocks;
//! "strings", one-line ["lists"] of strings and whole numbers; whole-line comments), so
//! that a shell script can read it too; this parser refuses anything else, an unknown or
//! missing key, and a repeated id.
//!
//! [`Runtime`]: ../../cipherlab_results/id/struct.Runtime.html

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::Error;

/// The list, as compiled in.
pub const RUNTIMES_TOML: &str = include_str!("../../../platforms/runtimes.toml");

/// One runtime with a runner in `platforms/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Descriptor {
    /// Folder under `platforms/`, the `runtime` its runner reports, and the name the
    /// results store keeps.
    pub id: String,
    /// Display name (`Node.js`).
    pub name: String,
    /// Position in the `platforms` study's tables (1 first).
    pub column: u32,
    /// Commands that must be on PATH, each with the arguments that print its version.
    pub tools: Vec<Vec<String>>,
    /// The Debian packages that bring the tools.
    pub packages: Vec<String>,
    /// The shell test `platforms/setup` runs before installing the packages ("" = the tools).
    pub have: String,
    /// The shell command `platforms/setup` runs in the runner's folder ("" = none).
    pub build: String,
    /// The build's inputs (globs in the runner's folder).
    pub sources: Vec<String>,
    /// A path in the runner's folder that exists once the runner is built.
    pub built: String,
    /// The provider names its runner reports (a user runner may not take them).
    pub providers: Vec<String>,
}

impl Descriptor {
    /// The runner's folder in the platforms directory `dir`.
    pub fn folder(&self, dir: &Path) -> PathBuf {
        dir.join(&self.id)
    }

    /// The runner's executable: `<dir>/<id>/run`.
    pub fn runner(&self, dir: &Path) -> PathBuf {
        self.folder(dir).join("run")
    }

    /// What exists once `platforms/setup` built the runner.
    pub fn artifact(&self, dir: &Path) -> PathBuf {
        self.folder(dir).join(&self.built)
    }

    /// The command that installs what the runtime needs and builds its runner.
    pub fn install(&self, dir: &Path) -> String {
        format!(
            "apt-get install -y --no-install-recommends {} && bash {}",
            self.packages.join(" "),
            dir.join("setup").display()
        )
    }
}

/// Every runtime with a runner, in the list's order (the order runners are run in).
pub fn runtimes() -> &'static [Descriptor] {
    static LIST: OnceLock<Vec<Descriptor>> = OnceLock::new();
    LIST.get_or_init(|| match parse(RUNTIMES_TOML) {
        Ok(list) => list,
        // The file is compiled in and checked by this crate's tests: a broken one is a
        // build that must not ship, not a condition to handle.
        Err(e) => panic!("platforms/runtimes.toml: {e}"),
    })
}

/// The runtime with id `id`.
pub fn runtime(id: &str) -> Result<&'static Descriptor, Error> {
    runtimes()
        .iter()
        .find(|d| d.id == id)
        .ok_or_else(|| Error::UnknownRuntime {
            id: id.to_string(),
            known: ids().join(", "),
        })
}

/// Every id, in the list's order.
pub fn ids() -> Vec<&'static str> {
    runtimes().iter().map(|d| d.id.as_str()).collect()
}

/// Every runtime in column order.
pub fn in_column_order() -> Vec<&'static Descriptor> {
    let mut v: Vec<&Descriptor> = runtimes().iter().collect();
    v.sort_by_key(|d| d.column);
    v
}

/// One value of the file's subset.
enum Value {
    Text(String),
    List(Vec<String>),
    Number(u32),
}

fn value(text: &str) -> Result<Value, String> {
    let quoted = |s: &str| -> Result<String, String> {
        let inner = s
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .ok_or_else(|| format!("not a \"string\": {s}"))?;
        if inner.contains(['"', '\\']) {
            return Err(format!("a string with a quote or backslash: {s}"));
        }
        Ok(inner.to_string())
    };
    if let Some(items) = text.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
        let items = items.trim();
        if items.is_empty() {
            return Ok(Value::List(Vec::new()));
        }
        return items
            .split(',')
            .map(|s| quoted(s.trim()))
            .collect::<Result<_, _>>()
            .map(Value::List);
    }
    if text.starts_with('"') {
        return quoted(text).map(Value::Text);
    }
    text.parse()
        .map(Value::Number)
        .map_err(|_| format!("not a string, list or number: {text}"))
}

/// Parses the list (see the module's description of the format).
pub fn parse(text: &str) -> Result<Vec<Descriptor>, Error> {
    type Fields = Vec<(String, Value)>;
    let mut blocks: Vec<Fields> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = |message: String| Error::RuntimeList {
            line: n + 1,
            message,
        };
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line == "[[runtime]]" {
            blocks.push(Vec::new());
            continue;
        }
        let (key, v) = line
            .split_once(" = ")
            .ok_or_else(|| at(format!("not `key = value`: {line}")))?;
        let block = blocks
            .last_mut()
            .ok_or_else(|| at("a key before the first [[runtime]]".into()))?;
        if block.iter().any(|(k, _)| k == key) {
            return Err(at(format!("`{key}` twice in one block")));
        }
        block.push((key.to_string(), value(v.trim()).map_err(at)?));
    }
    let mut out: Vec<Descriptor> = Vec::new();
    for (i, mut fields) in blocks.into_iter().enumerate() {
        let at = |message: String| Error::RuntimeList {
            line: 0,
            message: format!("runtime {}: {message}", i + 1),
        };
        let mut take = |key: &str| {
            fields
                .iter()
                .position(|(k, _)| k == key)
                .map(|p| fields.remove(p).1)
                .ok_or_else(|| at(format!("no `{key}`")))
        };
        let text = |v: Value, key: &str| match v {
            Value::Text(s) => Ok(s),
            _ => Err(at(format!("`{key}` is not a string"))),
        };
        let list = |v: Value, key: &str| match v {
            Value::List(l) => Ok(l),
            _ => Err(at(format!("`{key}` is not a list"))),
        };
        let d = Descriptor {
            id: text(take("id")?, "id")?,
            name: text(take("name")?, "name")?,
            column: match take("column")? {
                Value::Number(n) => n,
                _ => return Err(at("`column` is not a number".into())),
            },
            tools: list(take("tools")?, "tools")?
                .iter()
                .map(|t| t.split_whitespace().map(str::to_string).collect())
                .collect(),
            packages: list(take("packages")?, "packages")?,
            have: text(take("have")?, "have")?,
            build: text(take("build")?, "build")?,
            sources: list(take("sources")?, "sources")?,
            built: text(take("built")?, "built")?,
            providers: list(take("providers")?, "providers")?,
        };
        if let Some((k, _)) = fields.first() {
            return Err(at(format!("unknown key `{k}`")));
        }
        let simple = !d.id.is_empty()
            && d.id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !simple {
            return Err(at(format!(
                "id `{}` is not lower-case letters, digits and -",
                d.id
            )));
        }
        if d.tools.iter().any(Vec::is_empty) || d.tools.is_empty() {
            return Err(at(format!(
                "{}: a runtime needs at least one tool, each named",
                d.id
            )));
        }
        if out.iter().any(|o| o.id == d.id) {
            return Err(at(format!("id `{}` twice", d.id)));
        }
        if out.iter().any(|o| o.column == d.column) {
            return Err(at(format!("{}: column {} twice", d.id, d.column)));
        }
        out.push(d);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_parses() {
        let list = parse(RUNTIMES_TOML).unwrap();
        assert!(!list.is_empty());
        assert_eq!(runtimes(), &list[..]);
        for d in &list {
            assert_eq!(runtime(&d.id).unwrap(), d);
        }
        assert!(runtime("cobol").is_err());
    }

    #[test]
    fn every_runtime_has_a_runner_folder_with_an_executable_run() {
        use std::os::unix::fs::PermissionsExt;
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../platforms");
        for d in runtimes() {
            let run = d.runner(&dir);
            let mode = std::fs::metadata(&run)
                .unwrap_or_else(|e| panic!("{}: {e}", run.display()))
                .permissions()
                .mode();
            assert!(mode & 0o111 != 0, "{} is not executable", run.display());
            assert!(!d.sources.is_empty(), "{}: no sources", d.id);
        }
    }

    #[test]
    fn a_broken_list_is_refused() {
        let good = "[[runtime]]\nid = \"x\"\nname = \"X\"\ncolumn = 1\ntools = [\"x --version\"]\n\
            packages = [\"x\"]\nhave = \"\"\nbuild = \"\"\nsources = [\"run\"]\nbuilt = \"run\"\n\
            providers = [\"x\"]\n";
        let one = parse(good).unwrap();
        assert_eq!(
            one[0].tools,
            vec![vec!["x".to_string(), "--version".into()]]
        );
        assert!(parse(&format!("{good}{good}")).is_err(), "a repeated id");
        assert!(
            parse(&good.replace("built", "bilt")).is_err(),
            "an unknown key"
        );
        assert!(
            parse(&good.replace("column = 1\n", "")).is_err(),
            "a missing key"
        );
        assert!(
            parse(&good.replace("\"X\"", "X")).is_err(),
            "an unquoted string"
        );
        assert!(
            parse(&good.replace("[[runtime]]\n", "")).is_err(),
            "no block"
        );
    }
}
