//! The other runtimes' figures: the files written once, each present runner proven on the
//! planned algorithms, then asked to time them (platforms/PROTOCOL.md, `time`), its raw
//! samples summarized by the harness. Start-up, the cold first call and the warm-up come
//! back apart from the samples and go into their own table; a runtime that is not
//! installed is listed with the command that installs it, never an error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use cipherlab_ciphers::CipherSpec;
use cipherlab_harness::{ExternalTimer, Settings};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{DATA, Job, bench_id};
use crate::corpus;
use crate::studies::Elsewhere;
use crate::studies::inputs::CORPUS_SEED;
use cipherlab_platforms::conformance::{TestRng, Verdict, check_runtime};
use cipherlab_platforms::{
    Entrant, Runner, UserRunner, cipherlab_ciphertext, entrants, platforms_dir,
};
use cipherlab_results::artifact::table::{Table, int, num, text};
use cipherlab_results::id::{BenchId, Measurement, Runtime};
use cipherlab_results::ranking;

/// Seed of the conformance vectors run before timing (fixed: a run can be repeated).
const CONFORMANCE_SEED: u64 = 1;

/// The folder of the files every runner reads, removed when the run is done.
struct Files {
    dir: PathBuf,
}

impl Files {
    /// Writes one seeded file per size (the same bytes cipherlab's own figures use).
    fn write(sizes: &[u64]) -> Result<Files, String> {
        // One folder per call: two studies (or two tests) in one process must not share it.
        static CALLS: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "cipherlab-platforms-{}-{}",
            std::process::id(),
            CALLS.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let files = Files { dir };
        for &size in sizes {
            let path = files.path(size);
            let tmp = path.with_extension("tmp");
            std::fs::write(&tmp, corpus::generate(DATA, size as usize, CORPUS_SEED))
                .and_then(|()| std::fs::rename(&tmp, &path))
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(files)
    }

    fn path(&self, size: u64) -> PathBuf {
        self.dir.join(format!("{size}.bin"))
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
}

/// Times every request on `runner`, then asks again for the figures still undecided
/// against a neighbour (`ranking::undecided`), within `budget`, pooling the samples.
/// A re-asked request warms up with its job's minimum count only: the process is warm.
fn time_all(
    runner: &Runner,
    requests: &[Request],
    study: &'static str,
    runtime: &str,
    settings: &Settings,
    budget: Duration,
) -> Timed {
    let mut timed = Timed {
        measurements: Vec::new(),
        paid: BTreeMap::new(),
        errors: Vec::new(),
        extra: ExtraPasses::default(),
    };
    // Per request: its identifier, clock and samples so far (`None`: refused or failed).
    let mut pooled: Vec<Option<(BenchId, String, Vec<u64>)>> = Vec::new();
    let bodies: Vec<Value> = requests.iter().map(|r| r.json.clone()).collect();
    let answers = match runner.exchange(&bodies) {
        Ok(a) => a,
        Err(e) => {
            timed.errors.push(format!("{runtime}: {e:#}"));
            return timed;
        }
    };
    for (r, a) in requests.iter().zip(&answers) {
        let cost = timed.paid.entry(r.provider.clone()).or_default();
        pooled.push(match absorb(r, a, study, runtime) {
            Ok(p) => {
                cost.add(a);
                Some(p)
            }
            Err(e) => {
                cost.errors += 1;
                timed.errors.push(e);
                None
            }
        });
    }
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
        let bodies: Vec<Value> = again.iter().map(|&i| rewarm(&requests[i])).collect();
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
        "encrypt" => r.json["expect"].as_str().map(str::to_string),
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
    let samples: Vec<u64> = a["samples_ns"]
        .as_array()
        .map(|v| v.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default();
    let clock = a["clock"].as_str().unwrap_or("unknown clock").to_string();
    let id = bench_id(study, &r.spec, &r.provider, runtime, r.phase, r.size)
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
            Some(requests[i].size),
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
    let mut sizes: Vec<u64> = jobs.iter().flat_map(|j| j.sizes.clone()).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let files = Files::write(&sizes)?;
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
    for r in target.runtimes {
        cipherlab_platforms::runtime(r).map_err(|e| e.to_string())?;
    }
    // The list's runtimes (those of the target), then every runner of the user's, which
    // joins every study that times runners; its figures carry its NAME as their runtime.
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
        let (runner, info) = match who.ready(&dir) {
            Ok(ready) => ready,
            Err(not) => {
                absent.row(vec![text(not.runtime), text(not.why), text(not.fix)]);
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
        let only = |name: &str| wanted.iter().any(|w| w == name);
        let verdicts = match check_runtime(&runner, &info, CONFORMANCE_SEED, true, &only) {
            Ok(v) => v,
            Err(e) => {
                errors.push(format!("{}: the runner failed on the vectors: {e:#}", name));
                continue;
            }
        };
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
        if let Err(e) = timing.info() {
            errors.push(format!(
                "{name}: the timing process did not answer info: {e}"
            ));
            continue;
        }
        let left = list.len().saturating_sub(index).max(1) as u32;
        let share = target.extra.saturating_sub(extra_spent) / left;
        let timed = time_all(&timing, &requests, study, name, settings, share);
        extra_spent += Duration::from_secs_f64(timed.extra.seconds);
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
        t.note =
            "Timing requests a runner refused or could not finish; no figure was kept for them."
                .into();
        out.artifacts
            .push(t.artifact(study, "runner-errors", "Runner errors"));
    }
    Ok(out)
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
        let provs = if target.all_providers {
            &provs[..]
        } else {
            &provs[..1]
        };
        let key = rng.bytes(spec.key_len());
        let iv = rng.bytes(spec.iv_len());
        let iv_field = if spec.is_aead() { "nonce" } else { "iv" };
        for &size in &job.sizes {
            let path = files.path(size);
            let expect = hex::encode(Sha256::digest(
                cipherlab_ciphertext(spec, &key, &iv, &read(&path)?).map_err(|e| e.to_string())?,
            ));
            for provider in provs {
                for &phase in target.phases {
                    let mut json = json!({
                        "op": "time", "alg": spec.to_string(), "provider": provider,
                        "key": hex::encode(&key), "direction": phase,
                        "input": path, "reps": job.reps, "warmup": job.warmup_calls(size),
                        "reuse": target.reuse && !spec.is_aead(),
                    });
                    if let Some(o) = json.as_object_mut() {
                        if spec.iv_len() > 0 {
                            o.insert(iv_field.into(), hex::encode(&iv).into());
                        }
                        if phase == "encrypt" {
                            o.insert("expect".into(), expect.clone().into());
                        }
                    }
                    out.push(Request {
                        spec: *spec,
                        provider: provider.clone(),
                        phase,
                        size,
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
