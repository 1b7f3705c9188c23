//! Conformance of a runner against cipherlab: the same generated vectors (lengths 0 …
//! three blocks + 1 and a few long ones; random keys, IVs or nonces and associated data;
//! unpadded ECB/CBC at whole blocks; a tampered tag and, where there is one, a tampered
//! ciphertext byte for AEADs) answered by cipherlab's own catalogue in-process
//! ([`crate::vectors::answer`]) and by the runner; the answers must be identical.
//! `cipherlab platforms check` prints the matrix; the `platforms` study times a runtime
//! only for the algorithms where it agreed.

use std::collections::BTreeMap;

use cipherlab_ciphers::{CipherSpec, Kind};
use serde_json::{Map, Value, json};

use crate::{Info, Runner};

/// SplitMix64 (Steele, Lea, Flood 2014): reproducible test data from a seed. Test vectors
/// need variety and repeatability, not secrecy, so no OS randomness here.
pub struct TestRng(pub u64);

impl TestRng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64().to_le_bytes()[0]).collect()
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// One generated vector: the request and cipherlab's answer to it.
pub struct Vector {
    /// The request sent to the runner.
    pub request: Value,
    /// cipherlab's answer to it.
    pub expected: Value,
}

/// cipherlab's answer to `request`, from the catalogue in-process.
fn cipherlab_answer(request: &Value) -> Value {
    crate::vectors::answer(&request.to_string()).unwrap_or_else(|e| e)
}

/// The vectors for one catalogue name.
pub fn vectors_for(spec: &CipherSpec, name: &str, rng: &mut TestRng, quick: bool) -> Vec<Vector> {
    let block = if spec.algorithm.kind == Kind::Block {
        spec.algorithm.block_bytes
    } else {
        16
    };
    let mut lengths: Vec<usize> = (0..=3 * block + 1).collect();
    lengths.extend(if quick {
        &[1000][..]
    } else {
        &[1000, 4099][..]
    });
    let iv_field = if spec.is_aead() { "nonce" } else { "iv" };
    let mut out = Vec::new();
    let mut push = |request: Value| {
        let expected = cipherlab_answer(&request);
        out.push(Vector { request, expected });
        out.last()
            .map(|v| v.expected.clone())
            .unwrap_or(Value::Null)
    };
    for len in lengths {
        let mut base = Map::new();
        base.insert("alg".into(), name.into());
        base.insert("key".into(), hex::encode(rng.bytes(spec.key_len())).into());
        if spec.iv_len() > 0 {
            base.insert(
                iv_field.into(),
                hex::encode(rng.bytes(spec.iv_len())).into(),
            );
        }
        if spec.is_aead() {
            let ad_len = usize::try_from(rng.below(33)).unwrap_or(0);
            base.insert("ad".into(), hex::encode(rng.bytes(ad_len)).into());
        }
        let pt = hex::encode(rng.bytes(len));
        let paddings: &[Option<&str>] = if spec.pads() && len % block == 0 {
            &[None, Some("none")]
        } else {
            &[None]
        };
        for padding in paddings {
            let mut enc = base.clone();
            enc.insert("op".into(), "encrypt".into());
            enc.insert("pt".into(), pt.clone().into());
            if let Some(p) = padding {
                enc.insert("padding".into(), (*p).into());
            }
            let answer = push(Value::Object(enc));
            let (Some(ct), tag) = (answer["ct"].as_str(), answer["tag"].as_str()) else {
                continue; // cipherlab refused (it should not): the vector compares errors
            };
            let mut dec = base.clone();
            dec.insert("op".into(), "decrypt".into());
            dec.insert("ct".into(), ct.into());
            if let Some(p) = padding {
                dec.insert("padding".into(), (*p).into());
            }
            if let Some(tag) = tag {
                dec.insert("tag".into(), tag.into());
                let mut bad_tag = dec.clone();
                bad_tag.insert("tag".into(), flip_first_bit(tag).into());
                push(Value::Object(bad_tag));
                if !ct.is_empty() {
                    let mut bad_ct = dec.clone();
                    bad_ct.insert("ct".into(), flip_first_bit(ct).into());
                    push(Value::Object(bad_ct));
                }
            }
            push(Value::Object(dec));
        }
    }
    out
}

/// `hex` with the lowest bit of its first byte flipped.
fn flip_first_bit(hex_text: &str) -> String {
    let mut bytes = hex::decode(hex_text).unwrap_or_default();
    if let Some(b) = bytes.first_mut() {
        *b ^= 1;
    }
    hex::encode(bytes)
}

/// The first vector on which a runner and cipherlab answered differently.
#[derive(Clone)]
pub struct Difference {
    /// The request.
    pub request: Value,
    /// cipherlab's answer.
    pub cipherlab: Value,
    /// The runner's answer.
    pub runner: Value,
}

/// What one provider did with one algorithm's vectors.
#[derive(Clone)]
pub enum Verdict {
    /// Every vector agreed (how many).
    Agree(usize),
    /// The first vector that did not.
    Differ(Box<Difference>),
    /// The provider answered "unsupported" to every vector.
    Unsupported,
}

impl Verdict {
    /// `agree`, `differ` or `unsupported`.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Agree(_) => "agree",
            Verdict::Differ(_) => "differ",
            Verdict::Unsupported => "unsupported",
        }
    }

    /// The verdict as JSON (with the first difference).
    pub fn to_json(&self) -> Value {
        match self {
            Verdict::Agree(n) => json!({"verdict": "agree", "vectors": n}),
            Verdict::Differ(d) => json!({"verdict": "differ", "first_difference": {
                "request": d.request, "cipherlab": d.cipherlab, "runner": d.runner}}),
            Verdict::Unsupported => json!({"verdict": "unsupported"}),
        }
    }
}

/// An answer without its `id`, hex in lower case: what two answers are compared by.
fn normalised(answer: &Value) -> Value {
    let mut a = answer.clone();
    if let Some(obj) = a.as_object_mut() {
        obj.remove("id");
        for v in obj.values_mut() {
            if let Some(s) = v.as_str() {
                *v = Value::String(s.to_ascii_lowercase());
            }
        }
    }
    a
}

/// Whether the runner's answer agrees with cipherlab's. Both refusing counts as agreeing
/// unless one of them is an authentication failure (the words differ between runtimes).
fn agrees(cipherlab: &Value, runner: &Value) -> bool {
    let auth = json!("authentication failed");
    match (cipherlab.get("error"), runner.get("error")) {
        (Some(a), Some(b)) => (a == &auth) == (b == &auth),
        (None, None) => normalised(cipherlab) == normalised(runner),
        _ => false,
    }
}

/// The verdict on one algorithm: `answers` are the runner's to `vectors`, in order.
pub fn judge(vectors: &[Vector], answers: &[Value]) -> Verdict {
    let unsupported = json!("unsupported");
    if answers.iter().all(|a| a.get("error") == Some(&unsupported)) {
        return Verdict::Unsupported;
    }
    for (v, a) in vectors.iter().zip(answers) {
        if !agrees(&v.expected, a) {
            return Verdict::Differ(Box::new(Difference {
                request: v.request.clone(),
                cipherlab: v.expected.clone(),
                runner: a.clone(),
            }));
        }
    }
    Verdict::Agree(vectors.len())
}

/// One provider's results, algorithm by algorithm, in the runner's order.
#[derive(Clone)]
pub struct ProviderResult {
    /// The runtime (`java`).
    pub runtime: String,
    /// Its version.
    pub runtime_version: String,
    /// The provider (`java-sunjce`).
    pub name: String,
    /// Its library.
    pub library: String,
    /// The library's version.
    pub version: String,
    /// Algorithm by algorithm.
    pub results: Vec<(String, Verdict)>,
}

/// Runs the conformance vectors of every algorithm each provider of `info` lists (only
/// those `only` accepts) through `runner` in one exchange, and judges each against
/// cipherlab's in-process answers. `seed` makes the vectors; `quick` uses fewer.
pub fn check_runtime(
    runner: &Runner,
    info: &Info,
    seed: u64,
    quick: bool,
    only: &dyn Fn(&str) -> bool,
) -> Result<Vec<ProviderResult>, crate::Error> {
    // One batch per runtime: every provider's vectors, each request naming its provider.
    let mut rng = TestRng(seed ^ u64::from_le_bytes(*b"platform"));
    let mut by_name: BTreeMap<&str, Vec<Vector>> = BTreeMap::new();
    let mut plan: Vec<(usize, String, std::ops::Range<usize>)> = Vec::new();
    let mut requests = Vec::new();
    let mut not_catalogue: Vec<(usize, String)> = Vec::new();
    for (pi, p) in info.providers.iter().enumerate() {
        for name in p.algorithms.iter().filter(|n| only(n)) {
            let spec = match CipherSpec::parse(name) {
                Ok(s) if s.to_string() == *name => s,
                _ => {
                    not_catalogue.push((pi, name.clone()));
                    continue;
                }
            };
            let vectors = by_name
                .entry(name.as_str())
                .or_insert_with(|| vectors_for(&spec, name, &mut rng, quick));
            let start = requests.len();
            for v in vectors.iter() {
                let mut r = v.request.clone();
                if let Some(o) = r.as_object_mut() {
                    o.insert("provider".into(), p.name.clone().into());
                }
                requests.push(r);
            }
            plan.push((pi, name.clone(), start..requests.len()));
        }
    }
    // A runner that dies on the vectors is an error: the caller reports it.
    let answers = runner.exchange(&requests)?;
    let mut per_provider: Vec<Vec<(String, Verdict)>> =
        info.providers.iter().map(|_| Vec::new()).collect();
    for (pi, name, range) in plan {
        let vectors = &by_name[name.as_str()];
        per_provider[pi].push((name.clone(), judge(vectors, &answers[range])));
    }
    for (pi, name) in not_catalogue {
        per_provider[pi].push((
            name.clone(),
            Verdict::Differ(Box::new(Difference {
                request: json!({"alg": name}),
                cipherlab: json!({"error": "not a canonical catalogue name"}),
                runner: json!({"listed": true}),
            })),
        ));
    }
    Ok(info
        .providers
        .iter()
        .zip(per_provider)
        .map(|(p, res)| ProviderResult {
            runtime: runner.name.clone(),
            runtime_version: info.version.clone(),
            name: p.name.clone(),
            library: p.library.clone(),
            version: p.version.clone(),
            results: res,
        })
        .collect())
}
