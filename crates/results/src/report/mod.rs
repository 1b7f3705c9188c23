//! The report: what `cipherlab report` writes. One self-contained HTML page per set of
//! runs (plots as inline SVG, images as `data:` URIs, inline CSS, no script, nothing
//! fetched), and CSV and JSON exports of the measurements behind one [`export::Exporter`]
//! trait.
//!
//! | module | job |
//! |---|---|
//! | [`svg`] | draws plots with whiskers and byte histograms |
//! | [`figures`] | decides each study's plots (x axis, series, throughput or time) |
//! | [`html`] | escaping, `data:` URIs, tables, the style sheet |
//! | [`page`] | puts the page together: runs, machine, validity, the studies |
//! | [`export`] | CSV and JSON |
//!
//! Files are written through `cipherlab-outfile` by the caller: a reader (or a crash)
//! never sees half a report.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use cipherlab_results::report;
//! use cipherlab_results::store::{NewRun, Store};
//! let mut store = Store::open_in_memory()?;
//! let machine = cipherlab_harness::machine::MachineInfo::detect();
//! let id = store.save_run(&NewRun::now("doc", machine), &[], 0)?;
//! let page = report::html(&[store.load_run(id)?], "memory", &[]);
//! assert!(page.starts_with("<!DOCTYPE html>"));
//! # Ok(()) }
//! ```

pub mod export;
pub mod figures;
pub mod gbench;
pub mod html;
pub mod jmh;
pub mod page;
pub mod svg;

use crate::store::Run;

/// What the report knows of a study: given by the lab (`cipherlab_results::studies::about`),
/// so that the results crate does not depend on the studies. Studies the runs hold but
/// this list lacks (one added after this build, or a user's) still get their section,
/// after the listed ones and without a title.
#[derive(Clone, Debug)]
pub struct StudyAbout {
    /// The study's name, as in `BenchId::study`.
    pub name: String,
    /// One line saying what it measures.
    pub title: String,
    /// The publication or question it comes from.
    pub source: String,
}

/// The report page for `runs`, read from `source` (named in the page's header); the
/// studies' sections come in the order of `studies`.
pub fn html(runs: &[Run], source: &str, studies: &[StudyAbout]) -> String {
    page::render(runs, source, studies)
}
