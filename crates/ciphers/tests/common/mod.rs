//! Shared support for the known-answer tests: locating `../shared/kat`, one parser for
//! the three `KEY = VALUE` layouts there (NIST CAVP `.rsp`, pyca's NIST-like text, the
//! hand-transcribed RC2/Skipjack files), a runner that fails a record whose fields were
//! not all read (as ring's test runner does: no file is silently half-checked), and the
//! helpers that push a vector through every provider of the catalogue that supports it.

#![allow(dead_code)] // each test binary uses a different part of this module
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use cipherlab_ciphers::providers::{by_name, supporting};
use cipherlab_ciphers::{Cipher, CipherSpec, Error, Padding};

// ---------------------------------------------------------------------------
// where the files are

/// `CIPHERLAB_KAT_DIR`, or `../shared/kat` beside the workspace. `None`, with a SKIP
/// line, when the folder is absent (the built-in vectors still run).
pub fn kat_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("CIPHERLAB_KAT_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/kat"),
    };
    if dir.is_dir() {
        Some(dir)
    } else {
        println!(
            "SKIP: KAT folder {} not found (set CIPHERLAB_KAT_DIR); only the built-in vectors ran",
            dir.display()
        );
        None
    }
}

// ---------------------------------------------------------------------------
// records

struct Field {
    name: String,
    value: String,
    read: Cell<bool>,
}

/// One record: the `NAME = VALUE` lines between blank lines (or headers), with the
/// section (`ENCRYPT`, `DECRYPT`) and the parameter headers (`[Taglen = 128]`) in force.
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
        if let Some(f) = self
            .fields
            .iter()
            .find(|f| f.name.eq_ignore_ascii_case("count"))
        {
            let _ = write!(s, " {} = {}", f.name, f.value);
        }
        s
    }

    /// The section header in force (`ENCRYPT`, `DECRYPT`), if any.
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

    /// Hex field `name` as bytes (either case; empty value = empty string).
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

    fn mark_count_read(&self) {
        for f in &self.fields {
            if f.name.eq_ignore_ascii_case("count") {
                f.read.set(true);
            }
        }
    }
}

/// Parses a `KEY = VALUE` vector file (formats F2, F3 and F5 of ../shared/kat/README.md):
/// `#` comments (also inside a record), `[SECTION]` and `[Name = value]` headers, records
/// separated by blank lines or by the next `COUNT` line, CRLF or LF, and flag lines
/// without `=` (`FAIL`). Every record must carry a `COUNT`/`Count`, so the number of
/// records is the number of `COUNT` lines outside comments.
pub fn parse(path: &Path, label: &str) -> Result<Vec<Record>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "{}: cannot read ({e}); is the KAT folder complete? (sha256sum -c SHA256SUMS)",
            path.display()
        )
    })?;
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
        if !cur.iter().any(|f| f.name.eq_ignore_ascii_case("count")) {
            return Err(format!("{file}:{line}: record without a COUNT"));
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

// ---------------------------------------------------------------------------
// the runner

/// Per-record bookkeeping the test closure fills in.
#[derive(Default)]
pub struct Ctx {
    /// Checks per provider (and per extra path, e.g. the CFB1 bit API).
    pub runs: BTreeMap<String, usize>,
    /// Records skipped, by reason.
    pub skipped: BTreeMap<String, usize>,
    /// Other things worth counting (e.g. "FAIL rejected").
    pub notes: BTreeMap<String, usize>,
    record_runs: usize,
    record_skipped: bool,
}

impl Ctx {
    /// A provider (or another implementation path) checked this record.
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

/// Parses `dir/rel` once and runs `check` on every record. The test fails if the file
/// is missing or unparsable, if it does not hold `expect` records, if a check fails, if
/// a checked record had a field nobody read, or if no provider checked it. Prints one
/// line of counts per file.
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

/// [`run_file`], returning the failure instead of panicking.
pub fn try_run_file(
    dir: &Path,
    rel: &str,
    expect: Option<usize>,
    mut check: impl FnMut(&Record, &mut Ctx) -> Result<(), String>,
) -> Result<FileReport, String> {
    let records = parse(&dir.join(rel), rel)?;
    if let Some(n) = expect
        && records.len() != n
    {
        return Err(format!(
            "{rel}: parsed {} records, the file's inventory says {n}",
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
        let r = check(rec, &mut ctx);
        match r {
            Err(e) => failures.push(e),
            Ok(()) if ctx.record_skipped => {}
            Ok(()) => {
                checked += 1;
                let unread = rec.unread();
                if !unread.is_empty() {
                    failures.push(format!("{}: fields never checked: {unread:?}", rec.id()));
                }
                if ctx.record_runs == 0 {
                    failures.push(format!("{}: no provider checked it", rec.id()));
                }
            }
        }
    }
    let mut line = format!("{rel}: {} records, {checked} checked", records.len());
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
            "{rel}: {} failures in {} records:\n  {}",
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

/// Sums per-provider runs over several files, for a closing line.
#[derive(Default)]
pub struct Totals {
    /// Files run.
    pub files: usize,
    /// Records parsed.
    pub records: usize,
    /// Records checked.
    pub checked: usize,
    /// Runs per provider.
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

// ---------------------------------------------------------------------------
// the catalogue

/// The spec called `name`, with `padding`.
pub fn spec(name: &str, padding: Padding) -> CipherSpec {
    match CipherSpec::parse(name) {
        Ok(s) => s.with_padding(padding),
        Err(e) => panic!("the catalogue has no {name}: {e}"),
    }
}

/// Whether `spec` is a size the catalogue itself offers (tests build others, such as
/// 8-bit Blowfish keys, to reach vectors outside it).
pub fn in_catalogue(spec: &CipherSpec) -> bool {
    spec.algorithm.key_bits.accepts(spec.key_bits)
}

/// Encrypts `pt` with a ready cipher; returns the output.
pub fn enc(c: &mut dyn Cipher, iv: &[u8], ad: &[u8], pt: &[u8]) -> Result<Vec<u8>, Error> {
    let mut buf = pt.to_vec();
    buf.resize(c.spec().output_len(pt.len()).max(pt.len()), 0);
    let n = c.encrypt(iv, ad, &mut buf, pt.len())?;
    buf.truncate(n);
    Ok(buf)
}

/// Decrypts `ct` with a ready cipher; returns the plaintext.
pub fn dec(c: &mut dyn Cipher, iv: &[u8], ad: &[u8], ct: &[u8]) -> Result<Vec<u8>, Error> {
    let mut buf = ct.to_vec();
    let n = c.decrypt(iv, ad, &mut buf)?;
    buf.truncate(n);
    Ok(buf)
}

/// `Err` naming `what` and both values unless `got == want`.
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

/// Runs `f` with a cipher keyed with `key` from every provider that supports `spec`
/// (so a provider added to the registry is tested without touching the tests), and
/// counts each in `ctx`. A provider may refuse a key size outside the catalogue (noted);
/// inside it, a refusal is a failure. At least one provider must run.
pub fn each_provider(
    id: &str,
    spec: &CipherSpec,
    key: &[u8],
    ctx: &mut Ctx,
    mut f: impl FnMut(&str, &mut dyn Cipher) -> Result<(), String>,
) -> Result<(), String> {
    let names = supporting(spec);
    if names.is_empty() {
        return Err(format!("{id}: no provider supports {spec}"));
    }
    let mut ran = 0;
    for name in names {
        let p = by_name(name).map_err(|e| format!("{id}: {e}"))?;
        let mut c = match p.init(spec, key) {
            Ok(c) => c,
            Err(_) if !in_catalogue(spec) => {
                ctx.note(&format!("{name} refused {}-bit key", spec.key_bits));
                continue;
            }
            Err(e) => return Err(format!("{id}: {name} {spec}: init: {e}")),
        };
        f(name, c.as_mut()).map_err(|e| format!("{e} [{name} {spec}]"))?;
        ctx.ran(name);
        ran += 1;
    }
    if ran == 0 {
        return Err(format!("{id}: every provider refused {spec}"));
    }
    Ok(())
}

/// The usual check of an unauthenticated vector: with each provider, encrypting `pt`
/// gives `ct`, decrypting `ct` gives `pt`, and encrypting again on the same instance
/// gives `ct` again (no state leaks from one message to the next).
pub fn check_vector(
    id: &str,
    spec: &CipherSpec,
    key: &[u8],
    iv: &[u8],
    pt: &[u8],
    ct: &[u8],
    ctx: &mut Ctx,
) -> Result<(), String> {
    each_provider(id, spec, key, ctx, |_, c| {
        let got = enc(c, iv, &[], pt).map_err(|e| format!("{id}: encrypt: {e}"))?;
        same(id, "encrypt", &got, ct)?;
        let got = dec(c, iv, &[], ct).map_err(|e| format!("{id}: decrypt: {e}"))?;
        same(id, "decrypt", &got, pt)?;
        let got = enc(c, iv, &[], pt).map_err(|e| format!("{id}: encrypt again: {e}"))?;
        same(id, "encrypt again", &got, ct)
    })
}

// ---------------------------------------------------------------------------
// CFB1 bit strings

/// Packs bits (one 0/1 per element, most significant first) into bytes, zero-filling
/// the last byte.
pub fn pack_bits(bits: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; bits.len().div_ceil(8)];
    for (i, b) in bits.iter().enumerate() {
        out[i / 8] |= (b & 1) << (7 - i % 8);
    }
    out
}

/// The first `n` bits of `bytes`, one per element.
pub fn unpack_bits(bytes: &[u8], n: usize) -> Vec<u8> {
    (0..n).map(|i| (bytes[i / 8] >> (7 - i % 8)) & 1).collect()
}

/// A CFB1 vector through the catalogue's `-cfb1` mode of every provider. CFB1 output
/// bit i depends only on input bits 0..=i, so a bit string that is not whole bytes is
/// zero-filled to whole bytes, run, and the first bits compared.
pub fn check_cfb1_catalogue(
    id: &str,
    spec: &CipherSpec,
    key: &[u8],
    iv: &[u8],
    pt_bits: &[u8],
    ct_bits: &[u8],
    ctx: &mut Ctx,
) -> Result<(), String> {
    let n = pt_bits.len();
    if n.is_multiple_of(8) {
        return check_vector(
            id,
            spec,
            key,
            iv,
            &pack_bits(pt_bits),
            &pack_bits(ct_bits),
            ctx,
        );
    }
    each_provider(id, spec, key, ctx, |_, c| {
        let got = enc(c, iv, &[], &pack_bits(pt_bits)).map_err(|e| format!("{id}: {e}"))?;
        same(id, "encrypt (bits)", &unpack_bits(&got, n), ct_bits)?;
        let got = dec(c, iv, &[], &pack_bits(ct_bits)).map_err(|e| format!("{id}: {e}"))?;
        same(id, "decrypt (bits)", &unpack_bits(&got, n), pt_bits)
    })
}

/// A CFB1 vector through `providers::cfb1::{encrypt_bits, decrypt_bits}` on the
/// key-scheduled RustCrypto cipher `C` (any bit length). Counted as `cfb1-bits`.
pub fn check_cfb1_bits<C>(
    id: &str,
    key: &[u8],
    iv: &[u8],
    pt_bits: &[u8],
    ct_bits: &[u8],
    ctx: &mut Ctx,
) -> Result<(), String>
where
    C: cipher::KeyInit + cipher::BlockCipherEncrypt,
{
    use cipherlab_ciphers::providers::cfb1::{decrypt_bits, encrypt_bits};
    let c = C::new_from_slice(key).map_err(|e| format!("{id}: key rejected: {e}"))?;
    let mut b = pt_bits.to_vec();
    encrypt_bits(&c, iv, &mut b).map_err(|e| format!("{id}: {e}"))?;
    same(id, "cfb1::encrypt_bits", &b, ct_bits)?;
    let mut b = ct_bits.to_vec();
    decrypt_bits(&c, iv, &mut b).map_err(|e| format!("{id}: {e}"))?;
    same(id, "cfb1::decrypt_bits", &b, pt_bits)?;
    ctx.ran("cfb1-bits");
    Ok(())
}
