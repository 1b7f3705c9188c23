//! Looking up a study's measurements and comparing them, for the findings.

use cipherlab_ciphers::CipherSpec;
use cipherlab_harness::stats::{Bootstrap, Ratio};
use cipherlab_results::artifact::table::{Cell, Interval};
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

/// A table cell of a ratio: the typed interval, `-` when unknown.
pub fn ratio_cell(r: Option<Ratio>) -> Cell {
    match r {
        Some(r) => Cell::Interval(Interval {
            estimate: r.interval.estimate,
            low: r.interval.low,
            high: r.interval.high,
        }),
        None => Cell::Plain(serde_json::Value::from("-")),
    }
}

/// `1.23 [1.20, 1.26]`; `-` when unknown (for a ratio inside a sentence; a table cell is
/// [`ratio_cell`]).
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
