//! Proof of speed: `cipherlab pdf encrypt --cipher aes-256` against
//! `qpdf --encrypt U O 256 -- in out` on the same PDFs, in one run.
//!
//! ```sh
//! cargo build --release -p cipherlab-cli
//! cargo run --release -p cipherlab-pdf --example vs_qpdf -- [--runs 15] [--dir ../shared/pdf] [--bin target/release/cipherlab]
//! ```
//!
//! For each PDF both commands run as processes (what a user waits for: start-up, reading,
//! key derivation, encryption, writing), alternating which goes first, after one warm-up
//! run each; the figure is the median wall-clock time of `--runs` runs. Encrypted inputs
//! are opened with the user password from the folder's README.md table (`--password` for
//! us, `--password=` for qpdf). Then, in-process, the phases of our encryption (median of
//! the same number of runs) show where the time goes. Targets (issue 5): at least 2x
//! faster than qpdf on the large files (>= 100 KB), never slower on any, output no more
//! than 10% larger than qpdf's. The machine's load average is printed before and after:
//! on a shared machine the figures are noisy.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use cipherlab_pdf::encrypt::{encrypt_standard, open, prepare};
use cipherlab_pdf::object::Object;
use cipherlab_pdf::writer::{self, Layout};
use cipherlab_pdf::{StdCipher, standard};

const U: &str = "user-password";
const O: &str = "owner-password";
/// Inputs at least this large are "the large files" of the target.
const LARGE: u64 = 100_000;

struct Args {
    bin: PathBuf,
    dir: PathBuf,
    runs: usize,
}

fn args() -> Args {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut a = Args {
        bin: root.join("target/release/cipherlab"),
        dir: root.join("../shared/pdf"),
        runs: 15,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let v = it.next().unwrap_or_else(|| panic!("{k} needs a value"));
        match k.as_str() {
            "--bin" => a.bin = v.into(),
            "--dir" => a.dir = v.into(),
            "--runs" => a.runs = v.parse().expect("--runs N"),
            _ => panic!("unknown option {k}; see the file's documentation"),
        }
    }
    a
}

/// (file, user password if encrypted) from the README table, else every *.pdf.
fn inputs(dir: &Path) -> Vec<(String, Option<String>)> {
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap_or_default();
    let mut out: Vec<(String, Option<String>)> = readme
        .lines()
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| {
            let c: Vec<&str> = l.split('|').map(str::trim).collect();
            let file = c.get(1)?.trim_matches('`').to_string();
            let enc = c.get(6)? != &"-";
            let user = c.get(7)?;
            let pw = if *user == "(empty)" {
                String::new()
            } else {
                user.trim_matches('`').to_string()
            };
            Some((file, enc.then_some(pw)))
        })
        .collect();
    if out.is_empty() {
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| {
                let n = e.ok()?.file_name().to_string_lossy().into_owned();
                n.ends_with(".pdf").then_some(n)
            })
            .collect();
        files.sort();
        out = files.into_iter().map(|f| (f, None)).collect();
    }
    out
}

fn run(cmd: &mut Command) -> Duration {
    let t = Instant::now();
    let o = cmd.output().expect("start the command");
    let d = t.elapsed();
    // qpdf exits 3 for warnings (the input's own damage), which is a success.
    assert!(
        matches!(o.status.code(), Some(0 | 3)),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    d
}

fn ours(bin: &Path, f: &Path, pw: Option<&str>, out: &Path) -> Command {
    let mut c = Command::new(bin);
    c.args(["pdf", "encrypt"])
        .arg(f)
        .arg("-o")
        .arg(out)
        .args(["--cipher", "aes-256", "--user-password", U])
        .args(["--owner-password", O, "--force"]);
    if let Some(p) = pw {
        c.args(["--password", p]);
    }
    c
}

fn qpdf(f: &Path, pw: Option<&str>, out: &Path) -> Command {
    let mut c = Command::new("qpdf");
    if let Some(p) = pw {
        c.arg(format!("--password={p}"));
    }
    c.args(["--encrypt", U, O, "256", "--"]).arg(f).arg(out);
    c
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn cpu() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = info
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .unwrap_or("?")
        .trim()
        .to_string();
    let n = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{model}, {n} CPUs")
}

/// Phases of our encryption in-process, each the median over `runs`.
fn phases(input: &[u8], pw: Option<&str>, runs: usize) -> [Duration; 6] {
    let mut t: [Vec<Duration>; 6] = Default::default();
    for _ in 0..runs {
        let s = Instant::now();
        let mut doc = open(input, pw).unwrap().doc;
        t[0].push(s.elapsed());
        let s = Instant::now();
        let (id0, _) = prepare(&mut doc, StdCipher::Aes256, true).unwrap();
        t[1].push(s.elapsed());
        let s = Instant::now();
        let h = standard::new_handler(StdCipher::Aes256, U, O, -4, true, &id0).unwrap();
        t[2].push(s.elapsed());
        let s = Instant::now();
        let layout = Layout::like_input(&doc);
        let mut p = writer::pack(doc, layout);
        t[3].push(s.elapsed());
        let s = Instant::now();
        encrypt_standard(&mut p, &h.handler).unwrap();
        t[4].push(s.elapsed());
        let s = Instant::now();
        let r = p.add(Object::Dict(h.dict));
        p.trailer.set(b"Encrypt", Object::Ref(r.0, r.1));
        let bytes = writer::serialize(&p);
        t[5].push(s.elapsed());
        std::hint::black_box(bytes);
    }
    t.map(|mut v| median(&mut v))
}

fn main() {
    let a = args();
    assert!(
        a.bin.exists(),
        "{} is missing: cargo build --release -p cipherlab-cli",
        a.bin.display()
    );
    let tmp = std::env::temp_dir().join(format!("vs_qpdf-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let (out_ours, out_qpdf) = (tmp.join("ours.pdf"), tmp.join("qpdf.pdf"));
    println!("machine: {}; load average before: {}", cpu(), loadavg());
    println!(
        "{} runs per command per file, alternating, median wall-clock; qpdf {}",
        a.runs,
        String::from_utf8_lossy(
            &Command::new("qpdf")
                .arg("--version")
                .output()
                .unwrap()
                .stdout
        )
        .lines()
        .next()
        .unwrap_or("?")
    );
    println!();
    println!(
        "| file | input bytes | qpdf ms | cipherlab ms | speed-up | qpdf bytes | cipherlab bytes | size vs qpdf | phases ms: open / prepare / keys / pack / encrypt / write |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---|");
    let (mut worst_all, mut worst_large, mut worst_size) = (f64::MAX, f64::MAX, 0f64);
    let mut large_files = 0;
    for (file, pw) in inputs(&a.dir) {
        let f = a.dir.join(&file);
        let input = std::fs::read(&f).unwrap();
        let pw = pw.as_deref();
        run(&mut ours(&a.bin, &f, pw, &out_ours));
        run(&mut qpdf(&f, pw, &out_qpdf));
        let (mut to, mut tq) = (Vec::new(), Vec::new());
        for i in 0..a.runs {
            if i % 2 == 0 {
                to.push(run(&mut ours(&a.bin, &f, pw, &out_ours)));
                tq.push(run(&mut qpdf(&f, pw, &out_qpdf)));
            } else {
                tq.push(run(&mut qpdf(&f, pw, &out_qpdf)));
                to.push(run(&mut ours(&a.bin, &f, pw, &out_ours)));
            }
        }
        let (mo, mq) = (median(&mut to), median(&mut tq));
        let speed = mq.as_secs_f64() / mo.as_secs_f64();
        let so = std::fs::metadata(&out_ours).unwrap().len();
        let sq = std::fs::metadata(&out_qpdf).unwrap().len();
        let size = so as f64 / sq as f64;
        let ph = phases(&input, pw, a.runs);
        let large = input.len() as u64 >= LARGE;
        worst_all = worst_all.min(speed);
        worst_size = worst_size.max(size);
        if large {
            worst_large = worst_large.min(speed);
            large_files += 1;
        }
        println!(
            "| {file}{} | {} | {:.1} | {:.1} | {speed:.2}x | {sq} | {so} | {:+.1}% | {} |",
            if large { " (large)" } else { "" },
            input.len(),
            ms(mq),
            ms(mo),
            (size - 1.0) * 100.0,
            ph.iter()
                .map(|d| format!("{:.2}", ms(*d)))
                .collect::<Vec<_>>()
                .join(" / ")
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
    println!();
    println!("load average after: {}", loadavg());
    println!(
        "speed-up: lowest on the {large_files} large files (>= {LARGE} bytes) {worst_large:.2}x \
         (target >= 2), lowest on any file {worst_all:.2}x (target >= 1); largest output vs \
         qpdf's {:+.1}% (target <= +10%)",
        (worst_size - 1.0) * 100.0
    );
}
