//! Rankings: which of a group of comparable measurements (the same study, phase, size,
//! input and timer) is faster than which. Two figures are compared pair by pair
//! ([`decide`]): *ordered* when their 99% intervals are apart and their medians more
//! than [`MARGIN`] apart, *tied* when the medians are within [`MARGIN`] and
//! the intervals narrow enough to say so, and *undecided* otherwise (the intervals
//! overlap, or reach beyond the margin): a wide interval blocks only the
//! comparisons it overlaps, never a figure wholesale. A figure's rank is one more than
//! the number of figures ordered ahead of it, so tied and undecided figures share a rank.
//! Only figures with too few samples for an interval are set apart.
//!
//! The terminal (`cipherlab bench`), the HTML report and `compare`'s rank agreement all
//! use this module, so the three never disagree on what "ranked first" means; the
//! [`census`] counts the undecided figures and pairs of a whole run, and [`undecided`]
//! names the figures the harness gives extra samples ([`cipherlab_harness::Extra`]).

use std::collections::{BTreeMap, HashMap};

use crate::artifact::Table;
use crate::id::{BenchId, Measurement, Phase};
use crate::verdict::MARGIN;
use serde::Serialize;
use serde_json::{Value, json};

/// A ranked group.
pub struct Ranking<'m> {
    /// What the group holds, e.g. `encrypt, 65536 B of bmp`.
    pub caption: String,
    /// Rankable measurements, fastest median first, with their rank (one more than the
    /// figures ordered ahead; equal ranks: no order claimed between them).
    pub ranked: Vec<(usize, &'m Measurement)>,
    /// For each entry of `ranked`, the positions in `ranked` of the figures it could not
    /// be ordered against (overlapping intervals, medians more than [`MARGIN`]
    /// apart).
    pub undecided: Vec<Vec<usize>>,
    /// Measurements with too few samples to rank at all.
    pub unranked: Vec<&'m Measurement>,
}

/// The study's headline group: phase `encrypt` (else `write`, else the first phase seen),
/// at the largest size, on the first input type; `None` when nothing was timed or the
/// group has a single member.
pub fn headline<'m>(ms: &[&'m Measurement]) -> Option<Ranking<'m>> {
    let phase = [Phase::Encrypt, Phase::Write]
        .into_iter()
        .find(|p| ms.iter().any(|m| m.id.phase == *p))
        .or_else(|| ms.first().map(|m| m.id.phase))?;
    let of_phase: Vec<&&Measurement> = ms.iter().filter(|m| m.id.phase == phase).collect();
    let size = of_phase.iter().map(|m| m.id.size).max()?;
    let data_type = of_phase
        .iter()
        .find(|m| m.id.size == size)?
        .id
        .data_type
        .clone();
    let group: Vec<&'m Measurement> = ms
        .iter()
        .copied()
        .filter(|m| m.id.phase == phase && m.id.size == size && m.id.data_type == data_type)
        .collect();
    // One implementation per algorithm, else the ranking mixes two questions (the
    // providers study answers the other one).
    let mut seen = std::collections::HashSet::new();
    if group.iter().any(|m| !seen.insert(&m.id.algorithm)) || group.len() < 2 {
        return None;
    }
    Some(rank(
        group,
        format!("{phase}, {size} B of {data_type}, fastest first"),
    ))
}

/// What a run can say about the order of two figures of one group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    /// The one with the smaller median is faster: the intervals are apart and the medians
    /// more than [`MARGIN`] apart.
    Ordered,
    /// The medians are within [`MARGIN`] and both intervals lie within a span of
    /// twice that: the same rank, no order claimed, and more samples would not make one
    /// that the next process keeps.
    Tied,
    /// Neither: the intervals overlap with medians further apart than [`MARGIN`],
    /// or the medians are close but an interval reaches beyond the margin. More samples
    /// could decide.
    Undecided,
}

/// What `a` and `b` (either order) decide.
pub fn decide(a: &Measurement, b: &Measurement) -> Decision {
    let (fast, slow) = if a.median_ns_per_op() <= b.median_ns_per_op() {
        (a, b)
    } else {
        (b, a)
    };
    if equivalent(fast, slow) {
        if within_margin(fast, slow) {
            Decision::Tied
        } else {
            Decision::Undecided
        }
    } else if overlaps(fast, slow) {
        Decision::Undecided
    } else {
        Decision::Ordered
    }
}

/// Ranks by median time per call: each figure's rank is one more than the number of
/// figures [`Decision::Ordered`] ahead of it.
pub fn rank<'m>(group: Vec<&'m Measurement>, caption: String) -> Ranking<'m> {
    let (mut ok, unranked): (Vec<&Measurement>, Vec<&Measurement>) =
        group.into_iter().partition(|m| m.can_rank());
    ok.sort_by(|a, b| a.median_ns_per_op().total_cmp(&b.median_ns_per_op()));
    let mut ranked = Vec::with_capacity(ok.len());
    let mut undecided = Vec::with_capacity(ok.len());
    for (i, m) in ok.iter().enumerate() {
        let mut ahead = 0;
        let mut open = Vec::new();
        for (j, other) in ok.iter().enumerate() {
            if i == j {
                continue;
            }
            match decide(other, m) {
                Decision::Ordered if other.median_ns_per_op() < m.median_ns_per_op() => ahead += 1,
                Decision::Undecided => open.push(j),
                _ => {}
            }
        }
        ranked.push((ahead + 1, *m));
        undecided.push(open);
    }
    Ranking {
        caption,
        ranked,
        undecided,
        unranked,
    }
}

/// What makes two measurements comparable: the same study, phase, size, input and
/// timer (figures read on different clocks are not set side by side). The one place
/// the ranking reads the identifier's fields.
fn group_key(m: &Measurement) -> (String, Phase, u64, String, String) {
    let id: &BenchId = &m.id;
    (
        id.study.clone(),
        id.phase,
        id.size,
        id.data_type.clone(),
        m.timer.clone(),
    )
}

/// The positions in `ms` of each group of comparable measurements (two or more), in
/// first-seen order.
pub fn groups(ms: &[Measurement]) -> Vec<Vec<usize>> {
    let mut by_key: BTreeMap<(String, Phase, u64, String, String), Vec<usize>> = BTreeMap::new();
    let mut order = Vec::new();
    for (i, m) in ms.iter().enumerate() {
        let k = group_key(m);
        if !by_key.contains_key(&k) {
            order.push(k.clone());
        }
        by_key.entry(k).or_default().push(i);
    }
    order
        .into_iter()
        .filter_map(|k| by_key.remove(&k))
        .filter(|g| g.len() >= 2)
        .collect()
}

/// How much of a run's figures could be ordered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Census {
    /// Figures in the run.
    pub figures: usize,
    /// Figures with at least one comparable neighbour (a group of two or more).
    pub grouped: usize,
    /// Figures with too few samples to rank at all.
    pub few_samples: usize,
    /// Figures with at least one neighbour they could not be ordered against.
    pub undecided_figures: usize,
    /// Pairs of comparable figures (both rankable).
    pub pairs: usize,
    /// Pairs ordered.
    pub ordered: usize,
    /// Pairs tied (medians within [`MARGIN`], intervals within its span).
    pub tied: usize,
    /// Pairs undecided (overlapping intervals, medians further apart).
    pub undecided: usize,
}

impl Census {
    /// Figures not ranked: too few samples, or undecided against a neighbour.
    pub fn unranked(&self) -> usize {
        self.few_samples + self.undecided_figures
    }

    /// One line for the terminal.
    pub fn to_text(&self) -> String {
        let share = |n: usize, of: usize| 100.0 * n as f64 / of.max(1) as f64;
        format!(
            "ranking: {} of {} figures ({:.1}%) could not be ordered against every neighbour ({} with too few samples, {} with an overlapping interval); of {} pairs, {} ordered, {} tied (medians within {:.0}%), {} undecided (intervals overlap)",
            self.unranked(),
            self.figures,
            share(self.unranked(), self.figures),
            self.few_samples,
            self.undecided_figures,
            self.pairs,
            self.ordered,
            self.tied,
            MARGIN * 100.0,
            self.undecided,
        )
    }
}

/// Positions in `ms` of the figures with an undecided neighbour in their group: where
/// more samples can still change what the run says.
pub fn undecided(ms: &[Measurement]) -> Vec<usize> {
    let mut out = Vec::new();
    for g in groups(ms) {
        for (x, &i) in g.iter().enumerate() {
            let open = g.iter().enumerate().any(|(y, &j)| {
                x != y
                    && ms[i].can_rank()
                    && ms[j].can_rank()
                    && decide(&ms[i], &ms[j]) == Decision::Undecided
            });
            if open {
                out.push(i);
            }
        }
    }
    out.sort_unstable();
    out
}

/// The figures [`Census::unranked`] counts, by study (studies with none left out):
/// where a run's undecided figures come from.
pub fn unranked_by_study(ms: &[Measurement]) -> BTreeMap<String, usize> {
    let mut out: BTreeMap<String, usize> = BTreeMap::new();
    let few = ms.iter().enumerate().filter(|(_, m)| !m.can_rank());
    let mut seen = std::collections::HashSet::new();
    for i in undecided(ms)
        .into_iter()
        .chain(few.map(|(i, _)| i))
        .filter(|i| seen.insert(*i))
    {
        *out.entry(ms[i].id.study.clone()).or_default() += 1;
    }
    out
}

/// Counts what a run's figures decide, group by group.
pub fn census(ms: &[Measurement]) -> Census {
    let mut c = Census {
        figures: ms.len(),
        few_samples: ms.iter().filter(|m| !m.can_rank()).count(),
        undecided_figures: undecided(ms).len(),
        ..Census::default()
    };
    for g in groups(ms) {
        c.grouped += g.len();
        let ok: Vec<usize> = g.into_iter().filter(|&i| ms[i].can_rank()).collect();
        for (x, &i) in ok.iter().enumerate() {
            for &j in &ok[x + 1..] {
                c.pairs += 1;
                match decide(&ms[i], &ms[j]) {
                    Decision::Ordered => c.ordered += 1,
                    Decision::Tied => c.tied += 1,
                    Decision::Undecided => c.undecided += 1,
                }
            }
        }
    }
    c
}

/// The ordered pairs of a run: for each pair of comparable figures that the run
/// orders, the two identifiers (smaller first) and whether the first is the faster.
pub fn ordered_pairs(ms: &[Measurement]) -> HashMap<(BenchId, BenchId), bool> {
    let mut out = HashMap::new();
    for g in groups(ms) {
        for (x, &i) in g.iter().enumerate() {
            for &j in &g[x + 1..] {
                let (a, b) = (&ms[i], &ms[j]);
                if !(a.can_rank() && b.can_rank()) || decide(a, b) != Decision::Ordered {
                    continue;
                }
                let a_faster = a.median_ns_per_op() < b.median_ns_per_op();
                if a.id <= b.id {
                    out.insert((a.id.clone(), b.id.clone()), a_faster);
                } else {
                    out.insert((b.id.clone(), a.id.clone()), !a_faster);
                }
            }
        }
    }
    out
}

/// How two runs order the same pairs of figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PairAgreement {
    /// Pairs both runs order.
    pub ordered_in_both: usize,
    /// Of those, ordered the same way.
    pub same_way: usize,
    /// Pairs only the first run orders (tied, undecided or missing in the second).
    pub only_first: usize,
    /// Pairs only the second run orders.
    pub only_second: usize,
    /// The pairs ordered the opposite way, as `key of faster in A < key of faster in B`.
    pub reversed: Vec<(String, String)>,
}

impl PairAgreement {
    /// The share of pairs ordered in both runs that are ordered the same way (`None`
    /// when there are none).
    pub fn share(&self) -> Option<f64> {
        (self.ordered_in_both > 0).then(|| self.same_way as f64 / self.ordered_in_both as f64)
    }
}

/// Compares the pair orders of two runs.
pub fn pair_agreement(a: &[Measurement], b: &[Measurement]) -> PairAgreement {
    let (pa, pb) = (ordered_pairs(a), ordered_pairs(b));
    let mut out = PairAgreement::default();
    for (k, fa) in &pa {
        match pb.get(k) {
            Some(fb) => {
                out.ordered_in_both += 1;
                if fa == fb {
                    out.same_way += 1;
                } else {
                    out.reversed.push((k.0.key(), k.1.key()));
                }
            }
            None => out.only_first += 1,
        }
    }
    out.only_second = pb.keys().filter(|k| !pa.contains_key(*k)).count();
    out.reversed.sort();
    out
}

/// Whether the intervals of `a` and `b` together span no more than twice
/// [`MARGIN`]: narrow enough to call two close medians the same.
fn within_margin(a: &Measurement, b: &Measurement) -> bool {
    let (a_lo, a_hi) = interval_ns(a);
    let (b_lo, b_hi) = interval_ns(b);
    a_hi.max(b_hi) <= a_lo.min(b_lo) * (1.0 + 2.0 * MARGIN)
}

/// Whether the median intervals of `a` and `b` overlap (in ns per call).
fn overlaps(a: &Measurement, b: &Measurement) -> bool {
    let (a_lo, a_hi) = interval_ns(a);
    let (b_lo, b_hi) = interval_ns(b);
    a_lo <= b_hi && b_lo <= a_hi
}

/// Whether `b`'s median (the slower) is within [`MARGIN`] of `a`'s.
fn equivalent(a: &Measurement, b: &Measurement) -> bool {
    b.median_ns_per_op() <= a.median_ns_per_op() * (1.0 + MARGIN)
}

/// The median's interval in ns per call, whatever the unit (ops/s is inverted).
pub fn interval_ns(m: &Measurement) -> (f64, f64) {
    let ci = &m.summary.median_ci;
    if m.unit.higher_is_better() {
        (
            1e9 / ci.high.max(f64::MIN_POSITIVE),
            1e9 / ci.low.max(f64::MIN_POSITIVE),
        )
    } else {
        (ci.low, ci.high)
    }
}

/// A duration in ns with a unit people read (`1.25 ms`).
pub fn time_text(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

impl Ranking<'_> {
    /// The ranking as a table: rank, cipher, provider, median, interval, MB/s, ticks/B,
    /// n, timer, and the figures it could not be ordered against.
    pub fn table(&self) -> Table {
        let mut t = Table::new(&[
            "rank",
            "cipher",
            "provider",
            "median",
            "99% CI",
            "MB/s",
            "ticks/B",
            "n",
            "timer",
            "undecided against",
        ]);
        for (i, (r, m)) in self.ranked.iter().enumerate() {
            let (lo, hi) = interval_ns(m);
            let open: Vec<&str> = self
                .undecided
                .get(i)
                .map(|v| {
                    v.iter()
                        .filter_map(|&j| self.ranked.get(j))
                        .map(|(_, o)| o.id.algorithm.name())
                        .collect()
                })
                .unwrap_or_default();
            t.row(vec![
                json!(format!("{r}")),
                json!(m.id.algorithm),
                json!(m.id.implementation),
                json!(time_text(m.median_ns_per_op())),
                json!(format!("{} .. {}", time_text(lo), time_text(hi))),
                m.bytes_per_second.map_or(Value::Null, |b| json!(b / 1e6)),
                m.ticks_per_byte.map_or(Value::Null, |t| json!(t)),
                json!(m.summary.n),
                json!(m.timer),
                json!(open.join(" ")),
            ]);
        }
        for m in &self.unranked {
            t.row(vec![
                json!("-"),
                json!(m.id.algorithm),
                json!(m.id.implementation),
                json!(time_text(m.median_ns_per_op())),
                json!("too few samples to rank"),
                m.bytes_per_second.map_or(Value::Null, |b| json!(b / 1e6)),
                m.ticks_per_byte.map_or(Value::Null, |t| json!(t)),
                json!(m.summary.n),
                json!(m.timer),
                json!(""),
            ]);
        }
        let open = self.undecided.iter().filter(|v| !v.is_empty()).count();
        t.note = format!(
            "A rank is one more than the figures ordered ahead (99% intervals apart and \
             medians more than {:.0}% apart); equal ranks claim no order. {open} of {} \
             figures have a neighbour whose interval overlaps theirs (\"undecided against\").",
            MARGIN * 100.0,
            self.ranked.len()
        );
        t
    }

    /// Text for the terminal.
    pub fn to_text(&self) -> String {
        format!("\n  {}\n{}", self.caption, self.table().to_text())
    }

    /// For `--json`.
    pub fn to_json(&self) -> Value {
        json!({"caption": self.caption, "table": self.table()})
    }
}
