//! Checking builds: every vector of the algorithm's official LWC KAT file (an AEAD:
//! encryption gives `CT`, decryption gives `PT` back, then forged tags, a flipped bit at
//! several positions, must be refused, the output wiped; a hash: `crypto_hash` of `Msg`
//! gives `MD`), then a quick timing of the builds that agree, to pick the fastest.

use std::path::{Path, PathBuf};
use std::time::Instant;

use cipherlab_ciphers::{
    ALGORITHMS, CipherSpec, Error as CipherError, HASHES, HashAlgorithm, HashKind, Provider,
};
use cipherlab_testkit::lwc::{AeadVector, HashVector};
use cipherlab_testkit::record::Record;

use crate::build::{Build, Compiler, Workshop, build_all, compilers};
use crate::error::Error;
use crate::load::{Library, NativeAead, sizes_match};
use crate::source::{Api, ApiSizes, Source};

/// What a folder is checked as: a catalogue AEAD (`crypto_aead`) or a catalogue hash
/// (`crypto_hash`).
#[derive(Clone, Copy, Debug)]
pub enum Target {
    /// An AEAD of the catalogue.
    Aead(CipherSpec),
    /// A hash of the catalogue (a fixed-output hash, or an XOF at its KAT's length).
    Hash(&'static HashAlgorithm),
}

impl Target {
    /// The catalogue algorithm called `name`: a hash (`cipherlab list`'s hashes) or an
    /// AEAD.
    pub fn parse(name: &str) -> Result<Target, CipherError> {
        match cipherlab_ciphers::hashes::find(name) {
            Some(h) => Ok(Target::Hash(h)),
            None => CipherSpec::parse(name).map(Target::Aead),
        }
    }

    /// Its name.
    pub fn name(&self) -> String {
        match self {
            Target::Aead(spec) => spec.to_string(),
            Target::Hash(h) => h.name.to_string(),
        }
    }
}

/// A KAT file's vectors, by API.
enum Vectors {
    Aead(CipherSpec, Vec<AeadVector>),
    /// The digest length (api.h's `CRYPTO_BYTES`, checked against the hash's), the
    /// vectors.
    Hash(usize, Vec<HashVector>),
}

impl Vectors {
    fn len(&self) -> usize {
        match self {
            Vectors::Aead(_, v) => v.len(),
            Vectors::Hash(_, v) => v.len(),
        }
    }
}

/// What became of one build.
#[derive(Clone, Debug, serde::Serialize)]
#[serde(tag = "result", rename_all = "kebab-case")]
pub enum Outcome {
    /// Every KAT vector agreed (an AEAD: both ways, and every forged tag was refused).
    Agrees {
        /// KAT vectors checked.
        vectors: usize,
        /// Forged tags refused (0 for a hash: it has none).
        forgeries: usize,
        /// Median nanoseconds per encryption of 4 KiB with 32 B of associated data (a
        /// hash: per digest of 4 KiB) (wall clock, a quick figure to pick the fastest
        /// build, not a measurement).
        ns_4k: f64,
    },
    /// The first vector where it did not.
    Differs {
        /// The vector's `Count`.
        count: usize,
        /// What differed: `CT` (encryption), `PT` (decryption), `tag` (a forgery
        /// accepted), `MD` (a hash's digest).
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
    /// The catalogue AEAD or hash it was checked as.
    pub algorithm: String,
    /// Its api.h: the API (`"kind": "aead"` or `"hash"`) and sizes.
    pub api: Api,
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
    target: Option<Target>,
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

    /// The fastest agreeing build loaded as provider `name` (an AEAD's only: a hash is
    /// refused, [`Error::HashNotTimed`]).
    pub fn provider(&self, name: &str) -> Result<NativeAead, Error> {
        let spec = match self.target {
            Some(Target::Aead(spec)) => spec,
            Some(Target::Hash(_)) => return Err(Error::HashNotTimed(self.dir.clone())),
            None => return Err(Error::Name("no algorithm".into())),
        };
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

/// The catalogue AEADs with an LWC KAT file, and the hashes `crypto_hash` can check, by
/// name.
fn lwc_names() -> String {
    ALGORITHMS
        .iter()
        .filter(|a| a.lwc_kat.is_some())
        .map(|a| a.name)
        .chain(
            HASHES
                .iter()
                .filter(|h| h.kind != HashKind::Cxof)
                .map(|h| h.name),
        )
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every record of the KAT file `rel` in `kat_dir`, of `name`, read with the tests'
/// parser and `read` (every field must be read).
fn read_kat<T>(
    name: &str,
    rel: &str,
    kat_dir: &Path,
    read: fn(&Record) -> Result<T, String>,
) -> Result<(PathBuf, Vec<T>), Error> {
    let path = kat_dir.join(rel);
    if !path.is_file() {
        return Err(Error::Kat(format!(
            "{}: the KAT file of {name} is missing (point --kat-dir or {} at the KAT folder)",
            path.display(),
            cipherlab_testkit::kat::KAT_DIR_VAR
        )));
    }
    let label = cipherlab_testkit::kat::label(kat_dir, rel);
    let records = cipherlab_testkit::record::parse(&path, &label).map_err(Error::Kat)?;
    let mut vectors = Vec::with_capacity(records.len());
    for r in &records {
        let v = read(r).map_err(Error::Kat)?;
        let unread = r.unread();
        if !unread.is_empty() {
            return Err(Error::Kat(format!(
                "{}: fields a KAT of {name} does not have: {unread:?}",
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

/// The KAT vectors of `hash`, read with the tests' parser, and the digest length they
/// ask for: a fixed hash's own; an XOF's, the one length all its `MD`s have. A CXOF is
/// refused (the `crypto_hash` API has no customization string).
pub fn hash_kat_vectors(
    hash: &'static HashAlgorithm,
    kat_dir: &Path,
) -> Result<(PathBuf, usize, Vec<HashVector>), Error> {
    if hash.kind == HashKind::Cxof {
        return Err(Error::Unsupported(format!(
            "{} is a customizable XOF: the crypto_hash API has no customization string; C implementations can be checked for {}",
            hash.name,
            lwc_names()
        )));
    }
    let (path, vectors) = read_kat(hash.name, hash.lwc_kat, kat_dir, HashVector::read)?;
    if let Some(v) = vectors.iter().find(|v| v.custom.is_some()) {
        return Err(Error::Kat(format!(
            "{}: a customization string (Z) in a KAT of {}",
            v.id, hash.name
        )));
    }
    let len = match hash.kind {
        HashKind::Hash => hash.output_len,
        _ => vectors[0].md.len(),
    };
    if let Some(v) = vectors.iter().find(|v| v.md.len() != len) {
        return Err(Error::Unsupported(format!(
            "{}: MD is {} B, not {len} B: crypto_hash gives one length (CRYPTO_BYTES), so {} can be checked only with a KAT file of one output length",
            v.id,
            v.md.len(),
            hash.name
        )));
    }
    Ok((path, len, vectors))
}

/// The KAT vectors of `spec`, read with the tests' parser (every field must be read).
pub fn kat_vectors(spec: &CipherSpec, kat_dir: &Path) -> Result<(PathBuf, Vec<AeadVector>), Error> {
    let rel = spec
        .algorithm
        .lwc_kat
        .ok_or_else(|| Error::NoKat(spec.to_string(), lwc_names()))?;
    read_kat(&spec.to_string(), rel, kat_dir, AeadVector::read)
}

/// `target`'s KAT vectors for a folder whose api.h is `api`: refused first when api.h is
/// of the other API or its sizes are not the target's (a hash's digest length is checked
/// against `CRYPTO_BYTES` once its KAT file gave the length, for XOFs).
fn target_vectors(
    target: &Target,
    api: Api,
    dir: &Path,
    kat_dir: &Path,
) -> Result<(PathBuf, Vectors), Error> {
    match *target {
        Target::Aead(spec) => {
            sizes_match(&spec, api, dir)?;
            let (path, v) = kat_vectors(&spec, kat_dir)?;
            Ok((path, Vectors::Aead(spec, v)))
        }
        Target::Hash(h) => {
            let Api::Hash { bytes } = api else {
                return Err(Error::ApiMismatch {
                    folder: dir.to_path_buf(),
                    api: "crypto_aead",
                    algorithm: h.name.to_string(),
                    what: "a hash (crypto_hash)",
                });
            };
            if h.kind == HashKind::Hash && bytes != h.output_len {
                return Err(Error::DigestMismatch {
                    folder: dir.to_path_buf(),
                    hash: h.name.to_string(),
                    bytes,
                    want: h.output_len,
                });
            }
            let (path, len, v) = hash_kat_vectors(h, kat_dir)?;
            if len != bytes {
                return Err(Error::DigestMismatch {
                    folder: dir.to_path_buf(),
                    hash: h.name.to_string(),
                    bytes,
                    want: len,
                });
            }
            Ok((path, Vectors::Hash(len, v)))
        }
    }
}

/// Builds `dir` with every compiler × flag set and checks each build as `spec` against
/// its KAT file in `kat_dir`. Refuses a folder whose api.h sizes are not `spec`'s.
pub fn check_dir(dir: &Path, spec: &CipherSpec, kat_dir: &Path) -> Result<Report, Error> {
    check_target(dir, &Target::Aead(*spec), kat_dir)
}

/// Builds `dir` with every compiler × flag set and checks each build as `target` (an
/// AEAD under `crypto_aead`, a hash under `crypto_hash`) against its KAT file in
/// `kat_dir`. Refuses, before building, a folder whose api.h is of the other API or whose
/// sizes are not the target's.
pub fn check_target(dir: &Path, target: &Target, kat_dir: &Path) -> Result<Report, Error> {
    let src = Source::read(dir)?;
    let (kat_file, vectors) = target_vectors(target, src.api, dir, kat_dir)?;
    let (compilers, workshop, builds) = build(&src)?;
    Ok(checked(
        &src, target, kat_file, &vectors, compilers, workshop, builds,
    ))
}

/// Builds `dir` and finds which catalogue algorithm it implements: among the
/// [`candidates`] of its api.h (AEADs with its sizes; hashes with its digest length), the
/// first one some build agrees with (the KAT files' inputs or outputs differ, so a wrong
/// candidate fails at its first vectors). Its report; when none agrees, the report of the
/// candidate a build got furthest with.
pub fn identify(dir: &Path, kat_dir: &Path) -> Result<Report, Error> {
    let src = Source::read(dir)?;
    let targets = candidates_of(src.api);
    if targets.is_empty() {
        let what = match src.api {
            Api::Aead(_) => "AEAD with an LWC KAT file",
            Api::Hash { .. } => "hash",
        };
        return Err(Error::Name(format!(
            "{}: no catalogue {what} has api.h's sizes ({}); known: {}",
            dir.display(),
            src.api.describe(),
            lwc_names()
        )));
    }
    let (compilers, workshop, builds) = build(&src)?;
    let mut first = None;
    let mut last_error = None;
    for target in &targets {
        let (kat_file, vectors) = match target_vectors(target, src.api, dir, kat_dir) {
            Ok(k) => k,
            // A candidate without its KAT file (or an XOF whose KAT file has another
            // length) is skipped while others remain.
            Err(e) if targets.len() > 1 => {
                last_error = Some(e);
                continue;
            }
            Err(e) => return Err(e),
        };
        let report = checked(
            &src,
            target,
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
            "none of {} could be checked (the last: {}; point --kat-dir or {} at the KAT folder)",
            targets
                .iter()
                .map(Target::name)
                .collect::<Vec<_>>()
                .join(", "),
            last_error.map(|e| e.to_string()).unwrap_or_default(),
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
                    "CT" | "MD" => 1,
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
    target: &Target,
    kat_file: PathBuf,
    vectors: &Vectors,
    compilers: Vec<Compiler>,
    workshop: Option<Workshop>,
    builds: Vec<Build>,
) -> Report {
    let builds = builds
        .into_iter()
        .map(|b| {
            let outcome = check_build(&b, src.api, vectors);
            BuildReport { build: b, outcome }
        })
        .collect();
    Report {
        dir: src.dir.clone(),
        algorithm: target.name(),
        api: src.api,
        source_hash: src.hash.clone(),
        kat_file,
        vectors: vectors.len(),
        compilers,
        builds,
        workshop,
        target: Some(*target),
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

/// The catalogue algorithms a folder could implement: for the `crypto_aead` API the
/// [`candidates`] of its sizes; for `crypto_hash`, the fixed-output hashes whose digest
/// length is `CRYPTO_BYTES` and the XOFs (whose KAT file then must have that length).
pub fn candidates_of(api: Api) -> Vec<Target> {
    match api {
        Api::Aead(sizes) => candidates(sizes).into_iter().map(Target::Aead).collect(),
        Api::Hash { bytes } => HASHES
            .iter()
            .filter(|h| match h.kind {
                HashKind::Hash => h.output_len == bytes,
                HashKind::Xof => true,
                HashKind::Cxof => false,
            })
            .map(Target::Hash)
            .collect(),
    }
}

/// Checks one build (already made) against `vectors`.
fn check_build(b: &Build, api: Api, vectors: &Vectors) -> Outcome {
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
    match vectors {
        Vectors::Aead(spec, vectors) => {
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
        Vectors::Hash(len, vectors) => check_hash(&lib, *len, vectors),
    }
}

/// Runs `vectors` through `lib`'s `crypto_hash` (digests of `len` bytes): `Msg` must give
/// `MD`; on agreement, the quick timing.
pub fn check_hash(lib: &Library, len: usize, vectors: &[HashVector]) -> Outcome {
    for v in vectors {
        let differs = |detail: String| Outcome::Differs {
            count: v.count,
            field: "MD".to_string(),
            detail,
        };
        match lib.hash(&v.msg, len) {
            Ok(md) if md == v.md => {}
            Ok(md) => {
                return differs(format!(
                    "crypto_hash gave {}, the KAT says {}",
                    hex::encode_upper(&md),
                    hex::encode_upper(&v.md)
                ));
            }
            Err(e) => return differs(e),
        }
    }
    let msg = vec![0x5Au8; 4096];
    let ns_4k = median_ns(|| {
        let _ = std::hint::black_box(lib.hash(std::hint::black_box(&msg), len));
    });
    Outcome::Agrees {
        vectors: vectors.len(),
        forgeries: 0,
        ns_4k,
    }
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
    median_ns(|| {
        let _ = std::hint::black_box(c.encrypt(&iv, &ad, std::hint::black_box(&mut buf), LEN));
    })
}

/// Median wall-clock nanoseconds per call of `once`: 15 samples of 20 calls after a
/// warm-up of 20.
fn median_ns(mut once: impl FnMut()) -> f64 {
    for _ in 0..20 {
        once();
    }
    let mut samples: Vec<f64> = (0..15)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..20 {
                once();
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
