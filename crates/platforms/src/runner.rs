//! Talking to one runner: spawn `platforms/<runtime>/run` (or a user runner's command),
//! write one JSON request per line, read one answer per line (platforms/PROTOCOL.md). The
//! process is started at the first exchange and kept for the next ones until the
//! [`Runner`] is dropped, so a study can ask a warm runtime for more samples without paying
//! its start-up (a JVM's second or more) and its JIT warm-up again; a caller that wants a
//! cold process makes a new `Runner`.
//!
//! Every request has a time limit ([`time_limit`]): a runner that does not answer within
//! it is killed and the exchange fails with the last lines of its standard error, as a
//! runner that crashes does.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::Error;
use crate::user::UserRunner;

use serde::Deserialize;
use serde_json::Value;

/// A runner of one runtime: one process, started at the first exchange.
pub struct Runner {
    program: PathBuf,
    args: Vec<String>,
    /// The runtime's name (`java`, `node`, ..., or a user runner's NAME).
    pub name: String,
    /// For a user runner: the provider names it must not take (the built-in runners' and
    /// cipherlab's own); one of them in its `info` becomes `NAME-provider`.
    reserved: Option<Vec<String>>,
    /// Provider names as shown (prefixed) -> as the runner knows them.
    aliases: Mutex<BTreeMap<String, String>>,
    /// The time limit of a request without a size of its own ([`time_limit`]).
    base_limit: Duration,
    session: Mutex<Option<Session>>,
}

/// The running process and its pipes.
struct Session {
    child: Child,
    stdin: BufWriter<ChildStdin>,
    /// The answers, read line by line on their own thread so a request can time out.
    answers: Receiver<std::io::Result<String>>,
    /// Drains stderr on its own thread, so the pipe never fills and stalls the runner;
    /// its last lines go into the error when the runner fails.
    stderr: Arc<Mutex<String>>,
    stderr_done: Option<JoinHandle<()>>,
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
    /// The runtime the runner says it is (`java`; for a user runner whatever it reports,
    /// kept beside its NAME).
    #[serde(default)]
    pub runtime: String,
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

/// The time limit of a request that processes no file (vectors, `info`), unless
/// `$CIPHERLAB_RUNNER_TIMEOUT` (seconds) says otherwise.
pub const BASE_LIMIT: Duration = Duration::from_secs(120);

/// The environment variable that sets [`BASE_LIMIT`] (whole seconds).
pub const TIMEOUT_ENV: &str = "CIPHERLAB_RUNNER_TIMEOUT";

/// The slowest a runner is assumed to process bytes in a `time` request: 1 µs per byte
/// (1 MB/s, a hundred times slower than any runner's AES here). A pure-Python cipher is
/// slower still, but only ever timed on short messages, which the base limit covers.
const NS_PER_BYTE: u64 = 1_000;

/// The slowest a runner is assumed to load, protect or unprotect, and save a PDF in a `pdf`
/// request: 10 µs per byte of the input file (PDFBox 3 took ~40 ns warm, ~170 ns cold, here).
const PDF_NS_PER_BYTE: u64 = 10_000;

/// How long a `"warmup":"steady"` may take (PROTOCOL.md: at most 30 s; the JVM's longer).
const STEADY_LIMIT: Duration = Duration::from_secs(300);

/// The longest a runner may take to answer `request`: `base`, plus for a `time` request
/// its calls (verification, warm-up, samples, and the decryption's own encryption) at
/// [`NS_PER_BYTE`] over the input file's size, plus [`STEADY_LIMIT`] for a steady
/// warm-up; for Java's `stream`, 10 ms per record per round; for `asym`, 10 s per key
/// pair and 1 s per round; for Java's `pdf` (JMH), per fork 10 s for the JVM and per
/// iteration (warm-up and measured) `iteration_ms` (default 200) plus one operation, and
/// two operations more (the untimed one and its check), an operation at [`PDF_NS_PER_BYTE`]
/// over the input's size plus 1 s.
pub fn time_limit(request: &Value, base: Duration) -> Duration {
    let count = |k: &str| request.get(k).and_then(Value::as_u64).unwrap_or(0);
    let rounds = count("reps") + count("warmup") + 2;
    let steady = if request.get("warmup").and_then(Value::as_str) == Some("steady") {
        STEADY_LIMIT
    } else {
        Duration::ZERO
    };
    let more = match request.get("op").and_then(Value::as_str) {
        Some("time") => {
            let size = request
                .get("input")
                .and_then(Value::as_str)
                .and_then(|p| std::fs::metadata(p).ok())
                .map_or(0, |m| m.len());
            Duration::from_nanos(rounds.saturating_mul(size).saturating_mul(NS_PER_BYTE)) + steady
        }
        Some("stream") => Duration::from_millis(rounds.saturating_mul(count("objects")) * 10),
        Some("pdf") => {
            let size = request
                .get("input")
                .and_then(Value::as_str)
                .and_then(|p| std::fs::metadata(p).ok())
                .map_or(0, |m| m.len());
            let op =
                Duration::from_nanos(size.saturating_mul(PDF_NS_PER_BYTE)) + Duration::from_secs(1);
            let iterations = count("warmup_iterations") + count("iterations");
            let iteration_ms = request
                .get("iteration_ms")
                .and_then(Value::as_u64)
                .unwrap_or(200);
            let per_fork = Duration::from_secs(10).saturating_add(
                (Duration::from_millis(iteration_ms).saturating_add(op))
                    .saturating_mul(u32::try_from(iterations).unwrap_or(u32::MAX)),
            );
            per_fork
                .saturating_mul(u32::try_from(count("forks").max(1)).unwrap_or(u32::MAX))
                .saturating_add(op * 2)
        }
        Some("asym") => {
            Duration::from_secs(count("keygen_reps").saturating_mul(10))
                + Duration::from_secs(rounds)
        }
        _ => Duration::ZERO,
    };
    base.saturating_add(more)
}

/// [`BASE_LIMIT`], or `$CIPHERLAB_RUNNER_TIMEOUT` seconds.
fn base_limit() -> Duration {
    std::env::var(TIMEOUT_ENV)
        .ok()
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|s| *s > 0.0 && s.is_finite())
        .map_or(BASE_LIMIT, Duration::from_secs_f64)
}

/// The last lines of a runner's stderr that an error carries (at most 20 lines, 2,000
/// characters).
fn last_lines(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let tail = lines[lines.len().saturating_sub(20)..].join("\n");
    let n = tail.chars().count();
    if n <= 2000 {
        tail
    } else {
        let kept: String = tail.chars().skip(n - 2000).collect();
        format!("…{kept}")
    }
}

/// What went wrong with one request.
enum Failure {
    /// No answer within the limit.
    Late(Duration),
    /// Anything else.
    Other(String),
}

impl Runner {
    /// The runner of `runtime` in the platforms directory `dir` (not started yet): any
    /// folder with a `run`; [`crate::ready`] starts one of the list's and asks its `info`.
    pub fn new(dir: &Path, runtime: &str) -> Result<Runner, Error> {
        let run = dir.join(runtime).join("run");
        if !run.is_file() {
            return Err(Error::NoRunner(run));
        }
        Ok(Runner::command(runtime, run, Vec::new(), None))
    }

    /// A runner of the user's (not started yet): its command, and its provider names
    /// checked against those it must not take (see [`Runner::info`]).
    pub fn user(u: &UserRunner) -> Runner {
        let (program, args) = u.argv.split_first().map_or_else(
            || (PathBuf::new(), Vec::new()),
            |(p, a)| (PathBuf::from(p), a.to_vec()),
        );
        Runner::command(&u.name, program, args, Some(crate::reserved_providers()))
    }

    fn command(
        name: &str,
        program: PathBuf,
        args: Vec<String>,
        reserved: Option<Vec<String>>,
    ) -> Runner {
        Runner {
            program,
            args,
            name: name.to_string(),
            reserved,
            aliases: Mutex::new(BTreeMap::new()),
            base_limit: base_limit(),
            session: Mutex::new(None),
        }
    }

    /// The same runner with another base time limit ([`time_limit`]; default
    /// [`BASE_LIMIT`] or `$CIPHERLAB_RUNNER_TIMEOUT`).
    pub fn with_base_limit(mut self, base: Duration) -> Runner {
        self.base_limit = base;
        self
    }

    fn spawn(&self) -> Result<Session, Error> {
        let spawned = Instant::now();
        let mut child = Command::new(&self.program)
            .args(&self.args)
            .envs(crate::java_providers::runner_env(&self.name))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| Error::Start {
                path: self.program.clone(),
                source,
            })?;
        let (Some(stdin), Some(stdout), Some(mut stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Error::Start {
                path: self.program.clone(),
                source: std::io::Error::other("no pipes to the runner"),
            });
        };
        let text = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&text);
        let stderr_done = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut t = sink.lock().unwrap_or_else(|p| p.into_inner());
                t.push_str(&String::from_utf8_lossy(&buf[..n]));
                // Keep the end: the last lines are what an error shows.
                if t.len() > 64 << 10 {
                    let cut = t.len() - (32 << 10);
                    let cut = (cut..t.len()).find(|&i| t.is_char_boundary(i)).unwrap_or(0);
                    t.drain(..cut);
                }
            }
        });
        let (tx, answers) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut stdout = BufReader::new(stdout);
            loop {
                let mut line = String::new();
                match stdout.read_line(&mut line) {
                    Ok(0) => break,
                    Ok(_) => {
                        if tx.send(Ok(line)).is_err() {
                            break;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        break;
                    }
                }
            }
        });
        Ok(Session {
            child,
            stdin: BufWriter::new(stdin),
            answers,
            stderr: text,
            stderr_done: Some(stderr_done),
            spawned,
            answered: 0,
        })
    }

    /// Sends `requests` (one JSON value each) and returns one answer per request, in
    /// order, one request at a time (a runner answers a line before it reads the next,
    /// so neither pipe can fill). The process is started if it is not running; if it
    /// fails or does not answer a request within its time limit ([`time_limit`]), it is
    /// ended (killed, when late) and the error carries the last lines of its stderr.
    pub fn exchange(&self, requests: &[Value]) -> Result<Vec<Value>, Error> {
        let mut slot = self
            .session
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if slot.is_none() {
            *slot = Some(self.spawn()?);
        }
        let aliases = self
            .aliases
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone();
        let mut answers = Vec::with_capacity(requests.len());
        for request in requests {
            let Some(session) = slot.as_mut() else {
                break;
            };
            let limit = time_limit(request, self.base_limit);
            match session.ask(&translate(request, &aliases, false), limit) {
                Ok(answer) => answers.push(translate(&answer, &aliases, true)),
                Err(failure) => {
                    let late = matches!(failure, Failure::Late(_));
                    let cause = match failure {
                        Failure::Late(d) => format!(
                            "no answer within its time limit of {:.0} s (${TIMEOUT_ENV} sets the base, now {:.0} s)",
                            d.as_secs_f64(),
                            self.base_limit.as_secs_f64()
                        ),
                        Failure::Other(e) => e,
                    };
                    let (status, errors) = slot.take().map(|s| s.end(late)).unwrap_or_default();
                    return Err(Error::Exchange {
                        runtime: self.name.clone(),
                        cause,
                        answered: answers.len(),
                        asked: requests.len(),
                        status,
                        stderr: last_lines(&errors),
                    });
                }
            }
        }
        Ok(answers)
    }

    /// The runner's `info`: runtime version and providers. The request carries the probe
    /// set ([`crate::info_request`]). A user runner's provider named as a built-in
    /// runner's or one of cipherlab's own ([`crate::reserved_providers`]) is shown as
    /// `NAME-provider` from here on (requests are translated back).
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
        if let Some(reserved) = &self.reserved {
            let mut aliases = self
                .aliases
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            aliases.clear();
            for p in &mut info.providers {
                if reserved.contains(&p.name) {
                    let shown = format!("{}-{}", self.name, p.name);
                    aliases.insert(shown.clone(), std::mem::replace(&mut p.name, shown));
                }
            }
        }
        Ok(info)
    }
}

/// `value` with its `provider` named as the runner knows it (`back`: as shown).
fn translate(value: &Value, aliases: &BTreeMap<String, String>, back: bool) -> Value {
    let Some(p) = value.get("provider").and_then(Value::as_str) else {
        return value.clone();
    };
    let renamed = if back {
        aliases
            .iter()
            .find(|(_, own)| *own == p)
            .map(|(shown, _)| shown)
    } else {
        aliases.get(p)
    };
    match renamed {
        Some(name) => {
            let mut v = value.clone();
            v["provider"] = Value::String(name.clone());
            v
        }
        None => value.clone(),
    }
}

impl Session {
    /// Writes one request and reads its answer, waiting at most `limit`.
    fn ask(&mut self, request: &Value, limit: Duration) -> Result<Value, Failure> {
        let line = request.to_string();
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.write_all(b"\n"))
            .and_then(|()| self.stdin.flush())
            .map_err(|e| Failure::Other(format!("writing a request: {e}")))?;
        let answer = match self.answers.recv_timeout(limit) {
            Ok(Ok(answer)) => answer,
            Ok(Err(e)) => return Err(Failure::Other(format!("reading an answer: {e}"))),
            Err(RecvTimeoutError::Timeout) => return Err(Failure::Late(limit)),
            Err(RecvTimeoutError::Disconnected) => {
                return Err(Failure::Other("the runner ended".into()));
            }
        };
        self.answered += 1;
        serde_json::from_str(&answer)
            .map_err(|e| Failure::Other(format!("an answer is not JSON: {answer:.200}: {e}")))
    }

    /// Closes the runner's input (it exits at the end of its input), waits for it a
    /// little (not at all when `kill`), kills it if it does not exit, and returns how it
    /// ended and its stderr.
    fn end(self, kill: bool) -> (String, String) {
        let Session {
            mut child,
            stdin,
            stderr,
            stderr_done,
            ..
        } = self;
        drop(stdin);
        let deadline = Instant::now() + if kill { Duration::ZERO } else { EXIT_GRACE };
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break s.to_string(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Ok(None) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break if kill {
                        "killed: it did not answer in time".to_string()
                    } else {
                        "killed: it did not exit when its input closed".to_string()
                    };
                }
                Err(e) => break format!("cannot wait for it: {e}"),
            }
        };
        // The stderr pipe closes when the process ends (unless a child of its own keeps
        // it open): wait for the last lines a little, never for ever.
        if let Some(h) = stderr_done {
            let until = Instant::now() + Duration::from_secs(1);
            while !h.is_finished() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let errors = stderr.lock().unwrap_or_else(|p| p.into_inner()).clone();
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
            s.end(false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_time_request_may_take_longer_the_more_bytes_it_processes() {
        let dir = std::env::temp_dir().join(format!("cipherlab-limit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_default();
        let file = dir.join("1mb.bin");
        std::fs::write(&file, vec![0u8; 1_000_000]).unwrap_or_default();
        let base = Duration::from_secs(120);
        assert_eq!(time_limit(&json!({"op": "encrypt"}), base), base);
        let time = json!({"op": "time", "input": file, "reps": 10, "warmup": 8});
        // (10 + 8 + 2) calls x 1 MB at 1 µs per byte.
        assert_eq!(time_limit(&time, base), base + Duration::from_secs(20));
        let steady = json!({"op": "time", "input": file, "reps": 10, "warmup": "steady"});
        assert_eq!(
            time_limit(&steady, base),
            base + Duration::from_secs(12) + STEADY_LIMIT
        );
        // An operation on 1 MB: 10 s + 1 s; 2 forks of 10 s + 15 iterations of 1 s plus
        // one operation; and the untimed operation and its check.
        let pdf = json!({"op": "pdf", "input": file, "forks": 2, "warmup_iterations": 5,
            "iterations": 10, "iteration_ms": 1000});
        assert_eq!(
            time_limit(&pdf, base),
            base + Duration::from_secs(2 * (10 + 15 * 12) + 22)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_error_keeps_the_last_lines_of_stderr() {
        let text: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let kept = last_lines(&text);
        assert!(
            kept.starts_with("line 11\n") && kept.ends_with("line 30"),
            "{kept}"
        );
    }
}
