//! Public-key encryption in the JVM for the `phases` study: RSA as the Java
//! stream-security paper timed it (Fig. 9: key generation, init, the public-key and the
//! private-key operation), and ECIES (X25519, P-256) in cipherlab's construction, beyond
//! the paper, through the Java runner (platforms/PROTOCOL.md, `asym`).
//!
//! Conformance first: the runner returns its private key (PKCS#8) and its ciphertext of
//! the session key; cipherlab ([`cipherlab_ciphers::asym`], OpenSSL) must decrypt that
//! ciphertext to the session key under that key, else none of the provider's samples is
//! kept (both schemes are randomized, so agreement is shown by decryption, not by equal
//! bytes).

use cipherlab_ciphers::asym::{AsymSpec, Curve, Decryptor, Keypair, RsaPadding};
use cipherlab_harness::{ExternalTimer, Settings};
use serde_json::{Value, json};

use super::find::{self, distinct};
use super::java_stream::{exchange, versions};
use super::public_key::MESSAGE;
use super::{Config, Elsewhere, Scale};
use cipherlab_results::artifact::Artifact;
use cipherlab_results::artifact::table::{Cell, Table, num, text};
use cipherlab_results::id::{BenchId, Measurement, Phase, Subject};
use cipherlab_results::verdict::{Agreement, Order, Tally};

/// The phases the runner times, in its names' order.
const PHASES: [(Phase, &str); 4] = [
    (Phase::Keygen, "keygen"),
    (Phase::Init, "init"),
    (Phase::Encrypt, "encrypt"),
    (Phase::Decrypt, "decrypt"),
];

/// The paper's RSA (1024 bits, PKCS#1 v1.5), ECIES over X25519 (beyond the paper; the
/// `--quick` pair), then OAEP at 1024 and 2048 bits and ECIES over P-256.
const SCHEMES: [AsymSpec; 5] = [
    AsymSpec::Rsa {
        bits: 1024,
        padding: RsaPadding::Pkcs1,
    },
    AsymSpec::Ecies(Curve::X25519),
    AsymSpec::Rsa {
        bits: 1024,
        padding: RsaPadding::Oaep,
    },
    AsymSpec::Rsa {
        bits: 2048,
        padding: RsaPadding::Oaep,
    },
    AsymSpec::Ecies(Curve::P256),
];

/// What one run asks: schemes, providers, key pairs timed, operation rounds timed and
/// untimed. BouncyCastle's RSA key generation takes 0.3-0.5 s per pair here, so
/// `--quick` times only the paper's scheme and X25519 (microseconds), three pairs each.
struct Load {
    schemes: &'static [AsymSpec],
    providers: &'static [&'static str],
    keygen_reps: u64,
    reps: u64,
    warmup: u64,
}

impl Load {
    fn of(scale: Scale) -> Load {
        match scale {
            Scale::Quick => Load {
                schemes: &SCHEMES[..2],
                providers: &["java-bc"],
                keygen_reps: 3,
                reps: 20,
                warmup: 50,
            },
            Scale::Full | Scale::Paper => Load {
                schemes: &SCHEMES,
                providers: &["java-bc", "java-sunjce"],
                keygen_reps: 10,
                reps: 100,
                warmup: 500,
            },
        }
    }
}

/// Whether cipherlab decrypts the runner's ciphertext (`ct`) under the runner's private
/// key (`private_key`, PKCS#8 DER) to the session key.
pub fn conforms(answer: &Value, spec: AsymSpec) -> Result<(), String> {
    let field = |name: &str| {
        answer[name]
            .as_str()
            .and_then(|h| hex::decode(h).ok())
            .ok_or(format!("no {name} in the answer"))
    };
    let pair = Keypair::from_pkcs8_der(spec, &field("private_key")?).map_err(|e| e.to_string())?;
    let mut dec = Decryptor::new(&pair).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    dec.decrypt(&field("ct")?, &mut out)
        .map_err(|e| format!("cipherlab cannot decrypt it: {e}"))?;
    if out != MESSAGE {
        return Err("cipherlab decrypts it to another message".into());
    }
    Ok(())
}

/// The Java public-key figures of the `phases` study and their conformance table (or why
/// the Java runner was not ready).
pub(crate) fn measure(study: &str, cfg: &Config, settings: &Settings) -> Elsewhere {
    let mut out = Elsewhere::default();
    let load = Load::of(cfg.scale);
    let schemes: Vec<AsymSpec> = load
        .schemes
        .iter()
        .copied()
        .filter(|s| cfg.filter.accepts(&s.to_string()))
        .collect();
    if schemes.is_empty() {
        return out;
    }
    // Both providers are in every Java runner (platforms/java): asked without its info.
    let asked: Vec<(AsymSpec, &str)> = schemes
        .iter()
        .flat_map(|s| load.providers.iter().map(move |p| (*s, *p)))
        .collect();
    let bodies: Vec<Value> = asked
        .iter()
        .map(|(spec, provider)| {
            json!({
                "op": "asym", "scheme": spec.to_string(), "provider": provider,
                "message": hex::encode(MESSAGE), "keygen_reps": load.keygen_reps,
                "reps": load.reps, "warmup": load.warmup,
            })
        })
        .collect();
    let (java, answers) = match exchange(study, &bodies) {
        Ok((java, info, answers)) => {
            versions(&mut out, &info);
            (java, answers)
        }
        Err(why) => {
            out.artifacts.push(*why);
            return out;
        }
    };
    let mut proven = Table::new(&[
        "scheme",
        "provider",
        "key pairs from",
        "cipherlab decrypts Java's ciphertext",
        "first (cold) round ms",
        "warm-up s",
    ]);
    for ((spec, provider), a) in asked.iter().zip(&answers) {
        let verdict = match a.get("error") {
            Some(e) => Err(format!("runner: {e}")),
            None => conforms(a, *spec),
        };
        proven.row(vec![
            text(spec),
            text(provider),
            a["keygen_provider"].clone(),
            text(
                verdict
                    .as_ref()
                    .map_or_else(|e| format!("no: {e}"), |()| "yes".into()),
            ),
            a["first_call_ns"]
                .as_u64()
                .map_or(Value::Null, |ns| num(ns as f64 / 1e6)),
            num(a["warmup_ns"].as_u64().unwrap_or(0) as f64 / 1e9),
        ]);
        if verdict.is_err() {
            continue;
        }
        let clock = ExternalTimer::named(a["clock"].as_str().unwrap_or("unknown clock"));
        for (phase, name) in PHASES {
            let samples: Vec<u64> = a["samples_ns"][name]
                .as_array()
                .map(|v| v.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_default();
            let (size, data) = match phase {
                Phase::Encrypt | Phase::Decrypt => (MESSAGE.len() as u64, "session-key"),
                _ => (0, "none"),
            };
            let id = BenchId::new(
                study,
                Subject::named(spec.to_string()),
                provider,
                phase,
                size,
                data,
            )
            .with_runtime(java);
            if let Ok(m) = cipherlab_harness::Measurement::from_external_samples(
                id, &samples, &clock, None, settings,
            ) {
                out.measurements.push(m);
            }
        }
    }
    proven.note = format!(
        "Public-key encryption in the JVM (platforms/java, `asym`): {} key pairs timed one by one, then \
         {} rounds after {} untimed, each round the init (RSA: Cipher.getInstance + init with the public \
         key; ECIES: the KeyAgreement and AES-GCM objects created), the public-key operation on a {}-byte \
         session key, and the private-key operation, timed apart with System.nanoTime. OAEP is SHA-256 \
         with MGF1-SHA-256 and ECIES is cipherlab's construction (ephemeral key pair, X25519 or P-256 \
         ECDH, HKDF-SHA-256, AES-256-GCM), so cipherlab can decrypt what the JVM encrypts. A provider's \
         figures are kept only when cipherlab decrypts its ciphertext under its private key. Key pairs \
         come from the provider where it has a generator, else from the JDK's default (SunJCE has none \
         for RSA or the curves: SunRsaSign and SunEC make them, as for an application).",
        load.keygen_reps,
        load.reps,
        load.warmup,
        MESSAGE.len()
    );
    out.artifacts.push(proven.artifact(
        study,
        "java/rsa-conformance",
        "Public-key encryption in the JVM: conformance",
    ));
    out
}

/// The Java public-key table: each phase's median, the paper's "private-key operation
/// much slower than the public one" checked per RSA scheme and provider (ECIES is beyond
/// the paper: its ratio is shown without a verdict), and Java against cipherlab per
/// operation; every verdict from a 99% interval.
pub fn findings(study: &str, java: &[&Measurement], rust: &[&Measurement]) -> Option<Artifact> {
    let java: Vec<&Measurement> = java
        .iter()
        .copied()
        .filter(|m| AsymSpec::parse(m.id.algorithm.name()).is_ok())
        .collect();
    if java.is_empty() {
        return None;
    }
    let mut t = Table::new(&[
        "scheme",
        "provider",
        "keygen ms",
        "init µs",
        "encrypt µs",
        "decrypt µs",
        "private / public [99% CI]",
        "paper: private much slower",
        "Java / cipherlab, encrypt [99% CI]",
        "Java / cipherlab, decrypt [99% CI]",
    ]);
    let mut verdicts = Vec::new();
    for (alg, provider) in distinct(&java, |m| {
        (m.id.algorithm.clone(), m.id.implementation.clone())
    }) {
        let of = |p: Phase| {
            java.iter().copied().find(|m| {
                m.id.algorithm == alg && m.id.implementation == provider && m.id.phase == p
            })
        };
        let ours = |p: Phase| find::one(rust, &alg, p, None, None);
        let ratio = |a: Option<&Measurement>, b: Option<&Measurement>| {
            a.zip(b).and_then(|(a, b)| find::ratio(a, b))
        };
        let private_public = ratio(of(Phase::Decrypt), of(Phase::Encrypt));
        let is_rsa = matches!(AsymSpec::parse(alg.name()), Ok(AsymSpec::Rsa { .. }));
        let v = Agreement::of(Order::Slower, Order::of(private_public.as_ref()));
        if is_rsa {
            verdicts.push(v);
        }
        let median = |m: Option<&Measurement>, div: f64| {
            m.map_or(Value::Null, |m| num(m.median_ns_per_op() / div))
        };
        let against = |p: Phase| {
            let r = ratio(of(p), ours(p));
            format!("{} ({})", find::ratio_text(r), Order::of(r.as_ref()).word())
        };
        t.row::<Cell>(vec![
            text(&alg).into(),
            text(&provider).into(),
            median(of(Phase::Keygen), 1e6).into(),
            median(of(Phase::Init), 1e3).into(),
            median(of(Phase::Encrypt), 1e3).into(),
            median(of(Phase::Decrypt), 1e3).into(),
            find::ratio_cell(private_public),
            if is_rsa {
                Cell::from(v)
            } else {
                text("beyond the paper").into()
            },
            text(against(Phase::Encrypt)).into(),
            text(against(Phase::Decrypt)).into(),
        ]);
    }
    t.note = format!(
        "Paper (Fig. 9, Java 6 + BouncyCastle, RSA-1024 with PKCS#1 v1.5): the private-key operation \
         much slower than the public one. The JVM here (private over public, by the 99% interval): {}. \
         Java / cipherlab: the same operation in the JVM over cipherlab's (OpenSSL) on this machine, \
         slower/faster when the whole interval is beyond 5% of 1. Java's init creates the encrypting \
         cipher only, cipherlab's binds both contexts.",
        Tally::of(verdicts.iter().copied())
    );
    Some(t.artifact(
        study,
        "java/rsa-phases",
        "Public-key encryption in the JVM: time per phase (median)",
    ))
}
