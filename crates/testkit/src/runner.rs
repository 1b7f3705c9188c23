//! The runner: a check on every record of a file, with the bookkeeping that makes a
//! half-checked file fail and a reader see how much ran.
//!
//! A record fails when its check returns an error, when it carries a field the check
//! never read, or when no implementation checked it (the check calls [`Ctx::ran`] once per
//! implementation it ran). A check may skip a record on purpose ([`Ctx::skip`]): skipped
//! records are counted and printed, never silently dropped.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::kat::{label, sources};
use crate::record::{Record, parse};

/// Per-file bookkeeping the check fills in.
#[derive(Default)]
pub struct Ctx {
    /// Checks per implementation (provider, crate, or another path such as a bit API).
    pub runs: BTreeMap<String, usize>,
    /// Records skipped, by reason.
    pub skipped: BTreeMap<String, usize>,
    /// Other things worth counting (e.g. "FAIL rejected").
    pub notes: BTreeMap<String, usize>,
    record_runs: usize,
    record_skipped: bool,
}

impl Ctx {
    /// An implementation checked this record.
    pub fn ran(&mut self, who: &str) {
        *self.runs.entry(who.to_string()).or_default() += 1;
        self.record_runs += 1;
    }

    /// This record is deliberately not checked, for `reason` (counted and printed).
    pub fn skip(&mut self, reason: impl Into<String>) {
        *self.skipped.entry(reason.into()).or_default() += 1;
        self.record_skipped = true;
    }

    /// Counts something noteworthy.
    pub fn note(&mut self, what: &str) {
        *self.notes.entry(what.to_string()).or_default() += 1;
    }

    /// How often [`Ctx::note`] counted `what`.
    pub fn noted(&self, what: &str) -> usize {
        self.notes.get(what).copied().unwrap_or(0)
    }
}

/// What one file gave.
pub struct FileReport {
    /// Records parsed.
    pub records: usize,
    /// Records checked (not skipped).
    pub checked: usize,
    /// The counts.
    pub ctx: Ctx,
}

fn join(m: &BTreeMap<String, usize>) -> String {
    m.iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses `dir/rel` once and runs `check` on every record. The test fails (panics) if the
/// file is missing or unparsable, if it does not hold `expect` records, if a check fails,
/// if a checked record had a field nobody read, or if nothing checked it. Prints one line
/// of counts per file.
pub fn run_file(
    dir: &Path,
    rel: &str,
    expect: Option<usize>,
    check: impl FnMut(&Record, &mut Ctx) -> Result<(), String>,
) -> FileReport {
    match try_run_file(dir, rel, expect, check) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    }
}

/// Runs `check` on every record of the KAT file `rel` (a path inside the KAT folder): first
/// its built-in excerpt, if there is one, then the whole file, which must hold `expect`
/// records, when the KAT folder is present (else a `SKIP` line, or a failure in CI).
/// Returns the whole file's report, `None` when it was skipped.
pub fn run_kat(
    rel: &str,
    expect: Option<usize>,
    mut check: impl FnMut(&Record, &mut Ctx) -> Result<(), String>,
) -> Option<FileReport> {
    let mut whole = None;
    for src in sources(rel) {
        let expect = if src.whole { expect } else { None };
        let report = run_file(&src.dir, &src.rel, expect, &mut check);
        if src.whole {
            whole = Some(report);
        }
    }
    whole
}

/// [`run_file`], returning the failure instead of panicking.
pub fn try_run_file(
    dir: &Path,
    rel: &str,
    expect: Option<usize>,
    mut check: impl FnMut(&Record, &mut Ctx) -> Result<(), String>,
) -> Result<FileReport, String> {
    let name = label(dir, rel);
    let records = parse(&dir.join(rel), &name)?;
    if let Some(n) = expect
        && records.len() != n
    {
        return Err(format!(
            "{name}: parsed {} records, the file's inventory says {n}",
            records.len()
        ));
    }
    let mut ctx = Ctx::default();
    let mut failures = Vec::new();
    let mut checked = 0;
    for rec in &records {
        rec.mark_count_read();
        ctx.record_runs = 0;
        ctx.record_skipped = false;
        match check(rec, &mut ctx) {
            Err(e) => failures.push(e),
            Ok(()) if ctx.record_skipped => {}
            Ok(()) => {
                checked += 1;
                let unread = rec.unread();
                if !unread.is_empty() {
                    failures.push(format!("{}: fields never checked: {unread:?}", rec.id()));
                }
                if ctx.record_runs == 0 {
                    failures.push(format!("{}: nothing checked it", rec.id()));
                }
            }
        }
    }
    let mut line = format!("{name}: {} records, {checked} checked", records.len());
    if !ctx.runs.is_empty() {
        let _ = write!(line, "; runs: {}", join(&ctx.runs));
    }
    if !ctx.notes.is_empty() {
        let _ = write!(line, "; {}", join(&ctx.notes));
    }
    if !ctx.skipped.is_empty() {
        let _ = write!(line, "; skipped: {}", join(&ctx.skipped));
    }
    println!("{line}");
    if !failures.is_empty() {
        let shown: Vec<&str> = failures.iter().take(12).map(String::as_str).collect();
        return Err(format!(
            "{name}: {} failures in {} records:\n  {}",
            failures.len(),
            records.len(),
            shown.join("\n  ")
        ));
    }
    Ok(FileReport {
        records: records.len(),
        checked,
        ctx,
    })
}

/// Sums several files' reports, for a closing line.
#[derive(Default)]
pub struct Totals {
    /// Files run.
    pub files: usize,
    /// Records parsed.
    pub records: usize,
    /// Records checked.
    pub checked: usize,
    /// Runs per implementation.
    pub runs: BTreeMap<String, usize>,
    /// Skips per reason.
    pub skipped: BTreeMap<String, usize>,
}

impl Totals {
    /// Adds one file's report.
    pub fn add(&mut self, r: &FileReport) {
        self.files += 1;
        self.records += r.records;
        self.checked += r.checked;
        for (k, v) in &r.ctx.runs {
            *self.runs.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &r.ctx.skipped {
            *self.skipped.entry(k.clone()).or_default() += v;
        }
    }

    /// Prints the closing line.
    pub fn print(&self, what: &str) {
        let mut line = format!(
            "TOTAL {what}: {} files, {} records, {} checked; runs: {}",
            self.files,
            self.records,
            self.checked,
            join(&self.runs)
        );
        if !self.skipped.is_empty() {
            let _ = write!(line, "; skipped: {}", join(&self.skipped));
        }
        println!("{line}");
    }
}

/// `Err` naming `what` and both values in hex unless `got == want`.
pub fn same(id: &str, what: &str, got: &[u8], want: &[u8]) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!(
            "{id}: {what}: got {}, want {}",
            hex::encode(got),
            hex::encode(want)
        ))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Two records; the first XORs KEY into PLAINTEXT to give CIPHERTEXT, the second is
    /// flagged and only parsed.
    const SAMPLE: &str = "[DECRYPT]\nCOUNT = 0\nKEY = 0f\nCIPHERTEXT = f0\nPLAINTEXT = ff\n\n\
        [Taglen = 32]\n\nCOUNT = 1\nKEY = 0f\nCIPHERTEXT = f0\nFAIL\n";

    /// Runs the sample with `check`; returns whether the runner failed it.
    fn fails(expect: usize, check: impl FnMut(&Record, &mut Ctx) -> Result<(), String>) -> bool {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.rsp"), SAMPLE).unwrap();
        let r = try_run_file(dir.path(), "s.rsp", Some(expect), check);
        if let Err(e) = &r {
            println!("runner failed as it should: {e}");
        }
        r.is_err()
    }

    fn xor_check(rec: &Record, ctx: &mut Ctx, flip: u8) -> Result<(), String> {
        assert!(rec.decrypting()?);
        let key = rec.hex("KEY")?;
        let ct = rec.hex("CIPHERTEXT")?;
        if rec.has("FAIL") {
            assert_eq!(rec.param("Taglen")?, 32);
            ctx.skip("flagged");
            return Ok(());
        }
        let pt = rec.hex("PLAINTEXT")?;
        let got = [pt[0] ^ key[0] ^ flip];
        ctx.ran("xor");
        same(&rec.id(), "encrypt", &got, &ct)
    }

    #[test]
    fn catches_unread_unchecked_wrong_and_miscounted() {
        // Reading everything and checking it passes.
        assert!(!fails(2, |r, c| xor_check(r, c, 0)));
        // A wrong answer fails.
        assert!(fails(2, |r, c| xor_check(r, c, 1)));
        // A file holding another number of records than its inventory fails.
        assert!(fails(3, |r, c| xor_check(r, c, 0)));
        // A record whose PLAINTEXT nobody read fails.
        assert!(fails(2, |rec, ctx| {
            rec.hex("KEY")?;
            rec.hex("CIPHERTEXT")?;
            rec.has("FAIL");
            ctx.ran("nobody");
            Ok(())
        }));
        // A record that nothing checked fails.
        assert!(fails(2, |rec, _| {
            for f in ["KEY", "CIPHERTEXT", "PLAINTEXT", "FAIL"] {
                rec.opt_text(f);
            }
            Ok(())
        }));
    }

    #[test]
    fn a_missing_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let e = try_run_file(dir.path(), "nope.rsp", None, |_, _| Ok(()));
        assert!(e.is_err_and(|e| e.contains("cannot read")));
    }
}
