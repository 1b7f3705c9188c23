//! `cipherlab bench --profile`: where each figure's CPU time went. After the measured
//! run, every benchmark runs once more (one slice) with a sampling profiler on (the
//! `pprof` crate: the process's CPU-time timer, `SIGPROF`, a stack walk per sample);
//! those samples become one [`Profile`] artifact per figure, which the report draws as a
//! flame graph. The figures kept are the measured run's, which no profiler touched
//! (`pipeline::profile_pass` says why that matters).
//!
//! The profiler is one per process (a signal handler and a timer): a second run
//! profiling at the same time in the same process gets a warning and no profiles.
//! Only work in this process is seen: benchmarks measured in fork children (`--forks`)
//! and the other runtimes' runners are not profiled (the pipeline refuses `--forks` with
//! `--profile`).

use std::collections::BTreeMap;

use cipherlab_results::artifact::{Artifact, Content, Profile};
use cipherlab_results::id::BenchId;

/// Samples per second of CPU time: a prime, so the sampling does not beat with a loop
/// of the measured code, and high enough that a `--quick` figure (tens of ms of CPU)
/// gets tens of samples.
pub const FREQUENCY_HZ: i32 = 997;

/// Frames of the profiler's own signal path and of the C library, which every stack
/// would otherwise start with.
const BLOCKLIST: &[&str] = &["libc", "libgcc", "pthread", "vdso"];

/// Collects profiles, one per figure, while the suite runs.
#[derive(Default)]
pub struct Profiler {
    running: Option<(BenchId, pprof::ProfilerGuard<'static>)>,
    profiles: BTreeMap<String, (BenchId, Profile)>,
    /// Why profiling stopped, if the profiler could not start or report.
    pub failure: Option<String>,
}

impl Profiler {
    /// Ends the slice being profiled, if any, and starts profiling `id`'s next slice.
    pub fn switch_to(&mut self, id: &BenchId) {
        self.stop();
        if self.failure.is_some() {
            return;
        }
        match pprof::ProfilerGuardBuilder::default()
            .frequency(FREQUENCY_HZ)
            .blocklist(BLOCKLIST)
            .build()
        {
            Ok(guard) => self.running = Some((id.clone(), guard)),
            Err(e) => self.failure = Some(format!("the profiler did not start: {e}")),
        }
    }

    /// Ends the slice being profiled and pools its samples into its figure's profile.
    pub fn stop(&mut self) {
        let Some((id, guard)) = self.running.take() else {
            return;
        };
        let report = match guard.report().build() {
            Ok(r) => r,
            Err(e) => {
                self.failure = Some(format!("the profiler's report failed: {e}"));
                return;
            }
        };
        let (_, profile) = self
            .profiles
            .entry(id.key())
            .or_insert_with(|| (id, Profile::default()));
        for (frames, &count) in &report.data {
            // pprof lists a stack leaf first, and a frame's inlined functions innermost
            // first; a flame graph wants the root first.
            let names: Vec<String> = frames
                .frames
                .iter()
                .rev()
                .flat_map(|frame| frame.iter().rev().map(frame_name))
                .filter(|name| !is_profiler_frame(name))
                .collect();
            profile.add(&names, count.max(0) as u64);
        }
    }

    /// One artifact per figure that got samples, in the figures' key order.
    pub fn into_artifacts(mut self) -> Vec<Artifact> {
        self.stop();
        self.profiles
            .into_values()
            .filter(|(_, p)| p.samples() > 0)
            .map(|(id, p)| {
                Artifact::new(
                    &id.study,
                    &format!("profile/{}", id.key()),
                    &format!(
                        "{} · {} · {} · {} · {} B · {}",
                        id.algorithm,
                        id.implementation,
                        id.runtime,
                        id.phase,
                        id.size,
                        id.data_type
                    ),
                    Content::Profile(p),
                )
            })
            .collect()
    }
}

/// What a sample's CPU time was spent on, for a study that splits its time by kind of
/// work (the `pdf` study: key derivation, parsing, the cipher, writing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Work {
    /// Turning a password into keys (the PDF password algorithms and their hashes).
    KeyDerivation,
    /// The cipher itself: block, stream and AEAD code.
    Cipher,
    /// Reading the input: lexing, parsing, cross-reference tables, decompression.
    Parsing,
    /// Serializing the output: the writer and compression.
    Writing,
    /// Anything else: allocation, copying, the harness.
    Other,
}

impl Work {
    /// Every kind, in table order.
    pub const ALL: [Work; 5] = [
        Work::KeyDerivation,
        Work::Cipher,
        Work::Parsing,
        Work::Writing,
        Work::Other,
    ];

    /// The column heading.
    pub fn as_str(self) -> &'static str {
        match self {
            Work::KeyDerivation => "key derivation",
            Work::Cipher => "cipher",
            Work::Parsing => "parsing",
            Work::Writing => "writing",
            Work::Other => "other",
        }
    }

    /// The kind of work of one folded stack (root first). The most specific frame
    /// decides: a stack under the password algorithms is key derivation even where it
    /// runs AES or a hash (R6's hash loop does); else one that reaches cipher code is the
    /// cipher, even when the writer called it; else writing, then parsing.
    ///
    /// The same rules sort the JVM's stacks (the Java runner's Flight Recorder profiles
    /// of PDFBox, frames `package.Class.method`): PDFBox's `StandardSecurityHandler` is
    /// the password algorithms (its per-object encryption is in `SecurityHandler`); the
    /// JDK's and BouncyCastle's crypto, including the MD5 of each object's key, is the
    /// cipher; `pdfwriter` is writing; `pdfparser`, `io`, `filter` and `Loader` are
    /// parsing. PDFBox parses an object only when it is first used, which is often while
    /// its writer walks the document: its parser's frames outrank the writer's.
    pub fn of_stack(stack: &str) -> Work {
        let has = |needles: &[&str]| {
            stack
                .split(';')
                .any(|f| needles.iter().any(|n| f.contains(n)))
        };
        if has(&[
            "cipherlab_pdf::password",
            "cipherlab_pdf::lwc::keys",
            "cipherlab_pdf::standard",
            "org.apache.pdfbox.pdmodel.encryption.StandardSecurityHandler.",
        ]) {
            Work::KeyDerivation
        } else if has(&[
            "aes::",
            "cbc::",
            "ctr::",
            "rc4::",
            "cipherlab_lwc::",
            "ascon",
            "xoodyak",
            "chacha20",
            "aes_gcm::",
            "cipherlab_ciphers::providers",
            "javax.crypto.",
            "com.sun.crypto.provider.",
            "sun.security.provider.",
            "org.bouncycastle.crypto.",
            "org.apache.pdfbox.pdmodel.encryption.RC4Cipher.",
        ]) {
            Work::Cipher
        } else if has(&["org.apache.pdfbox.pdfparser.", "org.apache.pdfbox.Loader."]) {
            Work::Parsing
        } else if has(&[
            "cipherlab_pdf::writer",
            "miniz_oxide::deflate",
            "org.apache.pdfbox.pdfwriter.",
        ]) {
            Work::Writing
        } else if has(&[
            "cipherlab_pdf::lexer",
            "cipherlab_pdf::xref",
            "cipherlab_pdf::repair",
            "cipherlab_pdf::document",
            "cipherlab_pdf::filters",
            "miniz_oxide::inflate",
            "org.apache.pdfbox.io.",
            "org.apache.pdfbox.filter.",
        ]) {
            Work::Parsing
        } else {
            Work::Other
        }
    }

    /// Each kind's share of `profile`'s samples, in [`Work::ALL`]'s order.
    pub fn shares(profile: &Profile) -> [f64; 5] {
        let total = profile.samples().max(1) as f64;
        let mut counts = [0u64; 5];
        for (stack, n) in &profile.stacks {
            let i = Work::ALL
                .iter()
                .position(|w| *w == Work::of_stack(stack))
                .unwrap_or(4);
            counts[i] += n;
        }
        counts.map(|c| c as f64 / total)
    }
}

/// A frame's name with the module it is in. An inlined function's name comes from the
/// debug line tables alone, without its path (`write_plain`, not
/// `cipherlab_pdf::decrypt::write_plain`): its source file gives the module back, so a
/// flame graph says whose code a frame is and [`Work::of_stack`] can tell the kinds of
/// work apart.
fn frame_name(symbol: &pprof::Symbol) -> String {
    let name = symbol.name();
    if name.contains("::") {
        return name;
    }
    match symbol.filename.as_deref().and_then(module_of) {
        Some(module) => format!("{module}::{name}"),
        None => name,
    }
}

/// The Rust module path of a source file: `…/crates/pdf/src/lwc/keys.rs` is
/// `cipherlab_pdf::lwc::keys`, `…/aes-0.8.4/src/soft.rs` (a crate from the registry) is
/// `aes::soft`, `…/library/core/src/slice/mod.rs` (the standard library) is
/// `core::slice`.
fn module_of(path: &std::path::Path) -> Option<String> {
    let p = path.to_string_lossy().replace('\\', "/");
    let (krate, rest) = if let Some(i) = p.rfind("/crates/") {
        let (dir, rest) = p[i + "/crates/".len()..].split_once("/src/")?;
        (format!("cipherlab_{dir}"), rest.to_string())
    } else if let Some(i) = p.rfind("/library/") {
        let (dir, rest) = p[i + "/library/".len()..].split_once("/src/")?;
        (dir.to_string(), rest.to_string())
    } else {
        let i = p.rfind("/src/")?;
        let dir = p[..i].rsplit('/').next()?;
        // `name-1.2.3`: the crate's name is what comes before its version.
        let krate = dir
            .rsplit_once('-')
            .filter(|(_, v)| v.starts_with(|c: char| c.is_ascii_digit()))
            .map_or(dir, |(c, _)| c);
        (krate.to_string(), p[i + "/src/".len()..].to_string())
    };
    let mut parts: Vec<&str> = rest.trim_end_matches(".rs").split('/').collect();
    if matches!(parts.last(), Some(&"mod") | Some(&"lib") | Some(&"main")) {
        parts.pop();
    }
    let mut module = krate.replace('-', "_");
    for part in parts.iter().filter(|p| !p.is_empty()) {
        module.push_str("::");
        module.push_str(part);
    }
    Some(module)
}

/// The sampler's own frames (the signal handler and its stack walk), which sit at the
/// leaf of every sample.
fn is_profiler_frame(name: &str) -> bool {
    name.starts_with("pprof::") || name.starts_with("backtrace::") || name == "Unknown"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_file_gives_its_module() {
        let m = |p: &str| module_of(std::path::Path::new(p)).unwrap();
        assert_eq!(
            m("/w/main/crates/pdf/src/lwc/keys.rs"),
            "cipherlab_pdf::lwc::keys"
        );
        assert_eq!(
            m("/w/main/crates/pdf/src/password.rs"),
            "cipherlab_pdf::password"
        );
        assert_eq!(
            m("/w/main/crates/lwc/src/ascon/mod.rs"),
            "cipherlab_lwc::ascon"
        );
        assert_eq!(m("/c/registry/src/i/aes-0.8.4/src/soft.rs"), "aes::soft");
        assert_eq!(m("/c/registry/src/i/cfb-mode-0.8.2/src/lib.rs"), "cfb_mode");
        assert_eq!(m("/rustc/abc/library/core/src/slice/mod.rs"), "core::slice");
        assert!(module_of(std::path::Path::new("/no/such/file.c")).is_none());
    }

    #[test]
    fn the_most_specific_frame_decides_the_kind_of_work() {
        let of = Work::of_stack;
        assert_eq!(
            of("main;cipherlab_pdf::password::r6_hash;aes::soft::encrypt"),
            Work::KeyDerivation
        );
        assert_eq!(
            of("main;cipherlab_pdf::writer::write;aes::soft::encrypt"),
            Work::Cipher
        );
        assert_eq!(
            of("main;cipherlab_pdf::writer::write;miniz_oxide::deflate::core"),
            Work::Writing
        );
        assert_eq!(of("main;cipherlab_pdf::lexer::Lexer::next"), Work::Parsing);
        assert_eq!(of("main;alloc::raw_vec::grow"), Work::Other);
        // The JVM's frames (the Java runner's Flight Recorder stacks).
        let save = "cipherlab.PdfBench.apply;org.apache.pdfbox.pdmodel.PDDocument.save;\
                    org.apache.pdfbox.pdfwriter.COSWriter.doWriteObject";
        assert_eq!(
            of(&format!(
                "{save};org.apache.pdfbox.pdmodel.encryption.SecurityHandler.encryptStream;\
                 com.sun.crypto.provider.CipherBlockChaining.implEncrypt"
            )),
            Work::Cipher
        );
        assert_eq!(
            of(&format!("{save};java.io.ByteArrayOutputStream.write")),
            Work::Writing
        );
        assert_eq!(
            of(&format!(
                "{save};org.apache.pdfbox.cos.COSObject.getObject;\
                 org.apache.pdfbox.pdfparser.COSParser.parseObjectDynamically"
            )),
            Work::Parsing
        );
        assert_eq!(
            of(
                "cipherlab.PdfBench.apply;org.apache.pdfbox.pdmodel.PDDocument.protect;\
                org.apache.pdfbox.pdmodel.encryption.StandardSecurityHandler.computeHash2B;\
                sun.security.provider.SHA5.implCompress"
            ),
            Work::KeyDerivation
        );
        assert_eq!(
            of("cipherlab.PdfBench.apply;org.apache.pdfbox.Loader.loadPDF;\
                org.apache.pdfbox.pdfparser.COSParser.parseObject"),
            Work::Parsing
        );
        let mut p = Profile::default();
        p.add(&["main", "cipherlab_pdf::lexer::next"], 3);
        p.add(&["main", "aes::encrypt"], 1);
        assert_eq!(Work::shares(&p), [0.0, 0.25, 0.75, 0.0, 0.0]);
    }
}
