//! Shared test support: locating `../shared/kat`, parsing the NIST LWC KAT format
//! (`Name = HEX` records separated by blank lines), and records that fail the test
//! when a field was never read (so no vector file is silently half-checked).

#![allow(dead_code)] // each test binary uses a different part of this module

use std::collections::BTreeMap;
use std::path::PathBuf;

/// Where the official vectors live: `CIPHERLAB_KAT_DIR`, or `../shared/kat` beside
/// the workspace. `None` (with a message) when the folder is absent.
pub fn kat_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("CIPHERLAB_KAT_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/kat"),
    };
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIP: KAT folder {} not found (set CIPHERLAB_KAT_DIR); only the built-in vectors ran",
            dir.display()
        );
        None
    }
}

/// One record of a KAT file. Every field must be taken before the record is dropped.
pub struct Record {
    pub count: u64,
    fields: BTreeMap<String, String>,
    file: String,
}

impl Record {
    /// The bytes of hex field `name`; panics if absent or not hex.
    pub fn bytes(&mut self, name: &str) -> Vec<u8> {
        let v = self
            .fields
            .remove(name)
            .unwrap_or_else(|| panic!("{} Count {}: no field {name}", self.file, self.count));
        hex::decode(v.trim()).unwrap_or_else(|e| {
            panic!("{} Count {}: {name} is not hex: {e}", self.file, self.count)
        })
    }
}

impl Drop for Record {
    fn drop(&mut self) {
        if !std::thread::panicking() && !self.fields.is_empty() {
            panic!(
                "{} Count {}: fields never checked: {:?}",
                self.file,
                self.count,
                self.fields.keys().collect::<Vec<_>>()
            );
        }
    }
}

/// Parses a NIST LWC KAT file (format F1 of ../shared/kat/README.md).
pub fn parse_lwc(path: &std::path::Path) -> Vec<Record> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut records = Vec::new();
    let mut fields = BTreeMap::new();
    let flush = |fields: &mut BTreeMap<String, String>, records: &mut Vec<Record>| {
        if fields.is_empty() {
            return;
        }
        let mut f = std::mem::take(fields);
        let count = f
            .remove("Count")
            .and_then(|c| c.trim().parse().ok())
            .unwrap_or_else(|| panic!("{file}: record without a Count"));
        records.push(Record {
            count,
            fields: f,
            file: file.clone(),
        });
    };
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            flush(&mut fields, &mut records);
            continue;
        }
        let (name, value) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("{file}: line without '=': {line:?}"));
        fields.insert(name.trim().to_string(), value.trim().to_string());
    }
    flush(&mut fields, &mut records);
    assert!(!records.is_empty(), "{file}: no records");
    records
}

/// Runs `check` on every record of `kat/<rel>`; prints the count. Returns the count,
/// or 0 when the KAT folder is missing.
pub fn for_each_record(rel: &str, mut check: impl FnMut(&mut Record)) -> usize {
    let Some(dir) = kat_dir() else { return 0 };
    let records = parse_lwc(&dir.join(rel));
    let n = records.len();
    for mut r in records {
        check(&mut r);
    }
    println!("{rel}: {n} vectors passed");
    n
}

/// The counting sequence 00 01 02 .. of length `n` (the classic KAT inputs).
pub fn counting(n: usize) -> Vec<u8> {
    (0..n).map(|i| i as u8).collect()
}
