//! The studies: each reproduces a published experiment on the user's machine and data,
//! then goes further (DESIGN.md, "Studies").
//!
//! A [`Study`] does two things:
//!
//! 1. [`Study::plan`] adds its benchmarks to a [`Suite`]. Planning is deterministic and
//!    cheap (the corpus is seeded; keys are random but do not change what is timed),
//!    because a fork child rebuilds the same suite to find its benchmark.
//! 2. [`Study::findings`] turns the finished measurements into [`Artifact`]s: the
//!    paper's published figures beside ours (as ratios, since machines differ), one line
//!    on where and why ours differ, and what the study makes besides timings (byte
//!    histograms, the ECB picture).
//!
//! Every cipher is proven before it is timed: [`check::prove`] round-trips it and
//! compares it with another provider of the same algorithm.
//!
//! | study | what it measures | from |
//! |---|---|---|
//! | `data-type` | same-size inputs of nine types | file-features paper, case 1 |
//! | `data-size` | time against size | file-features paper, case 2, Table 3 |
//! | `density` | sparse against dense inputs | file-features paper, case 3, Table 4 |
//! | `key-size` | every key size of each cipher | file-features paper, case 4 |
//! | `modes` | ECB, CBC, CFB, CFB8, CFB1, OFB, CTR, GCM | file-features paper's related work |
//! | `phases` | key generation, initialisation, encryption, decryption | Java stream-security paper, Figs. 5-9 |
//! | `distribution` | byte histograms of plaintext and ciphertext; the ECB picture | Java stream-security paper, Figs. 3-4 |
//! | `objects` | an object graph serialized through the encrypting stream | Java stream-security paper |
//! | `providers` | one algorithm through each of its implementations | file-features paper (Sun against BouncyCastle) |
//! | `lwc` | AEADs at 32 B AD x 64..4096 B; the permutations by rounds | ISAP library README |
//! | `platforms` | AES-CBC per message on Java, Node.js, Python, PHP, Go and cipherlab (after conformance); AEADs beyond | web-platforms paper, Table 2 |
//! | `pdf` | PDF encryption and decryption per cipher: strings and streams, the whole job, key derivation apart; average time and single shot | PDF lightweight-ciphers paper, Figs. 10-11 |

pub mod check;
mod ciphers;
mod data_size;
mod data_type;
mod density;
mod distribution;
mod elsewhere;
mod find;
mod inputs;
pub mod java_public_key;
pub mod java_stream;
mod key_size;
mod lwc;
mod modes;
mod objects;
pub mod paper;
pub mod pdf;
mod phases;
mod platforms;
mod providers;
mod public_key;
mod timing;

use std::collections::BTreeMap;

use cipherlab_harness::Settings;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_results::artifact::{self, Artifact};
use cipherlab_results::id::{Measurement, Suite};

pub use ciphers::CipherFilter;
pub use inputs::{Input, Inputs};

/// How big a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// `--quick`: small inputs and few sizes, every study in a few minutes on 2 cores.
    Quick,
    /// The default: inputs of megabytes, more sizes and key sizes.
    Full,
    /// `--paper-sizes`: the published experiments' own sizes (10.7 MB ... 482 MB).
    Paper,
}

impl Scale {
    /// `quick`, `full` or `paper`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scale::Quick => "quick",
            Scale::Full => "full",
            Scale::Paper => "paper",
        }
    }

    /// Picks the value for this scale.
    pub fn pick<T>(self, quick: T, full: T, paper: T) -> T {
        match self {
            Scale::Quick => quick,
            Scale::Full => full,
            Scale::Paper => paper,
        }
    }
}

/// What every study runs with.
#[derive(Debug, Clone)]
pub struct Config {
    /// How big.
    pub scale: Scale,
    /// Which ciphers (`--cipher`); studies skip the others.
    pub filter: CipherFilter,
    /// The user's files (`--data DIR`) instead of the built-in corpus.
    pub data: Option<Inputs>,
    /// `--provider`: time these implementations instead of each study's own choice.
    /// A name of this process's providers (`openssl`, `rustcrypto`, ...) is timed here;
    /// any other is a runner's (`java-bc`, `node`, `go`, ...), timed through its runner
    /// after conformance ([`providers`] splits them). Empty: the studies' defaults.
    pub providers: Vec<String>,
    /// The user's own runners (`--runner`, runners.toml), timed beside the list's by the
    /// studies that time runners.
    pub runners: Vec<cipherlab_platforms::UserRunner>,
    /// `--profile`: sample where each figure's CPU time goes ([`crate::profile`]; the
    /// JVM's through the Flight Recorder, in the studies that time it); off by default.
    pub profile: bool,
}

impl Config {
    /// The built-in corpus, every cipher, at `scale`.
    pub fn new(scale: Scale) -> Config {
        Config {
            scale,
            filter: CipherFilter::all(),
            data: None,
            providers: Vec::new(),
            runners: Vec::new(),
            profile: false,
        }
    }
}

/// Why a study could not be planned, time its other runtimes or make its findings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("study {study}: {message}")]
pub struct StudyError {
    /// The study.
    pub study: &'static str,
    /// What went wrong and what to do.
    pub message: String,
}

/// A study name that is not one of [`STUDIES`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown study '{name}': the studies are {}", known.join(", "))]
pub struct UnknownStudy {
    /// The name asked for.
    pub name: String,
    /// The studies there are, in order.
    pub known: Vec<&'static str>,
}

/// One experiment.
pub trait Study: Sync {
    /// The name on the command line and in the results store (`data-type`).
    fn name(&self) -> &'static str;

    /// One line: what it measures.
    fn title(&self) -> &'static str;

    /// The publication it reproduces (a file of `../shared/papers/` and the figure).
    fn source(&self) -> &'static str;

    /// Adds the benchmarks to `suite`. Deterministic: fork children call it again.
    fn plan<'a>(&self, cfg: &Config, suite: &mut Suite<'a>) -> Result<(), StudyError>;

    /// What the study measures outside this process (other language runtimes), run
    /// before the suite and never in a fork child; `settings` are the run's (statistics
    /// and validity limits). Most studies measure nothing elsewhere.
    fn elsewhere(&self, _cfg: &Config, _settings: &Settings) -> Result<Elsewhere, StudyError> {
        Ok(Elsewhere::default())
    }

    /// Whether [`Study::elsewhere`] measures anything (for the run's progress line).
    fn runs_elsewhere(&self) -> bool {
        false
    }

    /// The artifacts of a finished run: the paper's figures beside ours, pictures,
    /// histograms. `ms` holds this study's measurements only.
    fn findings(
        &self,
        cfg: &Config,
        ms: &[&Measurement],
        machine: &MachineInfo,
    ) -> Result<Vec<Artifact>, StudyError>;

    /// Whether [`Study::findings`] is made once per platform (runtime and provider) when
    /// the study timed more than one ([`elsewhere::by_platform`]): the file studies,
    /// whose paper ran on Java with BouncyCastle. The others compare providers or
    /// runtimes in their own findings.
    fn per_platform(&self) -> bool {
        false
    }

    /// What the run's CPU profiles (`--profile`; this study's only, one per figure)
    /// say, beside the figures. Most studies draw the profiles and say nothing more.
    fn profile_findings(&self, _profiles: &[&Artifact], _all: &[&Measurement]) -> Vec<Artifact> {
        Vec::new()
    }
}

/// What a study measured outside this process ([`Study::elsewhere`]).
#[derive(Debug, Default)]
pub struct Elsewhere {
    /// Figures from samples another process took, summarized by the harness.
    pub measurements: Vec<Measurement>,
    /// What came with them (runtimes missing, conformance, start-up and warm-up).
    pub artifacts: Vec<Artifact>,
    /// Versions for the machine block's `runtimes`: runtime (`java`) or provider
    /// (`java-bc`) -> version (`17.0.15`, `bcprov-jdk18on 1.87`).
    pub runtimes: BTreeMap<String, String>,
}

/// Every study, in the order `cipherlab bench` runs them.
pub static STUDIES: &[&dyn Study] = &[
    &data_type::DataTypeStudy,
    &data_size::DataSizeStudy,
    &density::DensityStudy,
    &key_size::KeySizeStudy,
    &modes::ModesStudy,
    &phases::PhasesStudy,
    &distribution::DistributionStudy,
    &objects::ObjectsStudy,
    &providers::ProvidersStudy,
    &lwc::LwcStudy,
    &pdf::PdfStudy,
    &platforms::PlatformsStudy,
];

/// What the report says of each study, in the order `cipherlab bench` runs them.
pub fn about() -> Vec<cipherlab_results::report::StudyAbout> {
    STUDIES
        .iter()
        .map(|s| cipherlab_results::report::StudyAbout {
            name: s.name().to_string(),
            title: s.title().to_string(),
            source: s.source().to_string(),
        })
        .collect()
}

/// The study called `name`, or an error listing them all.
pub fn by_name(name: &str) -> Result<&'static dyn Study, UnknownStudy> {
    STUDIES
        .iter()
        .copied()
        .find(|s| s.name() == name)
        .ok_or_else(|| UnknownStudy {
            name: name.to_string(),
            known: STUDIES.iter().map(|s| s.name()).collect(),
        })
}

fn err(study: &'static str, message: impl Into<String>) -> StudyError {
    StudyError {
        study,
        message: message.into(),
    }
}

/// Plans `studies` into one suite, in order.
pub fn plan_all<'a>(
    studies: &[&'static dyn Study],
    cfg: &Config,
    suite: &mut Suite<'a>,
) -> Result<(), StudyError> {
    for s in studies {
        s.plan(cfg, suite)?;
    }
    Ok(())
}

/// What every study of a run measured elsewhere, before its suite runs: the figures, the
/// artifacts, and the versions added to `machine`'s `runtimes`.
pub fn elsewhere_all(
    studies: &[&'static dyn Study],
    cfg: &Config,
    settings: &Settings,
    machine: &mut MachineInfo,
) -> Result<(Vec<Measurement>, Vec<Artifact>), StudyError> {
    let (mut ms, mut artifacts) = (Vec::new(), Vec::new());
    for s in studies {
        let e = s.elsewhere(cfg, settings)?;
        ms.extend(e.measurements);
        artifacts.extend(e.artifacts);
        machine.runtimes.extend(e.runtimes);
    }
    Ok((ms, artifacts))
}

/// The findings of every study of a finished run, each from its own measurements.
pub fn findings_all(
    studies: &[&'static dyn Study],
    cfg: &Config,
    ms: &[Measurement],
    machine: &MachineInfo,
) -> Result<Vec<Artifact>, StudyError> {
    let mut out = Vec::new();
    for s in studies {
        let mine: Vec<&Measurement> = ms.iter().filter(|m| m.id.study == s.name()).collect();
        if !s.per_platform() {
            out.extend(s.findings(cfg, &mine, machine)?);
            continue;
        }
        let mut per_platform = Vec::new();
        for (platform, group) in elsewhere::by_platform(&mine, cfg) {
            let made = s.findings(cfg, &group, machine)?;
            per_platform.push((
                platform.clone(),
                elsewhere::for_platform(made, platform.as_deref()),
            ));
        }
        let across = elsewhere::claims_by_platform(s.name(), &per_platform);
        // What no platform's figures changed (a table of published facts) is shown once;
        // a table of verdicts is each platform's own even where they agree.
        let mut shown: Vec<(String, artifact::Content)> = Vec::new();
        for (platform, artifacts) in per_platform {
            for a in artifacts {
                let base = match &platform {
                    Some(p) => a.name.trim_end_matches(&format!("@{p}")).to_string(),
                    None => a.name.clone(),
                };
                let verdicts = a.as_table().is_some_and(|t| t.verdicts().next().is_some());
                if !verdicts && shown.iter().any(|(n, c)| *n == base && *c == a.content) {
                    continue;
                }
                shown.push((base, a.content.clone()));
                out.push(a);
            }
        }
        out.extend(across);
    }
    Ok(out)
}
