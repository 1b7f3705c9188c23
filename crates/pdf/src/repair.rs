//! Reading a document whole, and refusing to write one that is not.
//!
//! A file's cross-reference data says where its objects are; when it is damaged (a wrong
//! `startxref`, an unreadable section of a linearized or incrementally updated file, a
//! truncated tail, offsets that point elsewhere), reading it as written can yield part
//! of the document. So loading judges what it read by the document's own graph -- the
//! [`Census`]: every object reachable from the trailer's /Root and /Info, and the page
//! tree's leaves -- and tries, in order, until one holds the whole document:
//!
//! 1. the cross-reference data as written (objects not at their offsets are looked for
//!    by scanning, object by object);
//! 2. the same with its gaps filled from a scan of the whole file for `n g obj`, object
//!    streams included ([`crate::xref::filled`]);
//! 3. a table rebuilt from the scan alone, later definitions replacing earlier ones, as
//!    qpdf and pdf.js rebuild it ([`crate::xref::rebuild`]).
//!
//! A reading is whole when no object the document uses is unreadable and, if it needed
//! repair, when every reference resolves and the page tree has all the pages its root's
//! /Count declares. (A file read cleanly as written may refer to objects it does not hold
//! -- a null reference, §7.3.10 -- and is kept as it is, with a remark.) When no reading
//! is whole the load fails with [`Error::Incomplete`]: writing what was read would lose
//! part of the document.
//!
//! Before `decrypt` and `encrypt` write, they compare what they will write with the
//! census of what they read ([`check_written`]): the file is read back, and its page count
//! and the objects its catalog reaches must be the same.

use std::collections::BTreeMap;

use crate::document::{Document, NumberSet, Pdf, Read, RefGraph, collect_refs};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::object::Object;
use crate::security::Handler;
use crate::xref::{self, Entry, Xref};

/// Which object streams a reading takes besides those its cross-reference data names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fill {
    /// None.
    None,
    /// Every object stream found, for objects the cross-reference data does not list.
    Absent,
    /// Every object stream found, each member replacing a definition earlier in the file
    /// (a rebuilt table, where file order is revision order).
    Later,
}

/// A reading loaded: the document, and the objects that could not be read.
pub(crate) struct Loaded {
    pub(crate) doc: Document,
    pub(crate) lost: BTreeMap<u32, String>,
    /// The trailer's /Root, or failing that an object of /Type /Catalog, was found.
    pub(crate) catalog: bool,
    /// Objects seen in the object streams read, taken or not.
    pub(crate) members: NumberSet,
    /// Objects found away from where the cross-reference data said: the data is damaged.
    pub(crate) misplaced: usize,
}

const NO_CATALOG: &str = "no document catalog: the trailer has no usable /Root and no \
/Type /Catalog object was found";

/// Why an object the document refers to is not in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Missing {
    /// The file has it, but it could not be read (why).
    Unreadable(String),
    /// The cross-reference data marks it free.
    Free,
    /// Nothing in the cross-reference data (or the file) defines it.
    Absent,
    /// The cross-reference data does not list it (or lists it as free by mistake), but the
    /// file holds it: the data is damaged.
    Unlisted,
}

/// What a document holds, by its own graph.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Census {
    /// Pages: the leaves of the page tree.
    pub pages: usize,
    /// The page tree root's /Count.
    pub declared_pages: Option<i64>,
    /// Objects reachable from the trailer's /Root and /Info that are present.
    pub used: usize,
    /// Objects referred to but not present: why, and the first object referring to
    /// them (0 for the trailer).
    pub missing: BTreeMap<u32, (Missing, u32)>,
    /// Page-tree nodes or pages referred to but not present.
    pub page_holes: usize,
    /// The catalog has no page tree.
    pub no_page_tree: bool,
    /// Objects of /Type /Page that the page tree does not reach.
    pub orphan_pages: usize,
    /// Page-tree nodes or pages reached more than once (a loop, or a node listed twice).
    pub page_revisits: usize,
    /// The catalog and the page-tree nodes reached (object numbers).
    pub nodes: Vec<u32>,
}

/// The census of `doc`; `why(n)` says why object `n` is missing, if it is.
pub(crate) fn census(doc: &Document, why: &dyn Fn(u32) -> Missing) -> Census {
    let mut c = Census::default();
    // Reachability from the trailer.
    let mut todo: Vec<(u32, u32)> = Vec::new();
    // Each object's references in ascending order, each once: the walk's order, and so
    // which object a missing one is reported "from", does not depend on how they are
    // gathered.
    let mut refs = Vec::new();
    for k in [&b"Root"[..], b"Info"] {
        if let Some(o) = doc.trailer.get(k) {
            sorted_refs(o, &mut refs);
            todo.extend(refs.iter().map(|&n| (n, 0)));
        }
    }
    let graph = RefGraph::of(doc);
    let mut seen = NumberSet::for_numbers(doc.objects.keys().next_back().copied());
    while let Some((n, from)) = todo.pop() {
        if !seen.insert(n) {
            continue;
        }
        match graph.refs(n) {
            Some(refs) => {
                c.used += 1;
                todo.extend(refs.iter().filter(|&&r| !seen.contains(r)).map(|&r| (r, n)));
            }
            None => {
                c.missing.insert(n, (why(n), from));
            }
        }
    }
    count_pages(doc, &mut c);
    c
}

/// The references in `o`, into `refs`: ascending, each once.
fn sorted_refs(o: &Object, refs: &mut Vec<u32>) {
    refs.clear();
    collect_refs(o, refs);
    refs.sort_unstable();
    refs.dedup();
}

/// `o`, or the object it refers to (`Err(n)`: object `n` is not there).
fn resolve<'d>(doc: &'d Document, o: &'d Object) -> std::result::Result<&'d Object, u32> {
    match o {
        Object::Ref(n, _) => doc.objects.get(n).map(|(_, o)| o).ok_or(*n),
        other => Ok(other),
    }
}

/// Counts the leaves of the page tree (a node is a dictionary with /Kids or of /Type
/// /Pages; anything else it lists is a page), its holes, and its root's /Count. Cycles
/// and nodes listed twice are walked once.
fn count_pages(doc: &Document, c: &mut Census) {
    if let Some(Object::Ref(n, _)) = doc.trailer.get(b"Root") {
        c.nodes.push(*n);
    }
    let Some(cat) = doc
        .trailer
        .get(b"Root")
        .and_then(|r| resolve(doc, r).ok())
        .and_then(Object::dict)
    else {
        c.no_page_tree = true;
        return;
    };
    let Some(root) = cat.get(b"Pages") else {
        c.no_page_tree = true;
        return;
    };
    c.declared_pages = resolve(doc, root)
        .ok()
        .and_then(Object::dict)
        .and_then(|d| match d.get(b"Count").map(|n| resolve(doc, n)) {
            Some(Ok(Object::Int(n))) => Some(*n),
            _ => None,
        });
    let mut visited = NumberSet::for_numbers(doc.objects.keys().next_back().copied());
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if let Object::Ref(n, _) = node
            && !visited.insert(*n)
        {
            c.page_revisits += 1;
            continue;
        }
        let Ok(target) = resolve(doc, node) else {
            c.page_holes += 1;
            continue;
        };
        let Some(d) = target.dict() else { continue };
        match d.get(b"Kids").map(|k| resolve(doc, k)) {
            Some(Ok(Object::Array(kids))) => {
                if let Object::Ref(n, _) = node {
                    c.nodes.push(*n);
                }
                stack.extend(kids.iter());
            }
            Some(Err(_)) => c.page_holes += 1,
            _ if d.has_type(b"Pages") => {}
            _ => c.pages += 1,
        }
    }
    c.orphan_pages = doc
        .objects
        .iter()
        .filter(|(n, (_, o))| {
            !visited.contains(**n) && o.dict().is_some_and(|d| d.has_type(b"Page"))
        })
        .count();
}

/// What keeps a reading from being whole, and remarks for one that is.
#[derive(Debug, Default)]
pub(crate) struct Judgement {
    pub(crate) problems: Vec<String>,
    pub(crate) remarks: Vec<String>,
}

/// The first few of `items`, and how many there are.
fn some(items: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut s = items[..items.len().min(SHOWN)].join("; ");
    if items.len() > SHOWN {
        s.push_str(&format!("; and {} more", items.len() - SHOWN));
    }
    s
}

fn by(from: u32) -> String {
    if from == 0 {
        "the trailer".into()
    } else {
        format!("object {from}")
    }
}

impl Census {
    /// Judges a reading with this census; `repaired`: the reading needed repair, so a
    /// reference to nothing may be a loss rather than the file's own.
    pub(crate) fn judge(&self, repaired: bool) -> Judgement {
        let mut j = Judgement::default();
        let mut unreadable = Vec::new();
        let mut nothing = Vec::new();
        for (n, (why, from)) in &self.missing {
            match why {
                Missing::Unreadable(e) => unreadable.push(format!(
                    "object {n} (used by {}) is unreadable: {e}",
                    by(*from)
                )),
                Missing::Unlisted => unreadable.push(format!(
                    "object {n} (used by {}) is in the file but the cross-reference data does \
                     not list it",
                    by(*from)
                )),
                Missing::Free | Missing::Absent => nothing.push(format!(
                    "object {n} (used by {}) is {}",
                    by(*from),
                    if *why == Missing::Free {
                        "marked free"
                    } else {
                        "not in the file"
                    }
                )),
            }
        }
        if !unreadable.is_empty() {
            j.problems.push(format!(
                "{} object{} the document uses cannot be read ({})",
                unreadable.len(),
                plural(unreadable.len()),
                some(&unreadable)
            ));
        }
        if !nothing.is_empty() {
            let what = format!(
                "{} object{} the document uses {} missing ({})",
                nothing.len(),
                plural(nothing.len()),
                if nothing.len() == 1 { "is" } else { "are" },
                some(&nothing)
            );
            if repaired {
                j.problems.push(what);
            } else {
                j.remarks.push(format!(
                    "{what}: references to nothing, which readers take as null; kept as they are"
                ));
            }
        }
        if repaired && self.page_revisits > 0 {
            j.problems.push(format!(
                "the page tree reaches {} of its nodes or pages more than once (it loops, or \
                 lists one twice)",
                self.page_revisits
            ));
        }
        // In a repaired reading, a page the tree does not reach is a sign that the node
        // that listed it was lost (the older revision's node is read instead).
        if repaired && self.orphan_pages > 0 {
            j.problems.push(format!(
                "{} page object{} of the file {} not in the page tree (a page-tree node that \
                 listed {} was lost?)",
                self.orphan_pages,
                plural(self.orphan_pages),
                if self.orphan_pages == 1 { "is" } else { "are" },
                if self.orphan_pages == 1 { "it" } else { "them" }
            ));
        }
        let pages = self.pages_line();
        if self.no_page_tree {
            j.problems.push(pages);
        } else if self.page_holes > 0 || self.fewer_than_declared() {
            if repaired {
                j.problems.push(pages);
            } else {
                j.remarks.push(pages);
            }
        }
        j
    }

    fn fewer_than_declared(&self) -> bool {
        self.declared_pages
            .is_some_and(|d| usize::try_from(d).is_ok_and(|d| d > self.pages))
    }

    /// The page count, said for messages.
    fn pages_line(&self) -> String {
        if self.no_page_tree {
            return "the catalog has no page tree (/Pages)".into();
        }
        let mut s = format!(
            "the page tree holds {} page{}",
            self.pages,
            plural(self.pages)
        );
        if let Some(d) = self.declared_pages.filter(|&d| d != self.pages as i64) {
            s.push_str(&format!(" where its /Count says {d}"));
        }
        if self.page_holes > 0 {
            s.push_str(&format!(
                ", and {} of the pages or page-tree nodes it lists {} missing",
                self.page_holes,
                if self.page_holes == 1 { "is" } else { "are" }
            ));
        }
        s
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The census of a reading of `pdf` loaded from `xref`. An object the document uses that
/// the reading lacks, but the file holds, is [`Missing::Unlisted`].
fn census_of(pdf: &Pdf<'_>, l: &Loaded, xref: &Xref) -> Census {
    census(&l.doc, &|n| match l.lost.get(&n) {
        Some(e) => Missing::Unreadable(e.clone()),
        None => {
            let free = matches!(xref.entries.get(&n), Some(Entry::Free))
                && !xref.damaged_entries.contains(&n);
            if free {
                Missing::Free
            } else if l.members.contains(n) || pdf.scanned().contains_key(&n) {
                Missing::Unlisted
            } else {
                Missing::Absent
            }
        }
    })
}

/// The census of a document that was not read from a file with cross-reference data (an
/// LWC payload's, already checked whole by its reader).
pub(crate) fn census_of_document(doc: &Document) -> Census {
    census(doc, &|_| Missing::Absent)
}

/// Loads `pdf`'s document from the first reading that holds it whole (see the module
/// documentation).
pub(crate) fn load(pdf: &Pdf<'_>, handler: Option<&Handler>) -> Result<(Document, Census)> {
    let written = &pdf.xref;
    let fill = if written.rebuilt.is_some() {
        Fill::Later
    } else {
        Fill::None
    };
    let first = pdf.load_reading(written, handler, fill, Read::Whole)?;
    let c = census_of(pdf, &first, written);
    if written.rebuilt.is_some() && handler.is_none() && looks_encrypted(&first.doc) {
        return Err(Error::Damaged(LOOKS_ENCRYPTED.into()));
    }
    let repaired = written.repaired() || first.misplaced > 0;
    let mut j = c.judge(repaired);
    if repaired {
        j.problems.extend(debris(pdf, &first));
    }
    if written.rebuilt.is_some() {
        j.problems.extend(cut_inside_an_object(pdf, &first));
        j.problems.extend(listed_but_gone(pdf));
    }
    // Pages the tree does not reach, in a file read as written: is the tree an older
    // revision's, because the cross-reference data leads to stale definitions?
    if j.problems.is_empty() && c.orphan_pages > 0 && written.rebuilt.is_none() {
        j.problems.extend(stale_page_tree(pdf, &c));
    }
    let mut catalog = first.catalog;
    if !first.catalog {
        j.problems.insert(0, NO_CATALOG.into());
    }
    // A reading of the revision before an update cut short is whole, but not the
    // document as last saved: a scan sees the update's objects. A rebuilt one holds them,
    // which is the document as last saved unless the update was cut inside its objects.
    if let Some(cut) = written
        .cut_short
        .filter(|c| written.rebuilt.is_none() || !c.xref_follows)
    {
        j.problems.push(cut.describe());
    }
    if j.problems.is_empty() {
        return Ok(finish(first.doc, c, j.remarks, None));
    }
    let mut tried = Vec::new();
    if written.rebuilt.is_none() {
        let objs = pdf.scanned();
        let why = format!(
            "the cross-reference data as written does not hold the whole document ({})",
            j.problems[0]
        );
        let mut readings = Vec::new();
        if written.cut_short.is_none() {
            readings.push((xref::filled(written, objs), Fill::Absent));
        }
        let rebuilt = xref::rebuild(pdf.bytes(), objs, why, &pdf.limits)?;
        readings.push((rebuilt, Fill::Later));
        for (x, fill) in readings {
            let l = match pdf.load_reading(&x, handler, fill, Read::Whole) {
                Ok(l) => l,
                Err(e @ (Error::Limit(_) | Error::PasswordRequired)) => return Err(e),
                Err(e) => {
                    tried.push(e.to_string());
                    continue;
                }
            };
            if handler.is_none() && looks_encrypted(&l.doc) {
                return Err(Error::Damaged(LOOKS_ENCRYPTED.into()));
            }
            let c2 = census_of(pdf, &l, &x);
            let mut j2 = c2.judge(true);
            j2.problems.extend(debris(pdf, &l));
            if fill == Fill::Later {
                j2.problems.extend(cut_inside_an_object(pdf, &l));
                j2.problems.extend(listed_but_gone(pdf));
            }
            catalog |= l.catalog;
            if !l.catalog {
                j2.problems.insert(0, NO_CATALOG.into());
            }
            // An update cut inside its objects: what is left of it is not the document
            // as last saved either.
            if let Some(cut) = written.cut_short.filter(|c| !c.xref_follows) {
                j2.problems.push(cut.describe());
            }
            if j2.problems.is_empty() {
                let how = if fill == Fill::Absent {
                    "its gaps filled by scanning the file for objects"
                } else {
                    "rebuilt by scanning the file for objects"
                };
                let note = format!(
                    "the cross-reference data as written does not hold the whole document \
                     ({}); read with the cross-reference data {how}: {} page{}, {} objects",
                    j.problems.join("; "),
                    c2.pages,
                    plural(c2.pages),
                    c2.used
                );
                return Ok(finish(l.doc, c2, j2.remarks, Some(note)));
            }
            tried.push(j2.problems.join("; "));
        }
    }
    if !catalog {
        return Err(Error::Damaged(NO_CATALOG.into()));
    }
    let mut msg = j.problems.join("; ");
    if let Some(last) = tried.last() {
        msg.push_str(
            "; repairing the cross-reference data by scanning the file for objects did not \
             find the rest",
        );
        if !msg.contains(last.as_str()) {
            msg.push_str(&format!(" ({last})"));
        }
    }
    Err(Error::Incomplete(msg))
}

/// For a reading rebuilt by scanning a file that does not end with `%%EOF`: whether the
/// file ends inside its last object (which cannot be read): then it was cut short inside
/// its objects, and what followed is lost, whatever the rest holds. The last object may
/// be a cross-reference stream, which the rebuilt reading does not need.
fn cut_inside_an_object(pdf: &Pdf<'_>, l: &Loaded) -> Option<String> {
    let buf = pdf.bytes();
    xref::truncation_note(buf)?;
    let (&n, &(off, _)) = pdf.scanned().iter().max_by_key(|(_, (off, _))| *off)?;
    let head = &buf[off..buf.len().min(off + 4096)];
    (l.lost.contains_key(&n) && memchr::memmem::find(head, b"/XRef").is_none()).then(|| {
        format!(
            "the file is cut short inside object {n} (from byte {off}): it is truncated, and \
             whatever followed is lost"
        )
    })
}

/// For a repaired reading: the objects of the file it could not read, used or not (a
/// cross-reference stream aside, which no reading needs). Damage that made them
/// unreadable may have taken what referred to them too -- the page-tree node of an update,
/// say, whose pages are now this debris.
fn debris(pdf: &Pdf<'_>, l: &Loaded) -> Option<String> {
    let buf = pdf.bytes();
    let scan = pdf.scanned();
    let unread: Vec<u32> = l
        .lost
        .keys()
        .copied()
        .filter(|n| {
            scan.get(n).is_none_or(|&(off, _)| {
                memchr::memmem::find(&buf[off..buf.len().min(off + 4096)], b"/XRef").is_none()
            })
        })
        .collect();
    let first = unread.first()?;
    Some(format!(
        "{} object{} of the file cannot be read (first: {first}), and what the damage took \
         with {} is unknown",
        unread.len(),
        plural(unread.len()),
        if unread.len() == 1 { "it" } else { "them" }
    ))
}

/// For a reading rebuilt by scanning: whether the last cross-reference section of the
/// file lists objects that the file does not hold (then the revision it describes lost
/// objects, whatever the scan found of older ones).
fn listed_but_gone(pdf: &Pdf<'_>) -> Option<String> {
    let objs = pdf.scanned();
    let gone: Vec<u32> = xref::newest_section_entries(pdf.bytes(), objs, &pdf.limits)
        .into_iter()
        .filter(|(n, e)| match e {
            Entry::Offset { .. } => !objs.contains_key(n),
            Entry::Compressed { container, .. } => !objs.contains_key(container),
            Entry::Free => false,
        })
        .map(|(n, _)| n)
        .collect();
    let first = gone.first()?;
    Some(format!(
        "the last cross-reference section of the file lists {} object{} that the file does \
         not hold (first: {first}): the revision it describes lost them",
        gone.len(),
        plural(gone.len())
    ))
}

/// Whether a catalog or page-tree node of the reading as written was read from an older
/// definition than the last one in the file (an update's, which its cross-reference data
/// should name but, being damaged, does not).
fn stale_page_tree(pdf: &Pdf<'_>, c: &Census) -> Option<String> {
    let scan = pdf.scanned();
    c.nodes.iter().find_map(|n| {
        let Some(Entry::Offset { offset, .. }) = pdf.xref.entries.get(n) else {
            return None;
        };
        let &(last, _) = scan.get(n)?;
        (last > *offset).then(|| {
            format!(
                "{} page object{} not in the page tree, and its node {n} is read from byte \
                 {offset} while the file defines it again at byte {last}: the cross-reference \
                 data leads to an older revision",
                c.orphan_pages,
                if c.orphan_pages == 1 { " is" } else { "s are" }
            )
        })
    })
}

const LOOKS_ENCRYPTED: &str = "no Flate stream of the file decompresses: it looks \
encrypted, and the trailer that held its encryption dictionary is lost, so it cannot be \
decrypted";

/// Whether a document read as unencrypted has Flate streams none of which decompresses
/// (the first 16 tried): the sign of an encrypted file whose trailer, with a direct
/// /Encrypt dictionary, was lost.
fn looks_encrypted(doc: &Document) -> bool {
    let mut flate = doc
        .objects
        .values()
        .filter_map(|(_, o)| match o {
            Object::Stream(s) => Some(s),
            _ => None,
        })
        .filter(|s| {
            crate::filters::filter_chain(&s.dict)
                .first()
                .is_some_and(|(f, _)| f == b"FlateDecode" || f == b"Fl")
        })
        .take(16)
        .peekable();
    flate.peek().is_some() && !flate.any(|s| crate::filters::inflates(&s.data))
}

fn finish(
    mut doc: Document,
    c: Census,
    remarks: Vec<String>,
    note: Option<String>,
) -> (Document, Census) {
    for r in note.into_iter().chain(remarks) {
        doc.warn(r);
    }
    (doc, c)
}

/// Checks that `bytes`, the file about to be written, holds what was read: the same
/// pages, the same number of objects reachable from its catalog and /Info, no reference
/// to nothing that the document read did not have. `handler` opens it if it is
/// encrypted (only its object streams are decrypted). A difference is
/// [`Error::Incomplete`]; it would be a bug of ours, and nothing is written.
///
/// The file is first read back without building its objects (`crate::readback`); when
/// that reading cannot say, or finds a difference, it is loaded back whole, and that
/// reading decides (and says what differs).
pub fn check_written(
    read: &Census,
    bytes: &[u8],
    handler: Option<&Handler>,
    limits: &Limits,
) -> Result<()> {
    if crate::readback::counts(bytes, handler, limits).is_some_and(|got| {
        got.pages == read.pages && got.used == read.used && got.missing <= read.missing.len()
    }) {
        return Ok(());
    }
    let fail = |what: String| {
        Err(Error::Incomplete(format!(
            "the file to be written {what} (a bug in cipherlab; please report it with the input)"
        )))
    };
    let pdf = match Pdf::parse_with(bytes, *limits) {
        Ok(p) => p,
        Err(e) => return fail(format!("does not read back: {e}")),
    };
    let l = match pdf.load_reading(&pdf.xref, handler, Fill::None, Read::Structure) {
        Ok(l) => l,
        Err(e) => return fail(format!("does not read back: {e}")),
    };
    let got = census_of(&pdf, &l, &pdf.xref);
    check_same(read, &got).or_else(fail)
}

/// Checks that the document about to be written (`prepared`) holds what was read.
pub fn check_prepared(read: &Census, prepared: &Document) -> Result<()> {
    check_same(read, &census_of_document(prepared)).map_err(|what| {
        Error::Incomplete(format!(
            "the document to be written {what} (a bug in cipherlab; please report it with the \
             input)"
        ))
    })
}

/// `Err(what differs)` unless `got` has the pages and objects of `read`.
fn check_same(read: &Census, got: &Census) -> std::result::Result<(), String> {
    if got.pages != read.pages {
        return Err(format!(
            "would have {} page{} where the document read has {}",
            got.pages,
            plural(got.pages),
            read.pages
        ));
    }
    if got.used != read.used {
        return Err(format!(
            "would hold {} objects reachable from its catalog where the document read has {}",
            got.used, read.used
        ));
    }
    let unreadable = got
        .missing
        .values()
        .any(|(m, _)| matches!(m, Missing::Unreadable(_)));
    if unreadable || got.missing.len() > read.missing.len() {
        return Err(format!(
            "would refer to {} missing object{} where the document read refers to {}",
            got.missing.len(),
            plural(got.missing.len()),
            read.missing.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A page tree with what the census looks at in odd places: an indirect /Kids array
    /// and /Count, a kid given directly, a stream and a plain dictionary as kids, a node
    /// listed twice, an orphan page, a missing object, and a stream whose /Length is a
    /// reference.
    const ODD_TREE: &str = "%PDF-1.7
1 0 obj << /Type /Catalog /Pages 2 0 R /Names << /X 9 0 R >> >> endobj
2 0 obj << /Type /Pages /Kids 3 0 R /Count 4 0 R >> endobj
3 0 obj [5 0 R << /Type /Page /Parent 2 0 R /Contents 7 0 R >> 6 0 R 8 0 R 8 0 R 10 0 R] endobj
4 0 obj 6 endobj
5 0 obj << /Type /Page /Parent 2 0 R /Resources << /Font << /F1 11 0 R >> >> /Annots [12 0 R 13 0 R] >> endobj
6 0 obj << /Kids [14 0 R] /Parent 2 0 R >> endobj
7 0 obj << /Length 15 0 R >> stream
BT ET
endstream endobj
8 0 obj << /Length 3 /Extra 9 0 R >> stream
abc
endstream endobj
9 0 obj << /Some (string) /Ref 1 0 R >> endobj
10 0 obj << /Not /APage >> endobj
11 0 obj << /Type /Font >> endobj
12 0 obj << /Type /Annot /P 5 0 R >> endobj
14 0 obj << /Type /Page /Parent 6 0 R >> endobj
15 0 obj 5 endobj
16 0 obj << /Type /Page >> endobj
trailer << /Root 1 0 R /Size 17 >>
";

    /// [`ODD_TREE`] without the kid given directly, and every stream's /Length direct:
    /// what the read-back without objects counts ([`crate::readback`]).
    fn plain_tree() -> String {
        ODD_TREE
            .replace("<< /Type /Page /Parent 2 0 R /Contents 7 0 R >> ", "")
            .replace("<< /Length 15 0 R >>", "<< /Length 5 >>")
    }

    /// `bytes` read back as [`check_written`] reads it: without objects, and whole.
    fn read_back(
        bytes: &[u8],
        password: Option<&str>,
    ) -> (Option<crate::readback::Counts>, Census) {
        let pdf = Pdf::parse(bytes).unwrap();
        let h = pdf.authenticate(password).unwrap().map(|(h, _)| h);
        let l = pdf
            .load_reading(&pdf.xref, h.as_ref(), Fill::None, Read::Structure)
            .unwrap();
        let whole = census_of(&pdf, &l, &pdf.xref);
        (
            crate::readback::counts(bytes, h.as_ref(), &Limits::default()),
            whole,
        )
    }

    fn assert_same_counts(bytes: &[u8], password: Option<&str>, what: &str) {
        let (flat, whole) = read_back(bytes, password);
        let flat = flat.unwrap_or_else(|| panic!("{what}: not counted without objects"));
        assert_eq!(
            (flat.pages, flat.used, flat.missing),
            (whole.pages, whole.used, whole.missing.len()),
            "{what}: {whole:?}"
        );
    }

    #[test]
    fn read_back_without_objects_counts_as_the_whole_reading() {
        // A file without cross-reference data is not counted without objects (nor is a
        // kid given directly, nor an indirect /Length): the whole reading decides.
        assert_eq!(read_back(ODD_TREE.as_bytes(), None).0, None);
        let plain = plain_tree();
        let (_, whole) = read_back(plain.as_bytes(), None);
        assert_eq!((whole.pages, whole.page_revisits), (4, 1), "{whole:?}");
        // What the writer makes of it, every layout, and encrypted with each cipher.
        let pdf = Pdf::parse(plain.as_bytes()).unwrap();
        let doc = pdf
            .load_reading(&pdf.xref, None, Fill::Later, Read::Whole)
            .unwrap()
            .doc;
        for (object_streams, xref_stream) in [(false, false), (false, true), (true, true)] {
            let layout = crate::writer::Layout {
                object_streams,
                xref_stream,
            };
            let written = crate::writer::write(doc.clone(), layout);
            assert_same_counts(&written, None, &format!("{layout:?}"));
            for cipher in crate::standard::StdCipher::ALL {
                let opts = crate::encrypt::test_options(cipher);
                let enc = crate::encrypt(&written, &opts).unwrap();
                assert_same_counts(&enc.bytes, Some("u"), &format!("{layout:?} {cipher:?}"));
            }
        }
    }

    /// A file of 3,000 pages, each with its own content stream: more top-level objects
    /// than the read-back reads on one thread, so its references are gathered in chunks
    /// and joined; it counts what the whole reading does, in the clear and encrypted.
    #[test]
    fn read_back_in_chunks_counts_as_the_whole_reading() {
        let n = 3000;
        let mut text = String::from("%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n");
        let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 3 + 2 * i)).collect();
        text += &format!(
            "2 0 obj << /Type /Pages /Count {n} /Kids [{}] >> endobj\n",
            kids.join(" ")
        );
        for i in 0..n {
            let (page, content) = (3 + 2 * i, 4 + 2 * i);
            text += &format!(
                "{page} 0 obj << /Type /Page /Parent 2 0 R /Contents {content} 0 R >> endobj\n\
                 {content} 0 obj << /Length 5 >> stream\nq Q Q\nendstream endobj\n"
            );
        }
        let pdf = Pdf::parse(text.as_bytes()).unwrap();
        let doc = pdf
            .load_reading(&pdf.xref, None, Fill::Later, Read::Whole)
            .unwrap()
            .doc;
        let layout = crate::writer::Layout {
            object_streams: false,
            xref_stream: false,
        };
        let written = crate::writer::write(doc, layout);
        let (_, whole) = read_back(&written, None);
        assert_eq!(whole.pages, n, "{whole:?}");
        assert_same_counts(&written, None, "3,000 pages");
        let opts = crate::encrypt::test_options(crate::standard::StdCipher::Aes256);
        let enc = crate::encrypt(&written, &opts).unwrap();
        assert_same_counts(&enc.bytes, Some("u"), "3,000 pages, aes-256");
    }

    /// The outputs of the fuzz corpora (`pdf_encrypt` encrypted with a Standard cipher and
    /// decrypted again, `pdf_info_decrypt` decrypted): wherever the read-back without objects counts one, it counts
    /// what the whole reading does, and it counts most of them.
    #[test]
    fn read_back_without_objects_agrees_on_the_fuzz_corpus() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/pdf_encrypt");
        let Ok(rd) = std::fs::read_dir(&dir) else {
            println!("SKIP: {} is missing", dir.display());
            return;
        };
        let (mut outputs, mut counted) = (0, 0);
        for e in rd {
            let b = std::fs::read(e.unwrap().path()).unwrap();
            let Some((&pick, input)) = b.split_first() else {
                continue;
            };
            let cipher = crate::standard::StdCipher::ALL[usize::from(pick) % 3];
            let opts = crate::Options {
                encrypt_metadata: pick & 0x80 == 0,
                input_password: Some("user"),
                ..crate::encrypt::test_options(cipher)
            };
            let Ok(enc) = crate::encrypt(input, &opts) else {
                continue;
            };
            let dec = crate::decrypt(&enc.bytes, Some("u")).unwrap();
            for (bytes, password) in [(&enc.bytes, Some("u")), (&dec.bytes, None)] {
                outputs += 1;
                let (flat, whole) = read_back(bytes, password);
                if let Some(flat) = flat {
                    counted += 1;
                    assert_eq!(
                        (flat.pages, flat.used, flat.missing),
                        (whole.pages, whole.used, whole.missing.len()),
                        "{whole:?}"
                    );
                }
            }
        }
        // And what the decryption corpus (damaged and odd files, repaired) decrypts to.
        let dir = dir.with_file_name("pdf_info_decrypt");
        for e in std::fs::read_dir(&dir).into_iter().flatten() {
            let b = std::fs::read(e.unwrap().path()).unwrap();
            let Ok(dec) = crate::decrypt(&b, None).or_else(|_| crate::decrypt(&b, Some("user")))
            else {
                continue;
            };
            outputs += 1;
            let (flat, whole) = read_back(&dec.bytes, None);
            if let Some(flat) = flat {
                counted += 1;
                assert_eq!(
                    (flat.pages, flat.used, flat.missing),
                    (whole.pages, whole.used, whole.missing.len()),
                    "{whole:?}"
                );
            }
        }
        println!("{counted} of {outputs} outputs counted without objects");
        assert!(counted * 2 > outputs, "{counted} of {outputs}");
    }

    #[test]
    fn the_odd_tree_is_as_odd_as_meant() {
        let pdf = Pdf::parse(ODD_TREE.as_bytes()).unwrap();
        let l = pdf
            .load_reading(&pdf.xref, None, Fill::Later, Read::Structure)
            .unwrap();
        let whole = census_of(&pdf, &l, &pdf.xref);
        // Every kind of page found, and what is missing.
        assert_eq!(whole.pages, 5, "{whole:?}");
        assert_eq!(whole.declared_pages, Some(6), "{whole:?}");
        assert_eq!(whole.page_revisits, 1, "{whole:?}");
        assert_eq!(whole.orphan_pages, 1, "{whole:?}");
        assert_eq!(whole.missing.keys().copied().collect::<Vec<_>>(), [13]);
    }
}
