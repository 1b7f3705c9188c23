//! Reading a whole file: header, cross-reference data, the /Encrypt dictionary, every
//! object (object streams expanded), and decryption of strings and streams.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{Error, Result};
use crate::filters;
use crate::lexer::{Context, EndstreamCache, Lexer, indirect_object_in};
use crate::limits::{Limits, Which, exceeded};
use crate::object::{Dict, ObjId, Object, StrForm};
use crate::repair::{Census, Fill, Loaded};
use crate::security::{Auth, Cfm, CryptFilter, EncryptDict, Handler};
use crate::xref::{self, Entry, Xref};

/// Most warnings kept (the rest are counted).
const MAX_WARNINGS: usize = 100;

/// A PDF file with its cross-reference data read; objects are read on demand.
pub struct Pdf<'a> {
    buf: &'a [u8],
    /// The version in the header (`1.7`, `2.0`, ...).
    pub version: String,
    /// Offset of `%PDF-` (non-zero when junk precedes the header).
    pub header_offset: usize,
    /// The cross-reference data as written (rebuilt by scanning when there was none to
    /// use); the reading a document is loaded from may be a repaired one
    /// ([`crate::repair`]).
    pub xref: Xref,
    /// The limits reading keeps to.
    pub limits: Limits,
    scan: OnceLock<BTreeMap<u32, (usize, u16)>>,
    endstreams: EndstreamCache,
    /// Cross-reference entries that did not lead to their object (found by scanning, or
    /// not at all).
    misplaced: AtomicUsize,
}

/// A top-level object to read at `offset` ([`Pdf::parse_top`]): `span` bytes to the next
/// object's offset (the weight of its work), and what reading it gave.
struct TopParse {
    num: u32,
    offset: usize,
    span: usize,
    parsed: Option<Result<(ObjId, Object)>>,
    strings: Strings,
}

/// The strings of a top-level object decrypted: how many, and the last warning.
#[derive(Default)]
struct Strings {
    count: usize,
    warning: Option<String>,
}

impl TopParse {
    /// The work of reading this object, in the byte units of [`crate::par::chunks`]: the
    /// bytes up to the next object (copying stream data out costs about as much a byte,
    /// in fresh pages, as lexing does), and a little for the object itself. Measured on
    /// a 1.8 MB file of 3,700 objects, 865 of them streams holding 1.6 MB: about 0.35 us
    /// an object and 1.75 ns a byte.
    fn weight(&self) -> usize {
        200 + self.span
    }
}

/// A loaded (and, if it was encrypted, decrypted) document.
#[derive(Clone, Debug)]
pub struct Document {
    /// Header version.
    pub version: String,
    /// Trailer entries to keep: /Root, /Info, /ID.
    pub trailer: Dict,
    /// Objects by number: generation and object. Object streams, cross-reference
    /// streams, the /Encrypt dictionary and linearization data are not here.
    pub objects: BTreeMap<u32, (u16, Object)>,
    /// Objects that were stored in object streams.
    pub compressed: BTreeSet<u32>,
    /// The input had object streams.
    pub had_object_streams: bool,
    /// The input had a cross-reference stream.
    pub had_xref_stream: bool,
    /// The input was linearized (its linearization dictionary and hint stream are dropped).
    pub linearized: bool,
    /// Repairs and oddities met while reading.
    pub warnings: Vec<String>,
    /// Streams of an encrypted file that named the Identity crypt filter on themselves
    /// (/Filter /Crypt): stored in the clear, so anyone could have written them (an
    /// object stream's objects came with it). Sorted; empty for an unencrypted file.
    pub in_the_clear: Vec<(u32, u16)>,
    /// Strings decrypted.
    pub strings_decrypted: usize,
    /// Streams decrypted.
    pub streams_decrypted: usize,
}

impl Document {
    /// Removes the objects that nothing reaches from the trailer's /Root and /Info (what
    /// earlier revisions of an incrementally updated file leave behind), as qpdf does when
    /// it writes a file; returns how many were removed. A stream's /Length does not count
    /// as a use: the writer writes lengths directly.
    pub fn drop_unreachable(&mut self) -> usize {
        let graph = RefGraph::of(self);
        let mut seen = NumberSet::for_numbers(self.objects.keys().next_back().copied());
        let mut todo = Vec::new();
        for k in [&b"Root"[..], b"Info"] {
            if let Some(o) = self.trailer.get(k) {
                collect_refs(o, &mut todo);
            }
        }
        while let Some(n) = todo.pop() {
            if seen.insert(n)
                && let Some(refs) = graph.refs(n)
            {
                todo.extend(refs.iter().filter(|&&r| !seen.contains(r)));
            }
        }
        let before = self.objects.len();
        self.objects.retain(|n, _| seen.contains(*n));
        self.compressed.retain(|n| seen.contains(*n));
        before - self.objects.len()
    }

    pub(crate) fn warn(&mut self, w: String) {
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(w);
        } else if self.warnings.len() == MAX_WARNINGS {
            self.warnings.push("(further warnings suppressed)".into());
        }
    }
}

/// Finds `%PDF-x.y` in the first KiB.
fn header(buf: &[u8]) -> Result<(usize, String)> {
    if buf.is_empty() {
        return Err(Error::NotPdf("the file is empty".into()));
    }
    let head = &buf[..buf.len().min(1024)];
    let Some(p) = memchr::memmem::find(head, b"%PDF-") else {
        return Err(Error::NotPdf(format!(
            "no '%PDF-' header in the first {} bytes",
            head.len()
        )));
    };
    let v: String = buf[p + 5..]
        .iter()
        .take(8)
        .take_while(|b| b.is_ascii_digit() || **b == b'.')
        .map(|&b| char::from(b))
        .collect();
    Ok((p, if v.is_empty() { "1.0".into() } else { v }))
}

/// Walks every string in `obj` (not into streams' data), skipping the /Contents of
/// signature dictionaries, which are never encrypted.
pub(crate) fn for_strings(obj: &mut Object, f: &mut dyn FnMut(&mut Vec<u8>, &mut StrForm)) {
    match obj {
        Object::Str(s, form) => f(s, form),
        Object::Array(a) => {
            for o in a {
                for_strings(o, f);
            }
        }
        Object::Dict(d) => for_strings_dict(d, f),
        Object::Stream(s) => for_strings_dict(&mut s.dict, f),
        _ => {}
    }
}

pub(crate) fn for_strings_dict(d: &mut Dict, f: &mut dyn FnMut(&mut Vec<u8>, &mut StrForm)) {
    let sig = d.has_type(b"Sig") || d.has_type(b"DocTimeStamp");
    for (k, v) in &mut d.0 {
        if sig && k == b"Contents" {
            continue;
        }
        for_strings(v, f);
    }
}

/// Collects the streams referenced from /EF dictionaries (embedded files).
fn collect_ef(obj: &Object, out: &mut BTreeSet<u32>) {
    match obj {
        Object::Array(a) => a.iter().for_each(|o| collect_ef(o, out)),
        Object::Dict(d) => collect_ef_dict(d, out),
        // A stream's dictionary is walked where it is, not copied.
        Object::Stream(s) => collect_ef_dict(&s.dict, out),
        _ => {}
    }
}

fn collect_ef_dict(d: &Dict, out: &mut BTreeSet<u32>) {
    if let Some(Object::Dict(ef)) = d.get(b"EF") {
        for (_, v) in &ef.0 {
            if let Object::Ref(n, _) = v {
                out.insert(*n);
            }
        }
    }
    for (_, v) in &d.0 {
        if matches!(v, Object::Array(_) | Object::Dict(_)) {
            collect_ef(v, out);
        }
    }
}

/// How much of a document [`Pdf::load_reading`] decrypts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Read {
    /// Everything, every string and stream decrypted: a document to write.
    Whole,
    /// Only object streams decrypted (strings and other streams stay as they are):
    /// enough to count a file's pages and objects, which is all the read-back check of a
    /// file about to be written needs.
    Structure,
}

/// A set of object numbers, for walking a document's graph: a bitmap when the numbers are
/// dense enough (every file cipherlab writes, and nearly every other), else a hash set.
/// The walks of a 65,000-object file spent a third of `pdf encrypt`'s time in the B-tree
/// sets they used before (measured with a sampling profiler, docs/BENCHMARKS.md).
pub(crate) enum NumberSet {
    /// Bit `n` set: number `n` is in.
    Dense(Vec<u64>),
    /// Numbers far beyond the object count (a hostile or odd file).
    Sparse(std::collections::HashSet<u32>),
}

impl NumberSet {
    /// Largest number a bitmap is made for: 64 Mi numbers, 8 MiB.
    const DENSE_MAX: u32 = 1 << 26;

    /// A set for numbers up to `max` (the document's largest object number); numbers
    /// above it are taken too.
    pub(crate) fn for_numbers(max: Option<u32>) -> NumberSet {
        match max {
            Some(m) if m >= Self::DENSE_MAX => NumberSet::Sparse(Default::default()),
            m => NumberSet::Dense(vec![0; (m.unwrap_or(0) as usize >> 6) + 1]),
        }
    }

    /// Adds `n`; whether it was not there.
    pub(crate) fn insert(&mut self, n: u32) -> bool {
        match self {
            NumberSet::Dense(bits) => {
                let (w, b) = (n as usize >> 6, 1u64 << (n & 63));
                if w >= bits.len() {
                    if n >= Self::DENSE_MAX {
                        let mut s: std::collections::HashSet<u32> = (0..bits.len() * 64)
                            .filter(|&i| bits[i >> 6] & (1 << (i & 63)) != 0)
                            .map(|i| i as u32)
                            .collect();
                        let new = s.insert(n);
                        *self = NumberSet::Sparse(s);
                        return new;
                    }
                    bits.resize(w + 1, 0);
                }
                let new = bits[w] & b == 0;
                bits[w] |= b;
                new
            }
            NumberSet::Sparse(s) => s.insert(n),
        }
    }

    /// Whether `n` is in.
    pub(crate) fn contains(&self, n: u32) -> bool {
        match self {
            NumberSet::Dense(bits) => bits
                .get(n as usize >> 6)
                .is_some_and(|w| w & (1 << (n & 63)) != 0),
            NumberSet::Sparse(s) => s.contains(&n),
        }
    }
}

/// From this many objects, [`RefGraph::of`] gathers on two threads.
const PARALLEL_GRAPH: usize = 8192;

/// A document's references, flat: each object's in ascending order, each once. Walking
/// the graph of a 65,000-object document object by object, through its B-tree in the
/// order of the walk, was a sixth of `pdf encrypt`'s time (two walks: the census and
/// [`Document::drop_unreachable`]); gathered in one pass in the objects' order, the walk
/// is over these arrays.
pub(crate) struct RefGraph {
    /// The object numbers, ascending.
    nums: Vec<u32>,
    /// Object `nums[i]`'s references: `refs[ends[i - 1]..ends[i]]` (from 0 for the first).
    ends: Vec<usize>,
    refs: Vec<u32>,
}

impl RefGraph {
    pub(crate) fn of(doc: &Document) -> RefGraph {
        let objects = &doc.objects;
        let (Some(&first), Some(&last)) = (objects.keys().next(), objects.keys().next_back())
        else {
            return RefGraph::part(objects.range(..), 0);
        };
        if objects.len() < PARALLEL_GRAPH {
            return RefGraph::part(objects.range(..), objects.len());
        }
        // A large document: each half of the numbers gathered on its own core (the two
        // walks of a 65,000-object document gather 12% of `pdf encrypt`'s samples).
        let mid = first + (last - first) / 2;
        let (mut low, high) = crate::par::join(
            || RefGraph::part(objects.range(..mid), objects.len() / 2),
            || RefGraph::part(objects.range(mid..), objects.len() / 2),
        );
        low.append(high);
        low
    }

    /// The references of the objects `objects` (ascending numbers; about `n` of them).
    fn part(
        objects: std::collections::btree_map::Range<'_, u32, (u16, Object)>,
        n: usize,
    ) -> RefGraph {
        let mut g = RefGraph {
            nums: Vec::with_capacity(n),
            ends: Vec::with_capacity(n),
            refs: Vec::with_capacity(n * 4),
        };
        for (&n, (_, o)) in objects {
            let start = g.refs.len();
            collect_refs(o, &mut g.refs);
            g.refs[start..].sort_unstable();
            let mut end = start;
            for i in start..g.refs.len() {
                if end == start || g.refs[i] != g.refs[end - 1] {
                    g.refs[end] = g.refs[i];
                    end += 1;
                }
            }
            g.refs.truncate(end);
            g.nums.push(n);
            g.ends.push(end);
        }
        g
    }

    /// `other`, whose numbers all follow this graph's, added after them.
    fn append(&mut self, other: RefGraph) {
        let base = self.refs.len();
        self.nums.extend_from_slice(&other.nums);
        self.ends.extend(other.ends.iter().map(|e| e + base));
        self.refs.extend_from_slice(&other.refs);
    }

    /// Object `n`'s references (ascending, each once); `None` if it is not in the document.
    pub(crate) fn refs(&self, n: u32) -> Option<&[u32]> {
        let i = self.nums.binary_search(&n).ok()?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        Some(&self.refs[start..self.ends[i]])
    }
}

/// Collects every object number referenced in `obj`.
pub(crate) fn collect_refs(obj: &Object, out: &mut Vec<u32>) {
    match obj {
        Object::Ref(n, _) => out.push(*n),
        Object::Array(a) => refs_in(a.iter(), out),
        Object::Dict(d) => refs_in(d.0.iter().map(|(_, v)| v), out),
        // A stream's /Length is rewritten as a direct number, so a reference there is not a use.
        Object::Stream(s) => refs_in(
            s.dict
                .0
                .iter()
                .filter(|(k, _)| k != b"Length")
                .map(|(_, v)| v),
            out,
        ),
        _ => {}
    }
}

/// [`collect_refs`] of each of `items`, the scalars among them passed over here rather
/// than in a call each (the graph walks of a large document make millions).
fn refs_in<'o>(items: impl Iterator<Item = &'o Object>, out: &mut Vec<u32>) {
    for o in items {
        match o {
            Object::Ref(n, _) => out.push(*n),
            Object::Array(_) | Object::Dict(_) | Object::Stream(_) => collect_refs(o, out),
            _ => {}
        }
    }
}

/// Removes a /Crypt filter (and its parameters) from a stream dictionary; returns the
/// crypt filter's name (`Identity` when /Name is absent).
pub(crate) fn take_crypt_filter(d: &mut Dict) -> Option<String> {
    let chain = filters::filter_chain(d);
    let i = chain.iter().position(|(n, _)| n == b"Crypt")?;
    let name = chain[i]
        .1
        .as_ref()
        .and_then(|p| p.name(b"Name"))
        .map_or_else(
            || "Identity".to_string(),
            |n| String::from_utf8_lossy(n).into_owned(),
        );
    match d.get_mut(b"Filter") {
        Some(Object::Array(a)) => {
            if i < a.len() {
                a.remove(i);
            }
            if a.is_empty() {
                d.remove(b"Filter");
            }
        }
        _ => {
            d.remove(b"Filter");
        }
    }
    match d.get_mut(b"DecodeParms") {
        Some(Object::Array(a)) => {
            if i < a.len() {
                a.remove(i);
            }
            if a.is_empty() || a.iter().all(|o| matches!(o, Object::Null)) {
                d.remove(b"DecodeParms");
            }
        }
        Some(_) => {
            d.remove(b"DecodeParms");
        }
        None => {}
    }
    Some(name)
}

impl<'a> Pdf<'a> {
    /// Reads the header and the cross-reference data (rebuilding it if needed), with the
    /// default [`Limits`].
    pub fn parse(buf: &'a [u8]) -> Result<Pdf<'a>> {
        Pdf::parse_with(buf, Limits::default())
    }

    /// [`Pdf::parse`] with `limits`. The cross-reference data is read as written; if
    /// there is none to use, it is rebuilt by scanning the file. Whether what was read
    /// holds the whole document is judged when the document is loaded ([`Pdf::load`]).
    pub fn parse_with(buf: &'a [u8], limits: Limits) -> Result<Pdf<'a>> {
        limits.check()?;
        let (header_offset, version) = header(buf)?;
        let scan = OnceLock::new();
        let mut xref = match xref::as_written(buf, header_offset, &limits)? {
            Ok(x) => x,
            Err(why) => {
                let objs = scan.get_or_init(|| xref::scan_objects(buf));
                let mut x = xref::rebuild(buf, objs, why, &limits)?;
                x.notes.extend(xref::truncation_note(buf));
                x
            }
        };
        xref.cut_short = xref::cut_short(buf).or(xref.cut_short);
        Ok(Pdf {
            buf,
            version,
            header_offset,
            xref,
            limits,
            scan,
            endstreams: EndstreamCache::default(),
            misplaced: AtomicUsize::new(0),
        })
    }

    /// The file's bytes.
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.buf
    }

    /// Every `n g obj` of the file ([`xref::scan_objects`]), found once when first needed.
    pub(crate) fn scanned(&self) -> &BTreeMap<u32, (usize, u16)> {
        self.scan.get_or_init(|| xref::scan_objects(self.buf))
    }

    /// Parses the top-level object `num` at `offset`; if it is not there, looks for it by
    /// scanning. Indirect /Length values are resolved when they are top-level integers.
    pub(crate) fn object_at(&self, num: u32, offset: usize) -> Result<(ObjId, Object)> {
        self.object_in(&self.xref, num, offset, &self.endstreams)
    }

    /// [`Pdf::object_at`] in the reading `xref`, remembering `endstream` searches in
    /// `endstreams` (one per thread reading).
    fn object_in(
        &self,
        xref: &Xref,
        num: u32,
        offset: usize,
        endstreams: &EndstreamCache,
    ) -> Result<(ObjId, Object)> {
        let lengths = |id: ObjId| self.int_object(xref, id, endstreams);
        let cx = Context {
            lengths: &lengths,
            max_depth: self.limits.depth,
            endstreams: Some(endstreams),
        };
        let first = indirect_object_in(self.buf, offset, &cx);
        match first {
            Ok((id, o, _)) if id.0 == num => Ok((id, o)),
            Err(e @ Error::Limit(_)) => Err(e),
            other => {
                // The entry does not lead to its object: the data (or the object) is damaged.
                self.misplaced.fetch_add(1, Ordering::Relaxed);
                let e = match other {
                    Ok((id, _, _)) => Error::Damaged(format!(
                        "cross-reference entry of object {num} points at object {} (offset {offset})",
                        id.0
                    )),
                    Err(e) => e,
                };
                if let Some(&(off, _)) = self.scanned().get(&num)
                    && off != offset
                {
                    match indirect_object_in(self.buf, off, &cx) {
                        Ok((id, o, _)) if id.0 == num => return Ok((id, o)),
                        Err(e @ Error::Limit(_)) => return Err(e),
                        _ => {}
                    }
                }
                Err(e)
            }
        }
    }

    /// Object `id`'s value if it is a top-level integer (for indirect /Length).
    fn int_object(&self, xref: &Xref, id: ObjId, endstreams: &EndstreamCache) -> Option<i64> {
        let off = match xref.entries.get(&id.0) {
            Some(Entry::Offset { offset, .. }) => *offset,
            _ => self.scanned().get(&id.0)?.0,
        };
        let cx = Context {
            lengths: &|_| None,
            max_depth: self.limits.depth,
            endstreams: Some(endstreams),
        };
        match indirect_object_in(self.buf, off, &cx) {
            Ok((got, Object::Int(i), _)) if got.0 == id.0 => Some(i),
            _ => None,
        }
    }

    /// A top-level (uncompressed) object by reference, for the /Encrypt dictionary.
    pub fn top_object(&self, id: ObjId) -> Result<Object> {
        match self.xref.entries.get(&id.0) {
            Some(Entry::Offset { offset, .. }) => Ok(self.object_at(id.0, *offset)?.1),
            Some(Entry::Compressed { container, .. }) => Err(Error::Damaged(format!(
                "object {} {} is inside object stream {container}, which is not allowed for the \
                 /Encrypt dictionary and its values",
                id.0, id.1
            ))),
            _ => match self.scanned().get(&id.0) {
                Some(&(off, _)) => Ok(self.object_at(id.0, off)?.1),
                None => Err(Error::Damaged(format!(
                    "object {} {} is missing",
                    id.0, id.1
                ))),
            },
        }
    }

    /// Object `num` from the object stream the cross-reference data puts it in, that
    /// stream alone decrypted (with `handler`) and decoded.
    pub fn compressed_object(&self, num: u32, handler: Option<&Handler>) -> Result<Object> {
        let Some(&Entry::Compressed { container, index }) = self.xref.entries.get(&num) else {
            return Err(Error::Damaged(format!(
                "object {num} is not in an object stream"
            )));
        };
        let Some(&Entry::Offset { offset, .. }) = self.xref.entries.get(&container) else {
            return Err(Error::Damaged(format!(
                "object stream {container} is missing"
            )));
        };
        let (id, obj) = self.object_at(container, offset)?;
        let Object::Stream(mut s) = obj else {
            return Err(Error::Damaged(format!(
                "object stream {container} is not a stream"
            )));
        };
        if let Some(h) = handler {
            let cf = match take_crypt_filter(&mut s.dict) {
                Some(name) => h.enc.filter(&name),
                None => h.enc.filter(&h.enc.stmf),
            };
            h.decrypt_in_place(&cf, id, &mut s.data);
        }
        let mut values = self.limits.values;
        let members =
            parse_object_stream_with(&s.dict, &s.data, container, &self.limits, &mut values)?;
        members
            .get(index as usize)
            .filter(|(n, _)| *n == num)
            .or_else(|| members.iter().find(|(n, _)| *n == num))
            .map(|(_, o)| o.clone())
            .ok_or_else(|| {
                Error::Damaged(format!("object {num} is not in object stream {container}"))
            })
    }

    /// The /Encrypt dictionary, direct or indirect, with indirect values resolved;
    /// `None` if the file is not encrypted.
    pub fn encrypt_dict(&self) -> Result<Option<EncryptDict>> {
        let d = match self.xref.trailer.get(b"Encrypt") {
            None | Some(Object::Null) => return Ok(None),
            Some(Object::Dict(d)) => d.clone(),
            Some(Object::Ref(n, g)) => match self.top_object((*n, *g)) {
                Ok(Object::Dict(d)) => d,
                Ok(_) => {
                    return Err(Error::BadEncrypt(format!(
                        "trailer /Encrypt {n} {g} R is not a dictionary"
                    )));
                }
                Err(e) => {
                    return Err(Error::BadEncrypt(format!(
                        "trailer /Encrypt {n} {g} R cannot be read: {e}"
                    )));
                }
            },
            Some(_) => {
                return Err(Error::BadEncrypt(
                    "trailer /Encrypt is not a dictionary".into(),
                ));
            }
        };
        let resolve = |o: &Object| match o {
            Object::Ref(n, g) => self.top_object((*n, *g)).unwrap_or(Object::Null),
            other => other.clone(),
        };
        EncryptDict::parse(&d, &resolve).map(Some)
    }

    /// The first /ID string, if present.
    pub fn id0(&self) -> Option<Vec<u8>> {
        match self.xref.trailer.get(b"ID") {
            Some(Object::Array(a)) => a.first().and_then(|o| o.as_str()).map(<[u8]>::to_vec),
            _ => None,
        }
    }

    /// Authenticates: `password` as given, or the empty user password when `None`.
    /// `Ok(None)` if the file is not encrypted.
    pub fn authenticate(&self, password: Option<&str>) -> Result<Option<(Handler, Auth)>> {
        let Some(enc) = self.encrypt_dict()? else {
            return Ok(None);
        };
        let id0 = self.id0().unwrap_or_default();
        match Handler::authenticate(&enc, &id0, password.unwrap_or("")) {
            Ok(x) => Ok(Some(x)),
            Err(Error::WrongPassword(_)) if enc.r <= 4 && self.id0().is_none() => {
                Err(Error::Damaged(format!(
                    "the trailer has no /ID, and the file key of revision {} depends on it: no \
                     password opens this file unless its original /ID is restored",
                    enc.r
                )))
            }
            Err(Error::WrongPassword(_)) if password.is_none() => Err(Error::PasswordRequired),
            Err(e) => Err(e),
        }
    }

    /// Number of in-use objects in the cross-reference data, and how many of them are in
    /// object streams.
    pub fn object_counts(&self) -> (usize, usize) {
        let mut n = 0;
        let mut c = 0;
        for e in self.xref.entries.values() {
            match e {
                Entry::Offset { .. } => n += 1,
                Entry::Compressed { .. } => {
                    n += 1;
                    c += 1;
                }
                Entry::Free => {}
            }
        }
        (n, c)
    }

    /// Loads every object, decrypting with `handler` when the file is encrypted, from the
    /// reading of the cross-reference data that holds the whole document
    /// ([`crate::repair`]); a document that no reading holds whole is refused with
    /// [`Error::Incomplete`].
    pub fn load(&self, handler: Option<&Handler>) -> Result<Document> {
        crate::repair::load(self, handler).map(|(doc, _)| doc)
    }

    /// [`Pdf::load`], with the census of the document loaded (its pages and the objects
    /// it uses), which is what a written copy must match.
    pub fn load_whole(&self, handler: Option<&Handler>) -> Result<(Document, Census)> {
        crate::repair::load(self, handler)
    }

    /// Parses the top-level objects of `top` at their offsets in `xref` and decrypts their
    /// strings with `decrypt`, in contiguous chunks of about equal work on as many
    /// threads as it pays for ([`crate::par::chunks`], [`TopParse::weight`]), each thread
    /// with its own memory of `endstream` searches.
    fn parse_top(
        &self,
        xref: &Xref,
        top: &mut [TopParse],
        decrypt: Option<(&Handler, &CryptFilter)>,
    ) {
        let mut by_offset: Vec<usize> = (0..top.len()).collect();
        by_offset.sort_unstable_by_key(|&i| top[i].offset);
        for w in by_offset.windows(2) {
            top[w[0]].span = top[w[1]].offset - top[w[0]].offset;
        }
        if let Some(&last) = by_offset.last() {
            top[last].span = self.buf.len().saturating_sub(top[last].offset);
        }
        crate::par::chunks(top, TopParse::weight, |chunk| {
            let endstreams = EndstreamCache::default();
            for t in chunk {
                let mut parsed = self.object_in(xref, t.num, t.offset, &endstreams);
                if let (Ok((id, obj)), Some((h, cf))) = (&mut parsed, decrypt) {
                    let strings = &mut t.strings;
                    for_strings(obj, &mut |s, _| {
                        let w = h.decrypt_in_place(cf, *id, s);
                        strings.count += 1;
                        if w.is_some() {
                            strings.warning = w;
                        }
                    });
                }
                t.parsed = Some(parsed);
            }
        });
    }

    /// Loads every object of the reading `xref`. Objects that cannot be read are left out
    /// and listed; judging whether the document is whole is the caller's. With `fill`,
    /// object streams that the cross-reference data does not name are read too (a
    /// reading repaired by scanning). `read` says what is decrypted ([`Read`]).
    pub(crate) fn load_reading(
        &self,
        xref: &Xref,
        handler: Option<&Handler>,
        fill: Fill,
        read: Read,
    ) -> Result<Loaded> {
        let decrypt_all = read == Read::Whole;
        let encrypted = xref
            .trailer
            .get(b"Encrypt")
            .is_some_and(|o| !matches!(o, Object::Null));
        if encrypted && handler.is_none() {
            return Err(Error::PasswordRequired);
        }
        let encrypt_ref = match xref.trailer.get(b"Encrypt") {
            Some(Object::Ref(n, _)) => Some(*n),
            _ => None,
        };
        let misplaced_before = self.misplaced.load(Ordering::Relaxed);
        let mut doc = Document {
            version: self.version.clone(),
            trailer: Dict::new(),
            objects: BTreeMap::new(),
            compressed: BTreeSet::new(),
            had_object_streams: false,
            had_xref_stream: xref.xref_stream,
            linearized: false,
            warnings: xref.notes.clone(),
            in_the_clear: Vec::new(),
            strings_decrypted: 0,
            streams_decrypted: 0,
        };
        if let Some(why) = &xref.rebuilt {
            doc.warn(format!("cross-reference table rebuilt by scanning: {why}"));
        }
        for w in &xref.ignored {
            doc.warn(format!("cross-reference data left out: {w}"));
        }
        if let (Some(h), None) = (handler, self.id0())
            && h.enc.r <= 4
        {
            doc.warn("the trailer has no /ID; the empty string was used as the file ID".into());
        }
        let enc = handler.map(|h| &h.enc);
        let strf = enc.map(|e| e.filter(&e.strf)).filter(|_| decrypt_all);

        // 1. Top-level objects, strings decrypted.
        let mut first_offset: Option<(usize, u32)> = None;
        // Sized once for the top-level objects: grown entry by entry, the two maps were
        // rehashed a dozen times.
        let tops = xref
            .entries
            .values()
            .filter(|e| matches!(e, Entry::Offset { .. }))
            .count();
        let mut offsets: HashMap<usize, u32> = HashMap::with_capacity(tops);
        // Where each object was defined: its offset, or its object stream's.
        let mut defined_at: HashMap<u32, usize> = HashMap::with_capacity(tops);
        let mut containers: BTreeSet<u32> = BTreeSet::new();
        let mut compressed: Vec<(u32, u32, u32)> = Vec::new();
        let mut lost: BTreeMap<u32, String> = BTreeMap::new();
        let mut top: Vec<TopParse> = Vec::with_capacity(tops);
        for (&num, e) in &xref.entries {
            // Object 0 is the head of the free list, never an object (a file that defines
            // one would have us write it into an object stream the xref cannot point to).
            if num == 0 {
                continue;
            }
            match *e {
                Entry::Offset { offset, .. } => {
                    if xref.xref_stream_objects.contains(&num) || Some(num) == encrypt_ref {
                        continue;
                    }
                    top.push(TopParse {
                        num,
                        offset,
                        span: 0,
                        parsed: None,
                        strings: Strings::default(),
                    });
                }
                Entry::Compressed { container, index } => {
                    containers.insert(container);
                    compressed.push((num, container, index));
                }
                Entry::Free => {}
            }
        }
        self.parse_top(xref, &mut top, handler.zip(strf.as_ref()));
        for TopParse {
            num,
            offset,
            parsed,
            strings,
            ..
        } in top
        {
            let parsed = parsed.unwrap_or_else(|| Err(Error::Damaged("not read".into())));
            match parsed {
                Ok((id, obj)) => {
                    if matches!(&obj, Object::Stream(s) if s.dict.has_type(b"XRef")) {
                        continue;
                    }
                    if first_offset.is_none_or(|(o, _)| offset < o) {
                        first_offset = Some((offset, num));
                    }
                    offsets.insert(offset, num);
                    defined_at.insert(num, offset);
                    doc.strings_decrypted += strings.count;
                    if let Some(w) = strings.warning {
                        doc.warn(format!("object {} {}: a string: {w}", id.0, id.1));
                    }
                    doc.objects.insert(num, (id.1, obj));
                }
                Err(e @ Error::Limit(_)) => return Err(e),
                Err(e) => {
                    doc.warn(format!("object {num} unreadable, left out: {e}"));
                    lost.insert(num, e.to_string());
                }
            }
        }
        if fill != Fill::None {
            for (&n, (_, o)) in &doc.objects {
                if matches!(o, Object::Stream(s) if s.dict.has_type(b"ObjStm")) {
                    containers.insert(n);
                }
            }
        }

        // 2. Object streams: decrypt, decode, parse.
        let mut members: HashMap<u32, Vec<(u32, Object)>> = HashMap::new();
        for (c, parsed) in parse_containers(&doc, &containers, handler, &self.limits) {
            let Some(Parsed {
                clear,
                warning,
                members: result,
            }) = parsed
            else {
                doc.warn(format!(
                    "object stream {c} is missing or not a stream; its objects are lost"
                ));
                lost.entry(c)
                    .or_insert_with(|| "missing or not a stream".into());
                continue;
            };
            if let Some(w) = warning {
                doc.warn(format!("object stream {c}: {w}"));
            }
            match result {
                Ok(m) => {
                    if clear {
                        doc.in_the_clear.extend(m.iter().map(|(n, _)| (*n, 0)));
                    }
                    members.insert(c, m);
                }
                Err(e @ Error::Limit(_)) => return Err(e),
                Err(e) => {
                    doc.warn(format!(
                        "object stream {c} unreadable, its objects are lost: {e}"
                    ));
                    lost.insert(c, e.to_string());
                }
            }
        }
        doc.had_object_streams = !members.is_empty();
        // Without a scan to fill from, nothing reads the members again: each is moved out
        // rather than copied (cloning and then dropping 65,000 objects was a fifth of
        // reading a large file).
        let move_out = fill == Fill::None;
        for (num, c, index) in compressed {
            let Some(m) = members.get_mut(&c) else {
                continue;
            };
            let at = Some(index as usize)
                .filter(|&i| m.get(i).is_some_and(|(n, _)| *n == num))
                .or_else(|| m.iter().position(|(n, _)| *n == num));
            match at {
                Some(i) => {
                    let o = if move_out {
                        std::mem::replace(&mut m[i].1, Object::Null)
                    } else {
                        m[i].1.clone()
                    };
                    doc.objects.insert(num, (0, o));
                    doc.compressed.insert(num);
                }
                None => {
                    let why = match lost.get(&c) {
                        Some(e) => format!("its object stream {c} is unreadable ({e})"),
                        None => format!(
                            "it is not in object stream {c} as the cross-reference data says"
                        ),
                    };
                    doc.warn(format!("object {num} left out: {why}"));
                    lost.insert(num, why);
                }
            }
        }
        if fill != Fill::None {
            // Object streams found by scanning: in file order, so that a later definition
            // (an incremental update) replaces an earlier one.
            let mut found: Vec<(usize, u32)> = members
                .keys()
                .filter_map(|c| defined_at.get(c).map(|&o| (o, *c)))
                .collect();
            found.sort_unstable();
            for (at, c) in found {
                for (n, o) in &members[&c] {
                    let take = *n != 0
                        && match fill {
                            Fill::Absent => match xref.entries.get(n) {
                                None => true,
                                Some(Entry::Free) => xref.damaged_entries.contains(n),
                                Some(_) => false,
                            },
                            Fill::Later => defined_at.get(n).is_none_or(|&d| d < at),
                            Fill::None => false,
                        };
                    if take {
                        doc.objects.insert(*n, (0, o.clone()));
                        doc.compressed.insert(*n);
                        defined_at.insert(*n, at);
                        lost.remove(n);
                    }
                }
            }
        }
        for c in members.keys() {
            doc.objects.remove(c);
        }
        if doc.objects.len() > self.limits.objects {
            return Err(exceeded(
                Which::Objects,
                format_args!(
                    "the document has {} objects, beyond the limit of {}",
                    doc.objects.len(),
                    self.limits.objects
                ),
            ));
        }

        // 3. Streams: each with its crypt filter.
        if let Some(h) = handler.filter(|_| decrypt_all) {
            let e = &h.enc;
            // The streams /EF names need finding only where their filter can differ from
            // what they would get anyway (/EFF not /StmF, or metadata left in the clear):
            // the walk over every object was a twentieth of decrypting a large file.
            let mut ef = BTreeSet::new();
            if e.eff != e.stmf || (!e.encrypt_metadata && e.r >= 4) {
                for (_, o) in doc.objects.values() {
                    collect_ef(o, &mut ef);
                }
            }
            let mut warns = Vec::new();
            let mut count = 0;
            for (&num, (g, o)) in &mut doc.objects {
                let Object::Stream(s) = o else { continue };
                let cf: CryptFilter = if let Some(name) = take_crypt_filter(&mut s.dict) {
                    let cf = e.filter(&name);
                    if cf.cfm == Cfm::Identity {
                        doc.in_the_clear.push((num, *g));
                    }
                    cf
                } else if ef.contains(&num) || s.dict.has_type(b"EmbeddedFile") {
                    e.filter(&e.eff)
                } else if s.dict.has_type(b"Metadata") && !e.encrypt_metadata && e.r >= 4 {
                    e.filter("Identity")
                } else {
                    e.filter(&e.stmf)
                };
                let w = h.decrypt_in_place(&cf, (num, *g), &mut s.data);
                count += 1;
                if let Some(w) = w {
                    warns.push(format!("stream {num} {g}: {w}"));
                }
            }
            doc.streams_decrypted = count;
            doc.in_the_clear.sort_unstable();
            for w in warns {
                doc.warn(w);
            }
        }
        for (_, o) in doc.objects.values_mut() {
            if let Object::Stream(s) = o {
                s.dict.set(b"Length", Object::Int(s.data.len() as i64));
            }
        }

        // 4. Linearization data is stale once the file is rewritten: drop it.
        if let Some((_, n)) = first_offset
            && let Some((_, Object::Dict(d))) = doc.objects.get(&n)
            && d.get(b"Linearized").is_some()
        {
            let hint = match d.get(b"H") {
                Some(Object::Array(a)) => a.first().and_then(Object::as_int),
                _ => None,
            };
            doc.objects.remove(&n);
            if let Some(h) = hint.and_then(|h| usize::try_from(h).ok())
                && let Some(hn) = offsets
                    .get(&h)
                    .or_else(|| offsets.get(&(h + self.header_offset)))
                && matches!(doc.objects.get(hn), Some((_, Object::Stream(_))))
            {
                doc.objects.remove(hn);
            }
            doc.linearized = true;
        }

        // 5. The trailer.
        for k in [&b"Root"[..], b"Info", b"ID"] {
            if let Some(v) = xref.trailer.get(k) {
                doc.trailer.set(k, v.clone());
            }
        }
        // The catalog: a dictionary of /Type /Catalog, or at least one with a page tree.
        let is_catalog = |o: &Object| {
            o.dict()
                .is_some_and(|d| d.has_type(b"Catalog") || d.get(b"Pages").is_some())
        };
        let mut catalog = matches!(doc.trailer.get(b"Root"), Some(Object::Ref(n, _))
            if doc.objects.get(n).is_some_and(|(_, o)| is_catalog(o)));
        if !catalog {
            let cat = doc
                .objects
                .iter()
                .find(|(_, (_, o))| o.dict().is_some_and(|d| d.has_type(b"Catalog")))
                .map(|(&n, (g, _))| (n, *g));
            if let Some((n, g)) = cat {
                doc.trailer.set(b"Root", Object::Ref(n, g));
                doc.warn(format!(
                    "the trailer's /Root is missing or broken; using the catalog {n} {g}"
                ));
                catalog = true;
            }
        }
        let mut seen = NumberSet::for_numbers(xref.entries.keys().next_back().copied());
        for (n, _) in members.values().flatten() {
            seen.insert(*n);
        }
        let members = seen;
        let misplaced = self.misplaced.load(Ordering::Relaxed) - misplaced_before;
        if misplaced > 0 {
            doc.warn(format!(
                "{misplaced} cross-reference entr{} did not lead to {} object; looked for by \
                 scanning the file",
                if misplaced == 1 { "y" } else { "ies" },
                if misplaced == 1 { "its" } else { "their" }
            ));
        }
        Ok(Loaded {
            doc,
            lost,
            catalog,
            members,
            misplaced,
        })
    }
}

/// One object stream of [`parse_containers`], read.
struct Parsed {
    /// It was stored in the clear (the Identity crypt filter).
    clear: bool,
    /// What decrypting it warned of.
    warning: Option<String>,
    /// Its members in order, or why they are lost.
    members: Result<Vec<(u32, Object)>>,
}

/// Object stream `c` (`s`, generation `g`) decrypted with `handler`, if any, decoded and
/// parsed, within `values_left` (what it used is taken from it).
fn parse_container(
    c: u32,
    g: u16,
    s: &crate::object::Stream,
    handler: Option<&Handler>,
    limits: &Limits,
    values_left: &mut usize,
) -> Parsed {
    let Some(h) = handler else {
        // Not encrypted: parsed where it is, without a copy.
        return Parsed {
            clear: false,
            warning: None,
            members: parse_object_stream_with(&s.dict, &s.data, c, limits, values_left),
        };
    };
    let mut s = s.clone();
    let (clear, warning) = decrypt_object_stream(h, (c, g), &mut s);
    Parsed {
        clear,
        warning,
        members: parse_object_stream_with(&s.dict, &s.data, c, limits, values_left),
    }
}

/// The object streams `containers` of `doc` read ([`parse_container`]), in order; `None`
/// for one that is missing or not a stream. The reading is split over the cores
/// ([`crate::par::chunks`]) with the /Values budget of `limits` shared; if the streams
/// together use more than it, or one stream hits a limit, they are read again one after
/// the other, as a single thread would, so that the same error is given for the same
/// stream (and the reading stops at the first limit, as that error ends the load).
fn parse_containers(
    doc: &Document,
    containers: &BTreeSet<u32>,
    handler: Option<&Handler>,
    limits: &Limits,
) -> Vec<(u32, Option<Parsed>)> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
    type Slot<'d> = (
        u32,
        Option<(u16, &'d crate::object::Stream)>,
        Option<Parsed>,
    );
    let mut items: Vec<Slot<'_>> = containers
        .iter()
        .map(|&c| match doc.objects.get(&c) {
            Some((g, Object::Stream(s))) => (c, Some((*g, &**s)), None),
            _ => (c, None, None),
        })
        .collect();
    let budget = limits.values;
    let left = AtomicUsize::new(budget);
    let used = AtomicUsize::new(0);
    let over = AtomicBool::new(false);
    crate::par::chunks(
        &mut items,
        |it| it.1.map_or(0, |(_, s)| s.data.len()),
        |chunk| {
            for (c, s, out) in chunk.iter_mut() {
                let Some((g, s)) = *s else { continue };
                if over.load(Relaxed) {
                    return;
                }
                let start = left.load(Relaxed);
                let mut v = start;
                let p = parse_container(*c, g, s, handler, limits, &mut v);
                let u = start - v;
                if matches!(p.members, Err(Error::Limit(_)))
                    || used.fetch_add(u, Relaxed).saturating_add(u) > budget
                {
                    over.store(true, Relaxed);
                }
                let _ = left.fetch_update(Relaxed, Relaxed, |l| Some(l.saturating_sub(u)));
                *out = Some(p);
            }
        },
    );
    if over.into_inner() {
        // As one thread would: in order, the budget counted down, up to the first limit.
        let mut values_left = budget;
        let mut out = Vec::with_capacity(items.len());
        for (c, s, _) in items {
            let Some((g, s)) = s else {
                out.push((c, None));
                continue;
            };
            let p = parse_container(c, g, s, handler, limits, &mut values_left);
            let stop = matches!(p.members, Err(Error::Limit(_)));
            out.push((c, Some(p)));
            if stop {
                break;
            }
        }
        return out;
    }
    items.into_iter().map(|(c, _, p)| (c, p)).collect()
}

/// Decrypts object stream `id` (`s`) with `h`: with the crypt filter it names (which is
/// removed), else the document's /StmF. Whether it was stored in the clear (the Identity
/// filter), and what decrypting it warns of.
pub(crate) fn decrypt_object_stream(
    h: &Handler,
    id: ObjId,
    s: &mut crate::object::Stream,
) -> (bool, Option<String>) {
    let (cf, clear) = match take_crypt_filter(&mut s.dict) {
        Some(name) => {
            let cf = h.enc.filter(&name);
            let clear = cf.cfm == Cfm::Identity;
            (cf, clear)
        }
        None => (h.enc.filter(&h.enc.stmf), false),
    };
    let w = h.decrypt_in_place(&cf, id, &mut s.data);
    (clear, w)
}

/// Parses a decoded (and decrypted) object stream: its members in order, with the
/// default [`Limits`].
pub(crate) fn parse_object_stream(
    dict: &Dict,
    data: &[u8],
    num: u32,
) -> Result<Vec<(u32, Object)>> {
    let limits = Limits::default();
    let mut values = limits.values;
    parse_object_stream_with(dict, data, num, &limits, &mut values)
}

/// [`parse_object_stream`] within `limits`; `values_left` is what the document may still
/// parse out of object streams ([`Limits::values`]), and what this one used is taken
/// from it.
pub(crate) fn parse_object_stream_with(
    dict: &Dict,
    data: &[u8],
    num: u32,
    limits: &Limits,
    values_left: &mut usize,
) -> Result<Vec<(u32, Object)>> {
    let members = ObjectStream::open(dict, data, num, limits)?;
    let mut out = Vec::with_capacity(members.at.len());
    let mut lx = Lexer::with_depth(&members.decoded, 0, limits.depth);
    lx.limit_values(*values_left);
    for &(on, pos) in &members.at {
        lx.pos = pos;
        match lx.object(0) {
            Ok(o) => out.push((on, o)),
            Err(e @ Error::Limit(_)) => return Err(e),
            Err(e) => return Err(members.damaged(on, e)),
        }
    }
    *values_left = lx.values_left();
    Ok(out)
}

/// An object stream decoded, and where its members are.
pub(crate) struct ObjectStream {
    /// The decoded data.
    pub(crate) decoded: Vec<u8>,
    /// Each member's number and where it starts in `decoded`, in order (a member whose
    /// offset is past the data is left out).
    pub(crate) at: Vec<(u32, usize)>,
    num: u32,
}

impl ObjectStream {
    /// Decodes object stream `num` (its dictionary and decrypted data) within `limits`
    /// and reads the numbers and offsets of its members.
    pub(crate) fn open(dict: &Dict, data: &[u8], num: u32, limits: &Limits) -> Result<Self> {
        let what = format!("object stream {num}");
        let decoded = filters::decode_capped(dict, data, &what, limits.stream_bytes)?;
        let n = dict.int(b"N").unwrap_or(0);
        let first = dict.int(b"First").unwrap_or(0);
        let (Ok(n), Ok(first)) = (usize::try_from(n), usize::try_from(first)) else {
            return Err(Error::Damaged(format!("{what}: negative /N or /First")));
        };
        if first > decoded.len() {
            return Err(Error::Damaged(format!(
                "{what}: /First {first} is past its decoded data ({} bytes)",
                decoded.len()
            )));
        }
        if n > limits.objects {
            return Err(exceeded(
                Which::Objects,
                format_args!("{what} says it holds {n} objects (/N)"),
            ));
        }
        let mut lx = Lexer::new(&decoded[..first], 0);
        let mut at = Vec::with_capacity(n.min(first / 4 + 1));
        for _ in 0..n {
            let (Some(on), Some(off)) = (lx.uint(), lx.uint()) else {
                break;
            };
            let (Ok(on), Ok(off)) = (u32::try_from(on), usize::try_from(off)) else {
                break;
            };
            if let Some(pos) = first.checked_add(off).filter(|&p| p < decoded.len()) {
                at.push((on, pos));
            }
        }
        Ok(ObjectStream { decoded, at, num })
    }

    /// The error for member `on` that does not parse (`e`): the object stream is damaged.
    pub(crate) fn damaged(&self, on: u32, e: Error) -> Error {
        Error::Damaged(format!("object stream {}, object {on}: {e}", self.num))
    }
}

#[cfg(test)]
mod tests {
    use super::{NumberSet, RefGraph};
    use crate::object::{Dict, Object};

    #[test]
    fn ref_graph_in_two_halves_is_the_whole() {
        let mut objects = std::collections::BTreeMap::new();
        for n in (1..20_000u32).filter(|n| n % 7 != 3) {
            let mut d = Dict::new();
            d.set(b"A", Object::Ref(n * 3 % 20_011, 0));
            d.set(
                b"K",
                Object::Array(vec![
                    Object::Ref(n / 2, 0),
                    Object::Int(1),
                    Object::Ref(n / 2, 0),
                ]),
            );
            objects.insert(n, (0u16, Object::Dict(d)));
        }
        let whole = RefGraph::part(objects.range(..), 0);
        for mid in [0, 1, 5000, 9999, 19_999, 30_000] {
            let mut low = RefGraph::part(objects.range(..mid), 0);
            low.append(RefGraph::part(objects.range(mid..), 0));
            assert_eq!(low.nums, whole.nums, "{mid}");
            assert_eq!(low.ends, whole.ends, "{mid}");
            assert_eq!(low.refs, whole.refs, "{mid}");
            for n in [1, 3, 4, 10_000, 19_999, 20_000] {
                assert_eq!(low.refs(n), whole.refs(n), "{mid} {n}");
            }
        }
        assert_eq!(whole.refs(2), Some(&[1, 6][..]));
    }

    #[test]
    fn number_sets_dense_growing_and_sparse() {
        for max in [None, Some(10), Some(NumberSet::DENSE_MAX + 5)] {
            let mut s = NumberSet::for_numbers(max);
            for n in [0, 63, 64, 1000, 70_000, u32::MAX, 5] {
                assert!(!s.contains(n), "{n} {max:?}");
                assert!(s.insert(n), "{n} {max:?}");
                assert!(!s.insert(n), "{n} {max:?}");
                assert!(s.contains(n), "{n} {max:?}");
            }
            for n in [6, 65, 999, u32::MAX - 1] {
                assert!(!s.contains(n), "{n} {max:?}");
            }
        }
    }
}
