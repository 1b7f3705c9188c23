//! Every study on every provider (`--provider`), and the file-features paper on its own
//! platform.
//!
//! The file-features paper ran all its experiments on Java's JCA with BouncyCastle. So
//! data-type, data-size, density, key-size and modes time `java-bc` through the Java
//! runner beside cipherlab's own figures whenever that runner is installed, and their
//! findings are made once per platform ([`by_platform`]): the paper's claims are then
//! decided on its own platform and on ours, side by side, which separates what the
//! algorithm does from what the platform does.
//!
//! `--provider P` (repeatable) replaces a study's choice: a name of this process's
//! providers is timed in-process ([`Config::rust_providers`]), any other through the
//! runner that has it, after that runner's conformance vectors
//! ([`super::platforms::measure`]).

use std::collections::BTreeMap;
use std::time::Duration;

use cipherlab_ciphers::{CipherSpec, providers};
use cipherlab_harness::Settings;
use cipherlab_results::artifact::table::{Cell, Table, cell_text, text};
use cipherlab_results::artifact::{Artifact, Content};
use cipherlab_results::id::{Measurement, Runtime};
use cipherlab_results::verdict::Agreement;

use super::inputs::Input;
use super::platforms::{Job, Target, measure};
use super::{Config, Elsewhere, Scale, StudyError, err};

/// The provider the file studies time in the JVM by default: the paper's BouncyCastle.
pub const PAPER_PROVIDER: &str = "java-bc";

/// The runtime [`PAPER_PROVIDER`] runs on.
const PAPER_RUNTIME: &str = "java";

impl Config {
    /// The in-process providers to time `spec` through: the default (`None`) without
    /// `--provider`, else each named provider of this process that has `spec` (none when
    /// only runners' providers were named).
    pub fn rust_providers(&self, spec: &CipherSpec) -> Vec<Option<&'static str>> {
        if self.providers.is_empty() {
            return vec![None];
        }
        self.providers
            .iter()
            .filter_map(|name| providers::by_name(name).ok())
            .filter(|p| p.supports(spec) && p.available(spec).is_ok())
            .map(|p| Some(p.name()))
            .collect()
    }

    /// The `--provider` names that are not this process's: runners' providers.
    pub fn runner_providers(&self) -> Vec<String> {
        self.providers
            .iter()
            .filter(|name| providers::by_name(name).is_err())
            .cloned()
            .collect()
    }
}

/// What a file study asks the runners for.
pub(crate) struct FileJobs<'a> {
    /// The study.
    pub study: &'static str,
    /// Its ciphers (after `--cipher`).
    pub specs: Vec<CipherSpec>,
    /// Its inputs.
    pub inputs: &'a [Input],
    /// `encrypt`, `decrypt`.
    pub phases: &'static [&'static str],
    /// The runners' share of a `--quick` run (seconds): the main job runs every study
    /// in about three minutes, so each file study gets a few seconds of the JVM, the
    /// one whose paper table needs every cipher the most.
    pub quick_seconds: u64,
    /// Time `java-bc` when no `--provider` was given (the file-features paper's own
    /// platform); otherwise only the runner providers named.
    pub paper_platform: bool,
    /// Time input by input (every cipher on the first input, then the next), not cipher
    /// by cipher: what a budget cuts is then the later inputs, not the later ciphers.
    pub by_input: bool,
}

/// The study's figures from the runners: `java-bc` by default (the paper's platform,
/// when the Java runner is installed), or the runner providers `--provider` names.
/// Bounded in time at `--quick` and the default scale; what did not fit is said.
pub(crate) fn file_study(
    jobs: FileJobs<'_>,
    cfg: &Config,
    settings: &Settings,
) -> Result<Elsewhere, StudyError> {
    let named = cfg.runner_providers();
    let (runtimes, wanted): (&'static [&'static str], Vec<String>) = if cfg.providers.is_empty() {
        if !jobs.paper_platform {
            return Ok(Elsewhere::default());
        }
        (&[PAPER_RUNTIME], vec![PAPER_PROVIDER.to_string()])
    } else if named.is_empty() {
        return Ok(Elsewhere::default());
    } else {
        (&[], named)
    };
    if jobs.specs.is_empty() || jobs.inputs.is_empty() {
        return Ok(Elsewhere::default());
    }
    let job = |spec: CipherSpec, inputs: Vec<Input>| Job {
        spec,
        inputs,
        reps: cfg.scale.pick(10, 20, 10),
        // Enough bytes on a cipher's first input for the JIT's loops to compile; its
        // other inputs follow in the same warm process (`warm_once`).
        warmup_bytes: cfg.scale.pick(2 << 20, 32 << 20, 0),
        min_warmup_calls: cfg.scale.pick(5, 10, 3),
    };
    let runner_jobs: Vec<Job> = if jobs.by_input {
        jobs.inputs
            .iter()
            .flat_map(|i| jobs.specs.iter().map(|&s| job(s, vec![i.clone()])))
            .collect()
    } else {
        jobs.specs
            .iter()
            .map(|&s| job(s, jobs.inputs.to_vec()))
            .collect()
    };
    let target = Target {
        study: jobs.study,
        runtimes,
        all_providers: true,
        phases: jobs.phases,
        // The study's own figures key the cipher once, outside the timed region; so do
        // the runners' (the AEADs excepted: the JCA refuses a second encryption under
        // one key and nonce, so theirs include the key schedule).
        reuse: true,
        extra: Duration::ZERO,
        warm_once: true,
        // The paper's files (up to 482 MB) stream through the runner's cipher.
        chunk_above: Some(CHUNKED_ABOVE),
        providers: wanted.clone(),
        budget: match cfg.scale {
            Scale::Quick => Some(Duration::from_secs(jobs.quick_seconds)),
            Scale::Full => Some(FULL_BUDGET),
            Scale::Paper => None,
        },
    };
    // The user's runners (`--runner`) join when `--provider` names providers, which may
    // be theirs; the default (java-bc) needs none of them.
    let runners = if cfg.providers.is_empty() {
        &[][..]
    } else {
        &cfg.runners[..]
    };
    let mut out =
        measure(&runner_jobs, &target, runners, settings).map_err(|e| err(jobs.study, e))?;
    let missing: Vec<&String> = wanted
        .iter()
        .filter(|p| !out.runtimes.contains_key(*p))
        .collect();
    if !missing.is_empty() {
        let mut t = Table::new(&["provider", "why"]);
        for p in missing {
            t.row(vec![
                text(p),
                text(
                    "no installed runner has it (`cipherlab platforms doctor` lists the runners and their providers)",
                ),
            ]);
        }
        t.note = "Providers asked for that no runner present could time.".into();
        out.artifacts
            .push(t.artifact(jobs.study, "providers-not-found", "Providers not found"));
    }
    Ok(out)
}

/// Inputs larger than this are streamed through the runners' ciphers (`--paper-sizes`).
const CHUNKED_ABOVE: u64 = 64 << 20;

/// How long a file study may spend on the runners' planned figures at the default scale;
/// `--paper-sizes` has no limit (what did not fit is always said).
const FULL_BUDGET: Duration = Duration::from_secs(120);

/// The platform a figure belongs to, for findings made once per platform: `None` for
/// this process's default providers, else the provider (with its runtime when it is not
/// this process). A figure of no catalogue cipher (a baseline, RSA) stays with the
/// default: the findings compare those across runtimes themselves.
fn platform_of(m: &Measurement, cfg: &Config) -> Option<String> {
    if m.id.cipher().is_none() {
        None
    } else if m.id.runtime == Runtime::RUST {
        (!cfg.providers.is_empty()).then(|| m.id.implementation.clone())
    } else {
        Some(format!("{} ({})", m.id.implementation, m.id.runtime))
    }
}

/// A study's measurements split by platform ([`platform_of`]), the default one first.
pub(crate) fn by_platform<'m>(
    ms: &[&'m Measurement],
    cfg: &Config,
) -> Vec<(Option<String>, Vec<&'m Measurement>)> {
    let mut groups: BTreeMap<Option<String>, Vec<&'m Measurement>> = BTreeMap::new();
    for &m in ms {
        groups.entry(platform_of(m, cfg)).or_default().push(m);
    }
    groups.into_iter().collect()
}

/// `artifacts` made from one platform's figures, renamed after it (`None`: unchanged).
pub(crate) fn for_platform(artifacts: Vec<Artifact>, platform: Option<&str>) -> Vec<Artifact> {
    let Some(p) = platform else {
        return artifacts;
    };
    artifacts
        .into_iter()
        .map(|mut a| {
            a.name = format!("{}@{p}", a.name);
            a.title = format!("{} — {p}", a.title);
            a
        })
        .collect()
}

/// The paper's claims as each platform decided them, one row per claim checked on more
/// than one: where a claim holds on the paper's own platform but not on ours, or the other
/// way round. `per_platform` holds each platform's artifacts (`None`: this process's
/// default providers).
pub(crate) fn claims_by_platform(
    study: &str,
    per_platform: &[(Option<String>, Vec<Artifact>)],
) -> Option<Artifact> {
    if per_platform.len() < 2 {
        return None;
    }
    let label = |p: &Option<String>| p.clone().unwrap_or_else(|| "cipherlab (Rust)".into());
    // claim -> platform index -> verdict, claims in first-seen order.
    let mut order: Vec<String> = Vec::new();
    let mut verdicts: BTreeMap<String, BTreeMap<usize, Agreement>> = BTreeMap::new();
    for (i, (_, artifacts)) in per_platform.iter().enumerate() {
        for a in artifacts {
            let Content::Table(t) = &a.content else {
                continue;
            };
            for (r, c, v) in t.verdicts() {
                let row = t.rows[r].first().map(cell_text).unwrap_or_default();
                let column = t.columns.get(c).map_or("", String::as_str);
                let claim = if column.is_empty() || column.eq_ignore_ascii_case("verdict") {
                    format!("{row} ({})", a.title)
                } else {
                    format!("{row}, {column} ({})", a.title)
                };
                // The platform's suffix is not part of the claim.
                let claim = per_platform
                    .iter()
                    .filter_map(|(p, _)| p.as_deref())
                    .fold(claim, |c, p| c.replace(&format!(" — {p}"), ""));
                if !verdicts.contains_key(&claim) {
                    order.push(claim.clone());
                }
                verdicts.entry(claim).or_default().insert(i, v);
            }
        }
    }
    let mut columns: Vec<String> = vec!["the paper's claim".into()];
    columns.extend(per_platform.iter().map(|(p, _)| label(p)));
    columns.push("where it holds".into());
    let mut t = Table::new(&columns.iter().map(String::as_str).collect::<Vec<_>>());
    for claim in order {
        let vs = &verdicts[&claim];
        if vs.len() < 2 {
            continue;
        }
        let mut row: Vec<Cell> = vec![text(&claim).into()];
        for i in 0..per_platform.len() {
            row.push(text(vs.get(&i).map_or("-", |v| v.as_str())).into());
        }
        let on = |want: Agreement| -> Vec<String> {
            vs.iter()
                .filter(|(_, v)| **v == want)
                .map(|(i, _)| label(&per_platform[*i].0))
                .collect()
        };
        let (agrees, differs) = (on(Agreement::Agrees), on(Agreement::Differs));
        let holds = match (agrees.is_empty(), differs.is_empty()) {
            (false, true) if agrees.len() == vs.len() => "on every platform".to_string(),
            (true, false) if differs.len() == vs.len() => "on none".to_string(),
            (false, false) => format!("on {} but not on {}", agrees.join(", "), differs.join(", ")),
            _ => "can't tell on some".to_string(),
        };
        row.push(text(holds).into());
        t.row(row);
    }
    if t.rows.is_empty() {
        return None;
    }
    t.note = "Each claim's verdict as decided from each platform's own figures (agrees, differs \
        or can't tell, from the 99% intervals, as in the study's tables above). A claim that \
        holds on the paper's platform (Java with BouncyCastle) but not on cipherlab's is an \
        effect of the platform, not of the algorithm; the verdicts are counted once, in the \
        tables they come from."
        .into();
    Some(t.artifact(
        study,
        "claims/by-platform",
        "The paper's claims on each platform",
    ))
}
