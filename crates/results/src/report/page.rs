//! The report page: runs, the papers' claims checked, machine and validity, then per study its plots, ranking,
//! tables (the papers' figures beside ours), histograms and pictures. One HTML string
//! with its style sheet, plots (inline SVG) and images (`data:` URIs) inside it, so the
//! file opens anywhere without a network.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::StudyAbout;
use super::figures::{self, RunSlice};
use super::html::{self, escape};
use super::svg;
use crate::artifact::{Artifact, Content, Histogram, Profile, Table};
use crate::id::Measurement;
use crate::ranking;
use crate::store::Run;
use crate::time::utc;
use crate::verdict;
use cipherlab_harness::steadiness::STEADY_SPREAD;

/// Studies in `cipherlab bench`'s order, then any other study the runs hold (one added
/// after this build, or a user's) in the order seen.
fn study_names(runs: &[Run], studies: &[StudyAbout]) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for r in runs {
        let names = r
            .measurements
            .iter()
            .map(|m| &m.id.study)
            .chain(r.artifacts.iter().map(|a| &a.study));
        for s in names {
            if !seen.contains(s) {
                seen.push(s.clone());
            }
        }
    }
    seen.sort_by_key(|s| {
        studies
            .iter()
            .position(|x| x.name == *s)
            .unwrap_or(usize::MAX)
    });
    seen
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |x| x.to_string())
}

fn num(x: Option<f64>, digits: usize) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v:.digits$}"),
        _ => "-".to_string(),
    }
}

/// A row of a per-run table: its heading and how to read the value from a run.
type Row<'a> = (&'a str, &'a dyn Fn(&Run) -> String);

/// A table with one column per run: the machine block and the validity figures.
fn per_run_table(runs: &[Run], rows: &[Row<'_>]) -> String {
    let mut cols = vec!["".to_string()];
    cols.extend(runs.iter().map(|r| format!("run {}", r.info.id)));
    let mut t = Table {
        columns: cols,
        rows: Vec::new(),
        note: String::new(),
    };
    for (name, f) in rows {
        let mut row = vec![serde_json::Value::from(*name)];
        row.extend(runs.iter().map(|r| serde_json::Value::from(f(r))));
        t.row(row);
    }
    html::table("", &t)
}

fn warning_counts(ms: &[Measurement]) -> String {
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for m in ms {
        for w in &m.warnings {
            let v = serde_json::to_value(w).unwrap_or_default();
            let kind = v["kind"].as_str().unwrap_or("warning").to_string();
            *kinds.entry(kind).or_default() += 1;
        }
    }
    if kinds.is_empty() {
        "none".to_string()
    } else {
        kinds
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn header(out: &mut String, runs: &[Run], source: &str) {
    let ids: Vec<String> = runs.iter().map(|r| r.info.id.to_string()).collect();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>cipherlab report: run {}</title><style>{}</style></head><body>",
        escape(&ids.join(", ")),
        html::CSS
    );
    let _ = write!(
        out,
        "<h1>cipherlab report</h1><p class=\"source\">{} from {}; generated {}. Medians with their 99% bootstrap confidence intervals (whiskers); equal ranks where intervals overlap.</p>",
        if runs.len() == 1 {
            format!("Run {}", escape(&ids.join("")))
        } else {
            format!(
                "Runs {} (overlaid: one colour per cipher, one line style per run)",
                escape(&ids.join(", "))
            )
        },
        escape(source),
        escape(&utc(crate::store::now_ms()))
    );
    let mut t = Table::new(&[
        "run",
        "started (UTC)",
        "finished (UTC)",
        "command",
        "cipherlab",
        "machine",
        "measurements",
    ]);
    for r in runs {
        t.row(vec![
            serde_json::Value::from(r.info.id.to_string()),
            serde_json::Value::from(utc(r.info.started_ms)),
            serde_json::Value::from(
                r.info
                    .finished_ms
                    .map_or_else(|| "interrupted".to_string(), utc),
            ),
            serde_json::Value::from(r.info.command_line.clone()),
            serde_json::Value::from(r.info.cipherlab_version.clone()),
            serde_json::Value::from(r.machine.fingerprint()),
            serde_json::Value::from(r.info.measurements.to_string()),
        ]);
    }
    out.push_str(&html::table("Runs", &t));
}

/// What a reader wants first: every paper claim the run checked, counted, and the ones
/// it differs from by study and claim ([`verdict::claims`]).
fn claims(out: &mut String, runs: &[Run]) {
    out.push_str("<h2 id=\"claims\">The papers' claims, checked</h2>");
    for r in runs {
        let c = verdict::claims(&r.artifacts);
        let run = if runs.len() > 1 {
            format!("Run {}: ", r.info.id)
        } else {
            String::new()
        };
        if c.tally.total() == 0 {
            let _ = write!(
                out,
                "<p class=\"claims\">{run}no paper claim checked (no verdicts in this run's tables).</p>"
            );
            continue;
        }
        let _ = write!(
            out,
            "<p class=\"claims\">{run}{} paper claims checked: {}.</p>",
            c.tally.total(),
            escape(&c.tally.to_string())
        );
        if !c.differing.is_empty() {
            let mut t = Table::new(&["study", "claim this run differs from"]);
            for d in &c.differing {
                t.row(vec![
                    serde_json::Value::from(d.study.clone()),
                    serde_json::Value::from(d.claim.clone()),
                ]);
            }
            out.push_str(&html::table("Differing claims", &t));
        }
    }
}

fn machine(out: &mut String, runs: &[Run]) {
    out.push_str("<h2 id=\"machine\">Machine and validity</h2>");
    let fingerprints: Vec<String> = runs.iter().map(|r| r.machine.fingerprint()).collect();
    if fingerprints.iter().any(|f| *f != fingerprints[0]) {
        out.push_str("<p class=\"warn\">The runs come from different machines or builds: compare ratios between ciphers, not absolute figures.</p>");
    }
    let rows: Vec<Row<'_>> = vec![
        ("CPU", &|r: &Run| r.machine.cpu_model.clone()),
        ("architecture", &|r: &Run| r.machine.arch.clone()),
        ("CPU flags", &|r: &Run| r.machine.flags_present()),
        ("logical cores", &|r: &Run| {
            r.machine.logical_cores.to_string()
        }),
        ("memory", &|r: &Run| {
            svg::label(r.machine.memory_bytes as f64, svg::Format::Bytes)
        }),
        ("OS", &|r: &Run| r.machine.os.clone()),
        ("kernel", &|r: &Run| r.machine.kernel.clone()),
        ("rustc", &|r: &Run| r.machine.rustc.clone()),
        ("build", &|r: &Run| r.machine.build.clone()),
        ("cipherlab", &|r: &Run| r.machine.cipherlab_version.clone()),
        ("crates", &|r: &Run| {
            r.machine
                .crate_versions
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        }),
        ("other runtimes", &|r: &Run| {
            if r.machine.runtimes.is_empty() {
                "-".to_string()
            } else {
                r.machine
                    .runtimes
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        }),
        ("host (hashed)", &|r: &Run| r.machine.hostname_hash.clone()),
        ("fingerprint", &|r: &Run| r.machine.fingerprint()),
    ];
    out.push_str(&per_run_table(runs, &rows));
    out.push_str("<h3>Validity</h3>");
    let rows: Vec<Row<'_>> = vec![
        ("timer", &|r: &Run| r.validity.timer.clone()),
        ("timer resolution", &|r: &Run| {
            format!("{} ns", r.validity.resolution_ns)
        }),
        ("one timer read", &|r: &Run| {
            format!("{:.1} ns", r.validity.timer_overhead_ns)
        }),
        ("empty operation (batched)", &|r: &Run| {
            format!("{:.2} ns", r.validity.empty_op_ns)
        }),
        ("empty call (timed alone)", &|r: &Run| {
            format!("{:.1} ns", r.validity.empty_call_ns)
        }),
        ("cpu speed", &|r: &Run| {
            r.validity.steadiness.as_ref().map_or_else(
                || "not probed".to_string(),
                |s| {
                    let warn = if s.is_unsteady() {
                        format!(
                            " (more than {:.0}%: wider intervals, fewer figures ordered)",
                            100.0 * (STEADY_SPREAD - 1.0)
                        )
                    } else {
                        String::new()
                    };
                    format!("{}{warn}", s.to_text())
                },
            )
        }),
        (
            "other CPUs while measuring",
            &|r: &Run| match r.validity.keep_awake {
                None => "not recorded".to_string(),
                Some(0) => "left idle".to_string(),
                Some(n) => format!("{n} kept awake (idle-priority busy loops)"),
            },
        ),
        ("cycle counter", &|r: &Run| {
            format!(
                "{} (resolution {} ticks, invariant {}, {} ticks/ns)",
                opt(r.validity.counter.clone()),
                opt(r.validity.counter_resolution),
                opt(r.validity.counter_invariant),
                num(r.validity.counter_ticks_per_ns, 3)
            )
        }),
        ("harness", &|r: &Run| {
            format!(
                "{}, {} samples x {} rounds, {} forks, {} bootstrap resamples at {}%",
                r.settings.mode.as_str(),
                r.settings.iterations,
                r.settings.rounds,
                r.settings.forks,
                r.settings.bootstrap.resamples,
                r.settings.bootstrap.confidence * 100.0
            )
        }),
        ("figures with too few samples to rank", &|r: &Run| {
            format!(
                "{} of {}",
                r.measurements.iter().filter(|m| !m.can_rank()).count(),
                r.measurements.len()
            )
        }),
        ("figures with an undecided neighbour", &|r: &Run| {
            let c = crate::ranking::census(&r.measurements);
            format!(
                "{} of {} ({} of {} pairs undecided)",
                c.undecided_figures, c.figures, c.undecided, c.pairs
            )
        }),
        ("warnings", &|r: &Run| warning_counts(&r.measurements)),
    ];
    out.push_str(&per_run_table(runs, &rows));
}

fn histogram_card(h: &Histogram) -> String {
    if h.counts.len() != 256 {
        return format!(
            "<p class=\"warn\">{}: the stored histogram does not count 256 byte values</p>",
            escape(&h.label)
        );
    }
    format!(
        "<figure class=\"card\">{}<figcaption>{} bytes; entropy {} bits/byte; chi-square {} (p = {}); std. dev. of the 16 group means {} (a uniform source: {})</figcaption></figure>",
        svg::histogram(&h.label, &h.counts),
        h.bytes,
        num(Some(h.entropy_bits), 4),
        num(Some(h.chi_square), 1),
        num(Some(h.p_value), 3),
        num(Some(h.group_std_dev), 2),
        num(Some(h.ideal_group_std_dev), 2)
    )
}

fn study_section(out: &mut String, name: &str, runs: &[Run], studies: &[StudyAbout]) {
    let _ = write!(out, "<h2 id=\"study-{0}\">{0}</h2>", escape(name));
    if let Some(s) = studies.iter().find(|s| s.name == name) {
        let _ = write!(
            out,
            "<p class=\"source\">{} — from: {}</p>",
            escape(&s.title),
            escape(&s.source)
        );
    }
    let slices: Vec<RunSlice<'_>> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| RunSlice {
            index: i,
            id: r.info.id,
            measurements: r
                .measurements
                .iter()
                .filter(|m| m.id.study == name)
                .collect(),
        })
        .collect();
    for p in figures::plots(name, &slices) {
        out.push_str(&p.to_svg());
    }
    let several = runs.len() > 1;
    for (run, slice) in runs.iter().zip(&slices) {
        let tag = if several {
            format!(" (run {})", run.info.id)
        } else {
            String::new()
        };
        if let Some(r) = ranking::headline(&slice.measurements) {
            out.push_str(&html::table(
                &format!("Ranking{tag}: {}", r.caption),
                &r.table(),
            ));
        }
        let mine: Vec<&Artifact> = run.artifacts.iter().filter(|a| a.study == name).collect();
        for a in &mine {
            if let Content::Table(t) = &a.content {
                out.push_str(&html::table(&format!("{}{tag}", a.title), t));
            }
        }
        for a in &mine {
            if let Content::Note(text) = &a.content {
                let _ = write!(
                    out,
                    "<p class=\"note\"><b>{}{}</b>: {}</p>",
                    escape(&a.title),
                    escape(&tag),
                    escape(text)
                );
            }
        }
        let hist: Vec<&Histogram> = mine
            .iter()
            .filter_map(|a| match &a.content {
                Content::Histogram(h) => Some(h),
                _ => None,
            })
            .collect();
        if !hist.is_empty() {
            let _ = write!(
                out,
                "<h3>Byte distribution{}</h3><div class=\"row\">",
                escape(&tag)
            );
            for h in hist {
                out.push_str(&histogram_card(h));
            }
            out.push_str("</div>");
        }
        let pictures: Vec<(&Artifact, &[u8])> = mine
            .iter()
            .filter_map(|a| match &a.content {
                Content::Image(png) => Some((*a, png.as_slice())),
                _ => None,
            })
            .collect();
        if !pictures.is_empty() {
            let _ = write!(out, "<h3>Pictures{}</h3><div class=\"row\">", escape(&tag));
            for (a, png) in pictures {
                // The store admits only PNG bytes as an image (Artifact::from_bytes).
                let _ = write!(
                    out,
                    "<figure class=\"card\"><img class=\"picture\" alt=\"{0}\" src=\"{1}\"><figcaption>{0}</figcaption></figure>",
                    escape(&a.title),
                    html::data_uri(a.kind().media_type(), png)
                );
            }
            out.push_str("</div>");
        }
        let profiles: Vec<(&Artifact, &Profile)> = mine
            .iter()
            .filter_map(|a| match &a.content {
                Content::Profile(p) => Some((*a, p)),
                _ => None,
            })
            .collect();
        if !profiles.is_empty() {
            // Folded away: a study can have a hundred figures, and a reader opens the
            // one whose time they want to see.
            let _ = write!(
                out,
                "<h3>Where the CPU time went{}</h3><p class=\"note\">Sampled in a pass of its own after the measured run (<code>--profile</code>: each benchmark once more under a sampling profiler, those figures not kept); each box is a function, as wide as its share of the samples, its callees below it.</p>",
                escape(&tag)
            );
            for (i, (a, p)) in profiles.into_iter().enumerate() {
                // The first is open, so the section shows what a profile looks like.
                let _ = write!(
                    out,
                    "<details class=\"profile\"{}><summary>{} — {} samples</summary>{}</details>",
                    if i == 0 { " open" } else { "" },
                    escape(&a.title),
                    p.samples(),
                    svg::flame_graph(&a.title, p)
                );
            }
        }
    }
}

/// The whole page for `runs` (at least one), read from `source` (the database's name,
/// shown in the header).
pub fn render(runs: &[Run], source: &str, about: &[StudyAbout]) -> String {
    let mut out = String::new();
    header(&mut out, runs, source);
    let studies = study_names(runs, about);
    out.push_str("<nav><a href=\"#claims\">claims</a><a href=\"#machine\">machine</a>");
    for s in &studies {
        let _ = write!(out, "<a href=\"#study-{0}\">{0}</a>", escape(s));
    }
    out.push_str("</nav>");
    claims(&mut out, runs);
    machine(&mut out, runs);
    for s in &studies {
        study_section(&mut out, s, runs, about);
    }
    out.push_str("</body></html>\n");
    out
}
