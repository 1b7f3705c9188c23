//! Which plots a study gets: what goes on the x axis (size, key size, mode, data type,
//! phase, provider), what makes a series (usually the cipher), and whether y is
//! throughput or time. Several runs are overlaid on the same axes: a cipher keeps its
//! colour in every run, runs differ by line style and marker.
//!
//! The studies are not asked: the layout is read from the benchmark identifiers, with a
//! rule per study where the identifier alone does not say it (a mode is part of the
//! algorithm's name). A study this module does not know (one added later) gets the
//! generic rule: time against size where a cipher was timed at several sizes, else one
//! point per cipher.

use std::collections::{BTreeMap, HashSet};

use super::svg::{Format, Plot, Point, Scale, Series, XAxis};
use crate::id::{Measurement, Phase, Runtime, Subject};
use crate::ranking::interval_ns;

/// The measurements of one study in one run: the run's position among the runs shown
/// and its id.
pub struct RunSlice<'a> {
    /// Position in the report (selects the line style).
    pub index: usize,
    /// Run id, for legends.
    pub id: i64,
    /// This study's measurements in that run.
    pub measurements: Vec<&'a Measurement>,
}

/// What the x axis shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Axis {
    /// Input size, bytes.
    Size,
    /// Key size, bits, parsed from the cipher's name.
    KeyBits,
    /// The mode, parsed from the cipher's name; series by cipher and key size.
    Mode,
    /// The input's data type.
    DataType,
    /// The phase timed.
    Phase,
    /// The cipher; series by provider.
    Provider,
    /// The cipher; one series per run.
    Algorithm,
    /// Input size, bytes; one series per runtime and provider (the `platforms` study:
    /// one cipher per panel, the runtimes side by side).
    RuntimeSize,
}

/// A plot to make: its title and which measurements go in.
struct Panel<'f> {
    title: String,
    axis: Axis,
    /// y is nanoseconds per byte (on a log scale where it spans a decade) instead of
    /// throughput or time per call.
    per_byte: bool,
    keep: Box<dyn Fn(&Measurement) -> bool + 'f>,
}

/// Distinct values in order of first appearance.
fn distinct<T: PartialEq + Clone>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for x in items {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// The phases present, in [`Phase`]'s order.
fn phases_of(all: &[&Measurement]) -> Vec<Phase> {
    let mut p = distinct(all.iter().map(|m| m.id.phase));
    p.sort();
    p
}

/// The panels of `study`, from all runs' measurements.
fn panels<'f>(study: &str, all: &[&Measurement]) -> Vec<Panel<'f>> {
    let phases = phases_of(all);
    let per_phase = |axis: Axis, what: &str| -> Vec<Panel<'f>> {
        phases
            .iter()
            .map(|&phase| Panel {
                title: format!("{study}: {phase} {what}"),
                axis,
                per_byte: false,
                keep: Box::new(move |m: &Measurement| m.id.phase == phase),
            })
            .collect()
    };
    match study {
        "data-type" | "density" => per_phase(Axis::DataType, "by data type"),
        "key-size" => per_phase(Axis::KeyBits, "by key size"),
        "modes" => per_phase(Axis::Mode, "by mode"),
        // One panel per input (the PDF set in average time, the single-shot file, and
        // `none` for key derivation), the phases side by side: the cipher phase beside
        // the whole job shows the cipher's share at a glance.
        "pdf" => distinct(all.iter().map(|m| m.id.data_type.clone()))
            .into_iter()
            .map(|dt| Panel {
                title: match dt.as_str() {
                    "pdf-set" => "pdf: average time over the PDF set, by phase".to_string(),
                    "none" => "pdf: key derivation, timed apart".to_string(),
                    f => format!("pdf: single shot on {f}, by phase"),
                },
                axis: Axis::Phase,
                per_byte: false,
                keep: Box::new(move |m: &Measurement| m.id.data_type == dt),
            })
            .collect(),
        "phases" | "objects" => vec![Panel {
            title: format!("{study}: time per phase"),
            axis: Axis::Phase,
            per_byte: false,
            keep: Box::new(|_| true),
        }],
        "providers" => {
            let mut out = Vec::new();
            for &phase in &phases {
                let mut sizes = distinct(
                    all.iter()
                        .filter(|m| m.id.phase == phase)
                        .map(|m| m.id.size),
                );
                sizes.sort_unstable();
                for size in sizes {
                    out.push(Panel {
                        title: format!(
                            "{study}: {phase}, {}, by provider",
                            super::svg::label(size as f64, Format::Bytes)
                        ),
                        axis: Axis::Provider,
                        per_byte: false,
                        keep: Box::new(move |m: &Measurement| {
                            m.id.phase == phase && m.id.size == size
                        }),
                    });
                }
            }
            out
        }
        "platforms" => by_runtime(study, all, &phases),
        _ => generic(study, all, &phases),
    }
}

/// The web-platforms paper's picture (its Figure 1): for each cipher timed at several
/// sizes and each phase, nanoseconds per byte against the file size, both on log
/// scales, one line per runtime (and provider), each point with its interval.
fn by_runtime<'f>(study: &str, all: &[&Measurement], phases: &[Phase]) -> Vec<Panel<'f>> {
    let mut out = Vec::new();
    for &phase in phases {
        let ciphers = distinct(
            all.iter()
                .filter(|m| m.id.phase == phase)
                .map(|m| m.id.algorithm.clone()),
        );
        for cipher in ciphers {
            let sizes = distinct(
                all.iter()
                    .filter(|m| m.id.phase == phase && m.id.algorithm == cipher)
                    .map(|m| m.id.size),
            );
            if sizes.len() < 2 {
                continue;
            }
            out.push(Panel {
                title: format!("{study}: {phase} of {cipher}, ns per byte by runtime"),
                axis: Axis::RuntimeSize,
                per_byte: true,
                keep: Box::new(move |m: &Measurement| {
                    m.id.phase == phase && m.id.algorithm == cipher
                }),
            });
        }
    }
    out
}

/// Per phase and data type: against size where some cipher was timed at several sizes,
/// else one point per cipher.
fn generic<'f>(study: &str, all: &[&Measurement], phases: &[Phase]) -> Vec<Panel<'f>> {
    let mut out = Vec::new();
    for &p in phases {
        let types = distinct(
            all.iter()
                .filter(|m| m.id.phase == p)
                .map(|m| m.id.data_type.clone()),
        );
        for t in types {
            let group: Vec<&&Measurement> = all
                .iter()
                .filter(|m| m.id.phase == p && m.id.data_type == t)
                .collect();
            let mut sizes: BTreeMap<(&str, &str), Vec<u64>> = BTreeMap::new();
            for m in &group {
                sizes
                    .entry((m.id.algorithm.name(), &m.id.implementation))
                    .or_default()
                    .push(m.id.size);
            }
            let by_size = sizes.values().any(|s| distinct(s.iter()).len() > 1);
            let (phase, dt) = (p, t.clone());
            out.push(Panel {
                title: if by_size {
                    format!("{study}: {p} of {t}, against size")
                } else {
                    format!("{study}: {p} of {t}")
                },
                axis: if by_size { Axis::Size } else { Axis::Algorithm },
                per_byte: false,
                keep: Box::new(move |m: &Measurement| m.id.phase == phase && m.id.data_type == dt),
            });
        }
    }
    out
}

/// Where a measurement sits on the x axis: a number or a category; and its series.
enum X {
    Num(f64),
    Cat(String),
}

/// The series name and x position of `m`. A cipher's series name also carries its
/// provider where the panel holds several providers of it, and its runtime where that
/// is not Rust, so two implementations never share a line.
fn place(axis: Axis, m: &Measurement, multi_impl: &HashSet<&Subject>) -> Option<(String, X)> {
    let mut alg = m.id.algorithm.to_string();
    if multi_impl.contains(&m.id.algorithm) {
        alg = format!("{alg} ({})", m.id.implementation);
    }
    if m.id.runtime != Runtime::RUST {
        alg = format!("{alg} [{}]", m.id.runtime);
    }
    Some(match axis {
        Axis::Size => (alg, X::Num(m.id.size as f64)),
        Axis::KeyBits => {
            let spec = m.id.cipher()?;
            (
                spec.algorithm.name.to_string(),
                X::Num(f64::from(spec.key_bits)),
            )
        }
        Axis::Mode => {
            let spec = m.id.cipher()?;
            match spec.mode {
                Some(mode) => (
                    format!("{}-{}", spec.algorithm.name, spec.key_bits),
                    X::Cat(mode.as_str().to_string()),
                ),
                // AEADs and stream ciphers have no mode: one point under their name.
                None => (alg.clone(), X::Cat(alg)),
            }
        }
        Axis::DataType => (alg, X::Cat(m.id.data_type.clone())),
        Axis::Phase => (alg, X::Cat(m.id.phase.to_string())),
        Axis::Provider => (m.id.implementation.clone(), X::Cat(alg)),
        Axis::Algorithm => (m.id.implementation.clone(), X::Cat(alg)),
        Axis::RuntimeSize => (
            format!("{} ({})", m.id.runtime, m.id.implementation),
            X::Num(m.id.size as f64),
        ),
    })
}

/// Throughput in MB/s with its interval when every figure processed bytes; else time
/// per call in ns.
fn y_of(m: &Measurement, throughput: bool, per_byte: bool) -> Option<Point> {
    let ns = m.median_ns_per_op();
    let (lo, hi) = interval_ns(m);
    if per_byte {
        let b = m.bytes_per_op.filter(|b| *b > 0)? as f64;
        return Some(Point {
            x: 0.0,
            y: ns / b,
            low: lo / b,
            high: hi / b,
            hollow: false,
        });
    }
    if throughput {
        let b = m.bytes_per_op? as f64;
        // bytes per ns = GB/s; x 1000 = MB/s. The slow end of the time interval is the
        // low end of the rate interval.
        Some(Point {
            x: 0.0,
            y: 1e3 * b / ns,
            low: 1e3 * b / hi,
            high: 1e3 * b / lo,
            hollow: false,
        })
    } else {
        Some(Point {
            x: 0.0,
            y: ns,
            low: lo,
            high: hi,
            hollow: false,
        })
    }
}

/// The plots of one study for the runs given (one slice per run, in report order).
pub fn plots(study: &str, runs: &[RunSlice<'_>]) -> Vec<Plot> {
    let all: Vec<&Measurement> = runs
        .iter()
        .flat_map(|r| r.measurements.iter().copied())
        .collect();
    let several = runs.len() > 1;
    let mut out = Vec::new();
    for panel in panels(study, &all) {
        let chosen: Vec<&Measurement> = all.iter().copied().filter(|m| (panel.keep)(m)).collect();
        if chosen.is_empty() {
            continue;
        }
        // Algorithms timed through several providers here (the providers study puts
        // providers on its own axis, so it needs no such split).
        let mut multi_impl: HashSet<&Subject> = HashSet::new();
        if panel.axis != Axis::Provider {
            let mut first: BTreeMap<&Subject, &str> = BTreeMap::new();
            for m in &chosen {
                let i = first.entry(&m.id.algorithm).or_insert(&m.id.implementation);
                if *i != m.id.implementation {
                    multi_impl.insert(&m.id.algorithm);
                }
            }
        }
        let throughput = !panel.per_byte
            && chosen.iter().all(|m| m.bytes_per_op.is_some_and(|b| b > 0))
            && !matches!(panel.axis, Axis::Phase);
        // Categories and series in order of first appearance, so every run uses the
        // same positions and colours.
        let mut categories: Vec<String> = Vec::new();
        let mut series_names: Vec<String> = Vec::new();
        for m in &chosen {
            if let Some((s, x)) = place(panel.axis, m, &multi_impl) {
                if !series_names.contains(&s) {
                    series_names.push(s);
                }
                if let X::Cat(c) = x
                    && !categories.contains(&c)
                {
                    categories.push(c);
                }
            }
        }
        if panel.axis == Axis::Phase {
            categories.sort_by_key(|x| Phase::parse(x));
        }
        let mut series: Vec<Series> = Vec::new();
        for run in runs {
            for (si, name) in series_names.iter().enumerate() {
                let mut points: Vec<Point> = run
                    .measurements
                    .iter()
                    .filter(|m| (panel.keep)(m))
                    .filter_map(|m| {
                        let (s, x) = place(panel.axis, m, &multi_impl)?;
                        if &s != name {
                            return None;
                        }
                        let x = match x {
                            X::Num(v) => v,
                            X::Cat(c) => categories.iter().position(|k| *k == c)? as f64,
                        };
                        let p = y_of(m, throughput, panel.per_byte)?;
                        Some(Point {
                            x,
                            hollow: !m.can_rank(),
                            ..p
                        })
                    })
                    .collect();
                if points.is_empty() {
                    continue;
                }
                points.sort_by(|a, b| a.x.total_cmp(&b.x));
                series.push(Series {
                    label: if several {
                        format!("{name} · run {}", run.id)
                    } else {
                        name.clone()
                    },
                    colour: si,
                    run: run.index,
                    points,
                });
            }
        }
        let xs: Vec<f64> = series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.x))
            .collect();
        let x = match panel.axis {
            Axis::Size | Axis::KeyBits | Axis::RuntimeSize => {
                let format = if panel.axis == Axis::KeyBits {
                    Format::Plain
                } else {
                    Format::Bytes
                };
                XAxis::Numeric(spread_scale(&xs), format)
            }
            _ => XAxis::Categories(categories),
        };
        let ys: Vec<f64> = series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.y))
            .collect();
        let plot = Plot {
            title: panel.title,
            x_label: match panel.axis {
                Axis::Size | Axis::RuntimeSize => "input size (log scale)".to_string(),
                Axis::KeyBits => "key size, bits".to_string(),
                Axis::Mode => "mode".to_string(),
                Axis::DataType => "data type".to_string(),
                Axis::Phase => "phase".to_string(),
                Axis::Provider | Axis::Algorithm => "cipher".to_string(),
            },
            y_label: if panel.per_byte {
                "ns per byte (median, 99% CI)".to_string()
            } else if throughput {
                "MB/s (median, 99% CI)".to_string()
            } else {
                "time per call (median, 99% CI)".to_string()
            },
            x,
            y_scale: spread_scale(&ys),
            y_format: if throughput || panel.per_byte {
                Format::Plain
            } else {
                Format::Nanos
            },
            series,
        };
        if !plot.is_empty() {
            out.push(plot);
        }
    }
    out
}

/// Log scale when the positive values span a decade or more.
fn spread_scale(values: &[f64]) -> Scale {
    let pos = values.iter().copied().filter(|v| v.is_finite() && *v > 0.0);
    let (lo, hi) = pos.fold((f64::INFINITY, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
    if lo.is_finite() && hi / lo >= 10.0 {
        Scale::Log
    } else {
        Scale::Linear
    }
}
