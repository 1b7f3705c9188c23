//! One answer to "is A faster than B", and to "does this run agree with the paper".
//!
//! * [`Order`]: what the 99% interval of a time ratio `a / b` decides about `a` against
//!   `b`: faster, slower, the same within [`MARGIN`], or can't tell. The findings decide
//!   with it ([`Order::of`]), `compare` decides each figure with it at its own threshold
//!   ([`Order::within`]), and a paper's published ratio becomes an order with
//!   [`Order::of_value`].
//! * [`Agreement`]: this run's order against a published one: agrees, differs, or can't
//!   tell. Study tables carry it as a typed cell ([`crate::artifact::table::Cell`]) and
//!   [`Tally`] counts it; [`claims`] gathers a run's verdicts for its summary.
//! * [`MARGIN`]: the one margin for "the same", also the ranking's tie margin
//!   ([`crate::ranking::decide`]).

use std::fmt;

use crate::artifact::table::{Cell, Table};
use crate::artifact::{Artifact, cell_text};
use cipherlab_harness::stats::Ratio;
use serde::{Deserialize, Serialize};

/// Medians closer than this fraction are "the same": findings call a ratio whose whole
/// interval lies within it of 1 [`Order::Same`], and rankings give such figures one rank
/// even when their intervals do not overlap. A run's intervals come from its own samples,
/// in one process; they cannot see what changes from one process to the next (code and
/// buffer placement, the CPU's clock state). Two back-to-back `bench --quick` runs on an
/// idle machine (docs/BENCHMARKS.md, "Repeatability") moved 10% of 562 figures by more
/// than 2% and 5% of them by more than 4%, with intervals that excluded no change; RC4-40
/// and RC4-128, which do the same work per byte, swapped places. An order that the next
/// process may reverse is not claimed.
pub const MARGIN: f64 = 0.05;

/// What the interval of a time ratio `a / b` decides about `a` against `b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// `a` takes less time: the whole interval is below 1 - the margin.
    Faster,
    /// `a` takes longer: the whole interval is above 1 + the margin.
    Slower,
    /// The whole interval is within the margin of 1.
    Same,
    /// The interval straddles a boundary, or there is no ratio: the run does not decide.
    CantTell,
}

impl Order {
    /// What the interval `[low, high]` of a ratio decides with `margin` (clamped at 0;
    /// 0: any interval that excludes 1 is an order, and only `[1, 1]` is the same).
    pub fn within(low: f64, high: f64, margin: f64) -> Order {
        let m = margin.max(0.0);
        if low > 1.0 + m {
            Order::Slower
        } else if high < 1.0 - m {
            Order::Faster
        } else if low >= 1.0 - m && high <= 1.0 + m {
            Order::Same
        } else {
            Order::CantTell
        }
    }

    /// What the 99% interval of `r` decides with [`MARGIN`]; [`Order::CantTell`]
    /// without a ratio.
    pub fn of(r: Option<&Ratio>) -> Order {
        r.map_or(Order::CantTell, |r| {
            Order::within(r.interval.low, r.interval.high, MARGIN)
        })
    }

    /// A published ratio (a point, no interval) as an order with [`MARGIN`]: slower
    /// above 1 + [`MARGIN`], faster below 1 - [`MARGIN`], else the same.
    pub fn of_value(ratio: f64) -> Order {
        match Order::within(ratio, ratio, MARGIN) {
            Order::CantTell => Order::Same,
            o => o,
        }
    }

    /// `faster`, `slower`, `the same (±5%)`, `can't tell`.
    pub fn word(self) -> &'static str {
        match self {
            Order::Slower => "slower",
            Order::Faster => "faster",
            Order::Same => "the same (±5%)",
            Order::CantTell => "can't tell",
        }
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// Whether this run's order agrees with a published one. Stored and shown as `agrees`,
/// `differs` or `can't tell`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Agreement {
    /// This run decides the order the paper gives.
    #[serde(rename = "agrees")]
    Agrees,
    /// This run decides another order (a tie against a published order counts here).
    #[serde(rename = "differs")]
    Differs,
    /// This run does not decide.
    #[serde(rename = "can't tell")]
    CantTell,
}

impl Agreement {
    /// Every verdict, in the order summaries count them.
    pub const ALL: [Agreement; 3] = [Agreement::Agrees, Agreement::Differs, Agreement::CantTell];

    /// `ours` against `published`: can't tell when this run did not decide, else agrees
    /// when the orders are the same, else differs.
    pub fn of(published: Order, ours: Order) -> Agreement {
        match ours {
            Order::CantTell => Agreement::CantTell,
            o if o == published => Agreement::Agrees,
            _ => Agreement::Differs,
        }
    }

    /// `agrees`, `differs`, `can't tell`: the stored and shown form.
    pub fn as_str(self) -> &'static str {
        match self {
            Agreement::Agrees => "agrees",
            Agreement::Differs => "differs",
            Agreement::CantTell => "can't tell",
        }
    }

    /// The verdict spelled `s` by [`Agreement::as_str`] (for reading stored tables back).
    pub fn parse(s: &str) -> Option<Agreement> {
        Agreement::ALL.into_iter().find(|a| a.as_str() == s)
    }
}

impl fmt::Display for Agreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Verdicts counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Agrees.
    pub agrees: usize,
    /// Differs.
    pub differs: usize,
    /// Can't tell.
    pub cant_tell: usize,
}

impl Tally {
    /// Counts `verdicts`.
    pub fn of(verdicts: impl IntoIterator<Item = Agreement>) -> Tally {
        let mut t = Tally::default();
        for v in verdicts {
            t.add(v);
        }
        t
    }

    /// Counts one more.
    pub fn add(&mut self, v: Agreement) {
        match v {
            Agreement::Agrees => self.agrees += 1,
            Agreement::Differs => self.differs += 1,
            Agreement::CantTell => self.cant_tell += 1,
        }
    }

    /// All counted.
    pub fn total(&self) -> usize {
        self.agrees + self.differs + self.cant_tell
    }
}

/// "2 agree, 1 differ, 0 can't tell".
impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} agree, {} differ, {} can't tell",
            self.agrees, self.differs, self.cant_tell
        )
    }
}

/// One paper claim a run checked: a verdict cell of a study's table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Claim {
    /// The study whose table holds it.
    pub study: String,
    /// What was checked: the row's first cell, with the column's heading unless that is
    /// just "verdict".
    pub claim: String,
    /// The verdict.
    pub verdict: Agreement,
}

/// Every paper claim a run checked, counted, with the differing ones listed: what a
/// reader wants first, at the end of `cipherlab bench` and at the top of the report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Claims {
    /// The verdicts counted.
    pub tally: Tally,
    /// The claims this run differs from, in study and table order.
    pub differing: Vec<Claim>,
}

impl Claims {
    /// "42 paper claims checked: 30 agree, 5 differ, 7 can't tell", then one line per
    /// differing claim (`study: claim`).
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "paper claims checked: {} ({})",
            self.tally.total(),
            self.tally
        );
        if !self.differing.is_empty() {
            out.push_str("\ndiffering:");
            for c in &self.differing {
                out.push_str(&format!("\n  {}: {}", c.study, c.claim));
            }
        }
        out
    }
}

/// The claims checked by the verdict cells of `artifacts`' tables (typed verdicts only:
/// tables stored before verdicts were typed hold them as text, and are not counted).
pub fn claims(artifacts: &[Artifact]) -> Claims {
    let mut out = Claims::default();
    for a in artifacts {
        let Some(t) = a.as_table() else { continue };
        for (r, c, verdict) in t.verdicts() {
            out.tally.add(verdict);
            if verdict != Agreement::Differs {
                continue;
            }
            let row = t.rows[r].first().map(cell_text).unwrap_or_default();
            let column = t.columns.get(c).map_or("", String::as_str);
            let claim = if column.is_empty() || column.eq_ignore_ascii_case("verdict") {
                row
            } else {
                format!("{row} ({column})")
            };
            out.differing.push(Claim {
                study: a.study.clone(),
                claim,
                verdict,
            });
        }
    }
    out
}

/// A table of claims a study checked one by one (a sentence and its verdict), for the
/// checks a study reports in a note: as table cells, [`claims`] counts them.
pub fn claims_table(rows: impl IntoIterator<Item = (String, Agreement)>) -> Table {
    let mut t = Table::new(&["the paper's claim", "verdict"]);
    for (claim, verdict) in rows {
        t.row::<Cell>(vec![serde_json::Value::from(claim).into(), verdict.into()]);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: f64 = MARGIN;

    #[test]
    fn the_margin_boundaries_belong_to_the_same() {
        // Touching 1 ± MARGIN from inside is "the same"; beyond it, an order.
        assert_eq!(Order::within(1.0 - M, 1.0 + M, M), Order::Same);
        assert_eq!(Order::within(1.0, 1.0, M), Order::Same);
        assert_eq!(Order::within(1.0 + M + 1e-9, 1.2, M), Order::Slower);
        assert_eq!(Order::within(1.0 + M, 1.2, M), Order::CantTell);
        assert_eq!(Order::within(0.8, 1.0 - M - 1e-9, M), Order::Faster);
        assert_eq!(Order::within(0.8, 1.0 - M, M), Order::CantTell);
        // Straddling either boundary decides nothing.
        assert_eq!(Order::within(0.9, 1.02, M), Order::CantTell);
        assert_eq!(Order::within(0.98, 1.1, M), Order::CantTell);
        assert_eq!(Order::within(0.5, 2.0, M), Order::CantTell);
    }

    #[test]
    fn a_zero_margin_orders_any_interval_that_excludes_one() {
        assert_eq!(Order::within(0.97, 0.99, 0.0), Order::Faster);
        assert_eq!(Order::within(1.001, 1.01, 0.0), Order::Slower);
        assert_eq!(Order::within(0.99, 1.0, 0.0), Order::CantTell);
        assert_eq!(Order::within(0.9, 1.1, -3.0), Order::CantTell);
    }

    #[test]
    fn a_published_value_is_always_decided() {
        assert_eq!(Order::of_value(1.0 + M), Order::Same);
        assert_eq!(Order::of_value(1.0 - M), Order::Same);
        assert_eq!(Order::of_value(1.0 + M + 1e-9), Order::Slower);
        assert_eq!(Order::of_value(1.0 - M - 1e-9), Order::Faster);
        assert_eq!(Order::of(None), Order::CantTell);
    }

    #[test]
    fn agreement_needs_a_decided_order_equal_to_the_published_one() {
        use Agreement::*;
        assert_eq!(Agreement::of(Order::Slower, Order::Slower), Agrees);
        assert_eq!(Agreement::of(Order::Same, Order::Same), Agrees);
        assert_eq!(Agreement::of(Order::Slower, Order::Same), Differs);
        assert_eq!(Agreement::of(Order::Faster, Order::Slower), Differs);
        assert_eq!(Agreement::of(Order::Faster, Order::CantTell), CantTell);
        for a in Agreement::ALL {
            assert_eq!(Agreement::parse(a.as_str()), Some(a));
            assert_eq!(serde_json::to_value(a).unwrap(), a.as_str());
        }
        assert_eq!(Agreement::parse("agree"), None);
        let t = Tally::of([Agrees, Agrees, Differs]);
        assert_eq!(t.to_string(), "2 agree, 1 differ, 0 can't tell");
        assert_eq!(t.total(), 3);
    }
}
