//! Talking to one runner: spawn `platforms/<runtime>/run`, write one JSON request per
//! line, read one answer per line (platforms/PROTOCOL.md). The process is started at the
//! first exchange and kept for the next ones until the [`Runner`] is dropped, so a study
//! can ask a warm runtime for more samples without paying its start-up (a JVM's second
//! or more) and its JIT warm-up again; a caller that wants a cold process makes a new
//! `Runner`.

use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::Error;

use serde::Deserialize;
use serde_json::Value;

/// A runner of one runtime: one process, started at the first exchange.
pub struct Runner {
    run: PathBuf,
    /// The runtime's name (`java`, `node`, ...).
    pub name: String,
    session: Mutex<Option<Session>>,
}

/// The running process and its pipes.
struct Session {
    child: Child,
    stdin: BufWriter<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// Drains stderr on its own thread, so the pipe never fills and stalls the runner;
    /// its text goes into the error when the runner fails.
    stderr: Option<JoinHandle<String>>,
    spawned: Instant,
    answered: usize,
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
    /// From spawning the process to the `info` answer, in milliseconds, when `info` was
    /// the process's first request (else the request's own round trip).
    #[serde(skip)]
    pub wall_startup_ms: u64,
}

/// How long a runner may take to exit once its input is closed before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(5);

impl Runner {
    /// The runner of `runtime` in the platforms directory `dir` (not started yet): any
    /// folder with a `run`; [`crate::ready`] starts one of the list's and asks its `info`.
    pub fn new(dir: &Path, runtime: &str) -> Result<Runner, Error> {
        let run = dir.join(runtime).join("run");
        if !run.is_file() {
            return Err(Error::NoRunner(run));
        }
        Ok(Runner {
            run,
            name: runtime.to_string(),
            session: Mutex::new(None),
        })
    }

    fn spawn(&self) -> Result<Session, Error> {
        let spawned = Instant::now();
        let mut child = Command::new(&self.run)
            .envs(crate::java_providers::runner_env(&self.name))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| Error::Start {
                path: self.run.clone(),
                source,
            })?;
        let (Some(stdin), Some(stdout), Some(mut stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Error::Start {
                path: self.run.clone(),
                source: std::io::Error::other("no pipes to the runner"),
            });
        };
        let drain = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        Ok(Session {
            child,
            stdin: BufWriter::new(stdin),
            stdout: BufReader::new(stdout),
            stderr: Some(drain),
            spawned,
            answered: 0,
        })
    }

    /// Sends `requests` (one JSON value each) and returns one answer per request, in
    /// order, one request at a time (a runner answers a line before it reads the next,
    /// so neither pipe can fill). The process is started if it is not running; if it
    /// fails, it is ended and the error carries its stderr.
    pub fn exchange(&self, requests: &[Value]) -> Result<Vec<Value>, Error> {
        let mut slot = self
            .session
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if slot.is_none() {
            *slot = Some(self.spawn()?);
        }
        let mut answers = Vec::with_capacity(requests.len());
        for request in requests {
            let Some(session) = slot.as_mut() else {
                break;
            };
            match session.ask(request) {
                Ok(answer) => answers.push(answer),
                Err(e) => {
                    let (status, errors) = slot.take().map(Session::end).unwrap_or_default();
                    return Err(Error::Exchange {
                        runtime: self.name.clone(),
                        cause: e,
                        answered: answers.len(),
                        asked: requests.len(),
                        status,
                        stderr: errors.trim().chars().take(2000).collect(),
                    });
                }
            }
        }
        Ok(answers)
    }

    /// The runner's `info`: runtime version and providers. The request carries the probe
    /// set ([`crate::info_request`]).
    pub fn info(&self) -> Result<Info, Error> {
        let asked = Instant::now();
        let answers = self.exchange(&[crate::info_request()])?;
        let wall = {
            let slot = self
                .session
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            match slot.as_ref() {
                Some(s) if s.answered == 1 => s.spawned.elapsed(),
                _ => asked.elapsed(),
            }
        };
        let answer = answers.into_iter().next().unwrap_or(Value::Null);
        if let Some(e) = answer.get("error") {
            return Err(Error::Info {
                runtime: self.name.clone(),
                message: format!("info answered an error: {e}"),
            });
        }
        let mut info: Info = serde_json::from_value(answer).map_err(|e| Error::Info {
            runtime: self.name.clone(),
            message: format!("info is not as PROTOCOL.md says: {e}"),
        })?;
        info.wall_startup_ms = u64::try_from(wall.as_millis()).unwrap_or(u64::MAX);
        Ok(info)
    }
}

impl Session {
    /// Writes one request and reads its answer.
    fn ask(&mut self, request: &Value) -> Result<Value, String> {
        let line = request.to_string();
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.write_all(b"\n"))
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("writing a request: {e}"))?;
        let mut answer = String::new();
        let n = self
            .stdout
            .read_line(&mut answer)
            .map_err(|e| format!("reading an answer: {e}"))?;
        if n == 0 {
            return Err("the runner ended".into());
        }
        self.answered += 1;
        serde_json::from_str(&answer)
            .map_err(|e| format!("an answer is not JSON: {answer:.200}: {e}"))
    }

    /// Closes the runner's input (it exits at the end of its input), waits for it a
    /// little, kills it if it does not exit, and returns how it ended and its stderr.
    fn end(self) -> (String, String) {
        let Session {
            mut child,
            stdin,
            stdout,
            stderr,
            ..
        } = self;
        drop(stdin);
        drop(stdout);
        let deadline = Instant::now() + EXIT_GRACE;
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break s.to_string(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Ok(None) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break "killed: it did not exit when its input closed".to_string();
                }
                Err(e) => break format!("cannot wait for it: {e}"),
            }
        };
        let errors = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
        (status, errors)
    }
}

impl Drop for Runner {
    fn drop(&mut self) {
        let slot = self
            .session
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(s) = slot.take() {
            s.end();
        }
    }
}
