//! The built-in PDFs: what the study encrypts when neither `--data DIR`,
//! `$CIPHERLAB_PDF_DIR` nor `../shared/pdf` holds a usable PDF. Three small documents of
//! the kinds that matter to a PDF security handler, made from the seeded corpus and
//! written by `cipherlab-pdf`'s own writer (so they are valid files every reader opens,
//! the same bytes on every machine):
//!
//! - a text report: Flate content streams, an outline and /Info strings, object streams
//!   and a cross-reference stream (as pdfTeX writes);
//! - a form: one page with many fields, each with strings (/T, /TU, /V, /DA) and a small
//!   appearance stream, with a classic cross-reference table (as office suites write): many
//!   short strings and streams, where the per-object cost of a cipher shows;
//! - a scan: one page holding one Flate-compressed RGB image, where the per-byte cost
//!   shows.

use std::collections::{BTreeMap, BTreeSet};

use cipherlab_pdf::object::{Dict, Object, StrForm, Stream};
use cipherlab_pdf::writer::{self, Layout};
use cipherlab_pdf::{Document, filters};

use crate::corpus::{self, DataType};

/// The seed of the built-in PDFs' contents.
const SEED: u64 = 0x0bd_f11e;

/// Pages of the text report.
const REPORT_PAGES: usize = 6;

/// Fields of the form.
const FORM_FIELDS: usize = 120;

/// The scan's size in pixels.
const SCAN: (usize, usize) = (200, 150);

/// The built-in files: (name, bytes).
pub fn files() -> Vec<(String, Vec<u8>)> {
    vec![
        ("builtin-report-6-pages.pdf".to_string(), report()),
        ("builtin-form-120-fields.pdf".to_string(), form()),
        ("builtin-scan-200x150.pdf".to_string(), scan()),
    ]
}

fn text(s: &str) -> Object {
    Object::Str(s.as_bytes().to_vec(), StrForm::Literal)
}

fn dict(entries: Vec<(&str, Object)>) -> Dict {
    let mut d = Dict::new();
    for (k, v) in entries {
        d.set(k.as_bytes(), v);
    }
    d
}

fn flate(data: &[u8], mut d: Dict) -> Object {
    d.set(b"Filter", Object::name("FlateDecode"));
    Object::Stream(Box::new(Stream {
        dict: d,
        data: filters::deflate(data),
    }))
}

fn int(i: usize) -> Object {
    Object::Int(i as i64)
}

/// A document from its objects (numbered from 1 in order), with /Info and a fixed /ID.
fn document(objects: Vec<Object>, info: Dict, id: &str, layout: Layout) -> Vec<u8> {
    let mut map: BTreeMap<u32, (u16, Object)> = objects
        .into_iter()
        .enumerate()
        .map(|(i, o)| (i as u32 + 1, (0, o)))
        .collect();
    let info_num = map.len() as u32 + 1;
    map.insert(info_num, (0, Object::Dict(info)));
    let id = Object::Str(id.as_bytes().to_vec(), StrForm::Hex);
    let trailer = dict(vec![
        ("Root", Object::Ref(1, 0)),
        ("Info", Object::Ref(info_num, 0)),
        ("ID", Object::Array(vec![id.clone(), id])),
    ]);
    let doc = Document {
        version: "1.7".to_string(),
        trailer,
        objects: map,
        compressed: BTreeSet::new(),
        had_object_streams: layout.object_streams,
        had_xref_stream: layout.xref_stream,
        linearized: false,
        warnings: Vec::new(),
        in_the_clear: Vec::new(),
        strings_decrypted: 0,
        streams_decrypted: 0,
    };
    writer::write(doc, layout)
}

fn info(title: &str) -> Dict {
    dict(vec![
        ("Title", text(title)),
        ("Author", text("cipherlab built-in corpus")),
        ("Subject", text("a document for the pdf study")),
        ("Creator", text("cipherlab-bench")),
        ("CreationDate", text("D:20250101120000Z")),
    ])
}

/// `s` as a PDF literal string's body: backslash, parentheses escaped.
fn escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if matches!(c, '\\' | '(' | ')') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A page's content: 50 lines of corpus text in Helvetica.
fn page_text(lines: &[&str]) -> Vec<u8> {
    let mut c = String::from("BT /F1 10 Tf 12 TL 56 780 Td\n");
    for l in lines {
        c.push_str(&format!("({}) Tj T*\n", escaped(l)));
    }
    c.push_str("ET\n");
    c.into_bytes()
}

/// The text report: catalog 1, pages 2, font 3, outline 4, then per page a page, its
/// content stream and its outline item.
fn report() -> Vec<u8> {
    let words = corpus::generate(DataType::AsciiText, REPORT_PAGES * 50 * 72, SEED);
    let body = String::from_utf8_lossy(&words).into_owned();
    let lines: Vec<&str> = body.lines().filter(|l| !l.is_empty()).collect();
    let first_page = 5;
    let mut objects = vec![
        Object::Dict(dict(vec![
            ("Type", Object::name("Catalog")),
            ("Pages", Object::Ref(2, 0)),
            ("Outlines", Object::Ref(4, 0)),
            ("Lang", text("en-GB")),
        ])),
        Object::Dict(dict(vec![
            ("Type", Object::name("Pages")),
            (
                "Kids",
                Object::Array(
                    (0..REPORT_PAGES)
                        .map(|p| Object::Ref((first_page + 3 * p) as u32, 0))
                        .collect(),
                ),
            ),
            ("Count", int(REPORT_PAGES)),
        ])),
        Object::Dict(dict(vec![
            ("Type", Object::name("Font")),
            ("Subtype", Object::name("Type1")),
            ("BaseFont", Object::name("Helvetica")),
        ])),
        Object::Dict(dict(vec![
            ("Type", Object::name("Outlines")),
            ("First", Object::Ref((first_page + 2) as u32, 0)),
            (
                "Last",
                Object::Ref((first_page + 3 * (REPORT_PAGES - 1) + 2) as u32, 0),
            ),
            ("Count", int(REPORT_PAGES)),
        ])),
    ];
    for p in 0..REPORT_PAGES {
        let (page, content, item) = (
            first_page + 3 * p,
            first_page + 3 * p + 1,
            first_page + 3 * p + 2,
        );
        let chunk: Vec<&str> = lines.iter().skip(p * 50).take(50).copied().collect();
        objects.push(Object::Dict(dict(vec![
            ("Type", Object::name("Page")),
            ("Parent", Object::Ref(2, 0)),
            (
                "MediaBox",
                Object::Array(vec![int(0), int(0), int(595), int(842)]),
            ),
            ("Contents", Object::Ref(content as u32, 0)),
            (
                "Resources",
                Object::Dict(dict(vec![(
                    "Font",
                    Object::Dict(dict(vec![("F1", Object::Ref(3, 0))])),
                )])),
            ),
        ])));
        objects.push(flate(&page_text(&chunk), Dict::new()));
        let mut o = dict(vec![
            (
                "Title",
                text(&format!(
                    "Section {}: {}",
                    p + 1,
                    chunk.first().copied().unwrap_or("")
                )),
            ),
            ("Parent", Object::Ref(4, 0)),
            (
                "Dest",
                Object::Array(vec![Object::Ref(page as u32, 0), Object::name("Fit")]),
            ),
        ]);
        if p > 0 {
            o.set(b"Prev", Object::Ref((item - 3) as u32, 0));
        }
        if p + 1 < REPORT_PAGES {
            o.set(b"Next", Object::Ref((item + 3) as u32, 0));
        }
        objects.push(Object::Dict(o));
    }
    document(
        objects,
        info("A report of six pages"),
        "0123456789abcdef0123456789abcdef",
        Layout {
            object_streams: true,
            xref_stream: true,
        },
    )
}

/// The form: catalog 1, pages 2, page 3, font 4, then per field a widget and its
/// appearance stream.
fn form() -> Vec<u8> {
    let words = corpus::generate(DataType::AsciiText, FORM_FIELDS * 40, SEED + 1);
    let body = String::from_utf8_lossy(&words).into_owned();
    let values: Vec<&str> = body.split_whitespace().collect();
    let first_field = 5;
    let fields: Vec<Object> = (0..FORM_FIELDS)
        .map(|i| Object::Ref((first_field + 2 * i) as u32, 0))
        .collect();
    let mut objects = vec![
        Object::Dict(dict(vec![
            ("Type", Object::name("Catalog")),
            ("Pages", Object::Ref(2, 0)),
            (
                "AcroForm",
                Object::Dict(dict(vec![
                    ("Fields", Object::Array(fields.clone())),
                    ("DA", text("/Helv 9 Tf 0 g")),
                ])),
            ),
        ])),
        Object::Dict(dict(vec![
            ("Type", Object::name("Pages")),
            ("Kids", Object::Array(vec![Object::Ref(3, 0)])),
            ("Count", int(1)),
        ])),
        Object::Dict(dict(vec![
            ("Type", Object::name("Page")),
            ("Parent", Object::Ref(2, 0)),
            (
                "MediaBox",
                Object::Array(vec![int(0), int(0), int(595), int(842)]),
            ),
            ("Annots", Object::Array(fields)),
        ])),
        Object::Dict(dict(vec![
            ("Type", Object::name("Font")),
            ("Subtype", Object::name("Type1")),
            ("BaseFont", Object::name("Helvetica")),
        ])),
    ];
    for i in 0..FORM_FIELDS {
        let value = values
            .iter()
            .skip(i * 3)
            .take(3)
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        let (x, y) = (40 + (i % 4) * 135, 800 - (i / 4) * 25);
        let ap = first_field + 2 * i + 1;
        objects.push(Object::Dict(dict(vec![
            ("Type", Object::name("Annot")),
            ("Subtype", Object::name("Widget")),
            ("FT", Object::name("Tx")),
            ("T", text(&format!("field{i:03}"))),
            ("TU", text(&format!("Field {} of the form", i + 1))),
            ("V", text(&value)),
            ("DA", text("/Helv 9 Tf 0 g")),
            (
                "Rect",
                Object::Array(vec![int(x), int(y - 18), int(x + 130), int(y)]),
            ),
            ("P", Object::Ref(3, 0)),
            (
                "AP",
                Object::Dict(dict(vec![("N", Object::Ref(ap as u32, 0))])),
            ),
        ])));
        let content = format!(
            "/Tx BMC q BT /Helv 9 Tf 2 5 Td ({}) Tj ET Q EMC\n",
            escaped(&value)
        );
        let mut d = dict(vec![
            ("Type", Object::name("XObject")),
            ("Subtype", Object::name("Form")),
            (
                "BBox",
                Object::Array(vec![int(0), int(0), int(130), int(18)]),
            ),
            (
                "Resources",
                Object::Dict(dict(vec![(
                    "Font",
                    Object::Dict(dict(vec![("Helv", Object::Ref(4, 0))])),
                )])),
            ),
        ]);
        d.set(b"Length", int(content.len()));
        objects.push(Object::Stream(Box::new(Stream {
            dict: d,
            data: content.into_bytes(),
        })));
    }
    document(
        objects,
        info("A form of 120 fields"),
        "fedcba9876543210fedcba9876543210",
        Layout {
            object_streams: false,
            xref_stream: false,
        },
    )
}

/// The scan: catalog 1, pages 2, page 3, content 4, image 5. The pixels are the corpus
/// BMP's bytes (flat background, large flat shapes), compressed with Flate.
fn scan() -> Vec<u8> {
    let (w, h) = SCAN;
    let pixels = corpus::generate(DataType::Bmp, w * h * 3, SEED + 2);
    let content = format!("q {} 0 0 {} 40 400 cm /Im0 Do Q\n", w * 2, h * 2);
    let objects = vec![
        Object::Dict(dict(vec![
            ("Type", Object::name("Catalog")),
            ("Pages", Object::Ref(2, 0)),
        ])),
        Object::Dict(dict(vec![
            ("Type", Object::name("Pages")),
            ("Kids", Object::Array(vec![Object::Ref(3, 0)])),
            ("Count", int(1)),
        ])),
        Object::Dict(dict(vec![
            ("Type", Object::name("Page")),
            ("Parent", Object::Ref(2, 0)),
            (
                "MediaBox",
                Object::Array(vec![int(0), int(0), int(595), int(842)]),
            ),
            ("Contents", Object::Ref(4, 0)),
            (
                "Resources",
                Object::Dict(dict(vec![(
                    "XObject",
                    Object::Dict(dict(vec![("Im0", Object::Ref(5, 0))])),
                )])),
            ),
        ])),
        flate(content.as_bytes(), Dict::new()),
        flate(
            &pixels,
            dict(vec![
                ("Type", Object::name("XObject")),
                ("Subtype", Object::name("Image")),
                ("Width", int(w)),
                ("Height", int(h)),
                ("ColorSpace", Object::name("DeviceRGB")),
                ("BitsPerComponent", int(8)),
            ]),
        ),
    ];
    document(
        objects,
        info("A scanned page"),
        "00112233445566778899aabbccddeeff",
        Layout {
            object_streams: false,
            xref_stream: false,
        },
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use cipherlab_pdf::Pdf;

    #[test]
    fn built_in_files_are_valid_deterministic_pdfs() {
        let a = files();
        assert_eq!(a, files(), "the same bytes every time");
        for (name, bytes) in &a {
            let pdf = Pdf::parse(bytes).unwrap();
            assert!(pdf.xref.rebuilt.is_none(), "{name}: needs no repair");
            let doc = pdf.load(None).unwrap();
            assert!(doc.warnings.is_empty(), "{name}: {:?}", doc.warnings);
            let streams = doc
                .objects
                .values()
                .filter(|(_, o)| matches!(o, Object::Stream(_)))
                .count();
            assert!(streams >= 2, "{name}: {streams} streams");
            assert!(bytes.len() < 64 << 10, "{name}: {} bytes", bytes.len());
        }
        // The form has one widget and one appearance stream per field.
        let form = Pdf::parse(&a[1].1).unwrap().load(None).unwrap();
        assert!(form.objects.len() > 2 * FORM_FIELDS);
    }
}
