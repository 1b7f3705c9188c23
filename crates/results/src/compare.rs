//! Two runs, figure by figure: what `cipherlab compare RUN_A RUN_B` reports.
//!
//! * **Figures** are matched by their whole identifier (study / algorithm /
//!   implementation / runtime / phase / size / data type). For each pair the ratio
//!   `median(B) / median(A)` of the per-call times is estimated with its percentile
//!   bootstrap interval from the raw samples of both ([`cipherlab_harness::stats::ratio_ci`],
//!   Efron & Tibshirani 1993). B is called *faster* only when the whole interval lies
//!   below 1 (`1 - threshold` with a threshold), *slower* only when it lies above 1;
//!   an interval that includes 1 is *no significant change*, never a difference. The
//!   call is [`crate::verdict::Order`] at the threshold, the findings' decision.
//! * **Rankings**: per study, each run's headline ranking ([`crate::ranking`]: ties where
//!   intervals overlap, noisy figures set apart). The runs *agree* when no two ciphers
//!   ranked in both are strictly ordered one way in A and the other way in B; a tie in
//!   either run contradicts nothing.
//! * **Machines**: runs from different machines or builds (fingerprints differ) are
//!   still compared, with a warning naming what differs: absolute times then say more
//!   about the machines than about the code.

use std::collections::HashMap;

use serde::Serialize;

use crate::id::{BenchId, Measurement};
use crate::ranking;
use crate::store::Run;
use crate::verdict::Order;
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::stats::{Bootstrap, Interval};

/// What a figure did from A to B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// B takes less time: the ratio's whole interval is below 1.
    Faster,
    /// B takes more time: the ratio's whole interval is above 1.
    Slower,
    /// The interval includes 1 (or lies within the threshold): no difference may be
    /// claimed.
    Unchanged,
}

impl Verdict {
    /// `faster`, `slower` or `no significant change`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::Unchanged => "no significant change",
        }
    }

    /// The verdict for an interval of `B / A`, given a practical threshold (0: any
    /// significant change counts; 0.05: changes under 5% are treated as none): the
    /// [`Order`] of B against A at that margin, with "the same" and "can't tell" both
    /// no significant change.
    pub fn of(ci: &Interval, threshold: f64) -> Verdict {
        match Order::within(ci.low, ci.high, threshold) {
            Order::Faster => Verdict::Faster,
            Order::Slower => Verdict::Slower,
            Order::Same | Order::CantTell => Verdict::Unchanged,
        }
    }
}

/// One figure present in both runs.
#[derive(Debug, Clone, Serialize)]
pub struct Figure {
    /// The benchmark.
    pub id: BenchId,
    /// Median time per call in A, ns.
    pub a_median_ns: f64,
    /// Median time per call in B, ns.
    pub b_median_ns: f64,
    /// `median(B) / median(A)` with its bootstrap interval; `None` when it could not be
    /// computed (no samples).
    pub ratio: Option<Interval>,
    /// The call; [`Verdict::Unchanged`] when there is no ratio.
    pub verdict: Verdict,
    /// Either figure carries a warning that forbids ranking it (wide interval, many
    /// outliers, few samples): its verdict deserves less trust.
    pub noisy: bool,
}

/// How the two runs rank one study's ciphers.
#[derive(Debug, Clone, Serialize)]
pub struct StudyRanks {
    /// The study.
    pub study: String,
    /// A's headline group (`encrypt, 65536 B of bmp, fastest first`), if it has one.
    pub caption: Option<String>,
    /// Ciphers ranked in both runs (the pairs checked are among these).
    pub compared: Vec<String>,
    /// Pairs strictly ordered one way in A and the other way in B.
    pub discordant: Vec<(String, String)>,
    /// `Some(true)`: same order (up to ties); `Some(false)`: some pair swapped; `None`:
    /// fewer than two ciphers ranked in both (no ranking, a different group, or noisy
    /// figures), so agreement cannot be judged.
    pub agree: Option<bool>,
}

/// A field of the machine block that differs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MachineDifference {
    /// The field.
    pub field: String,
    /// In A.
    pub a: String,
    /// In B.
    pub b: String,
}

/// The whole comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// Run A's id.
    pub a: i64,
    /// Run B's id.
    pub b: i64,
    /// Confidence level of the intervals.
    pub confidence: f64,
    /// The practical threshold used (0: none).
    pub threshold: f64,
    /// Whether both runs have the same machine fingerprint.
    pub same_machine: bool,
    /// What differs between the machine blocks.
    pub machine_differences: Vec<MachineDifference>,
    /// Figures in both runs, in A's order.
    pub figures: Vec<Figure>,
    /// Figures only in A.
    pub only_in_a: usize,
    /// Figures only in B.
    pub only_in_b: usize,
    /// Rank agreement per study present in both runs.
    pub studies: Vec<StudyRanks>,
    /// How the two runs order every pair of comparable figures
    /// ([`ranking::pair_agreement`]).
    pub pairs: ranking::PairAgreement,
}

/// Counts for the summary line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Figures compared.
    pub figures: usize,
    /// B faster.
    pub faster: usize,
    /// B slower.
    pub slower: usize,
    /// No significant change.
    pub unchanged: usize,
    /// Figures without a ratio (no samples); counted among `unchanged`.
    pub not_computed: usize,
    /// Studies whose rankings agree.
    pub rankings_agree: usize,
    /// Studies whose agreement could be judged.
    pub rankings_judged: usize,
}

impl Comparison {
    /// The counts.
    pub fn summary(&self) -> Summary {
        let count = |v: Verdict| self.figures.iter().filter(|f| f.verdict == v).count();
        Summary {
            figures: self.figures.len(),
            faster: count(Verdict::Faster),
            slower: count(Verdict::Slower),
            unchanged: count(Verdict::Unchanged),
            not_computed: self.figures.iter().filter(|f| f.ratio.is_none()).count(),
            rankings_agree: self
                .studies
                .iter()
                .filter(|s| s.agree == Some(true))
                .count(),
            rankings_judged: self.studies.iter().filter(|s| s.agree.is_some()).count(),
        }
    }

    /// "N figures: X faster, Y slower, Z unchanged; rankings agree in K of M studies".
    pub fn summary_line(&self) -> String {
        let s = self.summary();
        format!(
            "{} figures: {} faster, {} slower, {} unchanged; rankings agree in {} of {} studies",
            s.figures, s.faster, s.slower, s.unchanged, s.rankings_agree, s.rankings_judged
        )
    }
}

/// What differs between two machine blocks, field by field.
pub fn machine_differences(a: &MachineInfo, b: &MachineInfo) -> Vec<MachineDifference> {
    let crates = |m: &MachineInfo| {
        m.crate_versions
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
    };
    let (ca, cb) = (crates(a), crates(b));
    // Crate lists are long: name only the versions that differ.
    let crate_difference = (ca != cb).then(|| {
        let only = |x: &[String], y: &[String]| {
            x.iter()
                .filter(|c| !y.contains(c))
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        };
        MachineDifference {
            field: "crate_versions".to_string(),
            a: only(&ca, &cb),
            b: only(&cb, &ca),
        }
    });
    let mut out = Vec::new();
    let mut diff = |field: &str, x: String, y: String| {
        if x != y {
            out.push(MachineDifference {
                field: field.to_string(),
                a: x,
                b: y,
            });
        }
    };
    diff("cpu_model", a.cpu_model.clone(), b.cpu_model.clone());
    diff("arch", a.arch.clone(), b.arch.clone());
    diff("cpu_flags", a.flags_present(), b.flags_present());
    diff(
        "logical_cores",
        a.logical_cores.to_string(),
        b.logical_cores.to_string(),
    );
    diff(
        "memory_bytes",
        a.memory_bytes.to_string(),
        b.memory_bytes.to_string(),
    );
    diff("os", a.os.clone(), b.os.clone());
    diff("kernel", a.kernel.clone(), b.kernel.clone());
    diff("rustc", a.rustc.clone(), b.rustc.clone());
    diff("build", a.build.clone(), b.build.clone());
    diff(
        "cipherlab_version",
        a.cipherlab_version.clone(),
        b.cipherlab_version.clone(),
    );
    diff(
        "hostname_hash",
        a.hostname_hash.clone(),
        b.hostname_hash.clone(),
    );
    let rt = |m: &MachineInfo| format!("{:?}", m.runtimes);
    diff("runtimes", rt(a), rt(b));
    out.extend(crate_difference);
    out
}

fn compare_figure(a: &Measurement, b: &Measurement, bootstrap: &Bootstrap, t: f64) -> Figure {
    let ratio = b.time_ratio(a, bootstrap).ok().map(|r| r.interval);
    Figure {
        id: a.id.clone(),
        a_median_ns: a.median_ns_per_op(),
        b_median_ns: b.median_ns_per_op(),
        verdict: ratio.map_or(Verdict::Unchanged, |ci| Verdict::of(&ci, t)),
        ratio,
        noisy: !a.can_rank() || !b.can_rank(),
    }
}

/// Each figure's ratio, spread over the machine's cores: 10 000 resamples for each of
/// hundreds of figures take seconds on one.
fn figures(pairs: &[(&Measurement, &Measurement)], bootstrap: &Bootstrap, t: f64) -> Vec<Figure> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8);
    let chunk = pairs.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = pairs
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|(a, b)| compare_figure(a, b, bootstrap, t))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        // A worker can only fail by panicking; then compute its part here instead, so
        // the comparison stays complete.
        let mut out = Vec::with_capacity(pairs.len());
        for (h, part) in handles.into_iter().zip(pairs.chunks(chunk)) {
            match h.join() {
                Ok(v) => out.extend(v),
                Err(_) => out.extend(part.iter().map(|(a, b)| compare_figure(a, b, bootstrap, t))),
            }
        }
        out
    })
}

fn study_ranks(study: &str, a: &[&Measurement], b: &[&Measurement]) -> StudyRanks {
    let ra = ranking::headline(a);
    // B is ranked on A's group (same phase, size and input), so the two rankings answer
    // the same question even if B's headline would pick another group.
    let rb = ra.as_ref().and_then(|r| {
        let first = r
            .ranked
            .first()
            .map(|(_, m)| *m)
            .or(r.unranked.first().copied())?;
        let group: Vec<&Measurement> = b
            .iter()
            .copied()
            .filter(|m| {
                m.id.phase == first.id.phase
                    && m.id.size == first.id.size
                    && m.id.data_type == first.id.data_type
            })
            .collect();
        Some(ranking::rank(group, r.caption.clone()))
    });
    let mut out = StudyRanks {
        study: study.to_string(),
        caption: ra.as_ref().map(|r| r.caption.clone()),
        compared: Vec::new(),
        discordant: Vec::new(),
        agree: None,
    };
    let (Some(ra), Some(rb)) = (ra, rb) else {
        return out;
    };
    let in_b: HashMap<&str, &Measurement> = rb
        .ranked
        .iter()
        .map(|(_, m)| (m.id.algorithm.name(), *m))
        .collect();
    // (cipher, its figure in A, in B) for the ciphers ranked in both.
    let both: Vec<(String, &Measurement, &Measurement)> = ra
        .ranked
        .iter()
        .filter_map(|(_, m)| {
            let alg = m.id.algorithm.name();
            in_b.get(alg).map(|b| (alg.to_string(), *m, *b))
        })
        .collect();
    // A swap: both runs order the pair (ranking::decide), in opposite directions. Ranks
    // alone would call a swap where neither run orders the pair (an undecided pair
    // whose members have different figures ordered ahead of them).
    let ordered = |x: &Measurement, y: &Measurement| {
        (ranking::decide(x, y) == ranking::Decision::Ordered)
            .then(|| x.median_ns_per_op() < y.median_ns_per_op())
    };
    for (i, (x, xa, xb)) in both.iter().enumerate() {
        for (y, ya, yb) in &both[i + 1..] {
            if let (Some(a), Some(b)) = (ordered(xa, ya), ordered(xb, yb))
                && a != b
            {
                out.discordant.push((x.clone(), y.clone()));
            }
        }
    }
    out.compared = both.into_iter().map(|(alg, _, _)| alg).collect();
    if out.compared.len() >= 2 {
        out.agree = Some(out.discordant.is_empty());
    }
    out
}

/// Compares run `b` against run `a` (ratios are B / A). `threshold` is the practical
/// threshold (0 for none); `bootstrap` sets resamples, confidence and seed.
pub fn compare(a: &Run, b: &Run, bootstrap: &Bootstrap, threshold: f64) -> Comparison {
    let in_b: HashMap<&BenchId, &Measurement> = b.measurements.iter().map(|m| (&m.id, m)).collect();
    let pairs: Vec<(&Measurement, &Measurement)> = a
        .measurements
        .iter()
        .filter_map(|m| in_b.get(&m.id).map(|n| (m, *n)))
        .collect();
    let matched = pairs.len();
    let mut studies: Vec<String> = Vec::new();
    for m in &a.measurements {
        if !studies.contains(&m.id.study) && b.measurements.iter().any(|n| n.id.study == m.id.study)
        {
            studies.push(m.id.study.clone());
        }
    }
    fn of<'r>(run: &'r Run, s: &str) -> Vec<&'r Measurement> {
        run.measurements
            .iter()
            .filter(|m| m.id.study == s)
            .collect()
    }
    let studies: Vec<StudyRanks> = studies
        .iter()
        .map(|s| {
            let (ma, mb) = (of(a, s), of(b, s));
            study_ranks(s, &ma, &mb)
        })
        .collect();
    let differences = machine_differences(&a.machine, &b.machine);
    Comparison {
        a: a.info.id,
        b: b.info.id,
        confidence: bootstrap.confidence,
        threshold,
        same_machine: a.machine.fingerprint() == b.machine.fingerprint(),
        machine_differences: differences,
        figures: figures(&pairs, bootstrap, threshold),
        only_in_a: a.measurements.len() - matched,
        only_in_b: b.measurements.len() - matched,
        studies,
        pairs: ranking::pair_agreement(&a.measurements, &b.measurements),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ci(low: f64, high: f64) -> Interval {
        Interval {
            estimate: (low + high) / 2.0,
            low,
            high,
            confidence: 0.99,
        }
    }

    #[test]
    fn an_interval_that_includes_one_is_never_a_difference() {
        assert_eq!(Verdict::of(&ci(0.90, 0.99), 0.0), Verdict::Faster);
        assert_eq!(Verdict::of(&ci(1.01, 1.2), 0.0), Verdict::Slower);
        assert_eq!(Verdict::of(&ci(0.9, 1.0), 0.0), Verdict::Unchanged);
        assert_eq!(Verdict::of(&ci(1.0, 1.1), 0.0), Verdict::Unchanged);
        assert_eq!(Verdict::of(&ci(0.5, 2.0), 0.0), Verdict::Unchanged);
        // A threshold only ever removes calls, never adds one.
        assert_eq!(Verdict::of(&ci(0.97, 0.99), 0.05), Verdict::Unchanged);
        assert_eq!(Verdict::of(&ci(0.80, 0.90), 0.05), Verdict::Faster);
        assert_eq!(Verdict::of(&ci(0.9, 1.1), -3.0), Verdict::Unchanged);
    }
}
