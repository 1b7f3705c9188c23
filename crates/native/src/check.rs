//! Checking builds: every vector of the algorithm's official LWC KAT file (encryption
//! gives `CT`, decryption gives `PT` back), then forged tags (a flipped bit at several
//! positions must be refused, the output wiped), then a quick timing of the builds that
//! agree, to pick the fastest.

use std::path::{Path, PathBuf};
use std::time::Instant;

use cipherlab_ciphers::{ALGORITHMS, Cipher, CipherSpec, Error as CipherError, Provider};
use cipherlab_testkit::lwc::AeadVector;

use crate::build::{Build, Compiler, Workshop, build_all, compilers};
use crate::error::Error;
use crate::load::{Library, NativeAead, sizes_match};
use crate::source::{ApiSizes, Source};

/// What became of one build.
#[derive(Clone, Debug, serde::Serialize)]
#[serde(tag = "result", rename_all = "kebab-case")]
pub enum Outcome {
    /// Every KAT vector agreed both ways and every forged tag was refused.
    Agrees {
        /// KAT vectors checked.
        vectors: usize,
        /// Forged tags refused.
        forgeries: usize,
        /// Median nanoseconds per encryption of 4 KiB with 32 B of associated data
        /// (wall clock, a quick figure to pick the fastest build, not a measurement).
        ns_4k: f64,
    },
    /// The first vector where it did not.
    Differs {
        /// The vector's `Count`.
        count: usize,
        /// What differed: `CT` (encryption), `PT` (decryption), `tag` (a forgery
        /// accepted).
        field: String,
        /// The details.
        detail: String,
    },
    /// The compiler made no library.
    BuildFailed {
        /// What it said.
        output: String,
    },
    /// The library did not load, or lacks a function.
    LoadFailed {
        /// The loader's message.
        message: String,
    },
}

/// One build and its outcome.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BuildReport {
    /// The build (compiler, version, flags, source hash, library, compiler output).
    pub build: Build,
    /// What the check found.
    pub outcome: Outcome,
}

impl BuildReport {
    /// Whether it agrees.
    pub fn agrees(&self) -> bool {
        matches!(self.outcome, Outcome::Agrees { .. })
    }

    /// "agrees", "differs", "build failed", "load failed".
    pub fn verdict(&self) -> &'static str {
        match self.outcome {
            Outcome::Agrees { .. } => "agrees",
            Outcome::Differs { .. } => "differs",
            Outcome::BuildFailed { .. } => "build failed",
            Outcome::LoadFailed { .. } => "load failed",
        }
    }
}

/// A folder built and checked.
#[derive(Debug, serde::Serialize)]
pub struct Report {
    /// The folder.
    pub dir: PathBuf,
    /// The catalogue AEAD it was checked as.
    pub algorithm: String,
    /// Its api.h sizes.
    pub api: ApiSizes,
    /// The source hash.
    pub source_hash: String,
    /// The KAT file used.
    pub kat_file: PathBuf,
    /// Vectors in it.
    pub vectors: usize,
    /// The compilers found.
    pub compilers: Vec<Compiler>,
    /// Every build, compilers × flag sets.
    pub builds: Vec<BuildReport>,
    /// The private folder holding the libraries (removed when the report is dropped).
    #[serde(skip)]
    pub workshop: Option<Workshop>,
    #[serde(skip)]
    spec: Option<CipherSpec>,
}

impl Report {
    /// The agreeing build with the lowest quick timing.
    pub fn fastest(&self) -> Option<&BuildReport> {
        self.builds
            .iter()
            .filter_map(|b| match b.outcome {
                Outcome::Agrees { ns_4k, .. } => Some((b, ns_4k)),
                _ => None,
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(b, _)| b)
    }

    /// Whether at least one build agrees.
    pub fn any_agrees(&self) -> bool {
        self.builds.iter().any(BuildReport::agrees)
    }

    /// The fastest agreeing build loaded as provider `name`.
    pub fn provider(&self, name: &str) -> Result<NativeAead, Error> {
        let spec = self
            .spec
            .ok_or_else(|| Error::Name("no algorithm".into()))?;
        let best = self.fastest().ok_or_else(|| {
            Error::Name(format!(
                "{}: no build agrees with the KAT, nothing to time (run `cipherlab impl check {} --algorithm {}`)",
                self.dir.display(),
                self.dir.display(),
                self.algorithm
            ))
        })?;
        let path = best
            .build
            .library
            .as_ref()
            .ok_or_else(|| Error::Name("the fastest build has no library".into()))?;
        NativeAead::new(name, spec, Library::load(path, self.api)?)
    }
}

/// The KAT folder: `explicit`, else `$CIPHERLAB_KAT_DIR`, else `../shared/kat` beside
/// the source tree cipherlab was built from.
pub fn kat_folder(explicit: Option<&Path>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    if let Some(v) = std::env::var_os(cipherlab_testkit::kat::KAT_DIR_VAR) {
        return PathBuf::from(v);
    }
    cipherlab_testkit::kat::workspace_dir().join("../shared/kat")
}

/// The catalogue AEADs with an LWC KAT file, by name.
fn lwc_names() -> String {
    ALGORITHMS
        .iter()
        .filter(|a| a.lwc_kat.is_some())
        .map(|a| a.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The KAT vectors of `spec`, read with the tests' parser (every field must be read).
pub fn kat_vectors(spec: &CipherSpec, kat_dir: &Path) -> Result<(PathBuf, Vec<AeadVector>), Error> {
    let rel = spec
        .algorithm
        .lwc_kat
        .ok_or_else(|| Error::NoKat(spec.to_string(), lwc_names()))?;
    let path = kat_dir.join(rel);
    if !path.is_file() {
        return Err(Error::Kat(format!(
            "{}: the KAT file of {spec} is missing (point --kat-dir or {} at the KAT folder)",
            path.display(),
            cipherlab_testkit::kat::KAT_DIR_VAR
        )));
    }
    let label = cipherlab_testkit::kat::label(kat_dir, rel);
    let records = cipherlab_testkit::record::parse(&path, &label).map_err(Error::Kat)?;
    let mut vectors = Vec::with_capacity(records.len());
    for r in &records {
        let v = AeadVector::read(r).map_err(Error::Kat)?;
        let unread = r.unread();
        if !unread.is_empty() {
            return Err(Error::Kat(format!(
                "{}: fields an AEAD KAT does not have: {unread:?}",
                r.id()
            )));
        }
        vectors.push(v);
    }
    if vectors.is_empty() {
        return Err(Error::Kat(format!("{}: no vectors", path.display())));
    }
    Ok((path, vectors))
}

/// Builds `dir` with every compiler × flag set and checks each build as `spec` against
/// its KAT file in `kat_dir`. Refuses a folder whose api.h sizes are not `spec`'s.
pub fn check_dir(dir: &Path, spec: &CipherSpec, kat_dir: &Path) -> Result<Report, Error> {
    let src = Source::read(dir)?;
    sizes_match(spec, src.api, dir)?;
    let (kat_file, vectors) = kat_vectors(spec, kat_dir)?;
    let (compilers, workshop, builds) = build(&src)?;
    Ok(checked(
        &src, spec, kat_file, &vectors, compilers, workshop, builds,
    ))
}

/// Builds `dir` and finds which catalogue AEAD it implements: among the [`candidates`]
/// of its api.h sizes, the first one some build agrees with (the KAT files' inputs
/// differ, so a wrong candidate fails at its first vectors). Its report; when none
/// agrees, the report of the candidate a build got furthest with.
pub fn identify(dir: &Path, kat_dir: &Path) -> Result<Report, Error> {
    let src = Source::read(dir)?;
    let specs = candidates(src.api);
    if specs.is_empty() {
        return Err(Error::Name(format!(
            "{}: no catalogue AEAD with an LWC KAT file has api.h's sizes (key {} B, nonce {} B, tag {} B); known: {}",
            dir.display(),
            src.api.key,
            src.api.nonce,
            src.api.tag,
            lwc_names()
        )));
    }
    let (compilers, workshop, builds) = build(&src)?;
    let mut first = None;
    for spec in &specs {
        let (kat_file, vectors) = match kat_vectors(spec, kat_dir) {
            Ok(k) => k,
            // A candidate without its KAT file is skipped while others remain.
            Err(_) if specs.len() > 1 => continue,
            Err(e) => return Err(e),
        };
        let report = checked(
            &src,
            spec,
            kat_file,
            &vectors,
            compilers.clone(),
            None,
            builds.clone(),
        );
        if report.any_agrees() {
            return Ok(Report { workshop, ..report });
        }
        // Without agreement, the candidate some build got furthest with is the likeliest.
        if first
            .as_ref()
            .is_none_or(|f: &Report| progress(&report) > progress(f))
        {
            first = Some(report);
        }
    }
    match first {
        Some(r) => Ok(Report { workshop, ..r }),
        None => Err(Error::Kat(format!(
            "no KAT file found for any of {} (point --kat-dir or {} at the KAT folder)",
            specs
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            cipherlab_testkit::kat::KAT_DIR_VAR
        ))),
    }
}

/// How far a report's best build got: the first differing vector's `Count`, then the
/// field (CT, then PT, then tag: the later, the more it agreed).
fn progress(r: &Report) -> (usize, u8) {
    r.builds
        .iter()
        .filter_map(|b| match &b.outcome {
            Outcome::Differs { count, field, .. } => Some((
                *count,
                match field.as_str() {
                    "CT" => 1,
                    "PT" => 2,
                    "tag" => 3,
                    _ => 0,
                },
            )),
            _ => None,
        })
        .max()
        .unwrap_or((0, 0))
}

type Built = (Vec<Compiler>, Option<Workshop>, Vec<Build>);

fn build(src: &Source) -> Result<Built, Error> {
    let compilers = compilers();
    if compilers.is_empty() {
        return Err(Error::NoCompiler);
    }
    let workshop = Workshop::new()?;
    let builds = build_all(src, &compilers, &workshop);
    Ok((compilers, Some(workshop), builds))
}

fn checked(
    src: &Source,
    spec: &CipherSpec,
    kat_file: PathBuf,
    vectors: &[AeadVector],
    compilers: Vec<Compiler>,
    workshop: Option<Workshop>,
    builds: Vec<Build>,
) -> Report {
    let builds = builds
        .into_iter()
        .map(|b| {
            let outcome = check_build(&b, src.api, spec, vectors);
            BuildReport { build: b, outcome }
        })
        .collect();
    Report {
        dir: src.dir.clone(),
        algorithm: spec.to_string(),
        api: src.api,
        source_hash: src.hash.clone(),
        kat_file,
        vectors: vectors.len(),
        compilers,
        builds,
        workshop,
        spec: Some(*spec),
    }
}

/// The catalogue AEADs a folder could implement: those with an LWC KAT file whose sizes
/// are its api.h's.
pub fn candidates(api: ApiSizes) -> Vec<CipherSpec> {
    ALGORITHMS
        .iter()
        .filter(|a| a.lwc_kat.is_some())
        .filter_map(|a| CipherSpec::parse(a.name).ok())
        .filter(|s| s.key_len() == api.key && s.iv_len() == api.nonce && s.tag_len() == api.tag)
        .collect()
}

/// Checks one build (already made) as `spec`.
fn check_build(b: &Build, api: ApiSizes, spec: &CipherSpec, vectors: &[AeadVector]) -> Outcome {
    let Some(path) = &b.library else {
        return Outcome::BuildFailed {
            output: b.output.clone(),
        };
    };
    let lib = match Library::load(path, api) {
        Ok(l) => l,
        Err(e) => {
            return Outcome::LoadFailed {
                message: e.to_string(),
            };
        }
    };
    let provider = match NativeAead::new("native-check", *spec, lib) {
        Ok(p) => p,
        Err(e) => {
            return Outcome::LoadFailed {
                message: e.to_string(),
            };
        }
    };
    check_provider(&provider, spec, vectors)
}

/// Bit positions of the tag flipped for vector `i` (several per vector, spread over the
/// tag: first and last bit, and one moving with the vector).
fn flips(i: usize, tag_bits: usize) -> [usize; 3] {
    [0, tag_bits - 1, (i * 37 + 5) % tag_bits]
}

/// Runs `vectors` through `provider` (any provider of `spec`): the KAT both ways and
/// forged tags; on agreement, the quick timing.
pub fn check_provider(
    provider: &dyn Provider,
    spec: &CipherSpec,
    vectors: &[AeadVector],
) -> Outcome {
    let differs = |v: &AeadVector, field: &str, detail: String| Outcome::Differs {
        count: v.count,
        field: field.to_string(),
        detail,
    };
    let mut forgeries = 0;
    let tag_bits = spec.tag_len() * 8;
    for (i, v) in vectors.iter().enumerate() {
        let mut c = match provider.init(spec, &v.key) {
            Ok(c) => c,
            Err(e) => return differs(v, "Key", e.to_string()),
        };
        let mut buf = v.pt.clone();
        buf.resize(spec.output_len(v.pt.len()), 0xA5);
        match c.encrypt(&v.nonce, &v.ad, &mut buf, v.pt.len()) {
            Ok(n) if buf[..n] == v.ct[..] => {}
            Ok(n) => {
                return differs(
                    v,
                    "CT",
                    format!(
                        "encryption gave {}, the KAT says {}",
                        hex::encode_upper(&buf[..n]),
                        hex::encode_upper(&v.ct)
                    ),
                );
            }
            Err(e) => return differs(v, "CT", format!("encryption failed: {e}")),
        }
        let mut back = v.ct.clone();
        match c.decrypt(&v.nonce, &v.ad, &mut back) {
            Ok(n) if back[..n] == v.pt[..] => {}
            Ok(n) => {
                return differs(
                    v,
                    "PT",
                    format!(
                        "decryption gave {}, the KAT says {}",
                        hex::encode_upper(&back[..n]),
                        hex::encode_upper(&v.pt)
                    ),
                );
            }
            Err(e) => return differs(v, "PT", format!("decryption of the KAT's CT failed: {e}")),
        }
        for bit in flips(i, tag_bits) {
            let mut forged = v.ct.clone();
            let at = v.pt.len() + bit / 8;
            forged[at] ^= 1 << (bit % 8);
            match c.decrypt(&v.nonce, &v.ad, &mut forged) {
                Err(CipherError::Authentication) if forged.iter().all(|&b| b == 0) => {
                    forgeries += 1;
                }
                Err(CipherError::Authentication) => {
                    return differs(v, "tag", "a refused forgery left output unwiped".into());
                }
                Ok(_) => {
                    return differs(
                        v,
                        "tag",
                        format!(
                            "a tag with bit {bit} flipped was accepted: decryption released plaintext that failed authentication"
                        ),
                    );
                }
                Err(e) => return differs(v, "tag", format!("forged tag: {e}")),
            }
        }
    }
    Outcome::Agrees {
        vectors: vectors.len(),
        forgeries,
        ns_4k: quick_timing(provider, spec),
    }
}

/// Median wall-clock nanoseconds per encryption of 4 KiB with 32 B of associated data:
/// 15 samples of 20 calls after a warm-up.
fn quick_timing(provider: &dyn Provider, spec: &CipherSpec) -> f64 {
    const LEN: usize = 4096;
    let key = vec![7u8; spec.key_len()];
    let iv = vec![9u8; spec.iv_len()];
    let ad = [0xADu8; 32];
    let Ok(mut c) = provider.init(spec, &key) else {
        return f64::INFINITY;
    };
    let mut buf = vec![0x5Au8; spec.output_len(LEN)];
    let mut once = |c: &mut Box<dyn Cipher>| {
        let _ = std::hint::black_box(c.encrypt(&iv, &ad, std::hint::black_box(&mut buf), LEN));
    };
    for _ in 0..20 {
        once(&mut c);
    }
    let mut samples: Vec<f64> = (0..15)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..20 {
                once(&mut c);
            }
            t.elapsed().as_nanos() as f64 / 20.0
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Loads a library built earlier from `dir` (a fork child loads the one its parent
/// chose) as provider `name` of `spec`, after checking it against the KAT again: only an
/// agreeing library is returned.
pub fn load_built(
    name: &str,
    spec: &CipherSpec,
    dir: &Path,
    library: &Path,
    kat_dir: &Path,
) -> Result<NativeAead, Error> {
    let src = Source::read(dir)?;
    sizes_match(spec, src.api, dir)?;
    let (_, vectors) = kat_vectors(spec, kat_dir)?;
    let provider = NativeAead::new(name, *spec, Library::load(library, src.api)?)?;
    match check_provider(&provider, spec, &vectors) {
        Outcome::Agrees { .. } => Ok(provider),
        other => Err(Error::Load {
            path: library.to_path_buf(),
            message: format!("does not agree with the KAT of {spec} any more: {other:?}"),
        }),
    }
}
