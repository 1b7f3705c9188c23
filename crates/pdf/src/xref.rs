//! Cross-reference data (§7.5.4-§7.5.8): classic tables, cross-reference streams, hybrid
//! files, /Prev chains -- and, when they are missing or wrong, a rebuilt table from a scan
//! of the file for `n g obj`.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::{Error, Result, syntax};
use crate::filters;
use crate::lexer::{Context, Lexer, indirect_object_in};
use crate::limits::{Limits, Which, exceeded};
use crate::object::{Dict, Object, is_delim, is_ws};

/// Where an object lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// Free (type 0).
    Free,
    /// At a byte offset, with a generation (type 1).
    Offset {
        /// Byte offset of `n g obj`.
        offset: usize,
        /// Generation number.
        gen_: u16,
    },
    /// In an object stream (type 2).
    Compressed {
        /// The object stream's number.
        container: u32,
        /// Index within it.
        index: u32,
    },
}

/// The merged cross-reference data of a file.
#[derive(Clone, Debug, Default)]
pub struct Xref {
    /// Object number to entry, newest section winning.
    pub entries: BTreeMap<u32, Entry>,
    /// The trailer (newest first; /Root, /Info, /ID, /Encrypt filled in from older ones).
    pub trailer: Dict,
    /// Number of cross-reference sections read.
    pub sections: usize,
    /// Whether any section was a cross-reference stream.
    pub xref_stream: bool,
    /// Object numbers of the cross-reference streams (never encrypted, not copied).
    pub xref_stream_objects: BTreeSet<u32>,
    /// The table was rebuilt by scanning (why, if so).
    pub rebuilt: Option<String>,
    /// Cross-reference data that could not be read and was left out (an older section,
    /// a hybrid file's /XRefStm, the rest of a looping /Prev chain): the entries it held
    /// are unknown, so objects the document refers to may be missing from this reading.
    pub ignored: Vec<String>,
    /// Objects follow the file's last `startxref`: a later revision this reading does not
    /// see ([`cut_short`]).
    pub cut_short: Option<CutShort>,
    /// Where the sections of the chain read start, in file order.
    pub section_offsets: Vec<usize>,
    /// Objects whose entry says "in use" at offset 0 (or in a type-2 entry out of range):
    /// read as free, but a sign of damaged data rather than of a deleted object.
    pub damaged_entries: BTreeSet<u32>,
    /// Problems repaired while reading.
    pub notes: Vec<String>,
}

impl Xref {
    /// Whether this reading needed repair: rebuilt, or parts of it ignored.
    pub fn repaired(&self) -> bool {
        self.rebuilt.is_some() || !self.ignored.is_empty() || self.cut_short.is_some()
    }
}

/// A later revision the cross-reference data as written does not see: objects after the
/// file's last `startxref` (an incremental update cut short, or one whose `startxref` was
/// damaged or blanked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CutShort {
    /// Bytes after the last `startxref` and its `%%EOF`.
    pub bytes: usize,
    /// A cross-reference section begins there: the update kept all its objects (a scan
    /// finds them) and lost its end. Otherwise it may have lost objects too.
    pub xref_follows: bool,
    /// Instead: a readable cross-reference section at this offset, later in the file than
    /// every section of the chain from `startxref` (which leads to an older revision).
    pub section: Option<usize>,
}

impl CutShort {
    /// What happened, for messages.
    pub fn describe(&self) -> String {
        if let Some(at) = self.section {
            return format!(
                "the cross-reference section at byte {at} is later in the file than those \
                 startxref leads to: startxref leads to an older revision"
            );
        }
        format!(
            "{} bytes with objects follow the file's last startxref: a later revision (an \
             incremental update) that the cross-reference data as written does not see{}",
            self.bytes,
            if self.xref_follows {
                ""
            } else {
                ", cut short or damaged before its cross-reference section, so some of its \
                 objects may be lost"
            }
        )
    }
}

/// Whether objects follow the file's last `startxref` (and the offset and `%%EOF` after
/// it), and how: what follows (white space and NUL padding aside) holds `obj`, or is the
/// start of an object header cut anywhere (`12`, `12 0`, `12 0 o`).
pub fn cut_short(buf: &[u8]) -> Option<CutShort> {
    let sx = memchr::memmem::rfind(buf, b"startxref")?;
    let mut lx = Lexer::new(buf, sx + 9);
    lx.uint();
    lx.skip_ws();
    let mut after = lx.pos;
    if buf[after..].starts_with(b"%%EOF") {
        after += 5;
    }
    let rest = &buf[after..];
    let start = rest.iter().position(|&b| !(is_ws(b) || b == 0))?;
    let rest = &rest[start..];
    (memchr::memmem::find(rest, b"obj").is_some() || header_prefix(rest)).then(|| CutShort {
        bytes: buf.len() - after,
        xref_follows: memchr::memmem::find(rest, b"xref").is_some()
            || memchr::memmem::find(rest, b"/XRef").is_some(),
        section: None,
    })
}

/// The most later sections tried by [`later_section`].
const LATER_TRIES: usize = 16;

/// A cross-reference section later in the file than every section of the chain `x` was
/// read from (its entries readable, its trailer perhaps not): then `startxref` leads to an
/// older revision.
fn later_section(buf: &[u8], x: &Xref, limits: &Limits) -> Option<usize> {
    let newest = *x.section_offsets.last()?;
    let region = buf.get(newest + 1..)?;
    // Tables: `xref` at the start of a line (not the end of `startxref`), with entries.
    let tables = memchr::memmem::rfind_iter(region, b"xref")
        .map(|p| newest + 1 + p)
        .filter(|&p| matches!(buf[p - 1], b'\n' | b'\r'))
        .take(LATER_TRIES)
        .find(|&p| !table_entries(buf, p).is_empty());
    if tables.is_some() {
        return tables;
    }
    // Streams: objects that start after the newest section and name /XRef. The scan
    // starts at that section itself, so that the tail of its own header (`7 0 obj` of
    // `37 0 obj`) is not taken for an object.
    let mut objs: Vec<usize> = scan_objects(buf.get(newest..)?)
        .values()
        .filter(|&&(o, _)| o > 0)
        .map(|&(o, _)| newest + o)
        .collect();
    objs.sort_unstable();
    objs.into_iter()
        .rev()
        .filter(|&o| names_xref(buf, o))
        .take(LATER_TRIES)
        .find(|&o| stream_section(buf, o, limits).is_ok())
}

/// Whether the object at `o` names /XRef near its start.
fn names_xref(buf: &[u8], o: usize) -> bool {
    memchr::memmem::find(&buf[o..buf.len().min(o + XREF_HEAD)], b"/XRef").is_some()
}

/// The entries of the classic table at `pos`, as many as can be read (none if there is
/// no table there): enough to see what a section whose trailer is damaged lists.
fn table_entries(buf: &[u8], pos: usize) -> Vec<(u32, Entry)> {
    let mut lx = Lexer::new(buf, pos);
    let mut out = Vec::new();
    if !lx.eat_keyword(b"xref") {
        return out;
    }
    while let (Some(start), Some(count)) = (lx.uint(), lx.uint()) {
        for i in 0..count {
            let (Some(off), Some(_)) = (lx.uint(), lx.uint()) else {
                return out;
            };
            let free = if lx.eat_keyword(b"n") {
                false
            } else if lx.eat_keyword(b"f") {
                true
            } else {
                return out;
            };
            let (Some(num), Ok(offset)) = (
                start.checked_add(i).and_then(|n| u32::try_from(n).ok()),
                usize::try_from(off),
            ) else {
                return out;
            };
            out.push((
                num,
                if free || offset == 0 {
                    Entry::Free
                } else {
                    Entry::Offset { offset, gen_: 0 }
                },
            ));
        }
    }
    out
}

/// The in-use entries of the cross-reference section that starts last in the file (a
/// table, or a stream among `objs`, the objects a scan found), as far as they can be read.
pub fn newest_section_entries(
    buf: &[u8],
    objs: &BTreeMap<u32, (usize, u16)>,
    limits: &Limits,
) -> Vec<(u32, Entry)> {
    let table = memchr::memmem::rfind_iter(buf, b"xref")
        .filter(|&p| p > 0 && matches!(buf[p - 1], b'\n' | b'\r'))
        .take(LATER_TRIES)
        .map(|p| (p, table_entries(buf, p)))
        .find(|(_, e)| !e.is_empty());
    let mut starts: Vec<usize> = objs.values().map(|&(o, _)| o).collect();
    starts.sort_unstable();
    let stream = starts
        .into_iter()
        .rev()
        .filter(|&o| names_xref(buf, o))
        .take(LATER_TRIES)
        .find_map(|o| stream_section(buf, o, limits).ok().map(|s| (o, s.entries)));
    let newest = match (table, stream) {
        (Some(t), Some(s)) if s.0 > t.0 => s.1,
        (Some(t), _) => t.1,
        (None, Some(s)) => s.1,
        (None, None) => Vec::new(),
    };
    newest
        .into_iter()
        .filter(|(_, e)| !matches!(e, Entry::Free))
        .collect()
}

/// Whether `rest` is all of it the beginning of `n g obj` (digits, white space, digits,
/// white space, a prefix of `obj`).
fn header_prefix(rest: &[u8]) -> bool {
    let digits = |s: &[u8]| s.iter().take_while(|b| b.is_ascii_digit()).count();
    let spaces = |s: &[u8]| s.iter().take_while(|&&b| is_ws(b)).count();
    let trimmed = &rest[..rest.len() - rest.iter().rev().take_while(|&&b| is_ws(b)).count()];
    let mut s = trimmed;
    let d = digits(s);
    if d == 0 {
        return false;
    }
    s = &s[d..];
    for part in 0..3 {
        let w = spaces(s);
        if s.len() == w {
            return true;
        }
        if w == 0 {
            return false;
        }
        s = &s[w..];
        if part == 0 {
            let d = digits(s);
            if d == 0 {
                return false;
            }
            s = &s[d..];
        } else {
            return b"obj".starts_with(s);
        }
    }
    false
}

/// Most sections we follow through /Prev and /XRefStm.
const MAX_SECTIONS: usize = 4096;

/// One section's entries and trailer.
struct Section {
    entries: Vec<(u32, Entry)>,
    trailer: Dict,
    stream_obj: Option<u32>,
    /// Entries in use with an impossible place, read as free.
    damaged: Vec<u32>,
}

fn table_section(buf: &[u8], pos: usize, limits: &Limits) -> Result<Section> {
    let mut lx = Lexer::with_depth(buf, pos, limits.depth);
    if !lx.eat_keyword(b"xref") {
        return Err(syntax(pos, "expected 'xref'"));
    }
    let mut entries = Vec::new();
    let mut damaged = Vec::new();
    loop {
        if lx.eat_keyword(b"trailer") {
            break;
        }
        let here = lx.pos;
        let (Some(start), Some(count)) = (lx.uint(), lx.uint()) else {
            return Err(syntax(
                here,
                "expected a subsection 'start count' or 'trailer'",
            ));
        };
        // An entry takes at least 6 bytes ("0 0 n "): a count beyond that is a lie.
        if count > (buf.len().saturating_sub(lx.pos) / 6 + 1) as u64 {
            return Err(syntax(
                here,
                format!("xref subsection count {count} exceeds the file"),
            ));
        }
        // Room for the subsection at once (one push at a time, the vector of a large
        // table was copied a dozen times as it grew).
        entries.reserve((count as usize).min(limits.objects.saturating_sub(entries.len())));
        for i in 0..count {
            let at = lx.pos;
            let (Some(off), Some(g)) = (lx.uint(), lx.uint()) else {
                return Err(syntax(at, "bad xref table entry"));
            };
            let free = if lx.eat_keyword(b"n") {
                false
            } else if lx.eat_keyword(b"f") {
                true
            } else {
                return Err(syntax(at, "xref entry is neither 'n' nor 'f'"));
            };
            let Some(num) = start.checked_add(i).and_then(|n| u32::try_from(n).ok()) else {
                return Err(syntax(at, "object number out of range"));
            };
            let e = match (free, usize::try_from(off), u16::try_from(g)) {
                (false, Ok(offset), Ok(_)) if offset > 0 && num == 0 => {
                    // Object 0 is never in use: the entry's number is damaged.
                    damaged.push(0);
                    Entry::Free
                }
                (false, Ok(offset), Ok(gen_)) if offset > 0 => Entry::Offset { offset, gen_ },
                (false, ..) => {
                    damaged.push(num);
                    Entry::Free
                }
                _ => Entry::Free,
            };
            if entries.len() >= limits.objects {
                return Err(too_many(entries.len() + 1, limits));
            }
            entries.push((num, e));
        }
    }
    let at = lx.pos;
    let Object::Dict(trailer) = lx.object(0)? else {
        return Err(syntax(at, "trailer is not a dictionary"));
    };
    Ok(Section {
        entries,
        trailer,
        stream_obj: None,
        damaged,
    })
}

fn stream_section(buf: &[u8], pos: usize, limits: &Limits) -> Result<Section> {
    let cx = Context {
        lengths: &|_| None,
        max_depth: limits.depth,
        endstreams: None,
    };
    let (id, obj, _) = indirect_object_in(buf, pos, &cx)?;
    let Object::Stream(s) = obj else {
        return Err(syntax(
            pos,
            "neither 'xref' nor a cross-reference stream here",
        ));
    };
    let what = format!("cross-reference stream {} {}", id.0, id.1);
    let Some(Object::Array(w)) = s.dict.get(b"W") else {
        return Err(Error::Damaged(format!("{what} has no /W array")));
    };
    let w: Vec<usize> = w
        .iter()
        .map(|o| {
            o.as_int()
                .and_then(|i| usize::try_from(i).ok())
                .filter(|&i| i <= 8)
        })
        .collect::<Option<Vec<_>>>()
        .filter(|w| w.len() == 3)
        .ok_or_else(|| Error::Damaged(format!("{what}: /W must be three integers from 0 to 8")))?;
    let row: usize = w.iter().sum();
    if row == 0 {
        return Err(Error::Damaged(format!("{what}: /W is [0 0 0]")));
    }
    let data = filters::decode_capped(&s.dict, &s.data, &what, limits.stream_bytes)?;
    let size = s.dict.int(b"Size").unwrap_or(0).max(0);
    let index: Vec<i64> = match s.dict.get(b"Index") {
        Some(Object::Array(a)) => a.iter().filter_map(Object::as_int).collect(),
        _ => vec![0, size],
    };
    let field = |b: &[u8]| b.iter().fold(0u64, |a, &x| a << 8 | u64::from(x));
    let mut entries = Vec::new();
    let mut damaged = Vec::new();
    let mut rows = data.chunks_exact(row);
    for pair in index.chunks_exact(2) {
        let (start, count) = (pair[0], pair[1]);
        if start < 0 || count < 0 {
            return Err(Error::Damaged(format!("{what}: negative /Index")));
        }
        for i in 0..count {
            let Some(r) = rows.next() else { break };
            let Some(num) = u32::try_from(start + i).ok() else {
                break;
            };
            let (a, rest) = r.split_at(w[0]);
            let (b, c) = rest.split_at(w[1]);
            let ty = if w[0] == 0 { 1 } else { field(a) };
            let e = match ty {
                0 => Entry::Free,
                1 => match (usize::try_from(field(b)), u16::try_from(field(c))) {
                    (Ok(offset), Ok(gen_)) if offset > 0 => Entry::Offset { offset, gen_ },
                    _ => {
                        damaged.push(num);
                        Entry::Free
                    }
                },
                2 => match (u32::try_from(field(b)), u32::try_from(field(c))) {
                    (Ok(container), Ok(index)) if container > 0 => {
                        Entry::Compressed { container, index }
                    }
                    _ => {
                        damaged.push(num);
                        Entry::Free
                    }
                },
                _ => Entry::Free, // unknown types are null references (§7.5.8.3)
            };
            if entries.len() >= limits.objects {
                return Err(too_many(entries.len() + 1, limits));
            }
            entries.push((num, e));
        }
    }
    Ok(Section {
        entries,
        trailer: s.dict,
        stream_obj: Some(id.0),
        damaged,
    })
}

fn section_at(buf: &[u8], pos: usize, limits: &Limits) -> Result<Section> {
    if pos >= buf.len() {
        return Err(syntax(
            pos,
            format!(
                "offset {pos} is past the end of the file ({} bytes)",
                buf.len()
            ),
        ));
    }
    let mut lx = Lexer::new(buf, pos);
    lx.skip_ws();
    if buf[lx.pos..].starts_with(b"xref") {
        table_section(buf, lx.pos, limits)
    } else {
        stream_section(buf, lx.pos, limits)
    }
}

fn too_many(n: usize, limits: &Limits) -> Error {
    exceeded(
        Which::Objects,
        format_args!(
            "the cross-reference data lists {n} objects or more, beyond the limit of {}",
            limits.objects
        ),
    )
}

/// Copies /Root, /Info, /ID, /Encrypt from an older trailer where the newer lacks them.
fn fill_trailer(newer: &mut Dict, older: &Dict) {
    for k in [&b"Root"[..], b"Info", b"ID", b"Encrypt"] {
        if newer.get(k).is_none()
            && let Some(v) = older.get(k)
        {
            newer.set(k, v.clone());
        }
    }
}

/// Reads the cross-reference chain starting at `start`.
fn read_chain(buf: &[u8], start: usize, shift: usize, limits: &Limits) -> Result<Xref> {
    let mut x = Xref::default();
    let mut seen = BTreeSet::new();
    let mut next = Some(start);
    let mut first = true;
    while let Some(pos) = next.take() {
        if !seen.insert(pos) {
            x.ignored.push(format!(
                "the /Prev chain loops back to offset {pos}; stopped there"
            ));
            break;
        }
        if seen.len() > MAX_SECTIONS {
            return Err(Error::Limit(format!(
                "more than {MAX_SECTIONS} cross-reference sections"
            )));
        }
        // Offsets may count from the header rather than the file's start (junk before it).
        let sec = match section_at(buf, pos, limits) {
            Ok(s) => Ok((s, pos)),
            Err(e @ Error::Limit(_)) => return Err(e),
            Err(e) if shift > 0 => section_at(buf, pos + shift, limits)
                .map(|s| (s, pos + shift))
                .map_err(|_| e),
            Err(e) => Err(e),
        };
        let sec = match sec {
            Ok((s, at)) => {
                x.section_offsets.push(at);
                s
            }
            Err(e) if first => return Err(e),
            Err(e @ Error::Limit(_)) => return Err(e),
            Err(e) => {
                x.ignored.push(format!(
                    "the cross-reference section at offset {pos} (from /Prev) is unreadable ({e})"
                ));
                break;
            }
        };
        first = false;
        x.sections += 1;
        // The first entry of a number wins. Built in one go from the entries sorted
        // (a section lists them in order, so the sort is a pass): inserting 65,000
        // entries one by one, twice, was a twentieth of `pdf encrypt`'s time.
        let mut sorted = sec.entries;
        sorted.sort_by_key(|(n, _)| *n);
        sorted.dedup_by_key(|(n, _)| *n);
        let mut local: BTreeMap<u32, Entry> = sorted.into_iter().collect();
        if sec.damaged.contains(&0) {
            x.ignored
                .push("an entry lists object 0 (never an object) as in use".into());
        }
        x.damaged_entries.extend(sec.damaged);
        if let Some(n) = sec.stream_obj {
            x.xref_stream = true;
            x.xref_stream_objects.insert(n);
        }
        // Hybrid file: the /XRefStm entries fill the table's gaps and free entries.
        if let Some(off) = sec
            .trailer
            .int(b"XRefStm")
            .and_then(|o| usize::try_from(o).ok())
            && seen.insert(off)
        {
            match section_at(buf, off, limits) {
                Ok(s) => {
                    x.xref_stream = true;
                    x.section_offsets.push(off);
                    x.damaged_entries.extend(s.damaged);
                    if let Some(n) = s.stream_obj {
                        x.xref_stream_objects.insert(n);
                    }
                    for (n, e) in s.entries {
                        match local.get(&n) {
                            None | Some(Entry::Free) => {
                                local.insert(n, e);
                            }
                            _ => {}
                        }
                    }
                }
                Err(e @ Error::Limit(_)) => return Err(e),
                Err(e) => x.ignored.push(format!(
                    "the cross-reference stream at offset {off} (/XRefStm) is unreadable ({e})"
                )),
            }
        }
        if x.entries.is_empty() {
            x.entries = local;
        } else {
            for (n, e) in local {
                x.entries.entry(n).or_insert(e);
            }
        }
        if x.entries.len() > limits.objects {
            return Err(too_many(x.entries.len(), limits));
        }
        if x.sections == 1 {
            x.trailer = sec.trailer.clone();
        } else {
            fill_trailer(&mut x.trailer, &sec.trailer);
        }
        next = sec
            .trailer
            .int(b"Prev")
            .and_then(|p| usize::try_from(p).ok());
    }
    x.section_offsets.sort_unstable();
    Ok(x)
}

/// The most bytes of a stream's dictionary read in a scan to skip its data.
const STREAM_DICT_WINDOW: usize = 64 << 10;

/// Positions of every `n g obj` in `buf`: object number to (offset, generation), the last
/// definition of a number winning (as in incremental updates). The data of a stream whose
/// direct /Length is right is skipped: an embedded file may be a PDF (an LWC wrapper's
/// payload is), and its objects are not the document's.
pub fn scan_objects(buf: &[u8]) -> BTreeMap<u32, (usize, u16)> {
    let mut out = BTreeMap::new();
    let mut skip_to = 0;
    for q in memchr::memmem::find_iter(buf, b"obj") {
        if q < skip_to || buf.get(q + 3).is_some_and(|&b| !(is_ws(b) || is_delim(b))) {
            continue;
        }
        let mut i = q;
        let back_ws = |i: &mut usize| {
            let s = *i;
            while *i > 0 && is_ws(buf[*i - 1]) {
                *i -= 1;
            }
            *i < s
        };
        let back_digits = |i: &mut usize| {
            let s = *i;
            while *i > 0 && buf[*i - 1].is_ascii_digit() && s - *i < 10 {
                *i -= 1;
            }
            (*i < s).then(|| &buf[*i..s])
        };
        if !back_ws(&mut i) {
            continue;
        }
        let Some(g) = back_digits(&mut i) else {
            continue;
        };
        if !back_ws(&mut i) {
            continue;
        }
        let Some(n) = back_digits(&mut i) else {
            continue;
        };
        if i > 0 && !(is_ws(buf[i - 1]) || is_delim(buf[i - 1])) {
            continue;
        }
        let parse = |d: &[u8]| {
            std::str::from_utf8(d)
                .ok()
                .and_then(|s| s.parse::<u64>().ok())
        };
        if let (Some(n), Some(g)) = (parse(n), parse(g))
            && let (Ok(n), Ok(g)) = (u32::try_from(n), u16::try_from(g))
        {
            out.insert(n, (i, g));
            if let Some(end) = stream_data_end(buf, q + 3) {
                skip_to = end;
            }
        }
    }
    out
}

/// After an object's `obj` at `pos`: if a stream dictionary with a direct /Length follows,
/// and `endstream` comes right after that many bytes of data, where the data ends.
fn stream_data_end(buf: &[u8], pos: usize) -> Option<usize> {
    let window = &buf[..buf.len().min(pos.saturating_add(STREAM_DICT_WINDOW))];
    let mut lx = Lexer::new(window, pos);
    lx.skip_ws();
    if !window.get(lx.pos..)?.starts_with(b"<<") {
        return None;
    }
    let Ok(Object::Dict(d)) = lx.object(0) else {
        return None;
    };
    if !lx.eat_keyword(b"stream") {
        return None;
    }
    let mut start = lx.pos;
    if buf.get(start) == Some(&b'\r') {
        start += 1;
    }
    if buf.get(start) == Some(&b'\n') {
        start += 1;
    }
    let len = usize::try_from(d.int(b"Length")?).ok()?;
    let end = start.checked_add(len).filter(|&e| e <= buf.len())?;
    let mut lx = Lexer::new(buf, end);
    lx.skip_ws();
    buf[lx.pos..].starts_with(b"endstream").then_some(end)
}

/// The most bytes after the keyword `trailer` read for its dictionary in a scan: a
/// trailer is small, and the window keeps a file full of the word from making the scan
/// quadratic.
const TRAILER_WINDOW: usize = 64 << 10;
/// The most bytes of an object's start searched for `/XRef` in a scan.
const XREF_HEAD: usize = 4096;

/// Rebuilds the cross-reference data from a scan of the whole file (`objs`, from
/// [`scan_objects`]): every `n g obj` found, the last definition of a number winning;
/// the trailer from every `trailer` dictionary and cross-reference stream dictionary
/// found, later ones overriding earlier ones. Objects in object streams are found when
/// the document is loaded ([`crate::repair`]).
pub fn rebuild(
    buf: &[u8],
    objs: &BTreeMap<u32, (usize, u16)>,
    why: String,
    limits: &Limits,
) -> Result<Xref> {
    if objs.is_empty() {
        return Err(Error::Damaged(format!(
            "{why}, and no 'n g obj' was found to rebuild the cross-reference table from"
        )));
    }
    if objs.len() > limits.objects {
        return Err(too_many(objs.len(), limits));
    }
    let mut x = Xref {
        entries: objs
            .iter()
            .map(|(&n, &(offset, gen_))| (n, Entry::Offset { offset, gen_ }))
            .collect(),
        rebuilt: Some(why),
        ..Xref::default()
    };
    // Trailer dictionaries and cross-reference streams, in file order.
    let mut trailers: Vec<(usize, Dict)> = Vec::new();
    for t in memchr::memmem::find_iter(buf, b"trailer") {
        let window = &buf[..buf.len().min(t + 7 + TRAILER_WINDOW)];
        let mut lx = Lexer::with_depth(window, t + 7, limits.depth);
        lx.skip_ws();
        if window[lx.pos..].starts_with(b"<<")
            && let Ok(Object::Dict(d)) = lx.object(0)
        {
            trailers.push((t, d));
        }
    }
    let mut starts: Vec<(usize, u32)> = objs.iter().map(|(&n, &(o, _))| (o, n)).collect();
    starts.sort_unstable();
    let cx = Context {
        lengths: &|_| None,
        max_depth: limits.depth,
        endstreams: None,
    };
    for (i, &(off, n)) in starts.iter().enumerate() {
        let next = starts.get(i + 1).map_or(buf.len(), |s| s.0);
        let head = &buf[off..next.min(off + XREF_HEAD).max(off)];
        if memchr::memmem::find(head, b"/XRef").is_some()
            && let Ok((_, Object::Stream(s), _)) = indirect_object_in(buf, off, &cx)
            && s.dict.has_type(b"XRef")
        {
            x.xref_stream = true;
            x.xref_stream_objects.insert(n);
            trailers.push((off, s.dict));
        }
    }
    trailers.sort_by_key(|t| t.0);
    for (_, d) in trailers {
        for k in [&b"Root"[..], b"Info", b"ID", b"Encrypt", b"Size"] {
            if let Some(v) = d.get(k) {
                x.trailer.set(k, v.clone());
            }
        }
    }
    // Without its trailer, an encrypted file would read as plaintext: its encryption
    // dictionary is found by what it holds.
    if x.trailer.get(b"Encrypt").is_none()
        && let Some((n, g)) = find_encrypt_dict(buf, &starts, &cx)
    {
        x.trailer.set(b"Encrypt", Object::Ref(n, g));
        x.notes.push(format!(
            "no trailer names the encryption dictionary; object {n} {g} is one, and was taken"
        ));
    }
    Ok(x)
}

/// The last object of the file that is an encryption dictionary (a /Filter of the
/// Standard handler or of cipherlab's LWC handler, with /O or /U); `starts`: the objects'
/// offsets and numbers in file order.
fn find_encrypt_dict(buf: &[u8], starts: &[(usize, u32)], cx: &Context<'_>) -> Option<(u32, u16)> {
    let handlers = [&b"/Standard"[..], crate::lwc::HANDLER.as_bytes()];
    starts.iter().enumerate().rev().find_map(|(i, &(off, n))| {
        let next = starts.get(i + 1).map_or(buf.len(), |s| s.0);
        let head = &buf[off..next.min(off + XREF_HEAD).max(off)];
        if !handlers
            .iter()
            .any(|h| memchr::memmem::find(head, h).is_some())
        {
            return None;
        }
        let Ok((id, Object::Dict(d), _)) = indirect_object_in(buf, off, cx) else {
            return None;
        };
        let filter = d.name(b"Filter")?;
        let ours = filter == b"Standard" || filter == crate::lwc::HANDLER.as_bytes();
        (id.0 == n && ours && (d.get(b"O").is_some() || d.get(b"U").is_some())).then_some(id)
    })
}

/// The cross-reference data as written, with the gaps filled from a scan of the file
/// (`objs`, from [`scan_objects`]): objects the sections do not list at all, or list as
/// in use at an impossible place, are taken where the scan found them. Entries the
/// sections mark free stay free.
pub fn filled(written: &Xref, objs: &BTreeMap<u32, (usize, u16)>) -> Xref {
    let mut x = written.clone();
    let mut added = 0;
    for (&n, &(offset, gen_)) in objs {
        let gap = match x.entries.get(&n) {
            None => true,
            Some(Entry::Free) => written.damaged_entries.contains(&n),
            Some(_) => false,
        };
        if gap {
            x.entries.insert(n, Entry::Offset { offset, gen_ });
            added += 1;
        }
    }
    x.notes.push(format!(
        "{added} object{} missing from the cross-reference data found by scanning the file",
        if added == 1 { "" } else { "s" }
    ));
    x
}

/// The byte offset after `startxref`, if the file has one.
fn startxref(buf: &[u8]) -> Option<usize> {
    let p = memchr::memmem::rfind(buf, b"startxref")?;
    let mut lx = Lexer::new(buf, p + 9);
    lx.uint().and_then(|v| usize::try_from(v).ok())
}

/// Reads the file's cross-reference data as written: the chain from `startxref` through
/// /Prev and /XRefStm. `shift` is the position of `%PDF-` (offsets may be relative to it).
/// `Ok(Err(why))` when there is none to use: no `startxref`, a first section that cannot
/// be read, a trailer without /Root. A limit exceeded is an error.
pub fn as_written(
    buf: &[u8],
    shift: usize,
    limits: &Limits,
) -> Result<std::result::Result<Xref, String>> {
    let Some(off) = startxref(buf) else {
        return Ok(Err("no 'startxref' at the end of the file".into()));
    };
    match read_chain(buf, off, shift, limits) {
        Ok(mut x) if x.trailer.get(b"Root").is_some() => {
            if let Some(at) = later_section(buf, &x, limits) {
                x.cut_short = Some(CutShort {
                    bytes: buf.len() - at,
                    xref_follows: true,
                    section: Some(at),
                });
            }
            Ok(Ok(x))
        }
        Ok(_) => Ok(Err(format!("the trailer at startxref {off} has no /Root"))),
        Err(e @ Error::Limit(_)) => Err(e),
        Err(e) => Ok(Err(format!(
            "startxref {off} does not lead to a usable cross-reference section ({e})"
        ))),
    }
}

/// A note for a file that does not end with `%%EOF`, if it does not.
pub fn truncation_note(buf: &[u8]) -> Option<String> {
    let tail = &buf[buf.len().saturating_sub(1024)..];
    memchr::memmem::find(tail, b"%%EOF").is_none().then(|| {
        "the file does not end with %%EOF: it looks truncated; what was read is the last \
         complete revision found, and later updates may be lost"
            .to_string()
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn an_update_cut_short_is_seen() {
        let base = b"%PDF-1.4\n1 0 obj 1 endobj\nxref\n0 1\ntrailer<<>>\nstartxref\n9\n%%EOF\n";
        for (tail, cut) in [
            (&b""[..], false),
            (b"\r\n\0\0\0", false),
            (b"2", true),
            (b"2 0", true),
            (b"2 0 o", true),
            (b"2 0 obj <</A 1>> endobj", true),
            (b"2 0 x", false),
            (b"junk", false),
            (
                b"2 0 obj <</A 1>> endobj\nxref\n0 1\ntrailer<<>>\nstartx",
                true,
            ),
        ] {
            let mut f = base.to_vec();
            f.extend_from_slice(tail);
            assert_eq!(
                cut_short(&f).is_some(),
                cut,
                "{:?}",
                String::from_utf8_lossy(tail)
            );
        }
    }

    #[test]
    fn scan_finds_objects() {
        let f = b"%PDF-1.4\n1 0 obj<<>>endobj\n 2 0 obj (x) endobj 12 3 obj 1 endobj";
        let m = scan_objects(f);
        assert_eq!(m.len(), 3);
        assert_eq!(m[&12].1, 3);
        assert_eq!(m[&1].0, 9);
    }
}
