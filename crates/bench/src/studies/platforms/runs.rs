//! The other runtimes' figures: the files written once, each present runner proven on the
//! planned algorithms, then asked to time them (platforms/PROTOCOL.md, `time`), its raw
//! samples summarized by the harness. Start-up, the cold first call and the warm-up come
//! back apart from the samples and go into their own table; a runtime that is not
//! installed is listed with the command that installs it, never an error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use cipherlab_ciphers::{CipherSpec, providers};
use cipherlab_harness::{ExternalTimer, Settings};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{DATA, Job, bench_id};
use crate::artifact::table::{Table, int, num, text};
use crate::corpus;
use crate::platforms::conformance::{TestRng, Verdict, check_runtime};
use crate::platforms::{RUNTIMES, Runner, missing, platforms_dir};
use crate::studies::Elsewhere;
use crate::studies::inputs::CORPUS_SEED;

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
}

/// SHA-256 (hex) of cipherlab's output for `spec` on `pt`: the digest a runner's
/// verification call must match before it times anything.
fn expected_digest(spec: &CipherSpec, key: &[u8], iv: &[u8], pt: &[u8]) -> Result<String, String> {
    let mut c = providers::init(spec, key, None).map_err(|e| e.to_string())?;
    let mut buf = pt.to_vec();
    buf.resize(spec.output_len(pt.len()), 0);
    let n = c
        .encrypt(iv, &[], &mut buf, pt.len())
        .map_err(|e| e.to_string())?;
    Ok(hex::encode(Sha256::digest(&buf[..n])))
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
}

/// The figures of `jobs` on every present runtime of `target`, the tables of what was
/// missing, proven and paid apart (start-up, warm-up), and the versions for the machine
/// block.
pub(crate) fn measure(
    jobs: &[Job],
    target: &Target,
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
    for rt in RUNTIMES {
        if !target.runtimes.is_empty() && !target.runtimes.contains(&rt.name) {
            continue;
        }
        if let Some((why, fix)) = missing(rt, &dir) {
            absent.row(vec![text(rt.name), text(why), text(fix)]);
            continue;
        }
        let runner = Runner::new(&dir, rt.name).map_err(|e| format!("{e:#}"))?;
        let info = match runner.info() {
            Ok(i) => i,
            Err(e) => {
                absent.row(vec![
                    text(rt.name),
                    text(format!("{e:#}")),
                    text(format!("bash {}", dir.join("setup").display())),
                ]);
                continue;
            }
        };
        out.runtimes
            .insert(rt.name.to_string(), info.version.clone());
        let only = |name: &str| wanted.iter().any(|w| w == name);
        let verdicts = match check_runtime(&runner, &info, CONFORMANCE_SEED, true, &only) {
            Ok(v) => v,
            Err(e) => {
                errors.push(format!(
                    "{}: the runner failed on the vectors: {e:#}",
                    rt.name
                ));
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
                    text(rt.name),
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
        let bodies: Vec<Value> = requests.iter().map(|r| r.json.clone()).collect();
        let answers = match runner.exchange(&bodies) {
            Ok(a) => a,
            Err(e) => {
                errors.push(format!("{}: {e:#}", rt.name));
                continue;
            }
        };
        let mut paid: BTreeMap<String, Paid> = BTreeMap::new();
        for (r, a) in requests.iter().zip(&answers) {
            let cost = paid.entry(r.provider.clone()).or_default();
            if let Some(e) = a.get("error") {
                cost.errors += 1;
                errors.push(format!(
                    "{} {} {} {} B {}: {e}",
                    rt.name, r.provider, r.spec, r.size, r.phase
                ));
                continue;
            }
            let samples: Vec<u64> = a["samples_ns"]
                .as_array()
                .map(|v| v.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_default();
            let clock = a["clock"].as_str().unwrap_or("unknown clock");
            let id = match bench_id(study, &r.spec, &r.provider, rt.name, r.phase, r.size) {
                Ok(id) => id,
                Err(e) => {
                    cost.errors += 1;
                    errors.push(format!("{} {} {}: {e}", rt.name, r.provider, r.spec));
                    continue;
                }
            };
            match cipherlab_harness::Measurement::from_external_samples(
                id,
                &samples,
                &ExternalTimer::named(clock),
                Some(r.size),
                settings,
            ) {
                Ok(m) => out.measurements.push(m),
                Err(e) => {
                    cost.errors += 1;
                    errors.push(format!("{} {} {}: {e}", rt.name, r.provider, r.spec));
                    continue;
                }
            }
            cost.add(a);
        }
        for (provider, c) in paid {
            costs.row(vec![
                text(rt.name),
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
            let expect = expected_digest(spec, &key, &iv, &read(&path)?)?;
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
