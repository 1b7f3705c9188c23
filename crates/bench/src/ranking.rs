//! The ranking a study prints first: one group of comparable measurements (the same
//! phase, size and input), fastest first, with ties where the 99% intervals of
//! neighbours overlap or their medians are within [`EQUIVALENCE`] of each other, and
//! figures too noisy to rank set apart. The terminal (`cipherlab
//! bench`), the HTML report and `compare`'s rank agreement all use it, so the three never
//! disagree on what "ranked first" means.

use crate::artifact::Table;
use crate::id::{Measurement, Phase};
use serde_json::{Value, json};

/// A ranked group.
pub struct Ranking<'m> {
    /// What the group holds, e.g. `encrypt, 65536 B of bmp`.
    pub caption: String,
    /// Rankable measurements, fastest first, with their rank (equal ranks: tied).
    pub ranked: Vec<(usize, &'m Measurement)>,
    /// Measurements whose warnings forbid ranking them.
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

/// Medians closer than this fraction share a rank even when their intervals do not
/// overlap. A run's intervals come from its own samples, in one process; they cannot see
/// what changes from one process to the next (code and buffer placement, the CPU's clock
/// state). Two back-to-back `bench --quick` runs on an idle machine (docs/BENCHMARKS.md,
/// "Repeatability") moved 10% of 562 figures by more than 2% and 5% of them by more than
/// 4%, with intervals that excluded no change; RC4-40 and RC4-128, which do the same work
/// per byte, swapped places. An order that the next process may reverse is not claimed.
pub const EQUIVALENCE: f64 = 0.05;

/// Ranks by median time per call; a neighbour whose interval overlaps the previous
/// one's, or whose median is within [`EQUIVALENCE`] of it, shares its rank.
pub fn rank<'m>(group: Vec<&'m Measurement>, caption: String) -> Ranking<'m> {
    let (mut ok, unranked): (Vec<&Measurement>, Vec<&Measurement>) =
        group.into_iter().partition(|m| m.can_rank());
    ok.sort_by(|a, b| a.median_ns_per_op().total_cmp(&b.median_ns_per_op()));
    let mut ranked: Vec<(usize, &Measurement)> = Vec::with_capacity(ok.len());
    for (i, m) in ok.iter().enumerate() {
        let r = match ranked.last() {
            Some((r, prev)) if overlaps(prev, m) || equivalent(prev, m) => *r,
            _ => i + 1,
        };
        ranked.push((r, m));
    }
    Ranking {
        caption,
        ranked,
        unranked,
    }
}

/// Whether the median intervals of `a` and `b` overlap (in ns per call).
fn overlaps(a: &Measurement, b: &Measurement) -> bool {
    let (a_lo, a_hi) = interval_ns(a);
    let (b_lo, b_hi) = interval_ns(b);
    a_lo <= b_hi && b_lo <= a_hi
}

/// Whether `b`'s median (the slower) is within [`EQUIVALENCE`] of `a`'s.
fn equivalent(a: &Measurement, b: &Measurement) -> bool {
    b.median_ns_per_op() <= a.median_ns_per_op() * (1.0 + EQUIVALENCE)
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
    /// The ranking as a table: rank, cipher, provider, median, interval, MB/s, ticks/B, n.
    pub fn table(&self) -> Table {
        let mut t = Table::new(&[
            "rank", "cipher", "provider", "median", "99% CI", "MB/s", "ticks/B", "n",
        ]);
        for (r, m) in &self.ranked {
            let (lo, hi) = interval_ns(m);
            t.row(vec![
                json!(format!("{r}")),
                json!(m.id.algorithm),
                json!(m.id.implementation),
                json!(time_text(m.median_ns_per_op())),
                json!(format!("{} .. {}", time_text(lo), time_text(hi))),
                m.bytes_per_second.map_or(Value::Null, |b| json!(b / 1e6)),
                m.ticks_per_byte.map_or(Value::Null, |t| json!(t)),
                json!(m.summary.n),
            ]);
        }
        for m in &self.unranked {
            t.row(vec![
                json!("-"),
                json!(m.id.algorithm),
                json!(m.id.implementation),
                json!(time_text(m.median_ns_per_op())),
                json!("too noisy to rank"),
                m.bytes_per_second.map_or(Value::Null, |b| json!(b / 1e6)),
                m.ticks_per_byte.map_or(Value::Null, |t| json!(t)),
                json!(m.summary.n),
            ]);
        }
        t.note = format!(
            "Equal ranks: the 99% intervals overlap or the medians are within {:.0}%, so no \
             order may be claimed.",
            EQUIVALENCE * 100.0
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
