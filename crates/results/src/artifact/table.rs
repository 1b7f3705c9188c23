//! A table: the paper's figures beside ours. Stored as JSON (docs/results.md:
//! `{"columns": [...], "rows": [[...]], "note": "...", "verdict_columns": [...]}`), shown
//! in the report and, as text, in the terminal.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Artifact;
use crate::verdict::Agreement;

/// Columns, rows of cells (strings, numbers or verdicts) and a note on where the figures
/// come from and why ours differ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "Stored", into = "Stored")]
pub struct Table {
    /// Column headings.
    pub columns: Vec<String>,
    /// Rows; each as long as `columns`.
    pub rows: Vec<Vec<Cell>>,
    /// Source and explanation.
    pub note: String,
}

/// One cell of a [`Table`].
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// A number, a string or nothing (`null`), as the stored JSON holds it.
    Plain(Value),
    /// A verdict against a paper's claim: the study made it from an [`Agreement`], and
    /// the summary of a run's claims ([`crate::verdict::claims`]) counts it.
    Verdict(Agreement),
    /// A figure with its interval (a ratio of medians and its 99% bootstrap bounds).
    Interval(Interval),
}

/// A figure and the bounds of its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// The figure.
    pub estimate: f64,
    /// The interval's lower bound.
    pub low: f64,
    /// The interval's upper bound.
    pub high: f64,
}

impl Interval {
    /// `1.23 [1.20, 1.26]`: how tables show it, and its stored form.
    pub fn text(&self) -> String {
        format!("{:.2} [{:.2}, {:.2}]", self.estimate, self.low, self.high)
    }

    /// Reads [`Interval::text`]'s form back (to the two decimals it kept).
    pub fn parse(s: &str) -> Option<Interval> {
        let (estimate, rest) = s.split_once(" [")?;
        let (low, high) = rest.strip_suffix(']')?.split_once(", ")?;
        Some(Interval {
            estimate: estimate.parse().ok()?,
            low: low.parse().ok()?,
            high: high.parse().ok()?,
        })
    }
}

impl Cell {
    /// The verdict, if the cell is one.
    pub fn verdict(&self) -> Option<Agreement> {
        match self {
            Cell::Verdict(a) => Some(*a),
            Cell::Plain(_) | Cell::Interval(_) => None,
        }
    }

    /// The text of a string cell or a verdict.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Cell::Plain(v) => v.as_str(),
            Cell::Verdict(a) => Some(a.as_str()),
            Cell::Interval(_) => None,
        }
    }

    /// The number of a number cell, or an interval's figure.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Cell::Plain(v) => v.as_f64(),
            Cell::Verdict(_) => None,
            Cell::Interval(i) => Some(i.estimate),
        }
    }

    /// The interval, if the cell is one.
    pub fn interval(&self) -> Option<Interval> {
        match self {
            Cell::Interval(i) => Some(*i),
            _ => None,
        }
    }

    /// Whether it is a number (right-aligned when shown).
    pub fn is_number(&self) -> bool {
        matches!(self, Cell::Plain(Value::Number(_)))
    }

    /// Its stored form: the value, or the verdict's words (`agrees`, `differs`,
    /// `can't tell`).
    pub fn to_value(&self) -> Value {
        match self {
            Cell::Plain(v) => v.clone(),
            Cell::Verdict(a) => Value::String(a.as_str().to_string()),
            Cell::Interval(i) => Value::String(i.text()),
        }
    }
}

impl From<Value> for Cell {
    fn from(v: Value) -> Cell {
        Cell::Plain(v)
    }
}

impl From<Interval> for Cell {
    fn from(i: Interval) -> Cell {
        Cell::Interval(i)
    }
}

impl From<Agreement> for Cell {
    fn from(a: Agreement) -> Cell {
        Cell::Verdict(a)
    }
}

impl PartialEq<Value> for Cell {
    fn eq(&self, other: &Value) -> bool {
        self.to_value() == *other
    }
}

impl PartialEq<str> for Cell {
    fn eq(&self, other: &str) -> bool {
        self.to_value().as_str() == Some(other)
    }
}

impl PartialEq<&str> for Cell {
    fn eq(&self, other: &&str) -> bool {
        self.to_value().as_str() == Some(*other)
    }
}

impl PartialEq<String> for Cell {
    fn eq(&self, other: &String) -> bool {
        self.to_value().as_str() == Some(other.as_str())
    }
}

/// A table as stored: cells as JSON values, and the columns that hold verdicts and
/// intervals (absent in runs stored before cells were typed: those read back as text).
#[derive(Serialize, Deserialize)]
struct Stored {
    columns: Vec<String>,
    rows: Vec<Vec<Value>>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    note: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    verdict_columns: Vec<usize>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    interval_columns: Vec<usize>,
}

/// The columns in which some cell of `rows` is `is`.
fn columns_where(rows: &[Vec<Cell>], is: impl Fn(&Cell) -> bool) -> Vec<usize> {
    let mut cols: Vec<usize> = rows
        .iter()
        .flat_map(|r| r.iter().enumerate())
        .filter(|(_, c)| is(c))
        .map(|(i, _)| i)
        .collect();
    cols.sort_unstable();
    cols.dedup();
    cols
}

impl From<Table> for Stored {
    fn from(t: Table) -> Stored {
        let verdict_columns = columns_where(&t.rows, |c| c.verdict().is_some());
        let interval_columns = columns_where(&t.rows, |c| c.interval().is_some());
        Stored {
            columns: t.columns,
            rows: t
                .rows
                .iter()
                .map(|r| r.iter().map(Cell::to_value).collect())
                .collect(),
            note: t.note,
            verdict_columns,
            interval_columns,
        }
    }
}

impl From<Stored> for Table {
    fn from(s: Stored) -> Table {
        let (verdicts, intervals) = (&s.verdict_columns, &s.interval_columns);
        let rows = s
            .rows
            .into_iter()
            .map(|r| {
                r.into_iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let text = v.as_str();
                        if let Some(a) = text
                            .filter(|_| verdicts.contains(&i))
                            .and_then(Agreement::parse)
                        {
                            Cell::Verdict(a)
                        } else if let Some(x) = text
                            .filter(|_| intervals.contains(&i))
                            .and_then(Interval::parse)
                        {
                            Cell::Interval(x)
                        } else {
                            Cell::Plain(v)
                        }
                    })
                    .collect()
            })
            .collect();
        Table {
            columns: s.columns,
            rows,
            note: s.note,
        }
    }
}

impl Table {
    /// An empty table with these columns.
    pub fn new(columns: &[&str]) -> Table {
        Table {
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: Vec::new(),
            note: String::new(),
        }
    }

    /// Adds a row (of [`Value`]s, or of [`Cell`]s where it holds a verdict).
    pub fn row<C: Into<Cell>>(&mut self, cells: Vec<C>) {
        self.rows.push(cells.into_iter().map(Into::into).collect());
    }

    /// The verdicts it holds, each with its row and column.
    pub fn verdicts(&self) -> impl Iterator<Item = (usize, usize, Agreement)> + '_ {
        self.rows.iter().enumerate().flat_map(|(r, row)| {
            row.iter()
                .enumerate()
                .filter_map(move |(c, cell)| cell.verdict().map(|a| (r, c, a)))
        })
    }

    /// The artifact holding this table.
    pub fn artifact(self, study: &str, name: &str, title: &str) -> Artifact {
        Artifact::table(study, name, title, self)
    }

    /// Plain-text rendering: aligned columns (numbers right-aligned), then the note.
    pub fn to_text(&self) -> String {
        let cells: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| r.iter().map(cell_text).collect())
            .collect();
        let mut widths: Vec<usize> = self.columns.iter().map(|c| c.chars().count()).collect();
        for r in &cells {
            for (i, c) in r.iter().enumerate() {
                if i < widths.len() {
                    widths[i] = widths[i].max(c.chars().count());
                }
            }
        }
        let mut out = String::new();
        let line = |out: &mut String, r: &[String], numeric: &[bool]| {
            let parts: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let w = widths.get(i).copied().unwrap_or(0);
                    if numeric.get(i).copied().unwrap_or(false) {
                        format!("{c:>w$}")
                    } else {
                        format!("{c:<w$}")
                    }
                })
                .collect();
            out.push_str("  ");
            out.push_str(parts.join("  ").trim_end());
            out.push('\n');
        };
        line(&mut out, &self.columns, &[]);
        for (r, raw) in cells.iter().zip(&self.rows) {
            let numeric: Vec<bool> = raw.iter().map(Cell::is_number).collect();
            line(&mut out, r, &numeric);
        }
        if !self.note.is_empty() {
            out.push_str("  ");
            out.push_str(&self.note);
            out.push('\n');
        }
        out
    }
}

/// A number with about three significant digits; strings and verdicts as they are.
pub fn cell_text(c: &Cell) -> String {
    match c {
        Cell::Plain(v) => value_text(v),
        Cell::Verdict(a) => a.as_str().to_string(),
        Cell::Interval(i) => i.text(),
    }
}

/// [`cell_text`] of a plain value.
fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => match n.as_f64() {
            Some(x) if n.is_f64() => sig3(x),
            _ => n.to_string(),
        },
        Value::Null => "-".to_string(),
        other => other.to_string(),
    }
}

/// `x` with three significant digits (no exponent for everyday magnitudes).
pub fn sig3(x: f64) -> String {
    if !x.is_finite() {
        return "-".to_string();
    }
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else if a >= 0.001 || a == 0.0 {
        format!("{x:.3}")
    } else {
        format!("{x:.2e}")
    }
}

/// A number cell (`null` when not finite, so JSON stays valid).
pub fn num(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// An integer cell.
pub fn int(x: u64) -> Value {
    Value::from(x)
}

/// A string cell (anything displayable: a name, a subject, a verdict).
pub fn text(s: impl std::fmt::Display) -> Value {
    Value::String(s.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn intervals_are_typed_in_memory_and_text_when_stored() {
        let x = Interval {
            estimate: 1.234,
            low: 1.2,
            high: 1.26,
        };
        let mut t = Table::new(&["cipher", "ratio"]);
        t.row::<Cell>(vec![Value::from("aes").into(), x.into()]);
        assert_eq!(cell_text(&t.rows[0][1]), "1.23 [1.20, 1.26]");
        let stored = serde_json::to_value(&t).unwrap();
        assert_eq!(stored["rows"][0][1], "1.23 [1.20, 1.26]");
        assert_eq!(stored["interval_columns"], serde_json::json!([1]));
        let back: Table = serde_json::from_value(stored).unwrap();
        let i = back.rows[0][1].interval().unwrap();
        assert_eq!((i.estimate, i.low, i.high), (1.23, 1.2, 1.26));
        // A table stored before intervals were typed reads them back as text.
        let old: Table = serde_json::from_value(serde_json::json!(
            {"columns": ["ratio"], "rows": [["1.23 [1.20, 1.26]"]]}
        ))
        .unwrap();
        assert!(old.rows[0][0].interval().is_none());
        assert_eq!(old.rows[0][0], "1.23 [1.20, 1.26]");
        assert!(Interval::parse("1.23").is_none() && Interval::parse("a [b, c]").is_none());
    }

    use super::*;

    #[test]
    fn round_trips_and_renders_aligned() {
        let mut t = Table::new(&["cipher", "paper", "ours"]);
        t.row(vec![text("aes-128-ecb"), num(1.0), num(1.0)]);
        t.row(vec![text("3des-112-ecb"), num(8.39), num(f64::NAN)]);
        t.note = "Table 3, 100 MB BMP".into();
        let back: Table = serde_json::from_slice(&serde_json::to_vec(&t).unwrap()).unwrap();
        assert_eq!(back, t);
        let s = t.to_text();
        assert!(s.contains("3des-112-ecb"), "{s}");
        assert!(s.contains("8.39") && s.contains(" -"), "{s}");
        assert!(s.ends_with("Table 3, 100 MB BMP\n"), "{s}");
    }

    #[test]
    fn verdicts_are_stored_as_their_words_and_read_back_typed() {
        let mut t = Table::new(&["claim", "verdict"]);
        t.row(vec![Cell::from(text("a")), Agreement::Differs.into()]);
        t.row(vec![Cell::from(text("b")), text("-").into()]);
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(json["rows"][0][1], "differs");
        assert_eq!(json["verdict_columns"], serde_json::json!([1]));
        let back: Table = serde_json::from_value(json).unwrap();
        assert_eq!(back, t);
        assert_eq!(
            back.verdicts().collect::<Vec<_>>(),
            [(0, 1, Agreement::Differs)]
        );
        // A table stored before verdicts were typed reads back as it was: text.
        let old: Table =
            serde_json::from_str(r#"{"columns": ["claim", "verdict"], "rows": [["a", "agrees"]]}"#)
                .unwrap();
        assert_eq!(old.rows[0][1], Cell::Plain(text("agrees")));
        assert_eq!(old.verdicts().count(), 0);
        assert!(
            !serde_json::to_string(&old)
                .unwrap()
                .contains("verdict_columns")
        );
    }

    #[test]
    fn three_significant_digits() {
        assert_eq!(sig3(1234.4), "1234");
        assert_eq!(sig3(12.345), "12.3");
        assert_eq!(sig3(1.2345), "1.23");
        assert_eq!(sig3(0.12345), "0.123");
        assert_eq!(sig3(0.0), "0.000");
        assert_eq!(sig3(f64::INFINITY), "-");
    }
}
