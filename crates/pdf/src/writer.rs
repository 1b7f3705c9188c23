//! Writing a [`Document`] as a new, complete file (not an incremental update), in two
//! steps that encryption sits between:
//!
//! 1. [`pack`] decides the layout: when the input had object streams, every object that
//!    may live in one (not a stream, generation 0) goes into Flate-compressed object
//!    streams of up to [`OBJECTS_PER_STREAM`] objects. The result, a [`Packed`] file, holds
//!    the top-level objects (object streams among them, as ordinary streams) and where each
//!    compressed object is.
//! 2. [`serialize`] writes the top-level objects in order and the cross-reference data: a
//!    compressed cross-reference stream when the input had one or had object streams, a
//!    classic `xref` table otherwise.
//!
//! Between the two, an encryptor sees exactly what the file will hold: an object stream is
//! one stream, encrypted as a whole (ISO 32000-2 §7.5.7), its member objects' strings are
//! not encrypted on their own, and the cross-reference stream does not exist yet, so it is
//! never encrypted (§7.5.8.2). Stream data is written as given (still in its own filters),
//! so the output is about the size of the input.

use std::io::Write as _;

use crate::document::Document;
use crate::filters;
use crate::object::{Dict, ObjId, Object, write_dict, write_int, write_name, write_object};

/// Objects per object stream (as qpdf).
pub const OBJECTS_PER_STREAM: usize = 100;

/// How to lay out the file.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// Pack non-stream objects into object streams.
    pub object_streams: bool,
    /// Write a cross-reference stream instead of a table.
    pub xref_stream: bool,
}

impl Layout {
    /// The layout that keeps what the input had.
    pub fn like_input(doc: &Document) -> Layout {
        Layout {
            object_streams: doc.had_object_streams,
            xref_stream: doc.had_xref_stream || doc.had_object_streams,
        }
    }
}

/// A top-level object of a [`Packed`] file.
#[derive(Clone, Debug)]
pub struct TopObject {
    /// Object number.
    pub num: u32,
    /// Generation.
    pub gen_: u16,
    /// The object (an object stream made by [`pack`] is a [`Object::Stream`] with
    /// `/Type /ObjStm`).
    pub obj: Object,
    /// Whether [`pack`] made this object stream.
    pub object_stream: bool,
}

impl TopObject {
    /// `(num, gen)`.
    pub fn id(&self) -> ObjId {
        (self.num, self.gen_)
    }

    /// The work this object is for an encryptor or decryptor ([`crate::par::chunks`]):
    /// its stream data, or a little for the rest.
    pub fn weight(&self) -> usize {
        match &self.obj {
            Object::Stream(s) => s.data.len() + 64,
            _ => 64,
        }
    }
}

/// A file laid out and ready to serialise.
#[derive(Clone, Debug)]
pub struct Packed {
    /// Header version.
    pub version: String,
    /// Trailer entries (/Root, /Info, /ID, /Encrypt); /Size is computed.
    pub trailer: Dict,
    /// Top-level objects in file order.
    pub objects: Vec<TopObject>,
    /// Objects inside object streams: `(number, object stream number, index)`.
    pub compressed: Vec<(u32, u32, u32)>,
    /// Write a cross-reference stream (else a table).
    pub xref_stream: bool,
    next: u32,
}

impl Packed {
    /// Appends a top-level object with a fresh number (generation 0) and returns its id.
    pub fn add(&mut self, obj: Object) -> ObjId {
        let num = self.next;
        self.next += 1;
        self.objects.push(TopObject {
            num,
            gen_: 0,
            obj,
            object_stream: false,
        });
        (num, 0)
    }

    /// Number of objects in the file (top-level and compressed).
    pub fn object_count(&self) -> usize {
        self.objects.len() + self.compressed.len()
    }

    /// Whether the file has object streams.
    pub fn has_object_streams(&self) -> bool {
        !self.compressed.is_empty()
    }
}

fn version_at_least(v: &str, min: &str) -> bool {
    version_key(v) >= version_key(min)
}

/// `"1.7"` as `(1, 7)` for comparisons (unparsable parts count as 0).
pub fn version_key(v: &str) -> (u32, u32) {
    let mut it = v.split('.').map(|x| x.parse::<u32>().unwrap_or(0));
    (it.next().unwrap_or(0), it.next().unwrap_or(0))
}

/// Object numbers far beyond the object count -- a hostile file numbering an object
/// 4,000,000,000 -- would make the cross-reference data that large (found by fuzzing: an
/// allocation of 50 GB). Such a document is renumbered densely, in its order, references
/// rewritten (a reference to no object, or to another generation, becomes `null`, which
/// is what it meant). Returns whether it was.
pub fn renumber_if_sparse(doc: &mut Document) -> bool {
    let count = doc.objects.len();
    let max = doc.objects.keys().next_back().copied().unwrap_or(0) as usize;
    if max < 2 * count + 1024 {
        return false;
    }
    let map: std::collections::HashMap<u32, (u32, u16)> = doc
        .objects
        .iter()
        .enumerate()
        .map(|(i, (&n, (g, _)))| (n, (i as u32 + 1, *g)))
        .collect();
    fn fix(o: &mut Object, map: &std::collections::HashMap<u32, (u32, u16)>) {
        match o {
            Object::Ref(n, g) => match map.get(n) {
                Some(&(new, og)) if og == *g => *n = new,
                _ => *o = Object::Null,
            },
            Object::Array(a) => a.iter_mut().for_each(|x| fix(x, map)),
            Object::Dict(d) => d.0.iter_mut().for_each(|(_, x)| fix(x, map)),
            Object::Stream(s) => s.dict.0.iter_mut().for_each(|(_, x)| fix(x, map)),
            _ => {}
        }
    }
    let old = std::mem::take(&mut doc.objects);
    for (n, (g, mut o)) in old {
        fix(&mut o, &map);
        if let Some(&(new, _)) = map.get(&n) {
            doc.objects.insert(new, (g, o));
        }
    }
    doc.compressed = doc
        .compressed
        .iter()
        .filter_map(|n| map.get(n).map(|m| m.0))
        .collect();
    for (_, v) in &mut doc.trailer.0 {
        fix(v, &map);
    }
    true
}

/// About how many bytes of work (serialising and compressing) an object stream member
/// is, for [`crate::par::chunks`]: a member of a page tree serialises to 60-100 bytes.
const MEMBER_WEIGHT: usize = 80;

/// Lays `doc` out with `layout` (see the module documentation).
pub fn pack(mut doc: Document, layout: Layout) -> Packed {
    renumber_if_sparse(&mut doc);
    let max_num = doc.objects.keys().next_back().copied().unwrap_or(0);
    let mut version = doc.version;
    if (layout.object_streams || layout.xref_stream) && !version_at_least(&version, "1.5") {
        version = "1.5".into();
    }
    let mut objects = Vec::with_capacity(doc.objects.len());
    let mut members: Vec<(u32, Object)> = Vec::new();
    for (num, (gen_, obj)) in doc.objects {
        if num == 0 {
            continue; // the head of the free list; the loader never yields it
        }
        if layout.object_streams && gen_ == 0 && !matches!(obj, Object::Stream(_)) {
            members.push((num, obj));
        } else {
            objects.push(TopObject {
                num,
                gen_,
                obj,
                object_stream: false,
            });
        }
    }
    let mut next = max_num + 1;
    let mut compressed = Vec::with_capacity(members.len());
    // Each object stream's members serialised, then compressed, on several threads when
    // there is much to do; each member is freed where it was serialised.
    type Body<'m> = (u32, &'m mut [(u32, Object)], usize, Vec<u8>);
    let mut bodies: Vec<Body<'_>> = Vec::new();
    for chunk in members.chunks_mut(OBJECTS_PER_STREAM) {
        let stm = next;
        next += 1;
        for (i, (num, _)) in chunk.iter().enumerate() {
            compressed.push((*num, stm, i as u32));
        }
        bodies.push((stm, chunk, 0, Vec::new()));
    }
    crate::par::chunks(
        &mut bodies,
        |b| b.1.len() * MEMBER_WEIGHT,
        |part| {
            for (_, chunk, first, data) in part {
                let mut head = Vec::new();
                let mut body = Vec::new();
                for (num, o) in chunk.iter_mut() {
                    let _ = write!(head, "{num} {} ", body.len());
                    write_object(&mut body, o);
                    body.push(b'\n');
                    *o = Object::Null;
                }
                *first = head.len();
                head.extend_from_slice(&body);
                *data = filters::deflate(&head);
            }
        },
    );
    let bodies: Vec<(u32, usize, usize, Vec<u8>)> = bodies
        .into_iter()
        .map(|(stm, chunk, first, data)| (stm, chunk.len(), first, data))
        .collect();
    for (stm, n, first, data) in bodies {
        let mut d = Dict::new();
        d.set(b"Type", Object::name(b"ObjStm"));
        d.set(b"N", Object::Int(n as i64));
        d.set(b"First", Object::Int(first as i64));
        d.set(b"Filter", Object::name(b"FlateDecode"));
        objects.push(TopObject {
            num: stm,
            gen_: 0,
            obj: Object::Stream(Box::new(crate::object::Stream { dict: d, data })),
            object_stream: true,
        });
    }
    Packed {
        version,
        trailer: doc.trailer,
        objects,
        compressed,
        xref_stream: layout.xref_stream,
        next,
    }
}

/// `num gen obj` and a line end.
fn object_header(out: &mut Vec<u8>, num: u32, gen_: u16) {
    write_int(out, num);
    out.push(b' ');
    write_int(out, gen_);
    out.extend_from_slice(b" obj\n");
}

/// Writes a stream object; `/Length` is the data's length whatever the dictionary says.
fn write_stream_object(out: &mut Vec<u8>, num: u32, gen_: u16, dict: &Dict, data: &[u8]) {
    object_header(out, num, gen_);
    out.extend_from_slice(b"<<");
    for (k, v) in dict.0.iter().filter(|(k, _)| k != b"Length") {
        write_name(out, k);
        write_object(out, v);
    }
    out.extend_from_slice(b"/Length ");
    write_int(out, data.len());
    out.extend_from_slice(b">>");
    out.extend_from_slice(b"stream\n");
    out.extend_from_slice(data);
    out.extend_from_slice(b"\nendstream\nendobj\n");
}

enum Slot {
    Free,
    At(usize, u16),
    In(u32, u32),
}

/// Serialises a [`Packed`] file.
pub fn serialize(p: &Packed) -> Vec<u8> {
    // Room for the whole file, so that the buffer is never copied to grow (a copy of a
    // large file's bytes, and as many fresh pages again): an object other than a stream
    // takes 60-200 bytes, a cross-reference entry 20. Reserving too much costs only
    // address space: pages never written are never mapped.
    let total: usize = p
        .objects
        .iter()
        .map(|t| match &t.obj {
            Object::Stream(s) => s.data.len() + 160,
            _ => 192,
        })
        .sum();
    let entries = p.objects.len() + p.compressed.len();
    let mut out = Vec::with_capacity(total + 20 * entries + 1024);
    let _ = writeln!(out, "%PDF-{}", p.version);
    out.extend_from_slice(b"%\xe2\xe3\xcf\xd3\n");

    let mut slots: Vec<Slot> = Vec::new();
    let set = |slots: &mut Vec<Slot>, n: u32, s: Slot| {
        let n = n as usize;
        if slots.len() <= n {
            slots.resize_with(n + 1, || Slot::Free);
        }
        slots[n] = s;
    };
    for t in &p.objects {
        set(&mut slots, t.num, Slot::At(out.len(), t.gen_));
        match &t.obj {
            Object::Stream(s) => write_stream_object(&mut out, t.num, t.gen_, &s.dict, &s.data),
            o => {
                object_header(&mut out, t.num, t.gen_);
                write_object(&mut out, o);
                out.extend_from_slice(b"\nendobj\n");
            }
        }
    }
    for &(num, stm, i) in &p.compressed {
        set(&mut slots, num, Slot::In(stm, i));
    }

    let mut trailer = p.trailer.clone();
    trailer.remove(b"Size");
    if p.xref_stream {
        let xnum = (slots.len() as u32).max(p.next);
        let xoff = out.len();
        set(&mut slots, xnum, Slot::At(xoff, 0));
        let size = slots.len();
        let max_field = slots
            .iter()
            .map(|s| match s {
                Slot::Free => 0,
                Slot::At(o, _) => *o as u64,
                Slot::In(c, _) => u64::from(*c),
            })
            .max()
            .unwrap_or(0);
        let w1 = ((64 - max_field.leading_zeros()).div_ceil(8)).max(1) as usize;
        let mut data = Vec::with_capacity(size * (w1 + 3));
        for s in &slots {
            let (t, a, b): (u8, u64, u16) = match s {
                Slot::Free => (0, 0, 0),
                Slot::At(o, g) => (1, *o as u64, *g),
                Slot::In(c, i) => (2, u64::from(*c), *i as u16),
            };
            data.push(t);
            data.extend_from_slice(&a.to_be_bytes()[8 - w1..]);
            data.extend_from_slice(&b.to_be_bytes());
        }
        if let Some(first) = data.get_mut(1 + w1..3 + w1) {
            first.copy_from_slice(&[0xff, 0xff]); // object 0: free, generation 65535
        }
        // PNG "Up" predictor: offsets grow steadily, so row differences compress far better.
        let row = 3 + w1;
        let mut predicted = Vec::with_capacity(data.len() + data.len() / row);
        let mut prev = vec![0u8; row];
        for r in data.chunks_exact(row) {
            predicted.push(2);
            predicted.extend(r.iter().zip(&prev).map(|(a, b)| a.wrapping_sub(*b)));
            prev.copy_from_slice(r);
        }
        let data = filters::deflate(&predicted);
        let mut d = Dict::new();
        d.set(b"Type", Object::name(b"XRef"));
        d.set(b"Size", Object::Int(size as i64));
        d.set(
            b"W",
            Object::Array(vec![Object::Int(1), Object::Int(w1 as i64), Object::Int(2)]),
        );
        for (k, v) in &trailer.0 {
            d.set(k, v.clone());
        }
        d.set(b"Filter", Object::name(b"FlateDecode"));
        let mut parms = Dict::new();
        parms.set(b"Columns", Object::Int(row as i64));
        parms.set(b"Predictor", Object::Int(12));
        d.set(b"DecodeParms", Object::Dict(parms));
        write_stream_object(&mut out, xnum, 0, &d, &data);
        let _ = write!(out, "startxref\n{xoff}\n%%EOF\n");
    } else {
        let xoff = out.len();
        let size = slots.len().max(1);
        let _ = write!(out, "xref\n0 {size}\n");
        for (i, s) in slots.iter().enumerate().chain(if slots.is_empty() {
            Some((0, &Slot::Free))
        } else {
            None
        }) {
            match s {
                Slot::At(o, g) => {
                    let _ = write!(out, "{o:010} {g:05} n\r\n");
                }
                _ => {
                    let g = if i == 0 { 65535 } else { 0 };
                    let _ = write!(out, "0000000000 {g:05} f\r\n");
                }
            }
        }
        trailer.set(b"Size", Object::Int(size as i64));
        out.extend_from_slice(b"trailer\n");
        write_dict(&mut out, &trailer);
        let _ = write!(out, "\nstartxref\n{xoff}\n%%EOF\n");
    }
    out
}

/// Serialises `doc` with `layout`: [`pack`] then [`serialize`].
pub fn write(doc: Document, layout: Layout) -> Vec<u8> {
    serialize(&pack(doc, layout))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn huge_object_numbers_are_renumbered() {
        let mut objects = std::collections::BTreeMap::new();
        let mut cat = Dict::new();
        cat.set(b"Type", Object::name(b"Catalog"));
        cat.set(b"Pages", Object::Ref(4_000_000_000, 0));
        cat.set(b"Gone", Object::Ref(7, 0));
        objects.insert(1, (0, Object::Dict(cat)));
        let mut pages = Dict::new();
        pages.set(b"Type", Object::name(b"Pages"));
        pages.set(b"Count", Object::Int(0));
        objects.insert(4_000_000_000, (0, Object::Dict(pages)));
        let mut trailer = Dict::new();
        trailer.set(b"Root", Object::Ref(1, 0));
        let doc = Document {
            version: "1.7".into(),
            trailer,
            objects,
            compressed: Default::default(),
            had_object_streams: true,
            had_xref_stream: true,
            linearized: false,
            warnings: Vec::new(),
            in_the_clear: Vec::new(),
            strings_decrypted: 0,
            streams_decrypted: 0,
        };
        let layout = Layout::like_input(&doc);
        let out = write(doc, layout);
        assert!(out.len() < 2000, "{} bytes", out.len());
        let back = crate::Pdf::parse(&out).unwrap().load(None).unwrap();
        let Some((_, Object::Dict(cat))) = back.objects.get(&1) else {
            panic!("catalog")
        };
        assert_eq!(cat.get(b"Pages"), Some(&Object::Ref(2, 0)));
        assert_eq!(cat.get(b"Gone"), Some(&Object::Null));
    }
}
