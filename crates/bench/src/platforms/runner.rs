//! Talking to one runner: spawn `platforms/<runtime>/run`, write JSON lines, read one
//! answer per line (platforms/PROTOCOL.md).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, bail};
use serde::Deserialize;
use serde_json::Value;

/// A runner of one runtime, started afresh for each exchange.
pub struct Runner {
    run: PathBuf,
    /// The runtime's name (`java`, `node`, ...).
    pub name: String,
}

/// A provider as `info` describes it.
#[derive(Deserialize, Clone)]
pub struct ProviderInfo {
    /// `java-sunjce`, `python-cryptography`, ...
    pub name: String,
    /// The library behind it.
    pub library: String,
    /// The library's version.
    pub version: String,
    /// Catalogue names it serves.
    pub algorithms: Vec<String>,
}

/// A runner's `info` answer, plus the start-up seen from outside.
#[derive(Deserialize)]
pub struct Info {
    /// The runtime's version.
    pub version: String,
    /// The runner's own start-up (library loading), in nanoseconds.
    pub startup_ns: u64,
    /// Its providers.
    pub providers: Vec<ProviderInfo>,
    /// From spawning the process to the `info` answer, in milliseconds.
    #[serde(skip)]
    pub wall_startup_ms: u64,
}

impl Runner {
    /// The runner of `runtime` in the platforms directory `dir`.
    pub fn new(dir: &Path, runtime: &str) -> anyhow::Result<Runner> {
        let run = dir.join(runtime).join("run");
        if !run.is_file() {
            bail!("no runner at {}", run.display());
        }
        Ok(Runner {
            run,
            name: runtime.to_string(),
        })
    }

    /// Sends `requests` (one JSON value each) and returns one answer per request, in
    /// order. The process is spawned for this exchange and ends when its input does.
    pub fn exchange(&self, requests: &[Value]) -> anyhow::Result<Vec<Value>> {
        let mut child = Command::new(&self.run)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot start {}", self.run.display()))?;
        let (Some(mut stdin), Some(stdout), Some(mut stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            bail!("{}: no pipes to the runner", self.name);
        };
        let lines: Vec<String> = requests.iter().map(Value::to_string).collect();
        // Write and drain stderr on their own threads, so neither pipe can fill and stall.
        let writer = std::thread::spawn(move || -> std::io::Result<()> {
            let mut w = std::io::BufWriter::new(&mut stdin);
            for line in &lines {
                w.write_all(line.as_bytes())?;
                w.write_all(b"\n")?;
            }
            w.flush()
        });
        let drain = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        let mut answers = Vec::with_capacity(requests.len());
        for line in BufReader::new(stdout).lines() {
            let line = line.with_context(|| format!("{}: reading its answers", self.name))?;
            let value: Value = serde_json::from_str(&line)
                .with_context(|| format!("{}: an answer is not JSON: {line:.200}", self.name))?;
            answers.push(value);
        }
        let wrote = writer.join();
        let status = child.wait()?;
        let errors = drain.join().unwrap_or_default();
        if answers.len() != requests.len() {
            bail!(
                "{}: {} answers to {} requests (exit {status}); its stderr: {}",
                self.name,
                answers.len(),
                requests.len(),
                errors.trim().chars().take(2000).collect::<String>()
            );
        }
        if let Ok(Err(e)) = wrote {
            bail!("{}: writing the requests: {e}", self.name);
        }
        Ok(answers)
    }

    /// The runner's `info`: runtime version and providers.
    pub fn info(&self) -> anyhow::Result<Info> {
        let start = Instant::now();
        let answers = self.exchange(&[serde_json::json!({"op": "info"})])?;
        let wall = start.elapsed();
        let answer = answers.into_iter().next().unwrap_or(Value::Null);
        if let Some(e) = answer.get("error") {
            bail!("{}: info answered an error: {e}", self.name);
        }
        let mut info: Info = serde_json::from_value(answer)
            .with_context(|| format!("{}: info is not as PROTOCOL.md says", self.name))?;
        info.wall_startup_ms = u64::try_from(wall.as_millis()).unwrap_or(u64::MAX);
        Ok(info)
    }
}
