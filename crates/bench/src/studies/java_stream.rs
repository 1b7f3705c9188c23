//! The Java stream-security paper's experiment done in the JVM, for the `objects` study:
//! records written with `ObjectOutputStream` through a `CipherOutputStream` and read
//! back, key generation, cipher creation + init, writing and reading timed apart by the
//! Java runner (platforms/PROTOCOL.md, `stream`). Beyond the paper, BouncyCastle's
//! Ascon-AEAD128 through its lightweight API's streams, whose reader checks the tag.
//!
//! Conformance first: the runner returns the serialized stream it wrote and the SHA-256
//! of the ciphertext; cipherlab encrypts the same bytes under the same key and keeps the
//! runner's samples only when the two ciphertexts are the same bytes. The samples then go
//! through [`cipherlab_harness::Measurement::from_external_samples`], the statistics every
//! other figure gets; the ciphertext's byte counts through [`Histogram`].

use cipherlab_ciphers::{CipherSpec, Mode, catalogue};
use cipherlab_harness::{ExternalTimer, Settings};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::find::{self, distinct};
use super::{Config, Elsewhere, Scale};
use cipherlab_platforms::conformance::TestRng;
use cipherlab_platforms::{Info, cipherlab_ciphertext, platforms_dir, ready};
use cipherlab_results::artifact::table::{Cell, Table, int, num, text};
use cipherlab_results::artifact::{Artifact, Content, Histogram};
use cipherlab_results::id::{BenchId, Measurement, Phase, Runtime};
use cipherlab_results::verdict::{self, Agreement, Order, Tally};

/// The runtime of the Java papers' experiments (its id in platforms/runtimes.toml): the
/// one place the studies that exist only in the JVM (`objects`' and `phases`' Java
/// figures, `providers`' Java rows) name it.
pub(crate) const JAVA: &str = "java";

/// Whether a figure was measured in the JVM.
pub(crate) fn in_java(m: &Measurement) -> bool {
    m.id.runtime.as_str() == JAVA
}

/// The data type of the Java figures: the JVM's own serialization stream.
pub const DATA_TYPE: &str = "java-objects";

/// The paper's four ciphers (through BouncyCastle, ECB with PKCS#5 padding as its
/// defaults), AES-CBC as an application would choose today, and beyond the paper
/// Ascon-AEAD128 (BouncyCastle's lightweight API: its nonce is the request's `iv`, no
/// associated data, the ciphertext ends with the tag).
pub(crate) const CIPHERS: [CipherSpec; 6] = [
    CipherSpec::of(&catalogue::DES, 56, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::TDES, 168, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::BLOWFISH, 128, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::AES, 128, Some(Mode::Ecb)),
    CipherSpec::of(&catalogue::AES, 128, Some(Mode::Cbc)),
    CipherSpec::aead(&catalogue::ASCON_AEAD128),
];

/// The provider with BouncyCastle's lightweight API, the only one with Ascon.
const LIGHTWEIGHT_PROVIDER: &str = "java-bc";

/// Whether the paper made claims about `spec` (its ciphers were unauthenticated; an AEAD
/// row is shown without a paper verdict).
fn in_paper(spec: Option<&CipherSpec>) -> bool {
    spec.is_some_and(|s| !s.is_aead())
}

/// The protocol's phase names, in the order of [`PHASES`].
const PHASE_NAMES: [&str; 4] = ["keygen", "init", "write", "read"];
/// The phases the runner times apart.
pub(crate) const PHASES: [Phase; 4] = [Phase::Keygen, Phase::Init, Phase::Write, Phase::Read];

/// Seed of the keys, IVs and the records (fixed: a run can be repeated).
const SEED: u64 = 0x0b1ec7;

/// How much one run asks of the JVM: records per stream, timed rounds, untimed rounds,
/// and whether SunJCE is timed beside BouncyCastle (the paper's provider).
struct Load {
    objects: u64,
    reps: u64,
    warmup: u64,
    providers: &'static [&'static str],
}

impl Load {
    fn of(scale: Scale) -> Load {
        match scale {
            // About 50 KB per stream and one provider: a few seconds with the JVM's start.
            // 40 rounds: with 20, a third of the figures (key generation and init take
            // tens of microseconds, read on the wall clock) could not be ordered against
            // a neighbour in a quick run with one core busy.
            Scale::Quick => Load {
                objects: 10,
                reps: 40,
                warmup: 30,
                providers: &["java-bc"],
            },
            // The paper's 100 objects and 100 repetitions.
            Scale::Full | Scale::Paper => Load {
                objects: 100,
                reps: 100,
                warmup: 200,
                providers: &["java-bc", "java-sunjce"],
            },
        }
    }
}

/// One `stream` request and what its answer becomes.
struct Request {
    spec: CipherSpec,
    provider: &'static str,
    key: Vec<u8>,
    iv: Vec<u8>,
    json: Value,
}

fn requests(cfg: &Config, load: &Load) -> Vec<Request> {
    let mut rng = TestRng(SEED);
    let mut out = Vec::new();
    for spec in CIPHERS.into_iter().filter(|s| cfg.filter.accepts_spec(s)) {
        let key = rng.bytes(spec.key_len());
        let iv = rng.bytes(spec.iv_len());
        for &provider in load.providers {
            if spec.is_aead() && provider != LIGHTWEIGHT_PROVIDER {
                continue;
            }
            let mut json = json!({
                "op": "stream", "alg": spec.to_string(), "provider": provider,
                "key": hex::encode(&key), "objects": load.objects, "seed": SEED,
                "reps": load.reps, "warmup": load.warmup,
            });
            if !iv.is_empty()
                && let Some(o) = json.as_object_mut()
            {
                o.insert("iv".into(), hex::encode(&iv).into());
            }
            out.push(Request {
                spec,
                provider,
                key: key.clone(),
                iv: iv.clone(),
                json,
            });
        }
    }
    out
}

/// Whether the runner's ciphertext (`ct_digest`, `ct_len`) is cipherlab's of its stream,
/// and for an AEAD whether the runner refused its stream with a tampered tag:
/// `Ok(plain)` when both hold, else why not.
pub fn conforms(
    answer: &Value,
    spec: &CipherSpec,
    key: &[u8],
    iv: &[u8],
) -> Result<Vec<u8>, String> {
    let plain = answer["plain"]
        .as_str()
        .and_then(|h| hex::decode(h).ok())
        .ok_or("no serialized stream in the answer")?;
    let ct = cipherlab_ciphertext(spec, key, iv, plain.clone()).map_err(|e| e.to_string())?;
    let digest = hex::encode(Sha256::digest(&ct));
    if answer["ct_len"].as_u64() != Some(ct.len() as u64) || answer["ct_digest"] != json!(digest) {
        return Err(format!(
            "ciphertext differs from cipherlab's: {} bytes, SHA-256 {} against ours {} bytes, {digest}",
            answer["ct_len"],
            answer["ct_digest"],
            ct.len()
        ));
    }
    if spec.is_aead() && answer["tamper_refused"] != json!(true) {
        return Err("the runner did not say it refused a stream with a tampered tag".into());
    }
    Ok(plain)
}

/// Sends `requests` to the Java runner after an `info` (one JVM start for both) and
/// returns the runtime, the runner's `info` and one answer per request; or, when the runner is not
/// ready or fails, a table saying why and the command that fixes it (`java/missing`).
pub(crate) fn exchange(
    study: &str,
    requests: &[Value],
) -> Result<(Runtime, Info, Vec<Value>), Box<Artifact>> {
    let dir = platforms_dir(None);
    let absent = |why: String, fix: String| {
        let mut t = Table::new(&["runtime", "why", "install"]);
        t.row(vec![text(JAVA), text(why), text(fix)]);
        t.note = "The Java experiment was not run; the Rust figures stand alone.".into();
        Box::new(t.artifact(study, "java/missing", "Java runner not present"))
    };
    let setup = format!("bash {}", dir.join("setup").display());
    let (rt, java) = match cipherlab_platforms::runtime(JAVA).map(|d| (d, Runtime::of(d))) {
        Ok((d, Some(r))) => (d, r),
        _ => {
            return Err(absent(
                format!("no runtime {JAVA} in platforms/runtimes.toml"),
                setup,
            ));
        }
    };
    let (runner, info) = ready(rt, &dir).map_err(|n| absent(n.why, n.fix))?;
    let answers = runner
        .exchange(requests)
        .map_err(|e| absent(e.to_string(), setup))?;
    Ok((java, info, answers))
}

/// Records the runtime's and its providers' versions for the machine block.
pub(crate) fn versions(out: &mut Elsewhere, info: &Info) {
    out.runtimes.insert(JAVA.into(), info.version.clone());
    for p in &info.providers {
        out.runtimes
            .insert(p.name.clone(), format!("{} {}", p.library, p.version));
    }
}

/// The Java figures of the `objects` study (none, with a table saying why, when the Java
/// runner is not ready), their conformance, the paid-apart costs and the byte histograms
/// of Java's stream before and after encryption.
pub(crate) fn measure(study: &str, cfg: &Config, settings: &Settings) -> Elsewhere {
    let mut out = Elsewhere::default();
    let load = Load::of(cfg.scale);
    let reqs = requests(cfg, &load);
    if reqs.is_empty() {
        return out;
    }
    let bodies: Vec<Value> = reqs.iter().map(|r| r.json.clone()).collect();
    let started = std::time::Instant::now();
    let (java, info, answers) = match exchange(study, &bodies) {
        Ok(done) => done,
        Err(why) => {
            out.artifacts.push(*why);
            return out;
        }
    };
    let exchange_s = started.elapsed().as_secs_f64();
    versions(&mut out, &info);
    let mut proven = Table::new(&[
        "provider",
        "cipher",
        "stream bytes",
        "ciphertext = cipherlab's",
        "first (cold) round ms",
        "warm-up rounds",
        "warm-up s",
        "steady",
    ]);
    let mut plain_histogram = None;
    for (r, a) in reqs.iter().zip(&answers) {
        let verdict = if let Some(e) = a.get("error") {
            Err(format!("runner: {e}"))
        } else {
            conforms(a, &r.spec, &r.key, &r.iv)
        };
        let size = verdict.as_ref().map_or(0, |p| p.len() as u64);
        proven.row(vec![
            text(r.provider),
            text(r.spec),
            int(size),
            text(
                verdict
                    .as_ref()
                    .map_or_else(|e| format!("no: {e}"), |_| "yes".into()),
            ),
            a["first_call_ns"]
                .as_u64()
                .map_or(Value::Null, |ns| num(ns as f64 / 1e6)),
            int(a["warmup_calls"].as_u64().unwrap_or(0)),
            num(a["warmup_ns"].as_u64().unwrap_or(0) as f64 / 1e9),
            a["steady"].clone(),
        ]);
        let Ok(plain) = verdict else { continue };
        if plain_histogram.is_none() {
            plain_histogram = Some(Histogram::of("none", DATA_TYPE, &plain));
        }
        if let Some(h) = counts(&a["ct_counts"]) {
            let name = format!("{} ({})", r.spec, r.provider);
            out.artifacts.push(histogram_artifact(
                study,
                &Histogram::from_counts(&name, DATA_TYPE, &h),
            ));
        }
        let clock = ExternalTimer::named(a["clock"].as_str().unwrap_or("unknown clock"));
        for (phase, name) in PHASES.into_iter().zip(PHASE_NAMES) {
            let samples: Vec<u64> = a["samples_ns"][name]
                .as_array()
                .map(|v| v.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_default();
            let bytes = matches!(phase, Phase::Write | Phase::Read).then_some(size);
            let id = BenchId::new(
                study,
                r.spec,
                r.provider,
                phase,
                bytes.unwrap_or(0),
                DATA_TYPE,
            )
            .with_runtime(java);
            if let Ok(m) = cipherlab_harness::Measurement::from_external_samples(
                id, &samples, &clock, bytes, settings,
            ) {
                out.measurements.push(m);
            }
        }
    }
    if let Some(h) = plain_histogram {
        out.artifacts.push(histogram_artifact(study, &h));
    }
    proven.note = format!(
        "{} records per stream (ObjectOutputStream, one writeObject each, over CipherOutputStream), \
         seed {SEED:#x}; {} timed rounds after {} untimed ones, each round key generation, \
         Cipher.getInstance + init, writing the stream, and reading it back through CipherInputStream + \
         ObjectInputStream, timed apart with System.nanoTime. Ascon-AEAD128 goes through BouncyCastle's \
         lightweight API instead (key: 16 bytes of SecureRandom; init: the engine created and initialised \
         with key and nonce; org.bouncycastle.crypto.io's streams, the tag appended and checked at the end; \
         its answer counts only when the runner also refused the stream with one bit of its tag flipped). \
         A provider's figures are kept only when its \
         ciphertext is byte for byte cipherlab's encryption of the same serialized stream under the same key. \
         `steady`: every phase's last quarter of samples within 5% of the quarter before. The whole \
         exchange (one JVM start, its `info` and {} requests) took {exchange_s:.1} s, of which the runner's \
         own start-up {:.0} ms.",
        load.objects,
        load.reps,
        load.warmup,
        reqs.len(),
        info.startup_ns as f64 / 1e6
    );
    out.artifacts.push(proven.artifact(
        study,
        "java/conformance",
        "Java's stream experiment: conformance and costs paid apart",
    ));
    out
}

fn counts(v: &Value) -> Option<[u64; 256]> {
    let xs: Vec<u64> = v.as_array()?.iter().filter_map(Value::as_u64).collect();
    xs.try_into().ok()
}

fn histogram_artifact(study: &str, h: &Histogram) -> Artifact {
    Artifact::new(
        study,
        &format!("java/histogram/{}", h.algorithm),
        &format!("Byte values of Java's stream: {}", h.label),
        Content::Histogram(h.clone()),
    )
}

/// The Java table of the `objects` findings: each cipher and provider's phases, the
/// paper's two claims checked on the JVM's own figures, and Java against cipherlab's
/// write of the same kind of graph. Every verdict comes from a 99% interval.
pub fn findings(study: &str, java: &[&Measurement], rust: &[&Measurement]) -> Vec<Artifact> {
    if java.is_empty() {
        return Vec::new();
    }
    let mut t = Table::new(&[
        "cipher",
        "provider",
        "keygen µs",
        "init µs",
        "write ms",
        "read ms",
        "keygen against the slowest other phase",
        "paper: keygen the main factor",
        "Java write / cipherlab write, per byte [99% CI]",
        "Java against cipherlab",
    ]);
    let mut keygen_verdicts = Vec::new();
    for (alg, provider) in distinct(java, |m| {
        (m.id.algorithm.clone(), m.id.implementation.clone())
    }) {
        let of = |p: Phase| {
            java.iter().copied().find(|m| {
                m.id.algorithm == alg && m.id.implementation == provider && m.id.phase == p
            })
        };
        let found: Vec<Option<&Measurement>> = PHASES.iter().map(|p| of(*p)).collect();
        let slowest_other = found[1..]
            .iter()
            .flatten()
            .max_by(|a, b| a.median_ns_per_op().total_cmp(&b.median_ns_per_op()));
        let keygen = Order::of(
            found[0]
                .zip(slowest_other)
                .and_then(|(k, o)| find::ratio(k, o))
                .as_ref(),
        );
        let v = if in_paper(alg.spec()) {
            let v = Agreement::of(Order::Slower, keygen);
            keygen_verdicts.push(v);
            Cell::from(v)
        } else {
            Cell::from(text("beyond the paper"))
        };
        let ours = find::one(rust, &alg, Phase::Write, None, None);
        let vs = found[2].zip(ours).and_then(|(j, r)| per_byte_ratio(j, r));
        let unit = |m: Option<&Measurement>, div: f64| {
            m.map_or(Value::Null, |m| num(m.median_ns_per_op() / div))
        };
        t.row::<Cell>(vec![
            text(&alg).into(),
            text(&provider).into(),
            unit(found[0], 1e3).into(),
            unit(found[1], 1e3).into(),
            unit(found[2], 1e6).into(),
            unit(found[3], 1e6).into(),
            text(keygen.word()).into(),
            v,
            find::ratio_cell(vs),
            text(Order::of(vs.as_ref()).word()).into(),
        ]);
    }
    let outperformed = aes_outperformed(java);
    let aes = if outperformed.is_empty() {
        "not measured".to_string()
    } else {
        outperformed
            .iter()
            .map(|(provider, title, v)| format!("{provider} against {title} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    t.note = format!(
        "The paper's experiment in the JVM (platforms/java, `stream`), its figures summarized by the same \
         statistics as ours. Paper (Figs. 5-8): key generation was \"the main factor\" for every symmetric \
         cipher; the JVM here (key generation slower than every other phase, by the 99% interval; the paper's \
         unauthenticated ciphers only, Ascon-AEAD128 is shown beyond the paper without a verdict): {}. \
         Paper's conclusion, AES outperformed DES, 3DES and Blowfish (the write through the stream, \
         BouncyCastle): {}. `Java against cipherlab`: Java's write time per byte of its stream over cipherlab's per \
         byte of its own graph of the same record shape in raw mode (Ascon-AEAD128: through cipherlab's \
         authenticated container, the only way it writes an AEAD stream). cipherlab's graph is postcard, not \
         Java's serialization format: the streams differ in length and layout, so this compares what an \
         application pays per byte of objects in each runtime, not the ciphers alone.",
        Tally::of(keygen_verdicts.iter().copied()),
        aes
    );
    let mut out = vec![t.artifact(
        study,
        "java/stream-phases",
        "Java's stream experiment: time per phase (median)",
    )];
    if !outperformed.is_empty() {
        let claims = outperformed.into_iter().map(|(provider, title, v)| {
            (
                format!("AES outperformed {title} (the JVM's write, {provider})"),
                v,
            )
        });
        out.push(verdict::claims_table(claims).artifact(
            study,
            "java/aes-outperformed",
            "The paper's conclusion in the JVM, AES outperformed DES, 3DES and Blowfish: checked",
        ));
    }
    out
}

/// `a / b` in time per byte of their streams (the two runtimes serialize the graph to
/// different lengths): the time ratio's interval scaled by `b`'s bytes over `a`'s.
fn per_byte_ratio(a: &Measurement, b: &Measurement) -> Option<cipherlab_harness::stats::Ratio> {
    if a.id.size == 0 || b.id.size == 0 {
        return None;
    }
    let mut r = find::ratio(a, b)?;
    let k = b.id.size as f64 / a.id.size as f64;
    r.interval.estimate *= k;
    r.interval.low *= k;
    r.interval.high *= k;
    Some(r)
}

/// The paper's conclusion checked on Java's write phase, per provider: AES-128 (ECB, as
/// the paper's others) against DES, 3DES and Blowfish: (provider, the other cipher,
/// verdict) for each pair measured.
fn aes_outperformed(java: &[&Measurement]) -> Vec<(String, String, Agreement)> {
    let aes = CipherSpec::of(&catalogue::AES, 128, Some(Mode::Ecb));
    let mut parts = Vec::new();
    for provider in distinct(java, |m| m.id.implementation.clone()) {
        let write = |spec: &CipherSpec| {
            java.iter().copied().find(|m| {
                m.id.is_cipher(spec)
                    && m.id.implementation == provider
                    && m.id.phase == Phase::Write
            })
        };
        let Some(a) = write(&aes) else { continue };
        for other in &CIPHERS[..3] {
            let Some(o) = write(other) else { continue };
            let v = Agreement::of(Order::Faster, Order::of(find::ratio(a, o).as_ref()));
            parts.push((provider.clone(), other.algorithm.title.to_string(), v));
        }
    }
    parts
}
