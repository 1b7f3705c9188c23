//! What the `platforms` figures say: Table 2 with cipherlab (Rust) and Go added, time per
//! byte per runtime beside the paper's, the paper's ranking and claims each checked with
//! a verdict the 99% intervals decide ([`Order`], [`Agreement`]), the
//! per-message fixed cost, and the AEADs beyond the paper.

use serde_json::Value;

use super::{NAME, PAPER_CIPHERS};
use crate::studies::find;
use crate::studies::paper::web_platforms;
use cipherlab_ciphers::CipherSpec;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::stats::Ratio;
use cipherlab_results::artifact::Artifact;
use cipherlab_results::artifact::table::{Cell, Table, int, num, text};
use cipherlab_results::id::{Measurement, Runtime};
use cipherlab_results::verdict::{Agreement, Order, Tally};

/// Column order of the runtimes: the list's (platforms/runtimes.toml: the paper's four,
/// then the others), then the user's runners (as declared), then cipherlab. Every
/// [`Runtime`] is one of them, so no figure is left out of the tables.
fn columns() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = cipherlab_platforms::runtimes::in_column_order()
        .into_iter()
        .map(|d| d.id.as_str())
        .collect();
    out.extend(Runtime::users().into_iter().map(Runtime::as_str));
    out.push(rust());
    out
}

/// cipherlab's own runtime, as figures name it.
fn rust() -> &'static str {
    Runtime::RUST.as_str()
}

/// What a figure is of, read from its identifier: the one place this module looks into
/// a [`cipherlab_results::id::BenchId`].
struct Of<'a> {
    runtime: &'a str,
    provider: &'a str,
    phase: &'a str,
    size: u64,
}

fn of(m: &Measurement) -> Of<'_> {
    Of {
        runtime: m.id.runtime.as_str(),
        provider: &m.id.implementation,
        phase: m.id.phase.as_str(),
        size: m.id.size,
    }
}

fn label(runtime: &str) -> &str {
    if runtime == rust() {
        "cipherlab (Rust)"
    } else {
        runtime
    }
}

/// The figure of `runtime` (its first provider) for `spec` / `phase` / `size`.
fn pick<'m>(
    ms: &[&'m Measurement],
    spec: &CipherSpec,
    runtime: &str,
    phase: &str,
    size: u64,
) -> Option<&'m Measurement> {
    let first_provider = ms
        .iter()
        .find(|m| of(m).runtime == runtime && m.id.is_cipher(spec))
        .map(|m| of(m).provider)?;
    ms.iter().copied().find(|m| {
        let o = of(m);
        o.runtime == runtime
            && o.provider == first_provider
            && o.phase == phase
            && o.size == size
            && m.id.is_cipher(spec)
    })
}

/// Runtimes with figures for `spec`, in column order.
fn present(ms: &[&Measurement], spec: &CipherSpec) -> Vec<&'static str> {
    columns()
        .into_iter()
        .filter(|rt| {
            ms.iter()
                .any(|m| of(m).runtime == *rt && m.id.is_cipher(spec))
        })
        .collect()
}

/// Sizes measured for `spec`, ascending.
fn sizes(ms: &[&Measurement], spec: &CipherSpec) -> Vec<u64> {
    let mut s: Vec<u64> = ms
        .iter()
        .filter(|m| m.id.is_cipher(spec))
        .map(|m| of(m).size)
        .collect();
    s.sort_unstable();
    s.dedup();
    s
}

fn ms_cell(m: Option<&Measurement>) -> Value {
    m.map_or(Value::Null, |m| num(m.median_ns_per_op() / 1e6))
}

/// Every table of the study.
pub(super) fn all(ms: &[&Measurement], machine: &MachineInfo) -> Vec<Artifact> {
    let aes128 = PAPER_CIPHERS[0];
    if ms.is_empty() {
        return Vec::new();
    }
    let mut out = vec![table2(ms, &aes128, machine)];
    out.push(per_byte(ms));
    let claims = claims(ms);
    out.push(claims_table(&claims, ms));
    out.push(fixed_cost(ms, &aes128));
    if let Some(t) = beyond(ms) {
        out.push(t);
    }
    out
}

/// Table 2's shape: one row per file size, encryption and decryption ms per runtime.
fn table2(ms: &[&Measurement], spec: &CipherSpec, machine: &MachineInfo) -> Artifact {
    let rts = present(ms, spec);
    let mut columns = vec!["size".to_string(), "bytes".to_string()];
    for rt in &rts {
        columns.push(format!("{} enc ms", label(rt)));
        columns.push(format!("{} dec ms", label(rt)));
    }
    let cols: Vec<&str> = columns.iter().map(String::as_str).collect();
    let mut t = Table::new(&cols);
    for size in sizes(ms, spec) {
        let name = web_platforms::TABLE2
            .iter()
            .find(|r| r.1 == size)
            .map_or_else(|| format!("{size} B"), |r| r.0.to_string());
        let mut row = vec![text(name), int(size)];
        for rt in &rts {
            row.push(ms_cell(pick(ms, spec, rt, "encrypt", size)));
            row.push(ms_cell(pick(ms, spec, rt, "decrypt", size)));
        }
        t.row(row);
    }
    t.note = format!(
        "{spec}, median ms per call over the timed calls (the paper: the mean of 100), each call \
         creating the cipher with the key and IV and processing the whole file; providers: {}. \
         On {}. The paper's own Table 2 is in src/studies/paper.rs (web_platforms::TABLE2); \
         machines differ by years, so compare orders and ratios, not milliseconds.",
        rts.iter()
            .filter_map(|rt| pick(ms, spec, rt, "encrypt", sizes(ms, spec)[0]))
            .map(|m| format!("{} {}", label(of(m).runtime), of(m).provider))
            .collect::<Vec<_>>()
            .join(", "),
        machine.summary()
    );
    t.artifact(
        NAME,
        "table-2",
        "Table 2: ms per call by file size (AES-128-CBC)",
    )
}

/// Time per byte over all measured files (sum of medians / sum of sizes, as the paper
/// divided its totals by the bytes), per runtime, direction and key size, with the
/// paper's figure over the same files.
fn per_byte(ms: &[&Measurement]) -> Artifact {
    let mut t = Table::new(&[
        "cipher",
        "runtime",
        "enc ns/B",
        "dec ns/B",
        "paper enc ns/B",
        "paper dec ns/B",
    ]);
    for spec in PAPER_CIPHERS {
        let sz = sizes(ms, &spec);
        for rt in present(ms, &spec) {
            let ours = |phase: &str| {
                let figs: Vec<&Measurement> = sz
                    .iter()
                    .filter_map(|&s| pick(ms, &spec, rt, phase, s))
                    .collect();
                let bytes: u64 = figs.iter().map(|m| of(m).size).sum();
                (figs.len() == sz.len() && bytes > 0)
                    .then(|| figs.iter().map(|m| m.median_ns_per_op()).sum::<f64>() / bytes as f64)
            };
            let paper = |dir: usize| {
                let col = web_platforms::RUNTIMES.iter().position(|r| *r == rt)?;
                let rows: Vec<_> = web_platforms::TABLE2
                    .iter()
                    .filter(|r| sz.contains(&r.1))
                    .collect();
                let bytes: u64 = rows.iter().map(|r| r.1).sum();
                (!rows.is_empty() && bytes > 0)
                    .then(|| rows.iter().map(|r| r.2[col][dir] * 1e6).sum::<f64>() / bytes as f64)
            };
            let cell = |v: Option<f64>| v.map_or(Value::Null, num);
            t.row(vec![
                text(spec.to_string()),
                text(label(rt)),
                cell(ours("encrypt")),
                cell(ours("decrypt")),
                cell(paper(0)),
                cell(paper(1)),
            ]);
        }
    }
    t.note = "ns per byte over the files measured (sum of median times / sum of sizes); the paper's \
        columns over the same sizes from its Table 2 (one key size per table there: the same figures \
        for every key size here). The paper's machine is years older: compare orders, not values."
        .into();
    t.artifact(
        NAME,
        "ns-per-byte",
        "Time per byte by runtime (Figure 1's measure)",
    )
}

/// One of the paper's statements, tested on one pair of our figures.
pub(super) struct Claim {
    /// The statement, as tested.
    pub claim: String,
    /// What the paper says `a / b` is.
    pub published: Order,
    /// What our 99% interval of `a / b` says.
    pub ours: Order,
    /// `a / b` of the medians, with its interval.
    pub ratio: Option<Ratio>,
}

impl Claim {
    /// `agrees`, `differs` or `can't tell`.
    pub fn verdict(&self) -> Agreement {
        Agreement::of(self.published, self.ours)
    }
}

/// The paper's ranking and claims against our figures at the largest file measured:
/// every pair of its ranking (Java < PHP < Node.js < Python: "Java is the fastest",
/// "Python is by far the slowest") for AES-128-CBC in both directions, Python against Go
/// and cipherlab too, and "decryption is faster than encryption" per runtime and key size.
pub(super) fn claims(ms: &[&Measurement]) -> Vec<Claim> {
    let mut out = Vec::new();
    let aes128 = PAPER_CIPHERS[0];
    let rank = web_platforms::RANKING;
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for (i, a) in rank.iter().enumerate() {
        for b in &rank[i + 1..] {
            pairs.push((a, b));
        }
    }
    // The paper's slowest (Python) against every runtime the paper did not have.
    let slowest = rank[rank.len() - 1];
    for other in columns().into_iter().filter(|rt| !rank.contains(rt)) {
        pairs.push((slowest, other));
    }
    if let Some(&size) = sizes(ms, &aes128).last() {
        for (a, b) in pairs {
            for phase in ["encrypt", "decrypt"] {
                let (Some(ma), Some(mb)) = (
                    pick(ms, &aes128, a, phase, size),
                    pick(ms, &aes128, b, phase, size),
                ) else {
                    continue;
                };
                let ratio = find::ratio(ma, mb);
                // The paper ranks Python last: slower than every other runtime.
                let published = if a == slowest {
                    Order::Slower
                } else {
                    Order::Faster
                };
                let word = if a == slowest { "slower" } else { "faster" };
                out.push(Claim {
                    claim: format!(
                        "{} is {word} than {} ({phase}, {aes128}, {size} B)",
                        label(a),
                        label(b)
                    ),
                    published,
                    ours: Order::of(ratio.as_ref()),
                    ratio,
                });
            }
        }
    }
    for spec in PAPER_CIPHERS {
        let Some(&size) = sizes(ms, &spec).last() else {
            continue;
        };
        for rt in present(ms, &spec) {
            let (Some(dec), Some(enc)) = (
                pick(ms, &spec, rt, "decrypt", size),
                pick(ms, &spec, rt, "encrypt", size),
            ) else {
                continue;
            };
            let ratio = find::ratio(dec, enc);
            out.push(Claim {
                claim: format!(
                    "decryption is faster than encryption on {} ({spec}, {size} B)",
                    label(rt)
                ),
                published: Order::Faster,
                ours: Order::of(ratio.as_ref()),
                ratio,
            });
        }
    }
    out
}

fn claims_table(claims: &[Claim], ms: &[&Measurement]) -> Artifact {
    let mut t = Table::new(&[
        "the paper's claim, tested",
        "time ratio [99% CI]",
        "ours",
        "verdict",
    ]);
    for c in claims {
        t.row::<Cell>(vec![
            text(&c.claim).into(),
            find::ratio_cell(c.ratio),
            text(c.ours.word()).into(),
            c.verdict().into(),
        ]);
    }
    let ranking = our_ranking(ms);
    t.note = format!(
        "Verdicts: {}. Each row's ratio is the first figure's median time over the second's with its \
         99% bootstrap interval; \"agrees\" when the whole interval is on the paper's side of 1 ± 5%, \
         \"differs\" when it is on the other side or within 5% of 1, \"can't tell\" when it straddles. \
         Our ranking at the largest file, AES-128-CBC encryption, fastest first: {ranking}; the paper's: \
         Java, PHP, Node.js, Python.",
        Tally::of(claims.iter().map(Claim::verdict))
    );
    t.artifact(
        NAME,
        "claims",
        "The paper's ranking and claims against ours",
    )
}

/// Runtimes by median AES-128-CBC encryption time at the largest file, fastest first;
/// neighbours whose interval does not separate them are joined by `=`.
fn our_ranking(ms: &[&Measurement]) -> String {
    let spec = PAPER_CIPHERS[0];
    let Some(&size) = sizes(ms, &spec).last() else {
        return "-".into();
    };
    let mut figs: Vec<&Measurement> = present(ms, &spec)
        .into_iter()
        .filter_map(|rt| pick(ms, &spec, rt, "encrypt", size))
        .collect();
    figs.sort_by(|a, b| a.median_ns_per_op().total_cmp(&b.median_ns_per_op()));
    let mut out = String::new();
    for (i, m) in figs.iter().enumerate() {
        if i > 0 {
            let r = find::ratio(m, figs[i - 1]);
            out.push_str(if Order::of(r.as_ref()) == Order::Slower {
                " < "
            } else {
                " = "
            });
        }
        out.push_str(label(of(m).runtime));
    }
    out
}

/// The per-message fixed cost (cipher creation and key schedule) per runtime: the
/// intercept of the line through the smallest and the largest file's median times, and
/// its share of the smallest file's time.
fn fixed_cost(ms: &[&Measurement], spec: &CipherSpec) -> Artifact {
    let mut t = Table::new(&[
        "runtime",
        "phase",
        "fixed cost per message µs",
        "ns per byte",
        "fixed share of the smallest file",
    ]);
    let sz = sizes(ms, spec);
    if let (Some(&small), Some(&large)) = (sz.first(), sz.last()) {
        for rt in present(ms, spec) {
            for phase in ["encrypt", "decrypt"] {
                let (Some(a), Some(b)) = (
                    pick(ms, spec, rt, phase, small),
                    pick(ms, spec, rt, phase, large),
                ) else {
                    continue;
                };
                if large <= small {
                    continue;
                }
                let (ta, tb) = (a.median_ns_per_op(), b.median_ns_per_op());
                let slope = (tb - ta) / (large - small) as f64;
                let fixed = (ta - slope * small as f64).max(0.0);
                t.row(vec![
                    text(label(rt)),
                    text(phase),
                    num(fixed / 1e3),
                    num(slope),
                    text(format!("{:.0}%", 100.0 * fixed / ta.max(1.0))),
                ]);
            }
        }
    }
    t.note = format!(
        "{spec}: the line through the medians at the smallest and the largest file; its intercept is what \
         a message costs before its first byte (creating the cipher, the key schedule, the runtime's call \
         overhead): why the paper's small files rank the runtimes differently from its large ones."
    );
    t.artifact(NAME, "fixed-cost", "Per-message fixed cost per runtime")
}

/// Beyond the paper: the AEADs, every runtime and provider that has them, against
/// cipherlab's figure of the same message.
fn beyond(ms: &[&Measurement]) -> Option<Artifact> {
    let mut t = Table::new(&[
        "cipher",
        "bytes",
        "runtime",
        "provider",
        "phase",
        "µs per message",
        "time / cipherlab [99% CI]",
    ]);
    for m in ms {
        let Some(spec) = m.id.cipher() else { continue };
        if !spec.is_aead() {
            continue;
        }
        let o = of(m);
        let ours = pick(ms, spec, rust(), o.phase, o.size);
        t.row(vec![
            text(spec.to_string()),
            int(o.size),
            text(label(o.runtime)),
            text(o.provider),
            text(o.phase),
            num(m.median_ns_per_op() / 1e3),
            text(if o.runtime == rust() {
                "1".to_string()
            } else {
                find::ratio_text(ours.and_then(|r| find::ratio(m, r)))
            }),
        ]);
    }
    if t.rows.is_empty() {
        return None;
    }
    t.note =
        "Beyond the paper: the AEADs per message (cipher created per call, 16-byte tag), on each \
        runtime's providers that agreed with cipherlab's vectors (BouncyCastle's Xoodyak does not: \
        docs/platforms.md). Ratios above 1: slower than cipherlab."
            .into();
    Some(t.artifact(NAME, "aeads", "AEADs per runtime (beyond the paper)"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cipherlab_harness::{ExternalTimer, Settings};

    /// A figure of `runtime` with samples around `ns`.
    fn fig(runtime: &str, phase: &str, ns: u64) -> Measurement {
        let spec = CipherSpec::of(
            &cipherlab_ciphers::catalogue::AES,
            128,
            Some(cipherlab_ciphers::Mode::Cbc),
        );
        let id =
            super::super::bench_id(NAME, &spec, runtime, runtime, phase, 1 << 20, "dense").unwrap();
        let samples: Vec<u64> = (0..40).map(|i| ns + (i % 5) * ns / 1000).collect();
        Measurement::from_external_samples(
            id,
            &samples,
            &ExternalTimer::named("test"),
            Some(1 << 20),
            &Settings::quick(),
        )
        .unwrap()
    }

    /// Figures in the paper's order (Java fastest ... Python slowest, decryption faster),
    /// or in the opposite order.
    fn figures(paper_order: bool) -> Vec<Measurement> {
        let base = [("java", 1.0), ("php", 2.0), ("node", 4.0), ("python", 16.0)];
        let mut out = Vec::new();
        for (i, (rt, f)) in base.iter().enumerate() {
            let f = if paper_order { *f } else { base[3 - i].1 };
            let enc = (f * 1e6) as u64;
            let dec = if paper_order { enc / 2 } else { enc * 2 };
            out.push(fig(rt, "encrypt", enc));
            out.push(fig(rt, "decrypt", dec));
        }
        out
    }

    fn verdicts(paper_order: bool) -> Vec<(String, &'static str)> {
        let ms = figures(paper_order);
        let refs: Vec<&Measurement> = ms.iter().collect();
        claims(&refs)
            .iter()
            .map(|c| (c.claim.clone(), c.verdict().as_str()))
            .collect()
    }

    #[test]
    fn every_runtime_has_a_column() {
        let cols = columns();
        for r in Runtime::all() {
            assert!(cols.contains(&r.as_str()), "{r} has no column");
        }
        assert_eq!(cols.len(), Runtime::all().len());
        assert_eq!(cols.last(), Some(&rust()));
        let mine = Runtime::declare("findings-test-runner").unwrap();
        let cols = columns();
        assert_eq!(
            cols[cols.len() - 2],
            mine.as_str(),
            "a user runner: before cipherlab"
        );
        for rt in web_platforms::RUNTIMES {
            assert!(
                cols.contains(&rt),
                "the paper's {rt} is not in platforms/runtimes.toml"
            );
        }
    }

    #[test]
    fn every_claim_agrees_with_the_papers_order_and_differs_with_the_opposite() {
        let agree = verdicts(true);
        let differ = verdicts(false);
        // 6 ranking pairs x 2 directions + 4 runtimes' decryption against encryption.
        assert_eq!(agree.len(), 16);
        assert_eq!(differ.len(), agree.len());
        for ((claim, a), (_, d)) in agree.iter().zip(&differ) {
            assert_eq!(*a, "agrees", "{claim}");
            assert_eq!(*d, "differs", "{claim}");
        }
    }

    #[test]
    fn a_tie_cannot_decide_and_the_ranking_says_so() {
        let ms = [
            fig("java", "encrypt", 1_000_000),
            fig("php", "encrypt", 1_000_500),
        ];
        let refs: Vec<&Measurement> = ms.iter().collect();
        let c = claims(&refs);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].ours, Order::Same);
        assert_eq!(c[0].verdict().as_str(), "differs");
        assert_eq!(our_ranking(&refs), "java = php");
    }
}
