//! `platforms`: the same cipher on Java, Node.js, Python, PHP, Go and cipherlab (Rust),
//! as the web-platforms paper timed AES-CBC on Java, PHP, Node.js and Python (Table 2).
//!
//! The paper's protocol: AES-CBC with 128, 192 and 256-bit keys over its 30 file sizes
//! (145 B ... 8 MB), each file encrypted and decrypted 100 times, every call what an
//! application does per message (create the cipher with the key and IV, process, finish).
//! The files are generated once from a seed and written where every runner reads them.
//! cipherlab's own figures are timed in this process (the suite: [`Study::plan`]); the
//! other runtimes through their runners (platforms/PROTOCOL.md, `time`) before the suite
//! ([`Study::elsewhere`]), and only for the algorithms where the runtime agreed with
//! cipherlab's vectors just before ([`cipherlab_platforms::conformance`]). Their raw samples
//! go through [`cipherlab_harness::Measurement::from_external_samples`], so every runtime
//! gets the same statistics and validity checks.
//!
//! Beyond the paper: AES-128-GCM, ChaCha20-Poly1305 and the lightweight AEADs on the
//! runtimes that have them, at short sizes ([`BEYOND`], [`BEYOND_SIZES`]).

mod findings;
mod runs;

pub(crate) use runs::{Target, measure};

use cipherlab_ciphers::{CipherSpec, Mode, catalogue, generate_iv, generate_key, providers};

use super::inputs::Input;
use super::{Config, Elsewhere, Scale, Study, StudyError, check, err};
use crate::corpus::DataType;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::{BatchSize, Bencher, Mode as HarnessMode, Settings};
use cipherlab_results::artifact::Artifact;
use cipherlab_results::id::{BenchId, Measurement, Phase, Runtime, Suite};

pub struct PlatformsStudy;

const NAME: &str = "platforms";

/// The corpus type of the files: seeded random bytes (what a cipher sees of a
/// compressed or encrypted file; the paper's files' contents are not given).
const DATA: DataType = DataType::Dense;

/// The paper's three ciphers.
const PAPER_CIPHERS: [CipherSpec; 3] = [
    CipherSpec::of(&catalogue::AES, 128, Some(Mode::Cbc)),
    CipherSpec::of(&catalogue::AES, 192, Some(Mode::Cbc)),
    CipherSpec::of(&catalogue::AES, 256, Some(Mode::Cbc)),
];

/// Beyond the paper: the AEADs timed on every runtime that has them.
const BEYOND: [CipherSpec; 6] = [
    CipherSpec::of(&catalogue::AES, 128, Some(Mode::Gcm)),
    CipherSpec::aead(&catalogue::CHACHA20_POLY1305),
    CipherSpec::aead(&catalogue::ASCON_AEAD128),
    CipherSpec::aead(&catalogue::ASCON_128),
    CipherSpec::aead(&catalogue::XOODYAK),
    CipherSpec::aead(&catalogue::ISAP_A_128A),
];

/// The sizes `--quick` times: the paper's smallest, 1 KB, 56 KB and 1 MB rows (a few
/// seconds per runtime).
const QUICK_SIZES: [u64; 4] = [145, 1 << 10, 56 << 10, 1 << 20];

/// The AEADs' sizes (bytes): short messages, where the per-message cost dominates. Kept
/// short because one of the providers (the `ascon` package, pure Python) takes about
/// 50 ms per KiB.
const BEYOND_SIZES: [u64; 2] = [64, 1 << 10];

/// One cipher's figures: sizes, timed calls per file, warm-up.
pub(crate) struct Job {
    /// The cipher.
    pub spec: CipherSpec,
    /// The files (each runner reads them from a folder the run writes).
    pub inputs: Vec<Input>,
    /// Timed calls per file (the paper's 100).
    pub reps: u32,
    /// The untimed calls before the samples come to about this many bytes (at least
    /// `min_warmup_calls`, at most [`MAX_WARMUP_CALLS`]).
    pub warmup_bytes: u64,
    /// At least this many untimed calls, whatever the size: the JVM compiles in the
    /// background, which on 2 busy cores lags behind a count of calls (after ten warm-up
    /// calls of 1 MiB its medians were ~4x the runner accuracy check's, which warmed up
    /// with 1,000; docs/BENCHMARKS.md).
    pub min_warmup_calls: u64,
}

/// What a run times.
struct Plan {
    jobs: Vec<Job>,
}

/// Warm-up calls are capped here: the JVM's JIT settles within 10,000 calls of these
/// sizes (platforms/PROTOCOL.md, `warmup`), the other runtimes far sooner; every runtime
/// times the files smallest first, so the large ones follow thousands of warm calls.
const MAX_WARMUP_CALLS: u64 = 20_000;

/// The study's files: seeded dense data of each size.
pub(crate) fn dense(sizes: &[u64]) -> Vec<Input> {
    sizes
        .iter()
        .map(|&s| Input::corpus(DATA, s as usize))
        .collect()
}

impl Job {
    fn warmup_calls(&self, size: u64) -> u64 {
        (self.warmup_bytes / size.max(1)).clamp(self.min_warmup_calls, MAX_WARMUP_CALLS)
    }
}

impl Plan {
    fn of(cfg: &Config) -> Plan {
        let paper_sizes: Vec<u64> = match cfg.scale {
            Scale::Quick => QUICK_SIZES.to_vec(),
            Scale::Full | Scale::Paper => super::paper::web_platforms::TABLE2
                .iter()
                .map(|r| r.1)
                .collect(),
        };
        let mut jobs: Vec<Job> = PAPER_CIPHERS
            .into_iter()
            .map(|spec| Job {
                spec,
                inputs: dense(&paper_sizes),
                reps: cfg.scale.pick(20, 100, 100),
                warmup_bytes: cfg.scale.pick(1 << 20, 32 << 20, 32 << 20),
                min_warmup_calls: cfg.scale.pick(50, 100, 100),
            })
            .collect();
        jobs.extend(BEYOND.into_iter().map(|spec| Job {
            spec,
            inputs: match cfg.scale {
                Scale::Quick => dense(&[1 << 10]),
                _ => dense(&BEYOND_SIZES),
            },
            reps: cfg.scale.pick(20, 30, 30),
            warmup_bytes: cfg.scale.pick(16 << 10, 64 << 10, 64 << 10),
            // The `ascon` package takes ~50 ms per KiB: ten calls are enough for it.
            min_warmup_calls: 10,
        }));
        jobs.retain(|j| cfg.filter.accepts_spec(&j.spec));
        Plan { jobs }
    }
}

/// The identifier of one figure of `study`: `provider` on `runtime`, one direction of
/// `spec` on one file. The one place a runner's figure gets a [`BenchId`]: the runtime
/// and phase arrive as the protocol's names and are parsed here.
fn bench_id(
    study: &str,
    spec: &CipherSpec,
    provider: &str,
    runtime: &str,
    phase: &str,
    size: u64,
    data_type: &str,
) -> Result<BenchId, String> {
    let runtime = Runtime::parse(runtime).ok_or_else(|| format!("unknown runtime '{runtime}'"))?;
    let phase = Phase::parse(phase).ok_or_else(|| format!("unknown phase '{phase}'"))?;
    Ok(BenchId::new(study, *spec, provider, phase, size, data_type).with_runtime(runtime))
}

/// The settings of cipherlab's own figures: the runners' protocol (every call timed alone,
/// exactly `reps` of them after the warm-up), the run's statistics.
fn rust_settings(base: &Settings, reps: u32) -> Settings {
    Settings {
        mode: HarnessMode::Sample,
        iterations: reps,
        max_sample_calls: reps,
        rounds: 1,
        forks: 0,
        batch: Some(1),
        ..base.clone()
    }
}

impl Study for PlatformsStudy {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "AES-CBC (and AEADs) per message on Java, Node.js, Python, PHP, Go and cipherlab, after conformance"
    }

    fn source(&self) -> &'static str {
        "aes-web-platforms.txt, Table 2 and Figure 1"
    }

    /// cipherlab's own figures, timed as the runners time theirs: every call creates the
    /// cipher with the key (key schedule) and encrypts or decrypts the whole file.
    fn plan<'a>(&self, cfg: &Config, suite: &mut Suite<'a>) -> Result<(), StudyError> {
        let plan = Plan::of(cfg);
        let base = match cfg.scale {
            Scale::Quick => Settings::quick(),
            _ => Settings::default(),
        };
        for job in &plan.jobs {
            let spec = &job.spec;
            // cipherlab's default, or the providers of this process `--provider` names.
            let named: Vec<&'static str> = cfg.rust_providers(spec).into_iter().flatten().collect();
            let chosen: Vec<Option<&'static str>> = if named.is_empty() {
                vec![None]
            } else {
                named.into_iter().map(Some).collect()
            };
            for provider in chosen {
                let provider = check::prove(spec, provider).map_err(|e| err(NAME, e))?;
                for input in &job.inputs {
                    let size = input.size;
                    let settings = Settings {
                        warmup_iterations: 1,
                        ..rust_settings(&base, job.reps)
                    };
                    for phase in ["encrypt", "decrypt"] {
                        let id = bench_id(NAME, spec, provider, "rust", phase, size, &input.label)
                            .map_err(|e| err(NAME, e))?;
                        let bench = per_message(*spec, provider, input.clone(), phase == "encrypt");
                        suite.add_with_settings(id, Some(size), settings.clone(), bench);
                    }
                }
            }
        }
        Ok(())
    }

    fn runs_elsewhere(&self) -> bool {
        true
    }

    fn elsewhere(&self, cfg: &Config, settings: &Settings) -> Result<Elsewhere, StudyError> {
        let plan = Plan::of(cfg);
        if plan.jobs.is_empty() {
            return Ok(Elsewhere::default());
        }
        let target = Target {
            study: NAME,
            runtimes: &[],
            all_providers: cfg.scale != Scale::Quick,
            phases: &["encrypt", "decrypt"],
            reuse: false,
            extra: std::time::Duration::from_secs(cfg.scale.pick(10, 60, 0)),
            warm_once: false,
            chunk_above: None,
            // Every runtime's providers, or only the runners' providers `--provider` names.
            providers: cfg.runner_providers(),
            budget: None,
        };
        measure(&plan.jobs, &target, &cfg.runners, settings).map_err(|e| err(NAME, e))
    }

    fn findings(
        &self,
        _cfg: &Config,
        ms: &[&Measurement],
        machine: &MachineInfo,
    ) -> Result<Vec<Artifact>, StudyError> {
        Ok(findings::all(ms, machine))
    }
}

/// One call per message, in this process: `providers::init` (the key schedule) and the
/// whole file, on a fresh copy of the plaintext or ciphertext made outside the timed
/// region.
fn per_message(
    spec: CipherSpec,
    provider: &'static str,
    input: Input,
    encrypt: bool,
) -> impl FnMut(&mut Bencher<'_>) {
    let key = generate_key(&spec);
    let iv = generate_iv(&spec);
    move |b: &mut Bencher<'_>| {
        let pt = match input.load() {
            Ok(pt) => pt,
            Err(e) => return b.fail(e.to_string()),
        };
        let mut data = pt.to_vec();
        data.resize(spec.output_len(pt.len()), 0);
        if !encrypt {
            let made = providers::init(&spec, &key, Some(provider))
                .and_then(|mut c| c.encrypt(&iv, &[], &mut data, pt.len()));
            match made {
                Ok(n) => data.truncate(n),
                Err(e) => return b.fail(e.to_string()),
            }
        }
        let len = pt.len();
        b.iter_batched(
            || data.clone(),
            |buf| {
                let mut c = providers::init(&spec, &key, Some(provider))?;
                if encrypt {
                    c.encrypt(&iv, &[], buf, len)
                } else {
                    c.decrypt(&iv, &[], buf)
                }
            },
            BatchSize::PerIteration,
        );
    }
}
