//! One parser for every `NAME = VALUE` vector file: the NIST LWC KAT files (F1 of
//! ../shared/kat/README.md), NIST CAVP `.rsp` (F2), pyca's NIST-like text (F3), the
//! hand-transcribed RC2 and Skipjack files (F5), and the crates' own data files, which use
//! the same layouts.
//!
//! A [`Record`] remembers which of its fields were read, so a runner can fail a record
//! whose file carries a field the test never looked at.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::rc::Rc;

struct Field {
    name: String,
    value: String,
    read: Cell<bool>,
}

/// One record: the `NAME = VALUE` lines between blank lines (or headers, or the next
/// `COUNT`), with the section (`ENCRYPT`, `DECRYPT`, ...) and the parameter headers
/// (`[Taglen = 128]`) in force.
pub struct Record {
    file: Rc<str>,
    /// Line number (1-based) of the record's first field.
    pub line: usize,
    section: Option<Rc<str>>,
    params: Rc<BTreeMap<String, String>>,
    fields: Vec<Field>,
}

impl Record {
    /// "file:line [SECTION] COUNT = n", for messages.
    pub fn id(&self) -> String {
        let mut s = format!("{}:{}", self.file, self.line);
        if let Some(sec) = &self.section {
            let _ = write!(s, " [{sec}]");
        }
        if let Some(f) = self.count_field() {
            let _ = write!(s, " {} = {}", f.name, f.value);
        }
        s
    }

    fn count_field(&self) -> Option<&Field> {
        self.fields
            .iter()
            .find(|f| f.name.eq_ignore_ascii_case("count"))
    }

    /// Marks the `COUNT` (if any) read: it numbers the record, there is nothing to check.
    pub(crate) fn mark_count_read(&self) {
        if let Some(f) = self.count_field() {
            f.read.set(true);
        }
    }

    /// The record's `COUNT` (or `Count`) as a number.
    pub fn count(&self) -> Result<usize, String> {
        let f = self
            .count_field()
            .ok_or_else(|| format!("{}: no COUNT", self.id()))?;
        f.read.set(true);
        f.value
            .parse()
            .map_err(|e| format!("{}: COUNT {:?} is not a number: {e}", self.id(), f.value))
    }

    /// The section header in force (`ENCRYPT`, `DECRYPT`, `INTERMEDIATE`), if any.
    pub fn section(&self) -> Option<&str> {
        self.section.as_deref()
    }

    /// Whether the record is in the `[DECRYPT]` half (else `[ENCRYPT]`, or a file
    /// without sections such as pyca's `arc4.txt`); any other section is an error.
    pub fn decrypting(&self) -> Result<bool, String> {
        match self.section() {
            Some("ENCRYPT") | None => Ok(false),
            Some("DECRYPT") => Ok(true),
            other => Err(format!(
                "{}: section {other:?}, expected ENCRYPT or DECRYPT",
                self.id()
            )),
        }
    }

    fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The raw text of field `name`, marking it read.
    pub fn text(&self, name: &str) -> Result<&str, String> {
        self.opt_text(name)
            .ok_or_else(|| format!("{}: no field {name}", self.id()))
    }

    /// The raw text of field `name` if present (marking it read).
    pub fn opt_text(&self, name: &str) -> Option<&str> {
        self.field(name).map(|f| {
            f.read.set(true);
            f.value.as_str()
        })
    }

    /// Whether a flag line such as `FAIL` (or any field) is present; marks it read.
    pub fn has(&self, name: &str) -> bool {
        self.opt_text(name).is_some()
    }

    /// Hex field `name` as bytes (either case; an empty value is the empty string).
    pub fn hex(&self, name: &str) -> Result<Vec<u8>, String> {
        let t = self.text(name)?;
        hex::decode(t).map_err(|e| format!("{}: {name} = {t:?} is not hex: {e}", self.id()))
    }

    /// Hex field `name` if present.
    pub fn opt_hex(&self, name: &str) -> Result<Option<Vec<u8>>, String> {
        if self.field(name).is_some() {
            self.hex(name).map(Some)
        } else {
            Ok(None)
        }
    }

    /// A CFB1 bit string (`0`/`1` characters) as one element (0 or 1) per bit.
    pub fn bits(&self, name: &str) -> Result<Vec<u8>, String> {
        let t = self.text(name)?;
        t.bytes()
            .map(|c| match c {
                b'0' => Ok(0),
                b'1' => Ok(1),
                _ => Err(format!("{}: {name} = {t:?} is not a bit string", self.id())),
            })
            .collect()
    }

    /// Decimal field `name`.
    pub fn num(&self, name: &str) -> Result<usize, String> {
        let t = self.text(name)?;
        t.parse()
            .map_err(|e| format!("{}: {name} = {t:?} is not a number: {e}", self.id()))
    }

    /// Numeric parameter header (`[Taglen = 128]`) in force for this record.
    pub fn param(&self, name: &str) -> Result<usize, String> {
        let t = self
            .params
            .get(name)
            .ok_or_else(|| format!("{}: no [{name} = ...] header before it", self.id()))?;
        t.parse()
            .map_err(|e| format!("{}: [{name} = {t}] is not a number: {e}", self.id()))
    }

    /// Names of the fields nobody read.
    pub fn unread(&self) -> Vec<&str> {
        self.fields
            .iter()
            .filter(|f| !f.read.get())
            .map(|f| f.name.as_str())
            .collect()
    }
}

/// Parses a `NAME = VALUE` vector file: `#` comments (also inside a record), `[SECTION]`
/// and `[Name = value]` headers, records separated by blank lines or by the next `COUNT`
/// line, CRLF or LF, and flag lines without `=` (`FAIL`). `label` names the file in
/// messages.
pub fn parse(path: &Path, label: &str) -> Result<Vec<Record>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "{label} ({}): cannot read ({e}); is the folder complete? \
             (for the KAT folder: sha256sum -c SHA256SUMS)",
            path.display()
        )
    })?;
    parse_str(&text, label)
}

/// [`parse`] on text in memory.
pub fn parse_str(text: &str, label: &str) -> Result<Vec<Record>, String> {
    let file: Rc<str> = Rc::from(label);
    let mut records = Vec::new();
    let mut section: Option<Rc<str>> = None;
    let mut params: Rc<BTreeMap<String, String>> = Rc::default();
    let mut cur: Vec<Field> = Vec::new();
    let mut cur_line = 0;

    let flush = |cur: &mut Vec<Field>,
                 line: usize,
                 section: &Option<Rc<str>>,
                 params: &Rc<BTreeMap<String, String>>,
                 records: &mut Vec<Record>|
     -> Result<(), String> {
        if cur.is_empty() {
            return Ok(());
        }
        records.push(Record {
            file: file.clone(),
            line,
            section: section.clone(),
            params: params.clone(),
            fields: std::mem::take(cur),
        });
        Ok(())
    };

    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if line.starts_with('#') {
            continue;
        }
        if line.is_empty() {
            flush(&mut cur, cur_line, &section, &params, &mut records)?;
            continue;
        }
        if let Some(h) = line.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            flush(&mut cur, cur_line, &section, &params, &mut records)?;
            if let Some((k, v)) = h.split_once('=') {
                Rc::make_mut(&mut params).insert(k.trim().to_string(), v.trim().to_string());
            } else {
                section = Some(Rc::from(h.trim()));
                params = Rc::default();
            }
            continue;
        }
        let (name, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None if line.bytes().all(|b| b.is_ascii_alphanumeric()) => (line, ""),
            None => return Err(format!("{label}:{n}: unparsable line {line:?}")),
        };
        if name.eq_ignore_ascii_case("count") {
            flush(&mut cur, cur_line, &section, &params, &mut records)?;
        }
        if cur.is_empty() {
            cur_line = n;
        }
        if cur.iter().any(|f| f.name == name) {
            return Err(format!("{label}:{n}: field {name} twice in one record"));
        }
        cur.push(Field {
            name: name.to_string(),
            value: value.to_string(),
            read: Cell::new(false),
        });
    }
    flush(&mut cur, cur_line, &section, &params, &mut records)?;
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "# comment\r\n\r\n[DECRYPT]\r\nCOUNT = 0\r\nKEYs = 0101010101010101\r\n\
        CIPHERTEXT = 8ca64de9c1b123a7\r\nPLAINTEXT = 0000000000000000\r\n\r\n\
        [Taglen = 32]\r\n\r\nCOUNT = 1\r\nKEYs = 0101010101010101\r\n\
        CIPHERTEXT = 8CA64DE9C1B123A7\r\nFAIL\r\n";

    #[test]
    fn crlf_sections_parameter_headers_and_flags() {
        let recs = parse_str(SAMPLE, "s.rsp").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[1].section(), Some("DECRYPT"));
        assert!(recs[1].has("FAIL") && recs[1].param("Taglen") == Ok(32));
        assert_eq!(recs[0].hex("CIPHERTEXT"), recs[1].hex("CIPHERTEXT"));
        assert!(recs[0].param("Taglen").is_err());
        assert_eq!(recs[1].count(), Ok(1));
        assert_eq!(recs[0].id(), "s.rsp:4 [DECRYPT] COUNT = 0");
        assert_eq!(recs[0].unread(), ["COUNT", "KEYs", "PLAINTEXT"]);
    }

    #[test]
    fn lwc_layout_with_empty_values() {
        let text = "Count = 1\nKey = 00\nPT = \nCT = AB\n\nCount = 2\nKey = 01\nPT = 00\nCT = CD\n";
        let recs = parse_str(text, "lwc").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].hex("PT"), Ok(Vec::new()));
        assert_eq!(recs[1].hex("CT"), Ok(vec![0xcd]));
    }

    #[test]
    fn malformed_files_are_errors() {
        for (text, what) in [
            ("COUNT = 0\nKEY = 00\nKEY = 01\n", "twice"),
            ("COUNT = 0\nnot a field\n", "unparsable"),
        ] {
            match parse_str(text, "bad") {
                Err(e) => assert!(e.contains(what), "{e}"),
                Ok(_) => panic!("{text:?} parsed"),
            }
        }
        let recs =
            parse_str("COUNT = 0\nKEY = 0g\nN = x\n\nROUND = 1\n", "bad").unwrap_or_default();
        assert!(recs[0].hex("KEY").is_err() && recs[0].num("N").is_err());
        assert!(recs[1].count().is_err() && recs[1].num("ROUND") == Ok(1));
    }
}
