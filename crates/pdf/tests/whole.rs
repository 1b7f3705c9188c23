//! Silent success with missing pages is impossible: documents of known pages, in the
//! layouts real files have (a classic table; object streams with a cross-reference
//! stream; an incremental update that adds pages), damaged at random the ways files get
//! damaged (cut short, a range deleted, bytes inserted, `startxref` changed, junk before
//! the header, the cross-reference data garbled). Whatever the damage, `encrypt` and
//! `decrypt` either refuse, or give every page: exactly the pages the document had, each
//! with its own content (but where the damage itself fell inside a content stream).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};

use cipherlab_pdf::object::Object;
use cipherlab_pdf::writer::{self, Layout};
use cipherlab_pdf::{Cipher, Document, Options, Pdf, StdCipher};
use cipherlab_testkit::pdf::{classic_file, last_startxref};

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn content(page: usize) -> String {
    format!("BT /F1 12 Tf 72 700 Td (Page {page} of the test) Tj ET")
}

/// Object bodies of a document with `pages` pages: 1 catalog, 2 page tree, 3 font, then
/// page and content pairs.
fn bodies(pages: usize) -> Vec<String> {
    let kids: Vec<String> = (0..pages).map(|i| format!("{} 0 R", 4 + 2 * i)).collect();
    let mut b = vec![
        "<</Type/Catalog/Pages 2 0 R>>".to_string(),
        format!("<</Type/Pages/Kids[{}]/Count {pages}>>", kids.join(" ")),
        "<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>".to_string(),
    ];
    for i in 0..pages {
        b.push(format!(
            "<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents {} 0 R/Resources<</Font<</F1 3 0 R>>>>>>",
            5 + 2 * i
        ));
        let c = content(i + 1);
        b.push(format!("<</Length {}>>\nstream\n{c}\nendstream", c.len()));
    }
    b
}

/// A classic file: objects, an `xref` table, a trailer.
fn classic(pages: usize) -> Vec<u8> {
    classic_file(&bodies(pages), "/ID[<0102><0102>]")
}

/// The same document written by our writer with object streams and a cross-reference
/// stream.
fn object_streams(pages: usize) -> Vec<u8> {
    let f = classic(pages);
    let doc = Pdf::parse(&f).unwrap().load(None).unwrap();
    writer::write(
        doc,
        Layout {
            object_streams: true,
            xref_stream: true,
        },
    )
}

/// A classic file of `first` pages with an incremental update that adds `more`: a new
/// page tree node (same number) and the new pages.
fn updated(first: usize, more: usize) -> Vec<u8> {
    let total = first + more;
    let mut f = classic(first);
    let (_, prev) = last_startxref(&f);
    let all = bodies(total);
    let mut entries = Vec::new();
    let mut add = |n: usize, body: &str, f: &mut Vec<u8>| {
        entries.push((n, f.len()));
        f.extend_from_slice(format!("{n} 0 obj\n{body}\nendobj\n").as_bytes());
    };
    add(2, &all[1], &mut f);
    for n in 4 + 2 * first..4 + 2 * total {
        add(n, &all[n - 1], &mut f);
    }
    let x = f.len();
    f.extend_from_slice(b"xref\n");
    for (n, off) in &entries {
        f.extend_from_slice(format!("{n} 1\n{off:010} 00000 n \n").as_bytes());
    }
    f.extend_from_slice(
        format!(
            "trailer\n<</Size {}/Root 1 0 R/Prev {prev}/ID[<0102><0304>]>>\nstartxref\n{x}\n%%EOF\n",
            all.len() + 1
        )
        .as_bytes(),
    );
    f
}

/// One random damage of the kinds real files have.
fn damage(f: &[u8], r: &mut Rng) -> (String, Vec<u8>) {
    let n = f.len();
    match r.below(8) {
        0 => {
            let at = r.below(n);
            (format!("cut at {at}"), f[..at].to_vec())
        }
        1 => {
            let at = r.below(n);
            let len = 1 + r.below(400);
            let mut d = f[..at].to_vec();
            d.extend_from_slice(&f[(at + len).min(n)..]);
            (format!("{len} bytes deleted at {at}"), d)
        }
        2 => {
            let at = r.below(n);
            let len = 1 + r.below(200);
            let mut d = f[..at].to_vec();
            d.extend((0..len).map(|i| b" \n%x"[i % 4]));
            d.extend_from_slice(&f[at..]);
            (format!("{len} bytes inserted at {at}"), d)
        }
        3 => {
            let sx = f.windows(9).rposition(|w| w == b"startxref").unwrap_or(n);
            let mut d = f[..sx].to_vec();
            let v = r.below(n + 100);
            d.extend_from_slice(format!("startxref\n{v}\n%%EOF\n").as_bytes());
            (format!("startxref {v}"), d)
        }
        4 => {
            let mut d = b"garbage before the header\n".repeat(1 + r.below(20));
            d.extend_from_slice(f);
            ("junk before the header".into(), d)
        }
        5 => {
            // A digit of the last cross-reference section (or its stream) changed.
            let sx = f.windows(9).rposition(|w| w == b"startxref").unwrap_or(n);
            let start = f[..sx]
                .windows(4)
                .rposition(|w| w == b"xref" || w == b"XRef")
                .unwrap_or(0);
            let mut d = f.to_vec();
            let at = start + r.below(sx - start);
            if at < sx {
                d[at] = b"0123456789"[r.below(10)];
            }
            (format!("byte {at} of the cross-reference data changed"), d)
        }
        6 => {
            // The cross-reference section and trailer blanked.
            let sx = f.windows(9).rposition(|w| w == b"startxref").unwrap_or(n);
            let start = f[..sx].windows(4).rposition(|w| w == b"xref").unwrap_or(sx);
            let mut d = f.to_vec();
            d[start..sx].fill(b' ');
            ("cross-reference section blanked".into(), d)
        }
        _ => {
            // Two damages.
            let (a, d) = damage(f, r);
            let (b, d) = damage(&d, r);
            (format!("{a}, then {b}"), d)
        }
    }
}

/// The pages of a clean document, walked here (not with the reader's census): each
/// page's content stream, in order; or what is wrong with the page tree.
fn pages_of(doc: &Document) -> Result<Vec<Vec<u8>>, String> {
    let get = |o: &Object| -> Object {
        match o {
            Object::Ref(n, _) => doc
                .objects
                .get(n)
                .map(|x| x.1.clone())
                .unwrap_or(Object::Null),
            other => other.clone(),
        }
    };
    let cat = get(doc.trailer.get(b"Root").ok_or("no /Root")?);
    let pages = cat
        .dict()
        .and_then(|d| d.get(b"Pages"))
        .ok_or("no /Pages in the catalog")?;
    let mut out = Vec::new();
    let mut stack = vec![get(pages)];
    while let Some(node) = stack.pop() {
        if out.len() > 10_000 {
            return Err("the page tree loops".into());
        }
        let d = node
            .dict()
            .ok_or_else(|| format!("a page-tree kid is {node:?}"))?
            .clone();
        match d.get(b"Kids") {
            Some(Object::Array(k)) => stack.extend(k.iter().rev().map(get)),
            // A page whose /Contents is not a stream any more (the damage fell inside its
            // dictionary) is a page whose content changed.
            _ => match d.get(b"Contents").map(get) {
                Some(Object::Stream(s)) => out.push(s.data),
                _ => out.push(Vec::new()),
            },
        }
    }
    Ok(out)
}

/// Whether `d` holds a page of the update [`updated`] made: a second definition of the
/// page tree node, or a page object numbered beyond the first revision's. (A content
/// stream alone is not a page: without its page object, nothing says where it belongs.)
fn update_traces(d: &[u8], first: usize, total: usize) -> bool {
    let has = |s: String| d.windows(s.len()).filter(|w| *w == s.as_bytes()).count();
    has("\n2 0 obj".into()) > 1
        || (4 + 2 * first..4 + 2 * total)
            .step_by(2)
            .any(|n| has(format!("\n{n} 0 obj")) > 0)
}

fn expected(pages: usize) -> Vec<Vec<u8>> {
    (1..=pages).map(|p| content(p).into_bytes()).collect()
}

#[test]
fn silent_success_with_missing_pages_is_impossible() {
    // Another seed: CIPHERLAB_WHOLE_SEED=N (the default is what CI runs).
    let seed = std::env::var("CIPHERLAB_WHOLE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_cafe);
    let mut r = Rng(seed);
    let opts = Options {
        cipher: Cipher::Standard(StdCipher::Aes128),
        user_password: "u",
        owner_password: "o",
        permissions: -4,
        encrypt_metadata: true,
        input_password: None,
        allow_weak: false,
    };
    let mut outcomes: BTreeMap<&str, usize> = BTreeMap::new();
    let mut refusals = BTreeSet::new();
    for round in 0..60 {
        let pages = 1 + r.below(9);
        let first = 1 + r.below(4);
        let (layout, file) = match round % 3 {
            0 => ("classic", classic(pages)),
            1 => ("object streams", object_streams(pages)),
            _ => ("incremental", updated(first, pages)),
        };
        let all = pages_of(&Pdf::parse(&file).unwrap().load(None).unwrap())
            .unwrap()
            .len();
        assert_eq!(
            pages_of(&Pdf::parse(&file).unwrap().load(None).unwrap()),
            Ok(expected(all))
        );
        // Undamaged, every layout reads as written, without a remark.
        let clean = cipherlab_pdf::decrypt(&file, None).unwrap();
        assert!(clean.warnings.is_empty(), "{layout}: {:?}", clean.warnings);
        for _ in 0..40 {
            let (what, d) = damage(&file, &mut r);
            // A damage that leaves no trace of an update (no object of it) leaves a whole
            // older revision, which is all the file then holds.
            let total = if layout == "incremental" && !update_traces(&d, first, all) {
                first
            } else {
                all
            };
            let want = expected(total);
            let case = format!("{layout}, {total} pages, {what}");
            // The input of a failing case, for a closer look.
            let keep = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("whole-case.pdf");
            std::fs::write(&keep, &d).unwrap();
            // decrypt (here: rewrite) and encrypt read the input alike.
            let dec = cipherlab_pdf::decrypt(&d, None);
            let enc = cipherlab_pdf::encrypt(&d, &opts);
            assert_eq!(
                dec.is_ok(),
                enc.is_ok(),
                "{case}: decrypt and encrypt disagree"
            );
            match (dec, enc) {
                (Ok(dec), Ok(enc)) => {
                    let back = cipherlab_pdf::decrypt(&enc.bytes, Some("u")).unwrap();
                    let notes = dec.warnings.join(" | ");
                    for out in [&dec.bytes, &back.bytes] {
                        let doc = Pdf::parse(out).unwrap().load(None).unwrap();
                        let got = pages_of(&doc)
                            .unwrap_or_else(|e| panic!("{case}: exit 0, but {e}; {notes}"));
                        assert_eq!(
                            got.len(),
                            total,
                            "{case}: exit 0 with {} pages; {notes}; the end of the input: {:?}",
                            got.len(),
                            String::from_utf8_lossy(&d[d.len().saturating_sub(200)..])
                        );
                        // Bytes inserted or deleted inside a content stream change that
                        // page's content (readers see the same); nothing else may.
                        let changed = got.iter().zip(&want).filter(|(g, w)| g != w).count();
                        assert!(changed <= 2, "{case}: {changed} pages lost their content");
                    }
                    *outcomes.entry("whole").or_default() += 1;
                }
                (Err(e), Err(_)) => {
                    let kind = match e {
                        cipherlab_pdf::Error::Incomplete(_) => "refused: incomplete",
                        _ => "refused: unreadable",
                    };
                    refusals.insert(e.kind());
                    *outcomes.entry(kind).or_default() += 1;
                }
                _ => unreachable!(),
            }
        }
    }
    println!(
        "2400 damaged documents (seed {seed}): {outcomes:?}, exit codes of refusals {refusals:?}"
    );
    // Both outcomes must be common, or the damage says nothing.
    assert!(
        outcomes.get("whole").copied().unwrap_or(0) > 200,
        "{outcomes:?}"
    );
    assert!(
        outcomes.get("refused: incomplete").copied().unwrap_or(0) > 100,
        "{outcomes:?}"
    );
}
