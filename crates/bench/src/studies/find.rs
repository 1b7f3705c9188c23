//! Looking up a study's measurements and comparing them, for the findings.

use cipherlab_ciphers::CipherSpec;
use cipherlab_harness::stats::{Bootstrap, Ratio};
use cipherlab_results::id::{Measurement, Phase, Subject};

/// The measurement of `subject` / `phase` / `size` / `data_type` (any field `None`
/// matches all; the first match wins).
pub fn one<'m>(
    ms: &[&'m Measurement],
    subject: &Subject,
    phase: Phase,
    size: Option<u64>,
    data_type: Option<&str>,
) -> Option<&'m Measurement> {
    ms.iter().copied().find(|m| {
        m.id.algorithm == *subject
            && m.id.phase == phase
            && size.is_none_or(|s| m.id.size == s)
            && data_type.is_none_or(|d| m.id.data_type == d)
    })
}

/// The measurement of the catalogue cipher `spec` / `phase` / `size` / `data_type` (any
/// field `None` matches all; the first match wins): [`one`] by type, not by name.
pub fn of<'m>(
    ms: &[&'m Measurement],
    spec: &CipherSpec,
    phase: Phase,
    size: Option<u64>,
    data_type: Option<&str>,
) -> Option<&'m Measurement> {
    ms.iter().copied().find(|m| {
        m.id.is_cipher(spec)
            && m.id.phase == phase
            && size.is_none_or(|s| m.id.size == s)
            && data_type.is_none_or(|d| m.id.data_type == d)
    })
}

/// `median(a) / median(b)` of the per-call times, with a 99% bootstrap interval.
pub fn ratio(a: &Measurement, b: &Measurement) -> Option<Ratio> {
    let settings = Bootstrap {
        resamples: 2000,
        ..Bootstrap::default()
    };
    a.time_ratio(b, &settings).ok()
}

/// `1.23 [1.20, 1.26]`; `-` when unknown.
pub fn ratio_text(r: Option<Ratio>) -> String {
    match r {
        Some(r) => format!(
            "{:.2} [{:.2}, {:.2}]",
            r.interval.estimate, r.interval.low, r.interval.high
        ),
        None => "-".to_string(),
    }
}

/// MB/s (10^6 bytes per second) of a measurement, if it has a byte count.
pub fn mb_per_s(m: &Measurement) -> Option<f64> {
    m.bytes_per_second.map(|b| b / 1e6)
}

/// The distinct values of `key` over `ms`, in first-seen order.
pub fn distinct<T: PartialEq + Clone>(
    ms: &[&Measurement],
    key: impl Fn(&Measurement) -> T,
) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for m in ms {
        let k = key(m);
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// Whether this machine's CPU has AES instructions (x86 `aes` / Arm `aes`), from the
/// machine block: the usual reason our AES ratios differ from papers that ran Java 6.
pub fn has_aes_ni(machine: &cipherlab_harness::machine::MachineInfo) -> bool {
    machine.cpu_flags.get("aes").copied().unwrap_or(false)
}

/// Ratios within this far of 1 (both ends of the interval) count as "the same": a 5%
/// difference is inside what a machine's state moves between runs.
pub const SAME_MARGIN: f64 = 0.05;

/// What the 99% interval of a time ratio `a / b` decides about `a` against `b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// `a` takes longer: the whole interval is above 1 + [`SAME_MARGIN`].
    Slower,
    /// `a` takes less time: the whole interval is below 1 - [`SAME_MARGIN`].
    Faster,
    /// The whole interval is within [`SAME_MARGIN`] of 1.
    Same,
    /// The interval straddles a boundary, or there is no ratio: the run does not decide.
    CantTell,
}

impl Order {
    /// What the interval of `r` decides.
    pub fn of(r: Option<&Ratio>) -> Order {
        let Some(r) = r else {
            return Order::CantTell;
        };
        let (lo, hi) = (r.interval.low, r.interval.high);
        if lo > 1.0 + SAME_MARGIN {
            Order::Slower
        } else if hi < 1.0 - SAME_MARGIN {
            Order::Faster
        } else if lo >= 1.0 - SAME_MARGIN && hi <= 1.0 + SAME_MARGIN {
            Order::Same
        } else {
            Order::CantTell
        }
    }

    /// `slower`, `faster`, `the same (±5%)`, `can't tell`.
    pub fn word(self) -> &'static str {
        match self {
            Order::Slower => "slower",
            Order::Faster => "faster",
            Order::Same => "the same (±5%)",
            Order::CantTell => "can't tell",
        }
    }
}

/// Whether this run's order agrees with a published one: `agrees`, `differs`, or
/// `can't tell` when the run did not decide.
pub fn agreement(published: Order, ours: Order) -> &'static str {
    match ours {
        Order::CantTell => "can't tell",
        o if o == published => "agrees",
        _ => "differs",
    }
}

/// "2 agree, 1 differs, 0 can't tell": a verdict column summed up.
pub fn tally<'a>(verdicts: impl IntoIterator<Item = &'a str>) -> String {
    let (mut agree, mut differ, mut cant) = (0, 0, 0);
    for v in verdicts {
        match v {
            "agrees" => agree += 1,
            "differs" => differ += 1,
            _ => cant += 1,
        }
    }
    format!("{agree} agree, {differ} differ, {cant} can't tell")
}
