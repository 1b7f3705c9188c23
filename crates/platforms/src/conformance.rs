//! Conformance of a runner against cipherlab: the same generated vectors (lengths 0 …
//! three blocks + 1 and a few long ones; random keys, IVs or nonces and associated data;
//! unpadded ECB/CBC at whole blocks; a tampered tag and, where there is one, a tampered
//! ciphertext byte for AEADs; then the edges on purpose: CTR counters wrapping at 32 and
//! 64 bits and at the whole block, the empty message and whole blocks, a flipped tag bit
//! in every position class) answered by cipherlab's own catalogue in-process
//! ([`crate::vectors::answer`]) and by the runner; the answers must be identical.
//! `cipherlab platforms check` prints the matrix; the `platforms` study times a runtime
//! only for the algorithms where it agreed.

use std::collections::BTreeMap;

use cipherlab_ciphers::{CipherSpec, Kind, Mode};
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
    /// What it tries (`random, 17 B`, `CTR counter wrapping at 32 bits`, ...): named in a
    /// difference, never sent.
    pub what: String,
    /// The request sent to the runner.
    pub request: Value,
    /// cipherlab's answer to it.
    pub expected: Value,
}

/// cipherlab's answer to `request`, from the catalogue in-process.
fn cipherlab_answer(request: &Value) -> Value {
    crate::vectors::answer(&request.to_string()).unwrap_or_else(|e| e)
}

/// A bit of a tag to flip: the byte (first, middle, last) and the bit's mask.
#[derive(Clone, Copy)]
enum Byte {
    First,
    Middle,
    Last,
}

/// The tag bit every vector flips: the low bit of the first byte.
const FIRST_LOW: &[(Byte, u8)] = &[(Byte::First, 0x01)];

/// Every position class of a tag bit: first, middle and last byte, high and low bit.
const EVERY_CLASS: &[(Byte, u8)] = &[
    (Byte::First, 0x01),
    (Byte::First, 0x80),
    (Byte::Middle, 0x01),
    (Byte::Last, 0x01),
    (Byte::Last, 0x80),
];

/// The vectors for one catalogue name: random ones, then the edges on purpose.
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
    let mut out = Vec::new();
    for len in lengths {
        let base = random_base(spec, name, rng, true);
        let pt = rng.bytes(len);
        add_case(
            &mut out,
            spec,
            block,
            base,
            &pt,
            &format!("random, {len} B"),
            FIRST_LOW,
        );
    }
    edges(&mut out, spec, name, rng, block);
    out
}

/// A request's algorithm, random key, IV or nonce, and (`random_ad`) random associated
/// data of 0-32 bytes, or none.
fn random_base(
    spec: &CipherSpec,
    name: &str,
    rng: &mut TestRng,
    random_ad: bool,
) -> Map<String, Value> {
    let mut base = Map::new();
    base.insert("alg".into(), name.into());
    base.insert("key".into(), hex::encode(rng.bytes(spec.key_len())).into());
    if spec.iv_len() > 0 {
        let field = if spec.is_aead() { "nonce" } else { "iv" };
        base.insert(field.into(), hex::encode(rng.bytes(spec.iv_len())).into());
    }
    if spec.is_aead() {
        let ad_len = if random_ad {
            usize::try_from(rng.below(33)).unwrap_or(0)
        } else {
            0
        };
        base.insert("ad".into(), hex::encode(rng.bytes(ad_len)).into());
    }
    base
}

/// The edges random vectors miss: CTR counters that wrap at 32 and 64 bits (and the
/// whole block), the empty message and whole blocks (AEADs with empty associated data
/// too), and a flipped tag bit in every position class. The largest and smallest key of
/// each family are names of their own: the probe set ([`crate::PROBE_BITS`]) holds both
/// ends of every range.
fn edges(out: &mut Vec<Vector>, spec: &CipherSpec, name: &str, rng: &mut TestRng, block: usize) {
    if spec.mode == Some(Mode::Ctr) {
        let mut wraps: Vec<usize> = [32, 64, block * 8]
            .into_iter()
            .filter(|&b| b <= block * 8)
            .collect();
        wraps.dedup();
        for bits in wraps {
            let mut base = random_base(spec, name, rng, false);
            let mut iv = rng.bytes(spec.iv_len());
            // The low `bits` of the counter at all-ones minus one: the second block's
            // counter is all ones, the third's wraps to zero (and carries, below the
            // whole block).
            let n = iv.len();
            for b in &mut iv[n - bits / 8..] {
                *b = 0xff;
            }
            iv[n - 1] = 0xfe;
            if bits < block * 8 {
                iv[n - bits / 8 - 1] = rng.bytes(1)[0] & 0xfe; // a carry must not ripple on
            }
            base.insert("iv".into(), hex::encode(iv).into());
            let pt = rng.bytes(4 * block + 3);
            let what = if bits == block * 8 {
                format!("CTR counter wrapping at the whole block ({bits} bits)")
            } else {
                format!("CTR counter wrapping at {bits} bits")
            };
            add_case(out, spec, block, base, &pt, &what, FIRST_LOW);
        }
    }
    for len in [0, block, 2 * block] {
        let base = random_base(spec, name, rng, false);
        let pt = rng.bytes(len);
        let what = match (len, spec.is_aead()) {
            (0, true) => {
                "the empty message, empty associated data, every tag bit class".to_string()
            }
            (0, false) => "the empty message".to_string(),
            (n, true) => format!(
                "{} whole block(s), empty associated data, every tag bit class",
                n / block
            ),
            (n, false) => format!("{} whole block(s)", n / block),
        };
        add_case(out, spec, block, base, &pt, &what, EVERY_CLASS);
    }
}

/// The vectors of one message: its encryption (and, where the mode pads and the message
/// is whole blocks, unpadded too), the decryption of cipherlab's ciphertext, and for an
/// AEAD its tag with each of `flips` and a ciphertext with a flipped bit.
fn add_case(
    out: &mut Vec<Vector>,
    spec: &CipherSpec,
    block: usize,
    base: Map<String, Value>,
    pt: &[u8],
    what: &str,
    flips: &[(Byte, u8)],
) {
    let mut push = |request: Value, what: String| {
        let expected = cipherlab_answer(&request);
        out.push(Vector {
            what,
            request,
            expected: expected.clone(),
        });
        expected
    };
    let pt = hex::encode(pt);
    let paddings: &[Option<&str>] = if spec.pads() && (pt.len() / 2).is_multiple_of(block) {
        &[None, Some("none")]
    } else {
        &[None]
    };
    for padding in paddings {
        let what = match padding {
            Some(p) => format!("{what}, padding {p}"),
            None => what.to_string(),
        };
        let mut enc = base.clone();
        enc.insert("op".into(), "encrypt".into());
        enc.insert("pt".into(), pt.clone().into());
        if let Some(p) = padding {
            enc.insert("padding".into(), (*p).into());
        }
        let answer = push(Value::Object(enc), format!("{what}: encryption"));
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
            for &(byte, mask) in flips {
                let mut bad_tag = dec.clone();
                bad_tag.insert("tag".into(), flip(tag, byte, mask).into());
                let at = match byte {
                    Byte::First => "first",
                    Byte::Middle => "middle",
                    Byte::Last => "last",
                };
                push(
                    Value::Object(bad_tag),
                    format!("{what}: tag bit {mask:#04x} of its {at} byte flipped"),
                );
            }
            if !ct.is_empty() {
                let mut bad_ct = dec.clone();
                bad_ct.insert("ct".into(), flip(ct, Byte::First, 0x01).into());
                push(
                    Value::Object(bad_ct),
                    format!("{what}: a ciphertext bit flipped"),
                );
            }
        }
        push(Value::Object(dec), format!("{what}: decryption"));
    }
}

/// `hex_text` with the bits of `mask` flipped in one of its bytes.
fn flip(hex_text: &str, byte: Byte, mask: u8) -> String {
    let mut bytes = hex::decode(hex_text).unwrap_or_default();
    let n = bytes.len();
    let i = match byte {
        Byte::First => 0,
        Byte::Middle => n / 2,
        Byte::Last => n.saturating_sub(1),
    };
    if let Some(b) = bytes.get_mut(i) {
        *b ^= mask;
    }
    hex::encode(bytes)
}

/// The first vector on which a runner and cipherlab answered differently.
#[derive(Clone)]
pub struct Difference {
    /// What the vector tries ([`Vector::what`]).
    pub what: String,
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
                "what": d.what, "request": d.request, "cipherlab": d.cipherlab, "runner": d.runner}}),
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
                what: v.what.clone(),
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
                what: "the name".into(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use cipherlab_ciphers::catalogue::algorithm;

    fn vectors(name: &str) -> Vec<Vector> {
        let spec = CipherSpec::parse(name).unwrap();
        vectors_for(&spec, name, &mut TestRng(7), true)
    }

    #[test]
    fn ctr_vectors_wrap_the_counter_at_32_and_64_bits_and_the_whole_block() {
        for (name, wraps) in [("aes-128-ctr", 3), ("des-ctr", 2)] {
            let vs = vectors(name);
            let ctr: Vec<&Vector> = vs
                .iter()
                .filter(|v| v.what.starts_with("CTR counter") && v.what.ends_with("encryption"))
                .collect();
            assert_eq!(ctr.len(), wraps, "{name}");
            for v in ctr {
                let iv = hex::decode(v.request["iv"].as_str().unwrap()).unwrap();
                assert_eq!(&iv[iv.len() - 4..], &[0xff, 0xff, 0xff, 0xfe], "{name}");
                let pt = v.request["pt"].as_str().unwrap().len() / 2;
                assert!(pt > 3 * iv.len(), "long enough to cross the wrap");
                assert!(v.expected.get("ct").is_some(), "cipherlab answers it");
            }
        }
    }

    #[test]
    fn aead_edges_flip_a_tag_bit_in_every_position_class_and_all_are_refused() {
        let vs = vectors("aes-128-gcm");
        let flips: Vec<&Vector> = vs
            .iter()
            .filter(|v| v.what.starts_with("the empty message") && v.what.ends_with("byte flipped"))
            .collect();
        assert_eq!(flips.len(), 5);
        let tags: std::collections::BTreeSet<&str> = flips
            .iter()
            .map(|v| v.request["tag"].as_str().unwrap())
            .collect();
        assert_eq!(tags.len(), 5, "five different tags");
        for v in flips {
            assert_eq!(
                v.expected,
                json!({"error": "authentication failed"}),
                "{}",
                v.what
            );
        }
        assert!(vs.iter().any(|v| v.what.starts_with("the empty message")
            && v.request["ad"] == ""
            && v.request["pt"] == ""));
    }

    #[test]
    fn the_probe_set_holds_the_smallest_and_largest_key_of_each_family() {
        for (id, bits) in crate::PROBE_BITS {
            let a = algorithm(*id);
            assert!(bits.contains(&a.key_bits.min), "{}", a.name);
            assert!(bits.contains(&a.key_bits.max), "{}", a.name);
        }
    }

    #[test]
    fn a_wrong_answer_names_the_first_differing_vector() {
        let vs = vectors("aes-128-ctr");
        let mut answers: Vec<Value> = vs.iter().map(|v| v.expected.clone()).collect();
        assert!(matches!(judge(&vs, &answers), Verdict::Agree(_)));
        let i = vs.iter().position(|v| v.what.contains("64 bits")).unwrap();
        answers[i] = json!({"ct": "00"});
        let Verdict::Differ(d) = judge(&vs, &answers) else {
            panic!("agreed")
        };
        assert_eq!(d.what, "CTR counter wrapping at 64 bits: encryption");
    }
}
