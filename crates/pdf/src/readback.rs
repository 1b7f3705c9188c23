//! The read-back check of a file about to be written, without building its objects.
//!
//! `decrypt` and `encrypt` read every file they write back from its bytes before it is
//! put in place, and refuse it unless it has the census of what was read: the same pages,
//! the same number of objects reachable from the catalog and /Info, no more references to
//! nothing ([`crate::repair::check_written`]). Loading the file back as a [`Document`]
//! for that -- an object tree per object, a B-tree of 65,000 entries, a graph walk, then
//! freeing it all -- was a third of `pdf encrypt`'s time on a large file
//! (docs/BENCHMARKS.md). This module reads the same bytes the way
//! [`Pdf::load_reading`] would -- the same cross-reference data, the same syntax and
//! limits ([`Lexer::skim`]), the same object streams decrypted and decoded -- and keeps
//! of each object only what the census reads, in arrays indexed by object number: its
//! references, whether it is a dictionary or an array, its /Type, its /Kids and /Pages.
//!
//! It answers only for a file that reads back cleanly and plainly: every object where its
//! entry says and parsing, every object stream whole, nothing the page walk would have to
//! look into further (a page-tree node given directly, a duplicate key, an indirect
//! stream /Length, a reading that needed repair, ...). Anywhere else it says nothing,
//! and the check loads the file back whole, as before: so the check's verdict is the
//! whole reading's wherever the two could differ.
//!
//! [`Document`]: crate::document::Document

use crate::document::{NumberSet, ObjectStream, Pdf, collect_refs, decrypt_object_stream};
use crate::lexer::{EndstreamCache, Lexer, Token, after_dict, object_end, object_header};
use crate::limits::Limits;
use crate::object::{Object, Stream};
use crate::security::Handler;
use crate::xref::Entry;

/// The census of a file read back: what [`crate::repair::check_written`] compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Leaves of the page tree.
    pub(crate) pages: usize,
    /// Objects reachable from the trailer's /Root and /Info that are present.
    pub(crate) used: usize,
    /// Objects reachable but not present (none is unreadable: such a file is not counted).
    pub(crate) missing: usize,
}

/// A value the page walk may look at: a dictionary's /Kids or /Pages, an array object.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Val {
    /// Not there.
    #[default]
    None,
    /// `n g R`.
    Ref(u32),
    /// An array of references only: `refs[start..end]` of the object's references.
    List(u32, u32),
    /// An array holding anything else.
    Mixed,
    /// A direct dictionary.
    Dict,
    /// Any other direct value.
    Direct,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Form {
    #[default]
    Other,
    /// A dictionary or a stream.
    Dict,
    Array,
}

/// The /Type names the census and the loader look at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Ty {
    #[default]
    Other,
    Pages,
    Catalog,
    XRef,
}

/// What is kept of one object.
#[derive(Clone, Copy, Debug, Default)]
struct Rec {
    /// A reading loads it (it is in the document).
    present: bool,
    form: Form,
    ty: Ty,
    /// Its references, `refs[start..end]` of the reading.
    refs: (u32, u32),
    /// A dictionary's /Kids; an array object's own items.
    kids: Val,
    /// A dictionary's /Pages.
    pages: Val,
}

impl Rec {
    /// This record with its reference ranges moved by `base` (a chunk's references
    /// joined after the earlier chunks').
    fn shifted(mut self, base: u32) -> Rec {
        self.refs = (self.refs.0 + base, self.refs.1 + base);
        for v in [&mut self.kids, &mut self.pages] {
            if let Val::List(a, b) = v {
                *v = Val::List(*a + base, *b + base);
            }
        }
        self
    }
}

/// The key of the top-level dictionary whose value comes next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Slot {
    #[default]
    None,
    Kids,
    Pages,
    Type,
    Length,
}

/// A stream's /Length, as far as finding its data needs it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Length {
    /// Absent, or not an integer (the data ends at `endstream`).
    #[default]
    Absent,
    Int(i64),
    /// A reference or a container: read whole instead.
    Indirect,
}

/// An array being recorded: the top-level value, or the value of /Kids or /Pages.
struct List {
    /// The nesting depth of its items.
    depth: usize,
    start: u32,
    mixed: bool,
    into: Slot,
}

/// Builds the [`Rec`] of one object from the tokens of [`Lexer::skim`].
#[derive(Default)]
struct Recorder {
    rec: Rec,
    linearized: bool,
    length: Length,
    /// Something makes the object one to read whole (a key given twice, whose earlier
    /// value the loader drops, references and all).
    odd: bool,
    /// Containers open.
    depth: usize,
    slot: Slot,
    list: Option<List>,
    /// Hashes of the keys of the open dictionaries, and where each dictionary's start.
    keys: Vec<u64>,
    dicts: Vec<usize>,
}

/// Up to this many keys a dictionary's keys are checked for duplicates one by one as they
/// come; a larger one (a resource dictionary naming hundreds of fonts) has its keys'
/// hashes sorted once when it closes, so that a check stays O(n log n).
const MAX_KEYS: usize = 64;

fn key_hash(k: &[u8]) -> u64 {
    // FNV-1a: a collision only sends the object to the whole reading.
    k.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl Recorder {
    fn start(&mut self, refs: &[u32]) {
        let at = refs.len() as u32;
        self.rec = Rec {
            present: true,
            refs: (at, at),
            ..Rec::default()
        };
        self.linearized = false;
        self.length = Length::Absent;
        self.odd = false;
        self.depth = 0;
        self.slot = Slot::None;
        self.list = None;
        self.keys.clear();
        self.dicts.clear();
    }

    fn set(&mut self, slot: Slot, v: Val) {
        match slot {
            Slot::Kids => self.rec.kids = v,
            Slot::Pages => self.rec.pages = v,
            Slot::Length => self.length = Length::Indirect,
            Slot::Type | Slot::None => {}
        }
    }

    fn token(&mut self, t: Token<'_>, refs: &mut Vec<u32>) {
        if let Some(l) = &mut self.list
            && self.depth == l.depth
            && !matches!(t, Token::Ref(_) | Token::ArrayEnd)
        {
            l.mixed = true;
        }
        // The value of a key of the top-level dictionary.
        let slot = if self.depth == 1 && !matches!(t, Token::Key(_)) {
            std::mem::take(&mut self.slot)
        } else {
            Slot::None
        };
        match t {
            Token::DictStart => {
                if self.depth == 0 {
                    self.rec.form = Form::Dict;
                }
                self.set(slot, Val::Dict);
                self.dicts.push(self.keys.len());
                self.depth += 1;
            }
            Token::Key(k) => {
                let h = key_hash(&k);
                let open = self.dicts.last().copied().unwrap_or(0);
                if self.keys.len() - open < MAX_KEYS && self.keys[open..].contains(&h) {
                    self.odd = true;
                }
                self.keys.push(h);
                if self.depth == 1 {
                    self.slot = match &*k {
                        b"Kids" => Slot::Kids,
                        b"Pages" => Slot::Pages,
                        b"Type" => Slot::Type,
                        b"Length" => Slot::Length,
                        _ => Slot::None,
                    };
                    self.linearized |= &*k == b"Linearized";
                }
            }
            Token::DictEnd => {
                self.depth -= 1;
                let open = self.dicts.pop().unwrap_or(0);
                let keys = &mut self.keys[open..];
                if keys.len() > MAX_KEYS {
                    keys.sort_unstable();
                    if keys.windows(2).any(|w| w[0] == w[1]) {
                        self.odd = true;
                    }
                }
                self.keys.truncate(open);
            }
            Token::ArrayStart => {
                if self.depth == 0 {
                    self.rec.form = Form::Array;
                }
                let into = if self.depth == 0 { Slot::Kids } else { slot };
                if matches!(into, Slot::Kids | Slot::Pages) {
                    self.list = Some(List {
                        depth: self.depth + 1,
                        start: refs.len() as u32,
                        mixed: false,
                        into,
                    });
                } else {
                    self.set(slot, Val::Direct);
                }
                self.depth += 1;
            }
            Token::ArrayEnd => {
                self.depth -= 1;
                if let Some(l) = self.list.take_if(|l| l.depth == self.depth + 1) {
                    let v = if l.mixed {
                        Val::Mixed
                    } else {
                        Val::List(l.start, refs.len() as u32)
                    };
                    self.set(l.into, v);
                }
            }
            Token::Ref(n) => {
                refs.push(n);
                self.set(slot, Val::Ref(n));
            }
            Token::Name(name) => {
                if slot == Slot::Type {
                    self.rec.ty = match &*name {
                        b"Pages" => Ty::Pages,
                        b"Catalog" => Ty::Catalog,
                        b"XRef" => Ty::XRef,
                        _ => Ty::Other,
                    };
                } else if slot != Slot::Length {
                    self.set(slot, Val::Direct);
                }
            }
            Token::Int(i) if slot == Slot::Length => self.length = Length::Int(i),
            Token::Int(_) | Token::Other => {
                if slot != Slot::Length {
                    self.set(slot, Val::Direct);
                }
            }
        }
    }

    fn finish(&mut self, refs: &[u32]) -> Rec {
        self.rec.refs.1 = refs.len() as u32;
        self.rec
    }
}

/// What reading one top-level object gave.
enum Top {
    Object {
        rec: Rec,
        linearized: bool,
    },
    /// A cross-reference stream, which no reading loads.
    XRef,
}

/// The work of reading one top-level object back, in the units of [`crate::par::chunks`]
/// (stream data is passed over, not copied: the work is the object's syntax, about the
/// same for every object).
const TOP_WEIGHT: usize = 256;

/// A top-level object to read back, and what reading it gave (`None`: not read, or this
/// reading cannot say).
struct TopRead {
    num: u32,
    offset: usize,
    read: Option<Read>,
}

/// A top-level object read back: recorded, or an object stream to read next.
enum Read {
    Top(Top),
    Container((u32, u16), Box<Stream>),
}

/// The reading, as it is being made.
struct Reading<'p> {
    pdf: &'p Pdf<'p>,
    recs: Vec<Rec>,
    refs: Vec<u32>,
    rec: Recorder,
    endstreams: EndstreamCache,
}

impl Reading<'_> {
    /// Top-level object `num` at `offset`; `None`: it is not where its entry says, does
    /// not parse, or is odd.
    fn top(&mut self, num: u32, offset: usize) -> Option<Top> {
        let buf = self.pdf.bytes();
        let mut lx = Lexer::with_depth(buf, offset, self.pdf.limits.depth);
        let id = object_header(&mut lx).ok().filter(|id| id.0 == num)?;
        self.rec.start(&self.refs);
        let (rec, refs) = (&mut self.rec, &mut self.refs);
        lx.skim(0, &mut |t| rec.token(t, refs)).ok()?;
        if self.rec.rec.form == Form::Dict {
            let length = self.rec.length;
            let len = || match length {
                Length::Int(l) => Some(l),
                _ => None,
            };
            let (data, _) = after_dict(&mut lx, id, len, Some(&self.endstreams)).ok()?;
            if data.is_some() {
                if length == Length::Indirect {
                    return None;
                }
                if self.rec.rec.ty == Ty::XRef {
                    self.refs.truncate(self.rec.rec.refs.0 as usize);
                    return Some(Top::XRef);
                }
            }
        } else {
            object_end(buf, lx.pos, id).ok()?;
        }
        if self.rec.odd {
            return None;
        }
        let rec = self.rec.finish(&self.refs);
        Some(Top::Object {
            rec,
            linearized: self.rec.linearized && rec.form == Form::Dict,
        })
    }

    /// The members of object stream `c` (decrypted), recorded where the cross-reference
    /// data puts them there; `values_left` as [`Limits::values`] counts. `None`: the
    /// stream or a member does not read, or a member is not at its index.
    fn members(&mut self, c: u32, s: &Stream, values_left: &mut usize) -> Option<usize> {
        let limits = &self.pdf.limits;
        let os = ObjectStream::open(&s.dict, &s.data, c, limits).ok()?;
        let mut lx = Lexer::with_depth(&os.decoded, 0, limits.depth);
        lx.limit_values(*values_left);
        let mut taken = 0;
        for (i, &(on, pos)) in os.at.iter().enumerate() {
            lx.pos = pos;
            self.rec.start(&self.refs);
            let (rec, refs) = (&mut self.rec, &mut self.refs);
            lx.skim(0, &mut |t| rec.token(t, refs)).ok()?;
            let here = match self.pdf.xref.entries.get(&on) {
                Some(&Entry::Compressed { container, index }) if container == c && on != 0 => {
                    // The loader takes the member at the entry's index, or else the first
                    // of that number: only the plain case is counted here.
                    if index as usize != i {
                        return None;
                    }
                    true
                }
                _ => false,
            };
            if !here {
                self.refs.truncate(self.rec.rec.refs.0 as usize);
                continue;
            }
            if self.rec.odd {
                return None;
            }
            self.recs[on as usize] = self.rec.finish(&self.refs);
            taken += 1;
        }
        *values_left = lx.values_left();
        Some(taken)
    }
}

/// The census of `bytes` read back, decrypted with `handler` if it is encrypted: `None`
/// when this reading cannot say and the file must be loaded whole (module documentation).
pub(crate) fn counts(bytes: &[u8], handler: Option<&Handler>, limits: &Limits) -> Option<Counts> {
    let pdf = Pdf::parse_with(bytes, *limits).ok()?;
    let xref = &pdf.xref;
    if xref.repaired() || !xref.notes.is_empty() || !xref.damaged_entries.is_empty() {
        return None;
    }
    let encrypt_ref = match xref.trailer.get(b"Encrypt") {
        None | Some(Object::Null) => None,
        Some(_) if handler.is_none() => return None,
        Some(Object::Ref(n, _)) => Some(*n),
        Some(_) => Some(0),
    };
    // Numbers far beyond the object count (renumbered by the writer, so not ours).
    let max = *xref.entries.keys().next_back()?;
    if max as usize > 2 * xref.entries.len() + 1024 {
        return None;
    }
    let mut containers = NumberSet::for_numbers(Some(max));
    let mut compressed = 0;
    for e in xref.entries.values() {
        if let Entry::Compressed { container, .. } = e {
            containers.insert(*container);
            compressed += 1;
        }
    }
    // 1. Top-level objects, in contiguous chunks side by side (each with its own
    // references, joined after); object streams kept to read next.
    let mut tops: Vec<TopRead> = Vec::with_capacity(xref.entries.len());
    for (&num, e) in &xref.entries {
        let &Entry::Offset { offset, .. } = e else {
            continue;
        };
        if num == 0 || xref.xref_stream_objects.contains(&num) || Some(num) == encrypt_ref {
            continue;
        }
        tops.push(TopRead {
            num,
            offset,
            read: None,
        });
    }
    let chunk_refs = crate::par::chunks(
        &mut tops,
        |_| TOP_WEIGHT,
        |chunk| {
            let mut r = Reading {
                pdf: &pdf,
                recs: Vec::new(),
                refs: Vec::with_capacity(chunk.len() * 4),
                rec: Recorder::default(),
                endstreams: EndstreamCache::default(),
            };
            for t in chunk.iter_mut() {
                t.read = if containers.contains(t.num) {
                    match pdf.object_at(t.num, t.offset).ok() {
                        Some((id, Object::Stream(s))) if !s.dict.has_type(b"XRef") => {
                            Some(Read::Container(id, s))
                        }
                        _ => None,
                    }
                } else {
                    r.top(t.num, t.offset).map(Read::Top)
                };
                if t.read.is_none() {
                    break;
                }
            }
            (chunk.len(), r.refs)
        },
    );
    let mut r = Reading {
        pdf: &pdf,
        recs: vec![Rec::default(); max as usize + 1],
        refs: Vec::with_capacity(xref.entries.len() * 4),
        rec: Recorder::default(),
        endstreams: EndstreamCache::default(),
    };
    let mut streams: Vec<((u32, u16), Stream)> = Vec::new();
    let mut first: Option<(usize, bool)> = None;
    let mut tops = tops.into_iter();
    for (len, refs) in chunk_refs {
        let base = r.refs.len() as u32;
        r.refs.extend(refs);
        for t in tops.by_ref().take(len) {
            let linearized = match t.read? {
                Read::Container(id, s) => {
                    streams.push((id, *s));
                    false
                }
                Read::Top(Top::XRef) => continue,
                Read::Top(Top::Object { rec, linearized }) => {
                    r.recs[t.num as usize] = rec.shifted(base);
                    linearized
                }
            };
            if first.is_none_or(|(o, _)| t.offset < o) {
                first = Some((t.offset, linearized));
            }
        }
    }
    // A first object with /Linearized is dropped by the loader (with its hint stream).
    if first.is_some_and(|(_, lin)| lin) {
        return None;
    }
    // 2. Object streams, decrypted, in the loader's order (the /Values budget is shared).
    let mut values_left = limits.values;
    let mut taken = 0;
    for (id, mut s) in streams {
        if let Some(h) = handler {
            decrypt_object_stream(h, id, &mut s);
        }
        taken += r.members(id.0, &s, &mut values_left)?;
    }
    if taken != compressed {
        return None;
    }
    let present = r.recs.iter().filter(|x| x.present).count();
    if present > limits.objects {
        return None;
    }
    census(&r.recs, &r.refs, &xref.trailer)
}

/// The census of the objects `recs` (their references in `refs`) with `trailer`'s /Root
/// and /Info, as [`crate::repair::census`] takes it of a loaded document; `None` where
/// the page walk would look into a value not kept.
fn census(recs: &[Rec], refs: &[u32], trailer: &crate::object::Dict) -> Option<Counts> {
    let get = |n: u32| recs.get(n as usize).filter(|r| r.present);
    let of = |r: &Rec| &refs[r.refs.0 as usize..r.refs.1 as usize];
    // The catalog, which the loader would look for elsewhere if /Root is not one.
    let Some(Object::Ref(root, _)) = trailer.get(b"Root") else {
        return None;
    };
    let cat = get(*root)
        .filter(|c| c.form == Form::Dict && (c.ty == Ty::Catalog || c.pages != Val::None))?;
    let max = Some(recs.len().saturating_sub(1) as u32);

    // Reachability from the trailer.
    let mut c = Counts {
        pages: 0,
        used: 0,
        missing: 0,
    };
    let mut todo = Vec::new();
    for k in [&b"Root"[..], b"Info"] {
        if let Some(o) = trailer.get(k) {
            collect_refs(o, &mut todo);
        }
    }
    let mut seen = NumberSet::for_numbers(max);
    while let Some(n) = todo.pop() {
        if !seen.insert(n) {
            continue;
        }
        match get(n) {
            Some(r) => {
                c.used += 1;
                todo.extend(of(r).iter().filter(|&&m| !seen.contains(m)));
            }
            None => c.missing += 1,
        }
    }

    // The page tree's leaves.
    let mut stack = match cat.pages {
        Val::Ref(n) => vec![n],
        Val::Dict => return None,
        _ => Vec::new(),
    };
    let mut visited = NumberSet::for_numbers(max);
    while let Some(n) = stack.pop() {
        if !visited.insert(n) {
            continue;
        }
        let Some(node) = get(n).filter(|r| r.form == Form::Dict) else {
            continue;
        };
        let kids = match node.kids {
            Val::Ref(k) => match get(k) {
                Some(a) if a.form == Form::Array => a.kids,
                Some(_) => Val::Direct,
                None => continue,
            },
            v => v,
        };
        match kids {
            Val::List(s, e) => stack.extend(&refs[s as usize..e as usize]),
            Val::Mixed => return None,
            _ if node.ty == Ty::Pages => {}
            _ => c.pages += 1,
        }
    }
    Some(c)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::borrow::Cow;

    fn tokens(s: &[u8]) -> Vec<Token<'_>> {
        let mut v = Vec::new();
        Lexer::new(s, 0).skim(0, &mut |t| v.push(t)).unwrap();
        v
    }

    #[test]
    fn skim_reports_what_it_reads() {
        use Token::*;
        assert_eq!(
            tokens(b"<</K#69ds[1 0 R 2 0 R]/N 5/S(a\\)b)/H<41>/T/Pages/E>>"),
            [
                DictStart,
                Key(Cow::Borrowed(b"Kids")),
                ArrayStart,
                Ref(1),
                Ref(2),
                ArrayEnd,
                Key(Cow::Borrowed(b"N")),
                Int(5),
                Key(Cow::Borrowed(b"S")),
                Other,
                Key(Cow::Borrowed(b"H")),
                Other,
                Key(Cow::Borrowed(b"T")),
                Name(Cow::Borrowed(b"Pages")),
                Key(Cow::Borrowed(b"E")),
                Other,
                DictEnd
            ]
        );
        // The errors of `Lexer::object`, and its limits.
        for bad in [
            &b"<</A 1>"[..],
            b"(open",
            b"<4g>",
            b"[1 2",
            b"nul",
            b")",
            b"<<1 2>>",
        ] {
            assert!(Lexer::new(bad, 0).object(0).is_err(), "{bad:?}");
            assert!(Lexer::new(bad, 0).skim(0, &mut |_| {}).is_err(), "{bad:?}");
        }
        assert!(Lexer::new(&[b'['; 10_000], 0).skim(0, &mut |_| {}).is_err());
        for limit in 0..6 {
            let s = b"<</A [1 2 0 R] /B>>";
            let mut a = Lexer::new(s, 0);
            a.limit_values(limit);
            let mut b = Lexer::new(s, 0);
            b.limit_values(limit);
            assert_eq!(
                a.object(0).is_ok(),
                b.skim(0, &mut |_| {}).is_ok(),
                "{limit}"
            );
            assert_eq!(a.values_left(), b.values_left(), "{limit}");
        }
    }

    /// Whether the recorder sends the object in `s` to the whole reading.
    fn odd(s: &[u8]) -> bool {
        let (mut rec, mut refs) = (Recorder::default(), Vec::new());
        rec.start(&refs);
        Lexer::new(s, 0)
            .skim(0, &mut |t| rec.token(t, &mut refs))
            .unwrap();
        rec.odd
    }

    #[test]
    fn duplicate_keys_send_an_object_to_the_whole_reading_at_any_size() {
        let dict = |keys: &[String]| {
            let body: String = keys.iter().map(|k| format!("/{k} 1 ")).collect();
            format!("<</Font<<{body}>>/Type/Page>>").into_bytes()
        };
        for n in [3, MAX_KEYS, MAX_KEYS + 1, 300] {
            let mut keys: Vec<String> = (0..n).map(|i| format!("F{i}")).collect();
            assert!(!odd(&dict(&keys)), "{n} distinct keys");
            // A key given again, early (checked as it comes) and last (in the sorted check).
            for at in [1, n - 1] {
                keys.push(keys[at - 1].clone());
                assert!(odd(&dict(&keys)), "{n} keys, the key {at} again");
                keys.pop();
            }
        }
    }
}
