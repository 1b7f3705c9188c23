//! Writing a [`Document`] as a new, complete file (not an incremental update).
//!
//! When the input had object streams, every object that may live in one (not a stream,
//! generation 0) goes into Flate-compressed object streams of up to
//! [`OBJECTS_PER_STREAM`] objects, and the cross-reference data is a compressed
//! cross-reference stream; when the input had a cross-reference stream but no object
//! streams, the objects are written directly with a cross-reference stream; otherwise the
//! file gets a classic `xref` table. Stream data is written as read (decrypted, still in
//! its original filters), so the output is about the size of the input.

use std::io::Write as _;

use crate::document::Document;
use crate::filters;
use crate::object::{Dict, Object, write_dict, write_object};

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

enum Slot {
    Free,
    At(usize, u16),
    In(u32, u32),
}

fn version_at_least(v: &str, min: &str) -> bool {
    let p = |s: &str| -> (u32, u32) {
        let mut it = s.split('.').map(|x| x.parse::<u32>().unwrap_or(0));
        (it.next().unwrap_or(0), it.next().unwrap_or(0))
    };
    p(v) >= p(min)
}

fn write_stream_object(out: &mut Vec<u8>, num: u32, gen_: u16, dict: &Dict, data: &[u8]) {
    let _ = writeln!(out, "{num} {gen_} obj");
    write_dict(out, dict);
    out.extend_from_slice(b"stream\n");
    out.extend_from_slice(data);
    out.extend_from_slice(b"\nendstream\nendobj\n");
}

/// Serialises `doc` with `layout`.
pub fn write(doc: &Document, layout: Layout) -> Vec<u8> {
    let total: usize = doc
        .objects
        .values()
        .map(|(_, o)| match o {
            Object::Stream(s) => s.data.len() + 64,
            _ => 64,
        })
        .sum();
    let mut out = Vec::with_capacity(total + 1024);
    let mut version = doc.version.clone();
    if (layout.object_streams || layout.xref_stream) && !version_at_least(&version, "1.5") {
        version = "1.5".into();
    }
    let _ = writeln!(out, "%PDF-{version}");
    out.extend_from_slice(b"%\xe2\xe3\xcf\xd3\n");

    let max_num = doc.objects.keys().next_back().copied().unwrap_or(0);
    let mut slots: Vec<Slot> = Vec::new();
    let set = |slots: &mut Vec<Slot>, n: u32, s: Slot| {
        let n = n as usize;
        if slots.len() <= n {
            slots.resize_with(n + 1, || Slot::Free);
        }
        slots[n] = s;
    };
    let mut packed: Vec<u32> = Vec::new();
    for (&num, (g, obj)) in &doc.objects {
        let packable = layout.object_streams && *g == 0 && !matches!(obj, Object::Stream(_));
        if packable {
            packed.push(num);
            continue;
        }
        set(&mut slots, num, Slot::At(out.len(), *g));
        match obj {
            Object::Stream(s) => write_stream_object(&mut out, num, *g, &s.dict, &s.data),
            _ => {
                let _ = writeln!(out, "{num} {g} obj");
                write_object(&mut out, obj);
                out.extend_from_slice(b"\nendobj\n");
            }
        }
    }
    let mut next = max_num + 1;
    for chunk in packed.chunks(OBJECTS_PER_STREAM) {
        let stm = next;
        next += 1;
        let mut head = Vec::new();
        let mut body = Vec::new();
        for (i, &num) in chunk.iter().enumerate() {
            let _ = write!(head, "{num} {} ", body.len());
            if let Some((_, o)) = doc.objects.get(&num) {
                write_object(&mut body, o);
            }
            body.push(b'\n');
            set(&mut slots, num, Slot::In(stm, i as u32));
        }
        let first = head.len();
        head.extend_from_slice(&body);
        let data = filters::deflate(&head);
        let mut d = Dict::new();
        d.set(b"Type", Object::Name(b"ObjStm".to_vec()));
        d.set(b"N", Object::Int(chunk.len() as i64));
        d.set(b"First", Object::Int(first as i64));
        d.set(b"Filter", Object::Name(b"FlateDecode".to_vec()));
        d.set(b"Length", Object::Int(data.len() as i64));
        set(&mut slots, stm, Slot::At(out.len(), 0));
        write_stream_object(&mut out, stm, 0, &d, &data);
    }

    let mut trailer = doc.trailer.clone();
    trailer.remove(b"Size");
    if layout.xref_stream {
        let xnum = next;
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
        d.set(b"Type", Object::Name(b"XRef".to_vec()));
        d.set(b"Size", Object::Int(size as i64));
        d.set(
            b"W",
            Object::Array(vec![Object::Int(1), Object::Int(w1 as i64), Object::Int(2)]),
        );
        for (k, v) in &trailer.0 {
            d.set(k, v.clone());
        }
        d.set(b"Filter", Object::Name(b"FlateDecode".to_vec()));
        let mut parms = Dict::new();
        parms.set(b"Columns", Object::Int(row as i64));
        parms.set(b"Predictor", Object::Int(12));
        d.set(b"DecodeParms", Object::Dict(parms));
        d.set(b"Length", Object::Int(data.len() as i64));
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
