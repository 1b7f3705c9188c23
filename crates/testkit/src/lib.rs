//! Test support for cipherlab's crates, used as a dev-dependency by every crate's tests so
//! that the vector files are read one way everywhere:
//!
//! - [`kat`]: where the official vectors are (`$CIPHERLAB_KAT_DIR`, else `../shared/kat`
//!   beside the workspace), what happens when they are missing (a `SKIP` line for a
//!   developer, a failure in CI, which sets `CIPHERLAB_REQUIRE_KAT=1`), and the built-in
//!   excerpts that run everywhere;
//! - [`record`]: one parser for every `NAME = VALUE` vector file of the KAT folder (NIST LWC,
//!   NIST CAVP `.rsp`, pyca's NIST-like text, the hand-transcribed RC2 and Skipjack files) and
//!   for the crates' own data files, with records that know which fields were read;
//! - [`runner`]: runs a check on every record of a file and fails a record with a field
//!   nobody read (as ring's test runner does), so no file goes half-checked; prints counts;
//! - [`lwc`]: the NIST LWC AEAD, hash, XOF and CXOF vectors as typed values;
//! - [`pdf`]: the table of `../shared/pdf/README.md` (files, encryption, passwords);
//! - [`postgres`]: a throw-away PostgreSQL server in a temporary directory, stopped on drop;
//! - [`process`]: running a workspace binary in a test and asserting how it ended;
//! - [`files`]: what a test left in a directory.
//!
//! Test support panics with a message where a test would: a panic is how a test fails.

pub mod files;
pub mod kat;
pub mod lwc;
pub mod pdf;
pub mod postgres;
pub mod process;
pub mod record;
pub mod runner;

pub use kat::kat_dir;
pub use record::{Record, parse};
pub use runner::{Ctx, FileReport, Totals, run_file, run_kat, same, try_run_file};
