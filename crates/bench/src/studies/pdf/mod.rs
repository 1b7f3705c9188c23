//! `pdf`: PDF encryption and decryption per cipher, the experiment of "Harnessing
//! Lightweight Ciphers for PDF Encryption" (Figs. 10 and 11) done with our PDF layer.
//!
//! For AES-128 (revision 4, the paper's AES), AES-256 (revision 6), RC4-128 (revision 3)
//! and the authenticated lightweight ciphers Ascon-AEAD128, Ascon-128 (the paper's),
//! Xoodyak (the paper's) and ISAP-A-128A, over real PDFs ([`inputs`]), each phase of
//! [`work`] is timed in the paper's two JMH modes:
//!
//! - **average time** over many PDFs: one call encrypts (or decrypts) every file of the
//!   set, with warm-up and calibrated batches (data type `pdf-set`);
//! - **single shot**, one PDF, cold: one call per sample on the largest file of the set,
//!   no warm-up, a fresh input per call (data type: the file's name). With `--forks N`
//!   (and at `--paper-sizes`, in 2 forks as the paper did) the first call of each
//!   process is cold in every sense.
//!
//! `keys` and `unlock` (key derivation) are timed apart, once per cipher. Rates count the
//! bytes the cipher processes (the plaintext of the strings and streams) for the cipher
//! phases and the input file's bytes for the jobs. The findings ([`findings`]) set each
//! mode's ratios to AES-128 beside the paper's, give the cipher's share of the whole job,
//! and check the paper's conclusion.

mod builtin;
mod findings;
mod inputs;
mod jvm;
mod jvm_check;
mod work;

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

use cipherlab_pdf::{Cipher, LwcCipher, StdCipher};

use super::paper::pdf_lwc;
use super::{Config, Elsewhere, Scale, Study, StudyError, check, err};
use cipherlab_harness::machine::MachineInfo;
use cipherlab_harness::{BatchSize, Bencher, Clock, Mode, Settings};
use cipherlab_results::artifact::Artifact;
use cipherlab_results::id::{BenchId, Measurement, Phase, Subject, Suite};

pub use builtin::files as builtin_files;
pub use inputs::{ENV_DIR, Origin, PdfSet};

/// The study.
pub struct PdfStudy;

pub(super) const NAME: &str = "pdf";

/// The implementation column of every benchmark: cipherlab's PDF layer.
const IMPLEMENTATION: &str = "cipherlab-pdf";

/// The data type of the average-time benchmarks (single shot uses the file's name).
pub const SET_LABEL: &str = "pdf-set";

/// The paper's ciphers and ours, in table order.
pub const CIPHERS: [Cipher; 7] = [
    Cipher::Standard(StdCipher::Aes128),
    Cipher::Standard(StdCipher::Aes256),
    Cipher::Standard(StdCipher::Rc4_128),
    Cipher::Lwc(LwcCipher::ASCON_AEAD128),
    Cipher::Lwc(LwcCipher::ASCON_128),
    Cipher::Lwc(LwcCipher::XOODYAK),
    Cipher::Lwc(LwcCipher::ISAP_A_128A),
];

/// The phases timed on files, in table order.
const FILE_PHASES: [Phase; 4] = [
    Phase::Encrypt,
    Phase::Decrypt,
    Phase::EncryptJob,
    Phase::DecryptJob,
];

/// A PDF cipher as a figure's subject, by the name `pdf encrypt --cipher` takes.
fn subject(c: Cipher) -> Subject {
    Subject::named(c.name())
}

/// The catalogue cipher under a PDF cipher: what `--cipher aes-128-cbc` also selects.
fn catalogue_name(c: Cipher) -> &'static str {
    match c {
        Cipher::Standard(StdCipher::Aes128) => "aes-128-cbc",
        Cipher::Standard(StdCipher::Aes256) => "aes-256-cbc",
        Cipher::Standard(StdCipher::Rc4_128) => "rc4-128",
        Cipher::Lwc(l) => l.name(),
    }
}

/// How the file is encrypted, for tables: the Standard handler's revision and crypt
/// filter, or the authenticated LWC handler (docs/pdf-lwc.md).
fn handler(c: Cipher) -> &'static str {
    match c {
        Cipher::Standard(StdCipher::Aes128) => "R4 AESV2",
        Cipher::Standard(StdCipher::Aes256) => "R6 AESV3",
        Cipher::Standard(StdCipher::Rc4_128) => "R3 RC4 (weak)",
        Cipher::Lwc(_) => "LWC AEAD",
    }
}

pub(super) fn wanted(cfg: &Config, c: Cipher) -> bool {
    cfg.filter.accepts(c.name()) || cfg.filter.accepts(catalogue_name(c))
}

/// The files of one mode.
type Files = Rc<Vec<(String, Arc<Vec<u8>>)>>;

/// One mode's benchmarks: which files, under which label, with which settings.
struct ModePlan {
    label: String,
    files: Files,
    /// Sum of the files' sizes.
    size: u64,
    /// Bytes the cipher phase processes, per handler family: (standard, LWC).
    payload: (u64, u64),
    settings: Option<Settings>,
}

impl ModePlan {
    fn new(set: &PdfSet, which: &[usize], label: &str, settings: Option<Settings>) -> ModePlan {
        let chosen: Vec<&inputs::PdfFile> =
            which.iter().filter_map(|&i| set.files.get(i)).collect();
        ModePlan {
            label: label.to_string(),
            files: Rc::new(
                chosen
                    .iter()
                    .map(|f| (f.label.clone(), Arc::clone(&f.plain)))
                    .collect(),
            ),
            size: chosen.iter().map(|f| f.plain.len() as u64).sum(),
            payload: (
                chosen.iter().map(|f| f.payload_std.bytes).sum(),
                chosen.iter().map(|f| f.payload_lwc.bytes).sum(),
            ),
            settings,
        }
    }
}

/// Average time: the harness's settings, except at `--paper-sizes`, where the paper's
/// JMH protocol applies (5 warm-up iterations, 10 iterations in each of 2 forks).
fn average_settings(scale: Scale) -> Option<Settings> {
    let (warmup, iterations, forks) = pdf_lwc::AVERAGE_TIME;
    (scale == Scale::Paper).then(|| Settings {
        warmup_iterations: warmup,
        iterations,
        forks,
        ..Settings::default()
    })
}

/// Single shot: 10 calls at `--quick`, 30 by default; the paper's 10 in each of 2 forks
/// at `--paper-sizes`. In this process the samples are taken in 3 slices spread over the
/// run, as the harness does for the other benchmarks.
fn single_settings(scale: Scale) -> Settings {
    let (iterations, forks) = match scale {
        Scale::Quick => (10, 0),
        Scale::Full => (30, 0),
        Scale::Paper => pdf_lwc::SINGLE_SHOT,
    };
    Settings {
        iterations,
        forks,
        rounds: if forks > 0 { 1 } else { 3 },
        ..scale
            .pick(Settings::quick(), Settings::default(), Settings::default())
            .with_mode(Mode::SingleShot)
    }
}

/// The prepared and proven work of `cipher` on `files`, made once per process and kept
/// while the suite runs (its rounds visit every benchmark several times). When the files
/// are large only the last one is kept.
fn work_for(cipher: Cipher, files: &Files) -> Result<Rc<work::Work>, String> {
    const KEEP_ALL_BELOW: u64 = 32 << 20;
    thread_local! {
        static WORKS: RefCell<Vec<(String, Rc<work::Work>)>> = const { RefCell::new(Vec::new()) };
    }
    let key = format!(
        "{}|{}",
        cipher.name(),
        files
            .iter()
            .map(|(l, b)| format!("{l}:{}", b.len()))
            .collect::<Vec<_>>()
            .join("|")
    );
    if let Some(w) =
        WORKS.with_borrow(|v| v.iter().find(|(k, _)| *k == key).map(|(_, w)| Rc::clone(w)))
    {
        return Ok(w);
    }
    let w = Rc::new(work::Work::build(cipher, files)?);
    WORKS.with_borrow_mut(|v| {
        if w.input_bytes() > KEEP_ALL_BELOW {
            v.clear();
        }
        v.push((key, Rc::clone(&w)));
    });
    Ok(w)
}

/// Inputs copied at once for the harness's batches: about 64 MiB of them at most.
fn batch(w: &work::Work) -> BatchSize {
    let per = (w.input_bytes() * 3).max(1);
    BatchSize::Inputs(((64u64 << 20) / per).clamp(1, 100))
}

/// Adds a benchmark on the process's CPU time: the PDF layer spreads its per-object work
/// and R6 key derivation over threads (`cipherlab_pdf::par`), which the measuring
/// thread's CPU time would not see. The wall clock would see them but also every
/// millisecond another program held a core: in a `bench --quick` run at load average 6
/// (one core kept busy, builds beside it) 62 of this study's 70 wall-clock figures could
/// not be ordered against a neighbour (docs/BENCHMARKS.md). Process CPU time counts the work of every thread and
/// none of the waiting, so the ciphers' costs rank on a busy machine too; how long a
/// user waits for a whole file is measured beside qpdf (docs/BENCHMARKS.md, PDF).
fn add<'a>(
    suite: &mut Suite<'a>,
    id: BenchId,
    bytes: Option<u64>,
    settings: Option<Settings>,
    bench: impl FnMut(&mut Bencher<'_>) + 'a,
) {
    suite.add_on(Clock::ProcessCpu, id, bytes, settings, bench);
}

/// Adds `phase` of `cipher` on the files of `mode`.
fn add_phase(suite: &mut Suite<'_>, cipher: Cipher, phase: Phase, mode: &ModePlan) {
    let id = BenchId::new(
        NAME,
        subject(cipher),
        IMPLEMENTATION,
        phase,
        mode.size,
        &mode.label,
    );
    let payload = match cipher {
        Cipher::Standard(_) => mode.payload.0,
        Cipher::Lwc(_) => mode.payload.1,
    };
    let bytes = match phase {
        Phase::Encrypt | Phase::Decrypt => payload,
        _ => mode.size,
    };
    let files = Rc::clone(&mode.files);
    let bench = move |b: &mut Bencher<'_>| {
        let w = match work_for(cipher, &files) {
            Ok(w) => w,
            Err(e) => return b.fail(e),
        };
        // A failure inside the timed region is kept and fails the benchmark afterwards:
        // a call that stopped early must not pass for a fast one.
        let failed: Cell<Option<String>> = Cell::new(None);
        let keep = |r: cipherlab_pdf::Result<usize>| match r {
            Ok(n) => n,
            Err(e) => {
                failed.set(Some(e.to_string()));
                0
            }
        };
        match phase {
            Phase::Encrypt => {
                b.iter_batched(|| w.packs(), |p| keep(w.encrypt(p).map(|()| 0)), batch(&w))
            }
            Phase::Decrypt => {
                b.iter_batched(|| w.raws(), |r| keep(w.decrypt(r).map(|()| 0)), batch(&w))
            }
            Phase::EncryptJob => b.iter(|| keep(w.encrypt_jobs())),
            Phase::DecryptJob => b.iter(|| keep(w.decrypt_jobs())),
            other => b.fail(format!("the pdf study does not time {other} on files")),
        }
        if let Some(e) = failed.take() {
            b.fail(format!(
                "{} {} failed while timed on {}: {e}",
                cipher.name(),
                phase,
                w.labels().join(", ")
            ));
        }
    };
    add(suite, id, Some(bytes.max(1)), mode.settings.clone(), bench);
}

/// Adds `keys` and `unlock` of `cipher`.
fn add_keys(suite: &mut Suite<'_>, cipher: Cipher, settings: Option<Settings>) {
    let id = |phase| BenchId::new(NAME, subject(cipher), IMPLEMENTATION, phase, 0, "none");
    add(suite, id(Phase::Keys), None, settings.clone(), move |b| {
        let failed = Cell::new(None);
        b.iter(|| {
            if let Err(e) = work::derive_keys(cipher) {
                failed.set(Some(e.to_string()));
            }
        });
        if let Some(e) = failed.take() {
            b.fail(format!("{} keys: {e}", cipher.name()));
        }
    });
    add(suite, id(Phase::Unlock), None, settings, move |b| {
        let lock = match work::lock(cipher) {
            Ok(l) => l,
            Err(e) => return b.fail(format!("{} unlock setup: {e}", cipher.name())),
        };
        let failed = Cell::new(None);
        b.iter(|| {
            if let Err(e) = work::unlock(&lock) {
                failed.set(Some(e.to_string()));
            }
        });
        if let Some(e) = failed.take() {
            b.fail(format!("{} unlock: {e}", cipher.name()));
        }
    });
}

/// Proves `cipher` at plan time, before anything is timed: its catalogue cipher (LWC:
/// the provider the PDF layer uses) and a round trip of the smallest built-in PDF through
/// every phase. Remembered for the process.
fn prove(cipher: Cipher) -> Result<(), String> {
    thread_local! {
        static PROVEN: RefCell<Vec<(&'static str, Result<(), String>)>> = const { RefCell::new(Vec::new()) };
    }
    if let Some(r) = PROVEN.with_borrow(|v| {
        v.iter()
            .find(|(n, _)| *n == cipher.name())
            .map(|(_, r)| r.clone())
    }) {
        return r;
    }
    let r = (|| {
        if let Cipher::Lwc(l) = cipher {
            let spec = l.spec();
            check::prove(&spec, None)?;
        }
        let smallest = builtin::files()
            .into_iter()
            .min_by_key(|(_, b)| b.len())
            .map(|(n, b)| (n, Arc::new(b)))
            .ok_or_else(|| "no built-in PDF".to_string())?;
        work::Work::build(cipher, &[smallest]).map(|_| ())
    })();
    PROVEN.with_borrow_mut(|v| v.push((cipher.name(), r.clone())));
    r
}

impl Study for PdfStudy {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "PDF encryption and decryption per cipher: all strings and streams, the whole job, key derivation apart; average time over many PDFs and single shot on one"
    }

    fn source(&self) -> &'static str {
        "PDF lightweight-ciphers paper, Figs. 10 (average time) and 11 (single shot)"
    }

    fn plan<'a>(&self, cfg: &Config, suite: &mut Suite<'a>) -> Result<(), StudyError> {
        let ciphers: Vec<Cipher> = CIPHERS.into_iter().filter(|&c| wanted(cfg, c)).collect();
        if ciphers.is_empty() {
            return Ok(());
        }
        let set = PdfSet::for_config(cfg);
        let Some(sel) = set.selection(cfg.scale) else {
            return Err(err(
                NAME,
                format!("no usable PDF in {}", set.origin.describe()),
            ));
        };
        let single_label = set
            .files
            .get(sel.single)
            .map(|f| f.label.clone())
            .unwrap_or_default();
        let modes = [
            ModePlan::new(&set, &sel.average, SET_LABEL, average_settings(cfg.scale)),
            ModePlan::new(
                &set,
                &[sel.single],
                &single_label,
                Some(single_settings(cfg.scale)),
            ),
        ];
        for c in ciphers {
            prove(c).map_err(|e| err(NAME, e))?;
            for mode in &modes {
                for phase in FILE_PHASES {
                    add_phase(suite, c, phase, mode);
                }
            }
            add_keys(suite, c, average_settings(cfg.scale));
        }
        Ok(())
    }

    /// PDFBox and the paper's swap in the JVM, timed by JMH, when the Java runner is ready.
    fn runs_elsewhere(&self) -> bool {
        true
    }

    fn elsewhere(&self, cfg: &Config, settings: &Settings) -> Result<Elsewhere, StudyError> {
        Ok(jvm::measure(cfg, settings))
    }

    fn findings(
        &self,
        cfg: &Config,
        all: &[&Measurement],
        machine: &MachineInfo,
    ) -> Result<Vec<Artifact>, StudyError> {
        if all.is_empty() {
            return Ok(Vec::new());
        }
        // The JVM's figures have their own table; cipherlab's findings read its own only.
        let (java, ms): (Vec<&Measurement>, Vec<&Measurement>) = all
            .iter()
            .partition(|m| m.id.implementation == jvm::IMPLEMENTATION);
        let set = PdfSet::for_config(cfg);
        let sel = set
            .selection(cfg.scale)
            .ok_or_else(|| err(NAME, "the PDF set is empty"))?;
        let mut out = findings::artifacts(&set, &sel, &ms, machine);
        let single = set.files.get(sel.single).map_or("", |f| f.label.as_str());
        out.extend(jvm::findings(&java, &ms, single));
        Ok(out)
    }

    fn profile_findings(&self, profiles: &[&Artifact], all: &[&Measurement]) -> Vec<Artifact> {
        findings::where_the_time_went(profiles)
            .into_iter()
            .chain(jvm::phases(profiles, all))
            .collect()
    }
}
