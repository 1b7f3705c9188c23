//! Damaged variants of a PDF, made the ways real files get damaged: a wrong or missing
//! `startxref`, the cross-reference section deleted or cut out, the main section of a
//! linearized file (or an older revision's section) damaged, a truncated tail, offsets
//! shuffled or shifted, junk before the header. Used by `tests/pdf_damaged.rs`, which
//! checks each variant against qpdf's repair; with `CIPHERLAB_DAMAGED_DIR=DIR` that test
//! also writes the variants there, for other tools.
//!
//! The damage is made on the bytes, without a PDF parser: each maker finds what it needs
//! with a plain search and returns `None` when the file does not have it (a file without
//! a classic table has no offsets to shuffle).

/// One damaged copy of a file.
pub struct Variant {
    /// What was done, e.g. `startxref-wrong`.
    pub kind: &'static str,
    /// The damaged bytes.
    pub bytes: Vec<u8>,
}

/// Every variant of `file` that applies to it.
pub fn variants(file: &[u8]) -> Vec<Variant> {
    type Maker = fn(&[u8]) -> Option<Vec<u8>>;
    let makers: [(&str, Maker); 16] = [
        ("startxref-wrong", |f| set_startxref(f, |x| x + 7)),
        ("startxref-zero", |f| set_startxref(f, |_| 0)),
        ("startxref-past-end", |f| set_startxref(f, |_| f.len() * 2)),
        ("startxref-missing", |f| {
            Some(f[..rfind(f, b"startxref")?].to_vec())
        }),
        ("xref-deleted", |f| {
            let (a, b) = last_section(f)?;
            let mut d = f.to_vec();
            d[a..b].iter_mut().for_each(|c| {
                if !c.is_ascii_whitespace() {
                    *c = b' '
                }
            });
            Some(d)
        }),
        ("xref-cut-out", |f| {
            let (a, b) = last_section(f)?;
            let mut d = f[..a].to_vec();
            d.extend_from_slice(&f[b..]);
            Some(d)
        }),
        ("prev-section-damaged", |f| {
            let at = prev_section(f)?;
            let mut d = f.to_vec();
            let end = (at + 16).min(d.len());
            d[at..end].copy_from_slice(&b"JUNKJUNKJUNKJUNK"[..end - at]);
            Some(d)
        }),
        ("truncated-25", |f| Some(f[..f.len() / 4].to_vec())),
        ("truncated-50", |f| Some(f[..f.len() / 2].to_vec())),
        ("truncated-75", |f| Some(f[..f.len() * 3 / 4].to_vec())),
        ("truncated-95", |f| Some(f[..f.len() * 19 / 20].to_vec())),
        ("truncated-tail", |f| {
            Some(f[..f.len().saturating_sub(40)].to_vec())
        }),
        ("offsets-shuffled", shuffle_offsets),
        ("offsets-shifted", |f| {
            // 64 bytes after the header line: every offset is 64 short.
            let nl = f.iter().position(|&c| c == b'\n')? + 1;
            let mut d = f[..nl].to_vec();
            d.extend_from_slice(&[b'%'; 63]);
            d.push(b'\n');
            d.extend_from_slice(&f[nl..]);
            Some(d)
        }),
        ("bytes-inserted-midway", |f| {
            // 100 spaces after the first object that ends past the middle: the offsets
            // after it are wrong.
            let mid = f.len() / 2;
            let at = mid + find(&f[mid..], b"endobj")? + 6;
            let mut d = f[..at].to_vec();
            d.extend_from_slice(&[b' '; 100]);
            d.extend_from_slice(&f[at..]);
            Some(d)
        }),
        ("junk-before-header", |f| {
            // Within the first KiB, where readers look for the header.
            let mut d = b"This is not part of the PDF: a mail header, a BOM, junk.\n".repeat(10);
            d.extend_from_slice(f);
            Some(d)
        }),
    ];
    makers
        .into_iter()
        .filter_map(|(kind, make)| make(file).map(|bytes| Variant { kind, bytes }))
        .filter(|v| v.bytes != file)
        .collect()
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

/// The digits after `at` (white space skipped): their span and value.
fn number_at(f: &[u8], at: usize) -> Option<(usize, usize, usize)> {
    let a = at + f[at..].iter().position(|c| !c.is_ascii_whitespace())?;
    let b = a + f[a..].iter().take_while(|c| c.is_ascii_digit()).count();
    let v = std::str::from_utf8(&f[a..b]).ok()?.parse().ok()?;
    Some((a, b, v))
}

/// The offset the last `startxref` gives.
fn startxref(f: &[u8]) -> Option<usize> {
    number_at(f, rfind(f, b"startxref")? + 9).map(|n| n.2)
}

/// `f` with the last `startxref` value replaced by `new(old)`.
fn set_startxref(f: &[u8], new: impl Fn(usize) -> usize) -> Option<Vec<u8>> {
    let (a, b, v) = number_at(f, rfind(f, b"startxref")? + 9)?;
    let mut d = f[..a].to_vec();
    d.extend_from_slice(new(v).to_string().as_bytes());
    d.extend_from_slice(&f[b..]);
    Some(d)
}

/// The span of the cross-reference section `startxref` points at: a classic table with
/// its trailer, or a cross-reference stream object.
fn last_section(f: &[u8]) -> Option<(usize, usize)> {
    let at = startxref(f)?;
    let rest = f.get(at..)?;
    let end = if rest.starts_with(b"xref") {
        find(rest, b"startxref")?
    } else {
        find(rest, b"endobj")? + 6
    };
    Some((at, at + end))
}

/// Where the section that the last section's /Prev names starts (the main section of a
/// linearized file, or the previous revision's of an updated one).
fn prev_section(f: &[u8]) -> Option<usize> {
    let (a, b) = last_section(f)?;
    let p = find(&f[a..b], b"/Prev")? + a + 5;
    let (_, _, v) = number_at(f, p)?;
    (v < f.len()).then_some(v)
}

/// The in-use entries of the classic table `startxref` points at, their offsets rotated
/// by one: every object's entry names the next object's place.
fn shuffle_offsets(f: &[u8]) -> Option<Vec<u8>> {
    let (a, b) = last_section(f)?;
    if !f[a..].starts_with(b"xref") {
        return None;
    }
    // Entries are 20 bytes: 10-digit offset, space, 5-digit generation, space, n/f, EOL.
    let mut spans = Vec::new();
    let mut i = a;
    while i + 18 <= b {
        let e = &f[i..i + 18];
        if e[..10].iter().all(u8::is_ascii_digit)
            && e[10] == b' '
            && e[11..16].iter().all(u8::is_ascii_digit)
            && e[16] == b' '
            && e[17] == b'n'
            && &e[..10] != b"0000000000"
        {
            spans.push(i);
            i += 18;
        } else {
            i += 1;
        }
    }
    if spans.len() < 2 {
        return None;
    }
    let mut d = f.to_vec();
    for (k, &s) in spans.iter().enumerate() {
        let from = spans[(k + 1) % spans.len()];
        d[s..s + 10].copy_from_slice(&f[from..from + 10]);
    }
    Some(d)
}
