//! A table: the paper's figures beside ours. Stored as JSON (docs/results.md:
//! `{"columns": [...], "rows": [[...]], "note": "..."}`), shown in the report and, as
//! text, in the terminal.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Artifact;

/// Columns, rows of cells (strings or numbers) and a note on where the figures come
/// from and why ours differ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Column headings.
    pub columns: Vec<String>,
    /// Rows; each as long as `columns`.
    pub rows: Vec<Vec<Value>>,
    /// Source and explanation.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
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

    /// Adds a row.
    pub fn row(&mut self, cells: Vec<Value>) {
        self.rows.push(cells);
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
            let numeric: Vec<bool> = raw.iter().map(Value::is_number).collect();
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

/// A number with about three significant digits; strings as they are.
pub fn cell_text(v: &Value) -> String {
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
    fn three_significant_digits() {
        assert_eq!(sig3(1234.4), "1234");
        assert_eq!(sig3(12.345), "12.3");
        assert_eq!(sig3(1.2345), "1.23");
        assert_eq!(sig3(0.12345), "0.123");
        assert_eq!(sig3(0.0), "0.000");
        assert_eq!(sig3(f64::INFINITY), "-");
    }
}
