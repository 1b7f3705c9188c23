//! A small SVG plotter for the report: points with confidence whiskers against a numeric
//! (linear or log) or categorical axis, and byte histograms as bars.
//!
//! Why our own and not `plotters`: the report needs three chart shapes only, whiskers on
//! every point, log axes with readable byte and time labels, and output that is the same
//! bytes for the same data (the tests compare it); `plotters`' SVG backend would still
//! need all of that written around it, plus its font stack. This module is ~400 lines,
//! has no dependency, and escapes every piece of text it writes.

use std::fmt::Write;

use super::html::escape;

/// Series colours: Tableau 10 (distinct for people with the common colour-vision
/// deficiencies), then ten darker tones, because studies plot a dozen ciphers at once.
/// Exact enough for the screenshot test to find them as pixels.
pub const PALETTE: [&str; 20] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac", "#1f3b73", "#a34a00", "#7a1f2b", "#1d6b64", "#2d6a1f", "#8a7412",
    "#5b2a76", "#c2185b", "#4a3426", "#555555",
];

/// Dash patterns telling runs apart when several are overlaid (run 1 solid, ...).
const DASHES: [&str; 4] = ["", "6 3", "2 2", "8 3 2 3"];

/// Marker shapes, by run, for the same reason as [`DASHES`].
const MARKERS: usize = 3;

/// One point: the estimate and its interval (the whisker).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Position on the x axis (a category's index on a categorical axis).
    pub x: f64,
    /// The estimate.
    pub y: f64,
    /// Lower end of the whisker.
    pub low: f64,
    /// Upper end of the whisker.
    pub high: f64,
    /// Drawn as an outline: the figure has too few samples to rank (its validity
    /// warnings say so), so the eye should not compare it as closely as the filled ones.
    pub hollow: bool,
}

/// A line of points in one colour.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Index into [`PALETTE`] (wraps).
    pub colour: usize,
    /// Which run (selects the dash pattern and marker).
    pub run: usize,
    /// The points, in x order.
    pub points: Vec<Point>,
}

/// How numbers on an axis are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Bytes with decimal SI prefixes (`64 kB`).
    Bytes,
    /// A duration given in nanoseconds (`1.5 µs`).
    Nanos,
    /// A plain number with an SI suffix when large (`2.5k`).
    Plain,
}

/// A numeric axis's scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Equal steps for equal differences.
    Linear,
    /// Equal steps for equal ratios: for values spanning decades.
    Log,
}

/// The x axis.
#[derive(Debug, Clone, PartialEq)]
pub enum XAxis {
    /// Numbers.
    Numeric(Scale, Format),
    /// Named categories; a point's `x` is the index.
    Categories(Vec<String>),
}

/// A chart of series with whiskers.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    /// Heading inside the picture.
    pub title: String,
    /// x axis caption.
    pub x_label: String,
    /// y axis caption.
    pub y_label: String,
    /// x axis kind.
    pub x: XAxis,
    /// y axis scale.
    pub y_scale: Scale,
    /// How y numbers are printed.
    pub y_format: Format,
    /// The data.
    pub series: Vec<Series>,
}

const WIDTH: f64 = 820.0;
const PLOT_LEFT: f64 = 78.0;
const PLOT_RIGHT: f64 = 590.0;
const PLOT_TOP: f64 = 34.0;
const PLOT_HEIGHT: f64 = 250.0;
const LEGEND_X: f64 = 604.0;
const LEGEND_LINE: f64 = 15.0;

/// Maps data values to pixels along one axis.
struct Mapper {
    scale: Scale,
    lo: f64,
    hi: f64,
    px_lo: f64,
    px_hi: f64,
}

impl Mapper {
    fn t(&self, v: f64) -> f64 {
        match self.scale {
            Scale::Linear => v,
            Scale::Log => v.log10(),
        }
    }

    fn px(&self, v: f64) -> f64 {
        let (a, b) = (self.t(self.lo), self.t(self.hi));
        let f = if b > a {
            (self.t(v) - a) / (b - a)
        } else {
            0.5
        };
        self.px_lo + f * (self.px_hi - self.px_lo)
    }
}

/// Whether `v` can be drawn on `scale`.
fn drawable(v: f64, scale: Scale) -> bool {
    v.is_finite() && (scale == Scale::Linear || v > 0.0)
}

/// The data range widened to look good: linear axes of non-negative data start at 0
/// (so bar heights compare honestly); log axes get a small margin.
fn domain(values: &[f64], scale: Scale) -> (f64, f64) {
    let (mut lo, mut hi) = values
        .iter()
        .filter(|v| drawable(**v, scale))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
            (l.min(v), h.max(v))
        });
    if !lo.is_finite() {
        return match scale {
            Scale::Linear => (0.0, 1.0),
            Scale::Log => (1.0, 10.0),
        };
    }
    match scale {
        Scale::Linear => {
            if lo >= 0.0 {
                lo = 0.0;
            }
            if hi <= lo {
                hi = lo + 1.0;
            }
            let pad = (hi - lo) * 0.05;
            (lo, hi + pad)
        }
        Scale::Log => {
            if hi <= lo {
                return (lo / 2.0, hi * 2.0);
            }
            let f = (hi / lo).powf(0.05);
            (lo / f, hi * f)
        }
    }
}

/// Tick positions: 1-2-5 steps on a linear axis; powers of ten on a log axis, with 2
/// and 5 between them when the range spans less than two decades.
fn ticks(lo: f64, hi: f64, scale: Scale) -> Vec<f64> {
    match scale {
        Scale::Linear => {
            let raw = (hi - lo) / 5.0;
            if raw <= 0.0 || !raw.is_finite() {
                return vec![lo];
            }
            let mag = 10f64.powf(raw.log10().floor());
            let step = [1.0, 2.0, 5.0, 10.0]
                .into_iter()
                .map(|m| m * mag)
                .find(|s| *s >= raw)
                .unwrap_or(10.0 * mag);
            let first = (lo / step).ceil() as i64;
            let last = (hi / step).floor() as i64;
            (first..=last).map(|i| i as f64 * step).collect()
        }
        Scale::Log => {
            let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
            let mults: &[f64] = if b - a <= 2 { &[1.0, 2.0, 5.0] } else { &[1.0] };
            let mut out = Vec::new();
            for e in a..=b {
                for m in mults {
                    let v = m * 10f64.powi(e);
                    if v >= lo && v <= hi {
                        out.push(v);
                    }
                }
            }
            // A range inside one 1-2-5 step still gets its ends labelled.
            if out.len() < 2 {
                out = vec![lo, hi];
            }
            out
        }
    }
}

/// `v` with at most three significant digits and no trailing zeros.
fn short(v: f64) -> String {
    let s = if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// An axis label for `v` in `format`.
pub fn label(v: f64, format: Format) -> String {
    let (scaled, unit) = match format {
        Format::Bytes => {
            // The studies' sizes are mostly powers of two (16 KiB, 1 MiB) and some
            // decimal (the paper's 10.7 MB): each is named in the units it was chosen in.
            let binary = [
                (1u64 << 40, " TiB"),
                (1 << 30, " GiB"),
                (1 << 20, " MiB"),
                (1 << 10, " KiB"),
            ];
            // A whole number of quarter units, below 1024 of them: 64 KiB, 1.5 KiB, but
            // 1 MB (= 976.5625 KiB) and 100 MB stay decimal.
            let exact = binary.iter().find(|(f, _)| {
                let f = *f as f64;
                v >= f && v / f < 1024.0 && (4.0 * v / f).fract() == 0.0
            });
            match exact {
                Some((f, u)) => (v / *f as f64, *u),
                None => {
                    let units = [(1e12, " TB"), (1e9, " GB"), (1e6, " MB"), (1e3, " kB")];
                    units
                        .iter()
                        .find(|(f, _)| v.abs() >= *f)
                        .map_or((v, " B"), |(f, u)| (v / f, *u))
                }
            }
        }
        Format::Nanos => {
            let units = [(1e9, " s"), (1e6, " ms"), (1e3, " µs")];
            units
                .iter()
                .find(|(f, _)| v.abs() >= *f)
                .map_or((v, " ns"), |(f, u)| (v / f, *u))
        }
        Format::Plain => {
            let units = [(1e9, "G"), (1e6, "M"), (1e3, "k")];
            units
                .iter()
                .find(|(f, _)| v.abs() >= *f)
                .map_or((v, ""), |(f, u)| (v / f, *u))
        }
    };
    format!("{}{unit}", short(scaled))
}

fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

fn marker(out: &mut String, x: f64, y: f64, run: usize, colour: &str, hollow: bool) {
    let paint = if hollow {
        format!(r#"fill="white" stroke="{colour}" stroke-width="1.5""#)
    } else {
        format!(r#"fill="{colour}""#)
    };
    match run % MARKERS {
        0 => {
            let _ = write!(out, r#"<circle cx="{x:.1}" cy="{y:.1}" r="3.5" {paint}/>"#);
        }
        1 => {
            let _ = write!(
                out,
                r#"<rect x="{:.1}" y="{:.1}" width="7" height="7" {paint}/>"#,
                x - 3.5,
                y - 3.5
            );
        }
        _ => {
            let _ = write!(
                out,
                r#"<path d="M{x:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}Z" {paint}/>"#,
                y - 4.5,
                x + 4.5,
                y + 3.5,
                x - 4.5,
                y + 3.5
            );
        }
    }
}

impl Plot {
    /// Whether any point can be drawn.
    pub fn is_empty(&self) -> bool {
        !self.series.iter().any(|s| {
            s.points
                .iter()
                .any(|p| drawable(p.y, self.y_scale) && self.x_ok(p.x))
        })
    }

    fn x_ok(&self, x: f64) -> bool {
        match &self.x {
            XAxis::Numeric(scale, _) => drawable(x, *scale),
            XAxis::Categories(c) => x >= 0.0 && (x as usize) < c.len(),
        }
    }

    /// The chart as a standalone `<svg>` element.
    pub fn to_svg(&self) -> String {
        let legend_h = self.series.len() as f64 * LEGEND_LINE + PLOT_TOP + 10.0;
        let x_tick_room = match &self.x {
            XAxis::Categories(c) => {
                let longest = c.iter().map(|s| s.chars().count()).max().unwrap_or(0);
                // Long names are written at an angle; leave room for them.
                if longest * 7 > 40 {
                    (longest as f64 * 5.2).min(120.0)
                } else {
                    16.0
                }
            }
            XAxis::Numeric(..) => 16.0,
        };
        let plot_bottom = PLOT_TOP + PLOT_HEIGHT;
        let height = (plot_bottom + x_tick_room + 30.0).max(legend_h);
        let mut out = String::new();
        let _ = write!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="{WIDTH}" height="{height:.0}" viewBox="0 0 {WIDTH} {height:.0}" role="img" font-family="sans-serif" font-size="11">"#
        );
        let _ = write!(
            out,
            r#"<title>{}</title><text x="{PLOT_LEFT}" y="18" font-size="13" font-weight="bold">{}</text>"#,
            escape(&self.title),
            escape(&self.title)
        );

        // y axis
        let ys: Vec<f64> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter())
            .filter(|p| self.x_ok(p.x))
            .flat_map(|p| [p.y, p.low, p.high])
            .collect();
        let (ylo, yhi) = domain(&ys, self.y_scale);
        let ym = Mapper {
            scale: self.y_scale,
            lo: ylo,
            hi: yhi,
            px_lo: plot_bottom,
            px_hi: PLOT_TOP,
        };
        for t in ticks(ylo, yhi, self.y_scale) {
            let y = ym.px(t);
            let _ = write!(
                out,
                r##"<line x1="{PLOT_LEFT}" x2="{PLOT_RIGHT}" y1="{y:.1}" y2="{y:.1}" stroke="#e4e4e4"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
                PLOT_LEFT - 5.0,
                y + 4.0,
                escape(&label(t, self.y_format))
            );
        }
        let _ = write!(
            out,
            r#"<text transform="translate(14 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
            PLOT_TOP + PLOT_HEIGHT / 2.0,
            escape(&self.y_label)
        );

        // x axis
        let xm = match &self.x {
            XAxis::Numeric(scale, format) => {
                let xs: Vec<f64> = self
                    .series
                    .iter()
                    .flat_map(|s| s.points.iter().map(|p| p.x))
                    .collect();
                let (xlo, xhi) = match scale {
                    Scale::Log => domain(&xs, Scale::Log),
                    // A linear x axis need not start at 0: it shows the values' spread.
                    Scale::Linear => {
                        let (lo, hi) = xs
                            .iter()
                            .filter(|v| v.is_finite())
                            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
                                (l.min(v), h.max(v))
                            });
                        if lo.is_finite() && hi > lo {
                            let pad = (hi - lo) * 0.05;
                            (lo - pad, hi + pad)
                        } else if lo.is_finite() {
                            (lo - 1.0, lo + 1.0)
                        } else {
                            (0.0, 1.0)
                        }
                    }
                };
                let m = Mapper {
                    scale: *scale,
                    lo: xlo,
                    hi: xhi,
                    px_lo: PLOT_LEFT,
                    px_hi: PLOT_RIGHT,
                };
                for t in ticks(xlo, xhi, *scale) {
                    let x = m.px(t);
                    let _ = write!(
                        out,
                        r##"<line x1="{x:.1}" x2="{x:.1}" y1="{PLOT_TOP}" y2="{plot_bottom}" stroke="#eeeeee"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
                        plot_bottom + 14.0,
                        escape(&label(t, *format))
                    );
                }
                m
            }
            XAxis::Categories(names) => {
                let n = names.len().max(1) as f64;
                let m = Mapper {
                    scale: Scale::Linear,
                    lo: -0.5,
                    hi: n - 0.5,
                    px_lo: PLOT_LEFT,
                    px_hi: PLOT_RIGHT,
                };
                let slanted = x_tick_room > 16.0;
                for (i, name) in names.iter().enumerate() {
                    let x = m.px(i as f64);
                    if slanted {
                        let _ = write!(
                            out,
                            r#"<text transform="translate({x:.1} {:.1}) rotate(-40)" text-anchor="end">{}</text>"#,
                            plot_bottom + 12.0,
                            escape(name)
                        );
                    } else {
                        let _ = write!(
                            out,
                            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                            plot_bottom + 14.0,
                            escape(name)
                        );
                    }
                }
                m
            }
        };
        let _ = write!(
            out,
            r##"<rect x="{PLOT_LEFT}" y="{PLOT_TOP}" width="{:.0}" height="{PLOT_HEIGHT}" fill="none" stroke="#888"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            PLOT_RIGHT - PLOT_LEFT,
            (PLOT_LEFT + PLOT_RIGHT) / 2.0,
            height - 6.0,
            escape(&self.x_label)
        );

        // Points on a categorical axis are spread apart a little so that whiskers of
        // different series at the same category do not hide each other.
        let n_series = self.series.len().max(1) as f64;
        let dodge = match &self.x {
            XAxis::Categories(c) => {
                let band = (PLOT_RIGHT - PLOT_LEFT) / c.len().max(1) as f64;
                (band * 0.7 / n_series).min(9.0)
            }
            XAxis::Numeric(..) => 0.0,
        };
        let lines = matches!(self.x, XAxis::Numeric(..));
        for (si, s) in self.series.iter().enumerate() {
            let c = colour(s.colour);
            let offset = (si as f64 - (n_series - 1.0) / 2.0) * dodge;
            let pts: Vec<(f64, &Point)> = s
                .points
                .iter()
                .filter(|p| self.x_ok(p.x) && drawable(p.y, self.y_scale))
                .map(|p| (xm.px(p.x) + offset, p))
                .collect();
            let _ = write!(
                out,
                r#"<g class="series"><title>{}</title>"#,
                escape(&s.label)
            );
            if lines && pts.len() > 1 {
                let d: Vec<String> = pts
                    .iter()
                    .map(|(x, p)| format!("{x:.1},{:.1}", ym.px(p.y)))
                    .collect();
                let _ = write!(
                    out,
                    r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="2" stroke-dasharray="{}"/>"#,
                    d.join(" "),
                    DASHES[s.run % DASHES.len()]
                );
            }
            for (x, p) in &pts {
                let y = ym.px(p.y);
                if drawable(p.low, self.y_scale) && drawable(p.high, self.y_scale) {
                    let (yl, yh) = (ym.px(p.low), ym.px(p.high));
                    let _ = write!(
                        out,
                        r#"<path d="M{x:.1} {yl:.1}V{yh:.1}M{:.1} {yl:.1}h6M{:.1} {yh:.1}h6" stroke="{c}" stroke-width="1.5"/>"#,
                        x - 3.0,
                        x - 3.0
                    );
                }
                marker(&mut out, *x, y, s.run, c, p.hollow);
            }
            out.push_str("</g>");
        }

        if self
            .series
            .iter()
            .any(|s| s.points.iter().any(|p| p.hollow))
        {
            let _ = write!(
                out,
                r##"<text x="{PLOT_RIGHT}" y="{:.0}" text-anchor="end" fill="#555">hollow: too few samples to rank</text>"##,
                PLOT_TOP - 6.0
            );
        }

        // Legend
        for (i, s) in self.series.iter().enumerate() {
            let y = PLOT_TOP + 6.0 + i as f64 * LEGEND_LINE;
            let c = colour(s.colour);
            let _ = write!(
                out,
                r#"<line x1="{LEGEND_X}" x2="{:.0}" y1="{y:.1}" y2="{y:.1}" stroke="{c}" stroke-width="2" stroke-dasharray="{}"/>"#,
                LEGEND_X + 22.0,
                DASHES[s.run % DASHES.len()]
            );
            marker(&mut out, LEGEND_X + 11.0, y, s.run, c, false);
            let _ = write!(
                out,
                r#"<text x="{:.0}" y="{:.1}">{}</text>"#,
                LEGEND_X + 28.0,
                y + 4.0,
                escape(&s.label)
            );
        }
        out.push_str("</svg>");
        out
    }
}

/// The histograms' bar colour: one for all, and none of [`PALETTE`]'s, so a screenshot
/// tells plots and histograms apart.
pub const HISTOGRAM_COLOUR: &str = "#7b6fb0";

/// A byte histogram: 256 bars, and a dashed line where a uniform source's bars would be.
pub fn histogram(title: &str, counts: &[u64]) -> String {
    const W: f64 = 380.0;
    const H: f64 = 170.0;
    const L: f64 = 44.0;
    const R: f64 = 370.0;
    const T: f64 = 24.0;
    const B: f64 = 146.0;
    let max = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let total: u64 = counts.iter().sum();
    let expected = total as f64 / counts.len().max(1) as f64;
    let top = max.max(expected) * 1.05;
    let y = |v: f64| B - (B - T) * v / top;
    let bar = (R - L) / counts.len().max(1) as f64;
    let c = HISTOGRAM_COLOUR;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="histogram" width="{W}" height="{H}" viewBox="0 0 {W} {H}" role="img" font-family="sans-serif" font-size="10"><title>{}</title><text x="{L}" y="14" font-size="11" font-weight="bold">{}</text>"#,
        escape(title),
        escape(title)
    );
    // One path for all bars keeps the page small (256 bars per histogram).
    let mut d = String::new();
    for (i, &n) in counts.iter().enumerate() {
        if n > 0 {
            let _ = write!(
                d,
                "M{:.2} {B}V{:.2}h{:.2}V{B}Z",
                L + i as f64 * bar,
                y(n as f64),
                bar
            );
        }
    }
    let _ = write!(out, r#"<path d="{d}" fill="{c}"/>"#);
    let ye = y(expected);
    let _ = write!(
        out,
        r##"<line x1="{L}" x2="{R}" y1="{ye:.1}" y2="{ye:.1}" stroke="#333" stroke-dasharray="4 3"/><rect x="{L}" y="{T}" width="{:.0}" height="{:.0}" fill="none" stroke="#888"/>"##,
        R - L,
        B - T
    );
    for v in [0.0, top / 1.05] {
        let _ = write!(
            out,
            r#"<text x="{:.0}" y="{:.1}" text-anchor="end">{}</text>"#,
            L - 4.0,
            y(v) + 3.0,
            escape(&label(v, Format::Plain))
        );
    }
    for b in [0u32, 64, 128, 192, 255] {
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.0}" text-anchor="middle">{b}</text>"#,
            L + (f64::from(b) + 0.5) * bar,
            B + 12.0
        );
    }
    let _ = write!(
        out,
        r#"<text x="{:.0}" y="{:.0}" text-anchor="middle">byte value (dashed: uniform)</text></svg>"#,
        (L + R) / 2.0,
        H - 2.0
    );
    out
}

/// A flame graph's width, row height and title band, in pixels.
const FLAME_WIDTH: f64 = 960.0;
const FLAME_ROW: f64 = 16.0;
const FLAME_TOP: f64 = 22.0;

/// A flame graph of `profile`, drawn root at the top (an icicle): each frame a box as wide
/// as its share of the samples, its callees below it in name order, its name inside when
/// it fits and in a tooltip always. Static SVG, no script: the report must run nothing.
/// Frames narrower than half a pixel are left out (their samples still count in their
/// callers' widths).
pub fn flame_graph(title: &str, profile: &crate::artifact::Profile) -> String {
    let tree = profile.tree();
    let total = tree.total.max(1) as f64;
    let mut boxes = String::new();
    let mut depth = 0usize;
    draw_children(&tree, 0.0, 0, total, &mut boxes, &mut depth);
    let h = FLAME_TOP + FLAME_ROW * depth as f64 + 4.0;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="flame" width="{FLAME_WIDTH}" height="{h}" viewBox="0 0 {FLAME_WIDTH} {h}" role="img" font-family="monospace" font-size="11"><title>{}</title><text x="2" y="14" font-family="sans-serif" font-weight="bold">{} ({} samples)</text>{boxes}</svg>"#,
        escape(title),
        escape(title),
        tree.total
    );
    out
}

/// Draws `node`'s children at `depth`, starting at `x` pixels; `depth_seen` grows to the
/// deepest row drawn.
fn draw_children(
    node: &crate::artifact::profile::Node,
    x: f64,
    depth: usize,
    total: f64,
    out: &mut String,
    depth_seen: &mut usize,
) {
    const CHAR: f64 = 6.7;
    let (w_all, row, top) = (FLAME_WIDTH, FLAME_ROW, FLAME_TOP);
    let mut x = x;
    for (name, child) in &node.children {
        let w = w_all * child.total as f64 / total;
        if w >= 0.5 {
            *depth_seen = (*depth_seen).max(depth + 1);
            let y = top + row * depth as f64;
            let share = 100.0 * child.total as f64 / total;
            let _ = write!(
                out,
                r##"<g><title>{} ({} samples, {share:.1}%)</title><rect x="{x:.2}" y="{y:.1}" width="{w:.2}" height="{:.1}" fill="{}" stroke="#fff" stroke-width="0.5"/>"##,
                escape(name),
                child.total,
                row - 1.0,
                flame_colour(name)
            );
            let fits = ((w - 4.0) / CHAR).floor() as usize;
            if fits >= 3 {
                let shown: String = if name.chars().count() <= fits {
                    name.clone()
                } else {
                    name.chars()
                        .take(fits.saturating_sub(2))
                        .chain("..".chars())
                        .collect()
                };
                let _ = write!(
                    out,
                    r#"<text x="{:.2}" y="{:.1}">{}</text>"#,
                    x + 2.0,
                    y + row - 4.5,
                    escape(&shown)
                );
            }
            out.push_str("</g>");
            draw_children(child, x, depth + 1, total, out, depth_seen);
        }
        x += w;
    }
}

/// A warm colour chosen from the frame's name, so a frame has the same colour in every
/// graph of the page.
fn flame_colour(name: &str) -> String {
    let h = name.bytes().fold(2_166_136_261u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(16_777_619)
    });
    let r = 205 + (h % 50);
    let g = 90 + ((h >> 8) % 120);
    let b = 40 + ((h >> 16) % 40);
    format!("#{r:02x}{g:02x}{b:02x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plot(x: XAxis, points: Vec<Point>) -> Plot {
        Plot {
            title: "t <&>".into(),
            x_label: "size".into(),
            y_label: "MB/s".into(),
            x,
            y_scale: Scale::Log,
            y_format: Format::Plain,
            series: vec![Series {
                label: "aes-128-ecb \"quoted\"".into(),
                colour: 0,
                run: 0,
                points,
            }],
        }
    }

    #[test]
    fn log_ticks_are_decades_or_1_2_5() {
        assert_eq!(
            ticks(1.0, 1000.0, Scale::Log),
            vec![1.0, 10.0, 100.0, 1000.0]
        );
        assert_eq!(ticks(15.0, 60.0, Scale::Log), vec![20.0, 50.0]);
        assert_eq!(
            ticks(0.0, 10.0, Scale::Linear),
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
    }

    #[test]
    fn labels_use_units() {
        assert_eq!(label(65536.0, Format::Bytes), "64 KiB");
        assert_eq!(label(1_048_576.0, Format::Bytes), "1 MiB");
        assert_eq!(label(1_200_000.0, Format::Bytes), "1.2 MB");
        assert_eq!(label(10_700_000.0, Format::Bytes), "10.7 MB");
        assert_eq!(label(1e6, Format::Bytes), "1 MB");
        assert_eq!(label(1000.0, Format::Bytes), "1 kB");
        assert_eq!(label(491_837.0, Format::Bytes), "492 kB");
        assert_eq!(label(64.0, Format::Bytes), "64 B");
        assert_eq!(label(1536.0, Format::Bytes), "1.5 KiB");
        assert_eq!(label(1e8, Format::Bytes), "100 MB");
        assert_eq!(label(1500.0, Format::Nanos), "1.5 µs");
        assert_eq!(label(2.0, Format::Plain), "2");
    }

    #[test]
    fn text_is_escaped_and_points_drawn_with_whiskers() {
        let p = plot(
            XAxis::Numeric(Scale::Log, Format::Bytes),
            vec![
                Point {
                    x: 1e3,
                    y: 10.0,
                    low: 9.0,
                    high: 11.0,
                    hollow: false,
                },
                Point {
                    x: 1e6,
                    y: 100.0,
                    low: 90.0,
                    high: 120.0,
                    hollow: true,
                },
            ],
        );
        let svg = p.to_svg();
        assert!(svg.contains("t &lt;&amp;&gt;"), "{svg}");
        assert!(!svg.contains("t <&>"));
        assert!(svg.contains("&quot;quoted&quot;"));
        assert_eq!(
            svg.matches("<circle").count(),
            3,
            "two points and the legend"
        );
        assert!(svg.contains("<polyline"));
        assert_eq!(svg.matches("h6M").count(), 2, "one whisker per point");
        assert_eq!(svg.matches(r#"fill="white""#).count(), 1, "the noisy point");
        assert!(svg.contains("hollow: too few samples to rank"));
        assert!(!p.is_empty());
    }

    #[test]
    fn undrawable_points_are_left_out() {
        let p = plot(
            XAxis::Categories(vec!["a".into()]),
            vec![
                Point {
                    x: 0.0,
                    y: -1.0,
                    low: -2.0,
                    high: 0.0,
                    hollow: false,
                },
                Point {
                    x: 3.0,
                    y: 1.0,
                    low: 1.0,
                    high: 1.0,
                    hollow: false,
                },
                Point {
                    x: 0.0,
                    y: f64::NAN,
                    low: 0.0,
                    high: 0.0,
                    hollow: false,
                },
            ],
        );
        assert!(p.is_empty());
        let svg = p.to_svg();
        assert_eq!(svg.matches("<circle").count(), 1, "the legend's only");
        assert!(!svg.contains("NaN"));
    }

    #[test]
    fn histogram_draws_bars_and_the_uniform_line() {
        let mut counts = vec![10u64; 256];
        counts[0] = 100;
        let svg = histogram("plaintext", &counts);
        assert!(svg.contains(HISTOGRAM_COLOUR));
        assert!(!PALETTE.contains(&HISTOGRAM_COLOUR));
        assert_eq!(svg.matches('Z').count(), 256);
        assert!(svg.contains("stroke-dasharray=\"4 3\""));
    }
}
