//! The other runtimes' figures: the files written once, each present runner proven on the
//! planned algorithms, then asked to time them (platforms/PROTOCOL.md, `time`), its raw
//! samples summarized by the harness. Start-up, the cold first call and the warm-up come
//! back apart from the samples and go into their own table; a runtime that is not
//! installed is listed with the command that installs it, never an error.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use cipherlab_ciphers::CipherSpec;
use cipherlab_harness::{ExternalTimer, Settings};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{Job, bench_id};
use crate::studies::Elsewhere;
use crate::studies::inputs::Input;
use cipherlab_platforms::conformance::{ProviderResult, TestRng, Verdict, check_runtime};
use cipherlab_platforms::{
    Entrant, NotReady, Runner, UserRunner, cipherlab_ciphertext, entrants, platforms_dir,
};
use cipherlab_results::artifact::table::{Table, int, num, text};
use cipherlab_results::id::{BenchId, Measurement, Runtime};
use cipherlab_results::ranking;

/// The piece size of a chunked `time` request (PROTOCOL.md, `chunk`).
const CHUNK: u64 = 1 << 20;

/// Seed of the conformance vectors run before timing (fixed: a run can be repeated).
const CONFORMANCE_SEED: u64 = 1;

/// The folder of the files every runner reads, removed when the run is done.
struct Files {
    dir: PathBuf,
    /// The inputs written, in the order of their file names (`0.bin`, `1.bin`, ...).
    written: Vec<Input>,
}

impl Files {
    /// Writes each distinct input once (the same bytes cipherlab's own figures use).
    fn write(inputs: &[&Input]) -> Result<Files, String> {
        // One folder per call: two studies (or two tests) in one process must not share it.
        static CALLS: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "cipherlab-platforms-{}-{}",
            std::process::id(),
            CALLS.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut files = Files {
            dir,
            written: Vec::new(),
        };
        for &input in inputs {
            if files.written.contains(input) {
                continue;
            }
            let path = files.dir.join(format!("{}.bin", files.written.len()));
            let tmp = path.with_extension("tmp");
            let bytes = input.load().map_err(|e| e.to_string())?;
            std::fs::write(&tmp, &bytes[..])
                .and_then(|()| std::fs::rename(&tmp, &path))
                .map_err(|e| format!("{}: {e}", path.display()))?;
            files.written.push(input.clone());
        }
        Ok(files)
    }

    fn path(&self, input: &Input) -> Result<PathBuf, String> {
        let i = self
            .written
            .iter()
            .position(|w| w == input)
            .ok_or_else(|| format!("{} ({} B) was not written", input.label, input.size))?;
        Ok(self.dir.join(format!("{i}.bin")))
    }
}

impl Drop for Files {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One timing request and what its answer becomes.
struct Request {
    spec: CipherSpec,
    provider: String,
    phase: &'static str,
    size: u64,
    /// The input's label (the figure's `data_type`).
    label: String,
    json: Value,
    /// The warm-up calls when the request is asked again in the same warm process.
    rewarm_calls: u64,
}

/// Whose figures a study asks the runners for, and how.
pub(crate) struct Target {
    /// The study the figures belong to.
    pub study: &'static str,
    /// Only these runtimes (empty: every runtime with a runner).
    pub runtimes: &'static [&'static str],
    /// Every provider that agreed, or only each runtime's first.
    pub all_providers: bool,
    /// `encrypt`, `decrypt`.
    pub phases: &'static [&'static str],
    /// Keep the keyed cipher between calls (PROTOCOL.md, `reuse`), except for AEADs: the
    /// JCA refuses a second encryption under one key and nonce.
    pub reuse: bool,
    /// Time for more samples of undecided figures, shared by the runtimes.
    pub extra: Duration,
    /// Warm each cipher up fully on its first input only (per provider and direction);
    /// its later inputs, in the same warm process, with `min_warmup_calls`.
    pub warm_once: bool,
    /// Inputs larger than this are sent with `chunk` ([`CHUNK`]): the runner streams
    /// them through the cipher instead of holding input and output whole.
    pub chunk_above: Option<u64>,
    /// Only these providers (`--provider`; empty: as `all_providers` says).
    pub providers: Vec<String>,
    /// At most this long for the planned requests, shared by the runtimes (`None`: no
    /// limit). The requests not reached are counted and said, never silently dropped.
    pub budget: Option<Duration>,
}

/// The most extra passes over one runtime's undecided figures.
const MAX_EXTRA_PASSES: u32 = 8;

/// What the extra passes over one runtime did.
#[derive(Default)]
struct ExtraPasses {
    passes: u64,
    figures: u64,
    requests: u64,
    seconds: f64,
    undecided: u64,
}

/// One runtime's figures, what it paid apart from them, its refusals.
struct Timed {
    measurements: Vec<Measurement>,
    paid: BTreeMap<String, Paid>,
    errors: Vec<String>,
    extra: ExtraPasses,
    /// Requests not asked because the planned budget was spent.
    skipped: u64,
    /// How long the planned requests took.
    planned: Duration,
    /// Providers that could not reuse a keyed cipher: their figures include the key
    /// schedule in every call.
    keyed_per_call: BTreeSet<String>,
}

/// Times every request on `runner` (those that fit in `planned_budget`, when there is
/// one, in order; the rest are counted as skipped), then asks again for the figures still undecided
/// against a neighbour (`ranking::undecided`), within `budget`, pooling the samples.
/// A re-asked request warms up with its job's minimum count only: the process is warm.
fn time_all(
    runner: &Runner,
    requests: &[Request],
    study: &'static str,
    runtime: &str,
    settings: &Settings,
    planned_budget: Option<Duration>,
    budget: Duration,
) -> Timed {
    let mut timed = Timed {
        measurements: Vec::new(),
        paid: BTreeMap::new(),
        errors: Vec::new(),
        extra: ExtraPasses::default(),
        skipped: 0,
        planned: Duration::ZERO,
        keyed_per_call: BTreeSet::new(),
    };
    // Per request: its identifier, clock and samples so far (`None`: refused, failed or
    // not reached within the budget).
    let mut pooled: Vec<Option<(BenchId, String, Vec<u64>)>> = Vec::new();
    let planned_started = Instant::now();
    let deadline = planned_budget.map(|b| planned_started + b);
    for r in requests {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            timed.skipped += 1;
            pooled.push(None);
            continue;
        }
        let mut body = keyed_per_call(&r.json, &r.provider, &timed.keyed_per_call);
        let mut answer = match ask(runner, &body) {
            Ok(a) => a,
            Err(e) => {
                timed.errors.push(format!("{runtime}: {e}"));
                return timed;
            }
        };
        // A runtime that cannot keep a keyed cipher between calls (PROTOCOL.md, `reuse`)
        // is asked again with the key schedule in every call, and the run says so.
        let refused_reuse = answer["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("reuse unsupported"));
        if refused_reuse && body["reuse"] == json!(true) {
            timed.keyed_per_call.insert(r.provider.clone());
            body = keyed_per_call(&r.json, &r.provider, &timed.keyed_per_call);
            answer = match ask(runner, &body) {
                Ok(a) => a,
                Err(e) => {
                    timed.errors.push(format!("{runtime}: {e}"));
                    return timed;
                }
            };
        }
        let cost = timed.paid.entry(r.provider.clone()).or_default();
        pooled.push(match absorb(r, &answer, study, runtime) {
            Ok(p) => {
                cost.add(&answer);
                Some(p)
            }
            Err(e) => {
                cost.errors += 1;
                timed.errors.push(e);
                None
            }
        });
    }
    timed.planned = planned_started.elapsed();
    let started = Instant::now();
    let mut given = vec![false; requests.len()];
    let mut summarized = summarize(&pooled, requests, settings, &mut timed.errors);
    while timed.extra.passes < u64::from(MAX_EXTRA_PASSES) {
        let undecided: Vec<usize> = ranking::undecided(&summarized.0)
            .into_iter()
            .map(|i| summarized.1[i])
            .collect();
        // As many as fit in what is left, each costing its calls (samples, warm-up and
        // the verification call) at its median so far, plus a millisecond of protocol.
        let mut left = budget.saturating_sub(started.elapsed()).as_secs_f64();
        let mut again: Vec<usize> = Vec::new();
        for (&i, m) in summarized.1.iter().zip(&summarized.0) {
            if !undecided.contains(&i) {
                continue;
            }
            let calls = m.summary.n as f64 + requests[i].rewarm_calls as f64 + 1.0;
            let cost = calls * m.summary.median * 1e-9 + 1e-3;
            if cost <= left {
                left -= cost;
                again.push(i);
            }
        }
        if again.is_empty() {
            break;
        }
        let bodies: Vec<Value> = again
            .iter()
            .map(|&i| {
                let r = &requests[i];
                keyed_per_call(&rewarm(r), &r.provider, &timed.keyed_per_call)
            })
            .collect();
        let answers = match runner.exchange(&bodies) {
            Ok(a) => a,
            Err(e) => {
                timed
                    .errors
                    .push(format!("{runtime} (extra samples): {e:#}"));
                break;
            }
        };
        timed.extra.passes += 1;
        timed.extra.requests += again.len() as u64;
        for (&i, a) in again.iter().zip(&answers) {
            if !given[i] {
                given[i] = true;
                timed.extra.figures += 1;
            }
            let r = &requests[i];
            match (absorb(r, a, study, runtime), pooled[i].as_mut()) {
                (Ok((_, _, more)), Some(p)) => p.2.extend(more),
                (Err(e), _) => timed.errors.push(format!("{e} (extra samples)")),
                (Ok(_), None) => {}
            }
        }
        summarized = summarize(&pooled, requests, settings, &mut Vec::new());
    }
    timed.extra.seconds = started.elapsed().as_secs_f64();
    // What is still undecided after the last pass (the loop counted before it).
    timed.extra.undecided = ranking::undecided(&summarized.0).len() as u64;
    timed.measurements = summarized.0;
    timed
}

/// One request's answer from `runner`.
fn ask(runner: &Runner, body: &Value) -> Result<Value, String> {
    match runner.exchange(std::slice::from_ref(body)) {
        Ok(mut a) if a.len() == 1 => Ok(a.remove(0)),
        Ok(_) => Err("the runner gave no answer".into()),
        Err(e) => Err(format!("{e:#}")),
    }
}

/// `json` with `reuse` off when `provider` cannot reuse a keyed cipher.
fn keyed_per_call(json: &Value, provider: &str, keyed_per_call: &BTreeSet<String>) -> Value {
    let mut json = json.clone();
    if keyed_per_call.contains(provider) {
        json["reuse"] = json!(false);
    }
    json
}

/// A request asked again: the same call, warmed up with its minimum count only.
fn rewarm(r: &Request) -> Value {
    let mut json = r.json.clone();
    json["warmup"] = json!(r.rewarm_calls);
    json
}

/// One answer's identifier, clock and samples, or why it gave none.
fn absorb(
    r: &Request,
    a: &Value,
    study: &'static str,
    runtime: &str,
) -> Result<(BenchId, String, Vec<u64>), String> {
    if let Some(e) = a.get("error") {
        return Err(format!(
            "{runtime} {} {} {} B {}: {e}",
            r.provider, r.spec, r.size, r.phase
        ));
    }
    // The last timed call's output must be what the verification call's was
    // (PROTOCOL.md, `time`): a context that breaks after its first use is not timed.
    let expected = match r.phase {
        // `init`: the last cipher keyed encrypts the input once, untimed.
        "encrypt" | "init" => r.json["expect"].as_str().map(str::to_string),
        _ => r.json["input"].as_str().map(input_digest).transpose()?,
    };
    if let Some(want) = expected {
        let got = a["digest"].as_str().unwrap_or("");
        if !got.eq_ignore_ascii_case(&want) {
            return Err(format!(
                "{runtime} {} {} {} B {}: digest mismatch after timing: the last timed output's \
                 SHA-256 is {} where {want} was expected; figure refused",
                r.provider,
                r.spec,
                r.size,
                r.phase,
                if got.is_empty() { "missing" } else { got }
            ));
        }
    }
    // One whole number of nanoseconds per timed call, as many as were asked: a runner
    // that sends anything else gets no figure, never one of fewer samples.
    let raw = a["samples_ns"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let samples: Vec<u64> = raw.iter().filter_map(Value::as_u64).collect();
    let asked = r.json["reps"].as_u64().unwrap_or(0);
    if samples.len() != raw.len() || samples.len() as u64 != asked {
        return Err(format!(
            "{runtime} {} {} {} B {}: {} whole-nanosecond samples among {} where {asked} were asked; figure refused",
            r.provider,
            r.spec,
            r.size,
            r.phase,
            samples.len(),
            raw.len()
        ));
    }
    let clock = a["clock"].as_str().unwrap_or("unknown clock").to_string();
    // A key schedule has no input: its figure is keyed as cipherlab's own `init` is.
    let (size, label) = match r.phase {
        "init" => (0, "none"),
        _ => (r.size, r.label.as_str()),
    };
    let id = bench_id(study, &r.spec, &r.provider, runtime, r.phase, size, label)
        .map_err(|e| format!("{runtime} {} {}: {e}", r.provider, r.spec))?;
    Ok((id, clock, samples))
}

/// The SHA-256 (hex) of the file at `path`: what a decryption's last output must hash to.
/// Kept per path, since every runtime decrypts the same files.
fn input_digest(path: &str) -> Result<String, String> {
    static SEEN: std::sync::Mutex<BTreeMap<String, String>> =
        std::sync::Mutex::new(BTreeMap::new());
    let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(d) = seen.get(path) {
        return Ok(d.clone());
    }
    let d = hex::encode(Sha256::digest(read(Path::new(path))?));
    seen.insert(path.to_string(), d.clone());
    Ok(d)
}

/// The measurements of the pooled samples, and for each the index of its request.
fn summarize(
    pooled: &[Option<(BenchId, String, Vec<u64>)>],
    requests: &[Request],
    settings: &Settings,
    errors: &mut Vec<String>,
) -> (Vec<Measurement>, Vec<usize>) {
    let mut ms = Vec::new();
    let mut index = Vec::new();
    for (i, p) in pooled.iter().enumerate() {
        let Some((id, clock, samples)) = p else {
            continue;
        };
        match Measurement::from_external_samples(
            id.clone(),
            samples,
            &ExternalTimer::named(clock),
            (requests[i].phase != "init").then_some(requests[i].size),
            settings,
        ) {
            Ok(m) => {
                ms.push(m);
                index.push(i);
            }
            Err(e) => errors.push(format!(
                "{} {} {}: {e}",
                id.runtime, requests[i].provider, requests[i].spec
            )),
        }
    }
    (ms, index)
}

/// The figures of `jobs` on every present runtime of `target`, the tables of what was
/// missing, proven and paid apart (start-up, warm-up), and the versions for the machine
/// block.
pub(crate) fn measure(
    jobs: &[Job],
    target: &Target,
    runners: &[UserRunner],
    settings: &Settings,
) -> Result<Elsewhere, String> {
    let dir = platforms_dir(None);
    let inputs: Vec<&Input> = jobs.iter().flat_map(|j| &j.inputs).collect();
    let files = Files::write(&inputs)?;
    let wanted: Vec<String> = jobs.iter().map(|j| j.spec.to_string()).collect();

    let mut out = Elsewhere::default();
    let mut absent = Table::new(&["runtime", "why", "install"]);
    let mut proven = Table::new(&["runtime", "provider", "library", "algorithm", "conformance"]);
    let mut costs = Table::new(&[
        "runtime",
        "provider",
        "start-up ms (spawn to info)",
        "runner start-up ms",
        "first (cold) call ms",
        "warm-up calls",
        "warm-up s",
        "figures",
        "not steady",
        "errors",
    ]);
    let mut errors: Vec<String> = Vec::new();
    let study = target.study;
    let mut extra = Table::new(&[
        "runtime",
        "extra passes",
        "figures given more samples",
        "extra requests",
        "extra s",
        "undecided at the end",
    ]);
    let mut extra_spent = Duration::ZERO;
    let mut planned_spent = Duration::ZERO;
    for r in target.runtimes {
        cipherlab_platforms::runtime(r).map_err(|e| e.to_string())?;
    }
    // The list's runtimes (those of the target), then every runner of the user's, which
    // joins every study that times runners; its figures carry its NAME as their runtime.
    // The budgets are shared among them.
    for u in runners {
        Runtime::declare(&u.name).map_err(|e| format!("runner {} ({}): {e}", u.name, u.from))?;
    }
    let list: Vec<Entrant<'_>> = entrants(runners)
        .into_iter()
        .filter(|e| {
            e.is_user() || target.runtimes.is_empty() || target.runtimes.contains(&e.name())
        })
        .collect();
    for (index, who) in list.iter().enumerate() {
        let name = who.name();
        let verdicts = match conformance(who, &dir, &wanted) {
            Ok(Proven::Decided(v)) => v,
            Ok(Proven::Absent(not)) => {
                absent.row(vec![text(not.runtime), text(not.why), text(not.fix)]);
                continue;
            }
            Err(e) => {
                errors.push(format!("{}: the runner failed on the vectors: {e:#}", name));
                continue;
            }
        };
        if let Some(p) = verdicts.first() {
            out.runtimes
                .insert(name.to_string(), p.runtime_version.clone());
        }
        // Providers that agreed, per algorithm, in the runner's order.
        let mut agreed: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for p in &verdicts {
            out.runtimes
                .insert(p.name.clone(), format!("{} {}", p.library, p.version));
            for (alg, v) in &p.results {
                proven.row(vec![
                    text(name),
                    text(&p.name),
                    text(format!("{} {}", p.library, p.version)),
                    text(alg),
                    text(v.word()),
                ]);
                if matches!(v, Verdict::Agree(_)) {
                    agreed.entry(alg.clone()).or_default().push(p.name.clone());
                }
            }
        }
        let requests = requests(jobs, target, &agreed, &files)?;
        if requests.is_empty() {
            continue;
        }
        // A process of its own for the timing, so its first call is cold as the table
        // says (the conformance vectors ran in the other one); then the budget's share
        // of this runtime for more samples where figures are still undecided.
        // It learns the probe set from its own `info` first (platforms/PROTOCOL.md), as
        // every runner process does before it is asked for a name with many key sizes.
        let timing = who.runner(&dir).map_err(|e| e.to_string())?;
        let info = match timing.info() {
            Ok(info) => info,
            Err(e) => {
                errors.push(format!(
                    "{name}: the timing process did not answer info: {e}"
                ));
                continue;
            }
        };
        out.runtimes.insert(
            name.to_string(),
            match who {
                Entrant::User(u) => format!(
                    "{} {} (a runner of the user's, {}: {})",
                    info.runtime,
                    info.version,
                    u.from,
                    u.command_line()
                ),
                Entrant::Listed(_) => info.version.clone(),
            },
        );
        let left = list.len().saturating_sub(index).max(1) as u32;
        let share = target.extra.saturating_sub(extra_spent) / left;
        let planned_share = target
            .budget
            .map(|b| b.saturating_sub(planned_spent) / left);
        let timed = time_all(
            &timing,
            &requests,
            study,
            name,
            settings,
            planned_share,
            share,
        );
        extra_spent += Duration::from_secs_f64(timed.extra.seconds);
        planned_spent += timed.planned;
        for p in &timed.keyed_per_call {
            errors.push(format!(
                "{name} {p} (reuse): its figures include the key schedule in every call: the \
                 runtime cannot keep a keyed cipher between calls (PROTOCOL.md, `reuse`), \
                 so they were timed with `reuse: false`; the study's own figures key once"
            ));
        }
        if timed.skipped > 0 {
            errors.push(format!(
                "{name} (not timed): {} of {} requests were not asked: the study's {:.0} s for \
                 other runtimes were spent (a larger scale gives more, --cipher or --provider asks fewer)",
                timed.skipped,
                requests.len(),
                target.budget.unwrap_or_default().as_secs_f64()
            ));
        }
        drop(timing);
        errors.extend(timed.errors);
        out.measurements.extend(timed.measurements);
        extra.row(vec![
            text(name),
            int(timed.extra.passes),
            int(timed.extra.figures),
            int(timed.extra.requests),
            num(timed.extra.seconds),
            int(timed.extra.undecided),
        ]);
        let paid = timed.paid;
        for (provider, c) in paid {
            costs.row(vec![
                text(name),
                text(provider),
                int(info.wall_startup_ms),
                num(info.startup_ns as f64 / 1e6),
                c.first_call_ns
                    .map_or(Value::Null, |ns| num(ns as f64 / 1e6)),
                int(c.warmup_calls),
                num(c.warmup_ns as f64 / 1e9),
                int(c.figures),
                int(c.not_steady),
                int(c.errors),
            ]);
        }
    }
    drop(files);

    absent.note = if absent.rows.is_empty() {
        "Every runtime with a runner was present.".into()
    } else {
        "Runtimes not timed in this run, and the command that installs each (`cipherlab platforms doctor` says the same)."
            .into()
    };
    proven.note = format!(
        "Conformance just before timing (`cipherlab platforms check --quick --seed {CONFORMANCE_SEED}`'s vectors, \
         the planned algorithms only): a provider is timed only for the algorithms it agreed on."
    );
    costs.note = "Paid apart from the samples: the runner's start-up (spawning the process to its `info` \
        answer; and the runner's own account, library loading), the cold first call of the provider's \
        first timed file (class loading, provider lookup, first key schedule), and the untimed warm-up \
        before the samples. `not steady`: figures whose last quarter of samples drifted more than 5% \
        from the quarter before."
        .into();
    out.artifacts
        .push(absent.artifact(study, "missing-runtimes", "Runtimes not present"));
    out.artifacts
        .push(proven.artifact(study, "conformance", "Conformance before timing"));
    out.artifacts.push(costs.artifact(
        study,
        "start-up-and-warm-up",
        "Start-up, first call and warm-up per runtime",
    ));
    if !extra.rows.is_empty() {
        extra.note = format!(
            "After the planned samples, the figures of a runtime that could not be ordered \
             against a neighbour (99% intervals overlapping, medians more than 5% apart) were \
             timed again in the same warm process and their samples pooled, pass after pass, \
             until none was left, {MAX_EXTRA_PASSES} passes were made, or the study's {:.0} s \
             were spent.",
            target.extra.as_secs_f64()
        );
        out.artifacts.push(extra.artifact(
            study,
            "extra-samples",
            "More samples for undecided figures",
        ));
    }
    if !errors.is_empty() {
        let mut t = Table::new(&["request", "error"]);
        for e in &errors {
            let (what, why) = e.split_once(": ").unwrap_or((e, ""));
            t.row(vec![text(what), text(why)]);
        }
        t.note = "Timing requests a runner refused or could not finish (no figure was kept for \
            them), requests a time budget left out (`not timed`), and figures timed otherwise \
            than asked (`reuse`)."
            .into();
        out.artifacts
            .push(t.artifact(study, "runner-errors", "Runner errors"));
    }
    Ok(out)
}

/// A runtime's conformance verdicts on some algorithms, or why it is not there.
enum Proven {
    Decided(Vec<ProviderResult>),
    Absent(NotReady),
}

/// The conformance verdicts of runner `who` on the algorithms `wanted`: decided once per
/// process and runner (by its name) (the vectors come from a fixed seed, so a second study would ask
/// the same questions and get the same answers), in a process of its own started here.
fn conformance(who: &Entrant<'_>, dir: &Path, wanted: &[String]) -> Result<Proven, String> {
    /// Per runtime: the algorithms already decided, and every provider's verdicts on them.
    type Decided = BTreeMap<String, (BTreeSet<String>, Vec<ProviderResult>)>;
    static DECIDED: Mutex<Decided> = Mutex::new(BTreeMap::new());
    let lock = || {
        DECIDED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    };
    let missing: Vec<String> = {
        let decided = lock();
        let done = decided.get(who.name()).map(|(algs, _)| algs);
        wanted
            .iter()
            .filter(|w| !done.is_some_and(|d| d.contains(*w)))
            .cloned()
            .collect()
    };
    if !missing.is_empty() {
        let (runner, info) = match who.ready(dir) {
            Ok(ready) => ready,
            Err(not) => return Ok(Proven::Absent(not)),
        };
        let only = |name: &str| missing.iter().any(|w| w == name);
        let fresh = check_runtime(&runner, &info, CONFORMANCE_SEED, true, &only)
            .map_err(|e| format!("{e:#}"))?;
        let mut decided = lock();
        let (algs, results) = decided.entry(who.name().to_string()).or_default();
        algs.extend(missing);
        // Another study (a test, in one process) may have decided some of them meanwhile:
        // each algorithm is kept once per provider.
        for f in fresh {
            match results.iter_mut().find(|r| r.name == f.name) {
                Some(r) => {
                    for (alg, v) in f.results {
                        if !r.results.iter().any(|(a, _)| *a == alg) {
                            r.results.push((alg, v));
                        }
                    }
                }
                None => results.push(f),
            }
        }
    }
    let decided = lock();
    let results = decided
        .get(who.name())
        .map(|(_, r)| r.clone())
        .unwrap_or_default();
    Ok(Proven::Decided(
        results
            .into_iter()
            .map(|mut p| {
                p.results.retain(|(alg, _)| wanted.contains(alg));
                p
            })
            .collect(),
    ))
}

/// What one provider paid outside the samples, summed over its requests.
#[derive(Default)]
struct Paid {
    first_call_ns: Option<u64>,
    warmup_calls: u64,
    warmup_ns: u64,
    figures: u64,
    not_steady: u64,
    errors: u64,
}

impl Paid {
    fn add(&mut self, answer: &Value) {
        if self.first_call_ns.is_none() {
            self.first_call_ns = answer["first_call_ns"].as_u64();
        }
        self.warmup_calls += answer["warmup_calls"].as_u64().unwrap_or(0);
        self.warmup_ns += answer["warmup_ns"].as_u64().unwrap_or(0);
        self.figures += 1;
        if answer["steady"] == json!(false) {
            self.not_steady += 1;
        }
    }
}

/// The timing requests for one runtime: every planned cipher and size, in the target's
/// directions, through the providers that agreed (or the first of them only).
fn requests(
    jobs: &[Job],
    target: &Target,
    agreed: &BTreeMap<String, Vec<String>>,
    files: &Files,
) -> Result<Vec<Request>, String> {
    let mut rng = TestRng(CONFORMANCE_SEED ^ u64::from_le_bytes(*b"timing!!"));
    let mut out = Vec::new();
    for job in jobs {
        let spec = &job.spec;
        let Some(provs) = agreed.get(&spec.to_string()) else {
            continue;
        };
        let provs: Vec<&String> = if !target.providers.is_empty() {
            provs
                .iter()
                .filter(|p| target.providers.contains(p))
                .collect()
        } else if target.all_providers {
            provs.iter().collect()
        } else {
            provs.iter().take(1).collect()
        };
        let key = rng.bytes(spec.key_len());
        let iv = rng.bytes(spec.iv_len());
        let iv_field = if spec.is_aead() { "nonce" } else { "iv" };
        let mut warmed: Vec<(&String, &str)> = Vec::new();
        for input in &job.inputs {
            let (size, path) = (input.size, files.path(input)?);
            let expect = hex::encode(Sha256::digest(
                cipherlab_ciphertext(spec, &key, &iv, read(&path)?).map_err(|e| e.to_string())?,
            ));
            for &provider in &provs {
                for &phase in target.phases {
                    let warmup = if target.warm_once && warmed.contains(&(provider, phase)) {
                        job.min_warmup_calls
                    } else {
                        warmed.push((provider, phase));
                        job.warmup_calls(size)
                    };
                    let mut json = json!({
                        "op": "time", "alg": spec.to_string(), "provider": provider,
                        "key": hex::encode(&key), "direction": phase,
                        "input": path, "reps": job.reps, "warmup": warmup,
                        "reuse": target.reuse && !spec.is_aead(),
                    });
                    if let Some(o) = json.as_object_mut() {
                        if spec.iv_len() > 0 {
                            o.insert(iv_field.into(), hex::encode(&iv).into());
                        }
                        if phase != "decrypt" {
                            o.insert("expect".into(), expect.clone().into());
                        }
                        // Files of hundreds of MB go through the cipher piece by piece,
                        // held once by the runner (PROTOCOL.md, `time`, `chunk`).
                        if phase != "init" && target.chunk_above.is_some_and(|above| size > above) {
                            o.insert("chunk".into(), CHUNK.into());
                        }
                    }
                    out.push(Request {
                        spec: *spec,
                        provider: provider.clone(),
                        phase,
                        size,
                        label: input.label.clone(),
                        json,
                        rewarm_calls: job.min_warmup_calls,
                    });
                }
            }
        }
    }
    Ok(out)
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}
