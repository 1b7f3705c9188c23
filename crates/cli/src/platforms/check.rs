//! `cipherlab platforms check`: conformance of every runner against cipherlab.
//!
//! For every algorithm a runner's provider lists, generated vectors (lengths 0 … three
//! blocks + 1 and a few long ones; random keys, IVs or nonces and associated data;
//! unpadded ECB/CBC at whole blocks; a tampered tag and, where there is one, a tampered
//! ciphertext byte for AEADs) are answered by cipherlab's own catalogue in-process
//! (the `cipherlab vectors` code) and by the runner; the answers must be identical.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use cipherlab_ciphers::{CipherSpec, Kind};
use serde_json::{Map, Value, json};

use super::{RUNTIMES, Runner, missing, platforms_dir};

/// Options of `cipherlab platforms check`.
#[derive(clap::Args)]
pub struct Args {
    /// The runners' directory (default: $CIPHERLAB_PLATFORMS_DIR, ./platforms, or the
    /// source tree's).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Only this runtime (java, node, python, php, go); repeat for several.
    #[arg(long = "runtime", value_name = "RUNTIME")]
    runtimes: Vec<String>,
    /// Fewer vectors: lengths 0 … three blocks + 1 and one long message (1,000 bytes).
    #[arg(long)]
    quick: bool,
    /// Seed of the generated keys, nonces and messages (default: from the clock; printed,
    /// so a run can be repeated).
    #[arg(long)]
    seed: Option<u64>,
    /// Print JSON instead of the matrix.
    #[arg(long)]
    json: bool,
}

/// SplitMix64 (Steele, Lea, Flood 2014): reproducible test data from a seed. Test vectors
/// need variety and repeatability, not secrecy, so no OS randomness here.
struct TestRng(u64);

impl TestRng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next().to_le_bytes()[0]).collect()
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One generated vector: the request and cipherlab's answer to it.
struct Vector {
    request: Value,
    expected: Value,
}

/// cipherlab's answer to `request`, from the catalogue in-process.
fn cipherlab_answer(request: &Value) -> Value {
    crate::vectors::answer(&request.to_string()).unwrap_or_else(|e| e)
}

/// The vectors for one catalogue name.
fn vectors_for(spec: &CipherSpec, name: &str, rng: &mut TestRng, quick: bool) -> Vec<Vector> {
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
struct Difference {
    request: Value,
    cipherlab: Value,
    runner: Value,
}

/// What one provider did with one algorithm's vectors.
enum Verdict {
    Agree(usize),
    Differ(Box<Difference>),
    Unsupported,
}

impl Verdict {
    fn word(&self) -> &'static str {
        match self {
            Verdict::Agree(_) => "agree",
            Verdict::Differ(_) => "differ",
            Verdict::Unsupported => "unsupported",
        }
    }

    fn to_json(&self) -> Value {
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

fn judge(vectors: &[Vector], answers: &[Value]) -> Verdict {
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
struct ProviderResult {
    runtime: String,
    runtime_version: String,
    name: String,
    library: String,
    version: String,
    results: Vec<(String, Verdict)>,
}

/// Runs `cipherlab platforms check`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let dir = platforms_dir(args.dir.as_deref());
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
    });
    for r in &args.runtimes {
        if !RUNTIMES.iter().any(|rt| rt.name == r) {
            anyhow::bail!("--runtime {r}: not one of java, node, python, php, go");
        }
    }
    let mut skipped = Vec::new();
    let mut crashed = 0;
    let mut results: Vec<ProviderResult> = Vec::new();
    let mut startup = BTreeMap::new();
    for rt in RUNTIMES {
        if !args.runtimes.is_empty() && !args.runtimes.iter().any(|r| r == rt.name) {
            continue;
        }
        if let Some((why, fix)) = missing(rt, &dir) {
            skipped.push(json!({"runtime": rt.name, "reason": why, "fix": fix}));
            continue;
        }
        let runner = Runner::new(&dir, rt.name)?;
        let info = match runner.info() {
            Ok(i) => i,
            Err(e) => {
                skipped.push(json!({"runtime": rt.name, "reason": format!("{e:#}"),
                    "fix": format!("bash {}", dir.join("setup").display())}));
                continue;
            }
        };
        startup.insert(
            rt.name,
            json!({"wall_ms": info.wall_startup_ms, "runner_ns": info.startup_ns}),
        );
        // One batch per runtime: every provider's vectors, each request naming its provider.
        let mut rng = TestRng(seed ^ u64::from_le_bytes(*b"platform"));
        let mut by_name: BTreeMap<&str, Vec<Vector>> = BTreeMap::new();
        let mut plan: Vec<(usize, String, std::ops::Range<usize>)> = Vec::new();
        let mut requests = Vec::new();
        let mut not_catalogue: Vec<(usize, String)> = Vec::new();
        for (pi, p) in info.providers.iter().enumerate() {
            for name in &p.algorithms {
                let spec = match CipherSpec::parse(name) {
                    Ok(s) if s.to_string() == *name => s,
                    _ => {
                        not_catalogue.push((pi, name.clone()));
                        continue;
                    }
                };
                let vectors = by_name
                    .entry(name.as_str())
                    .or_insert_with(|| vectors_for(&spec, name, &mut rng, args.quick));
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
        // A runner that dies on the vectors is listed with the skipped ones, and fails the check.
        let answers = match runner.exchange(&requests) {
            Ok(a) => a,
            Err(e) => {
                crashed += 1;
                skipped.push(json!({"runtime": rt.name, "reason": format!("the runner failed on the vectors: {e:#}"),
                    "fix": "a bug in the runner: run the request it stopped at by hand"}));
                continue;
            }
        };
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
        for (p, res) in info.providers.iter().zip(per_provider) {
            results.push(ProviderResult {
                runtime: rt.name.to_string(),
                runtime_version: info.version.clone(),
                name: p.name.clone(),
                library: p.library.clone(),
                version: p.version.clone(),
                results: res,
            });
        }
    }

    let differs = results
        .iter()
        .flat_map(|p| &p.results)
        .filter(|(_, v)| matches!(v, Verdict::Differ(_)))
        .count();
    if args.json {
        let providers: Vec<Value> = results
            .iter()
            .map(|p| {
                let algs: Map<String, Value> = p
                    .results
                    .iter()
                    .map(|(n, v)| (n.clone(), v.to_json()))
                    .collect();
                json!({"runtime": p.runtime, "runtime_version": p.runtime_version,
                    "provider": p.name, "library": p.library, "version": p.version,
                    "algorithms": algs})
            })
            .collect();
        let out = json!({"seed": seed, "quick": args.quick, "providers": providers,
            "startup": startup, "skipped": skipped, "differ": differs, "failed_runners": crashed});
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        use std::io::Write as _;
        std::io::stdout().write_all(matrix_text(&results, &skipped, seed).as_bytes())?;
    }
    Ok(if differs + crashed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The matrix and its notes as text for people.
fn matrix_text(results: &[ProviderResult], skipped: &[Value], seed: u64) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "conformance against cipherlab (in-process), seed {seed} (repeat with --seed {seed})"
    );
    for p in results {
        let count = |w: &str| p.results.iter().filter(|(_, v)| v.word() == w).count();
        let _ = writeln!(
            out,
            "  {:<20} {} {} on {} {}: {} agree, {} differ, {} unsupported",
            p.name,
            p.library,
            p.version,
            p.runtime,
            p.runtime_version,
            count("agree"),
            count("differ"),
            count("unsupported")
        );
    }
    for s in skipped {
        let _ = writeln!(
            out,
            "  SKIP {}: {} (fix: {})",
            s["runtime"].as_str().unwrap_or("?"),
            s["reason"].as_str().unwrap_or("?"),
            s["fix"].as_str().unwrap_or("?")
        );
    }
    // Rows: every algorithm any provider listed, in the order first seen.
    let mut rows: Vec<&str> = Vec::new();
    for p in results {
        for (n, _) in &p.results {
            if !rows.contains(&n.as_str()) {
                rows.push(n);
            }
        }
    }
    let width = rows.iter().map(|r| r.len()).max().unwrap_or(9).max(9);
    // A column is as wide as its provider's name or the widest cell word.
    let col = |p: &ProviderResult| p.name.len().max("unsupported".len());
    let _ = write!(out, "\n{:<width$}", "algorithm");
    for p in results {
        let _ = write!(out, "  {:<w$}", p.name, w = col(p));
    }
    let _ = writeln!(out);
    for row in &rows {
        let _ = write!(out, "{row:<width$}");
        for p in results {
            let cell = p
                .results
                .iter()
                .find(|(n, _)| n == row)
                .map_or("·", |(_, v)| match v {
                    Verdict::Agree(_) => "agree",
                    Verdict::Differ(_) => "DIFFER",
                    Verdict::Unsupported => "unsupported",
                });
            let _ = write!(out, "  {cell:<w$}", w = col(p));
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(out, "(· = not offered by that provider)");
    for p in results {
        for (n, v) in &p.results {
            if let Verdict::Differ(d) = v {
                let _ = writeln!(out, "\n{} differs on {n}: first differing vector", p.name);
                let _ = writeln!(out, "  request:   {}", shorten(&d.request));
                let _ = writeln!(out, "  cipherlab: {}", shorten(&d.cipherlab));
                let _ = writeln!(out, "  runner:    {}", shorten(&d.runner));
            }
        }
    }
    out
}

/// A JSON value on one line, long hex cut in the middle.
fn shorten(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= 400 {
        return text;
    }
    let chars: Vec<char> = text.chars().collect();
    let head: String = chars[..200].iter().collect();
    let tail: String = chars[chars.len() - 150..].iter().collect();
    format!("{head} … {tail}")
}
