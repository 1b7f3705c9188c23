//! Times catalogue ciphers with the harness, as a study will: key schedule outside,
//! nothing but `cipher.encrypt(iv, ad, buf, len)` (or `decrypt`) inside the timed region.
//!
//! ```sh
//! cargo run --release -p cipherlab-bench --example time_cipher -- \
//!     [--size BYTES] [--type DATA_TYPE] [--mode MODE] [--forks N] [--quick] [--db FILE] \
//!     [CIPHER ...]            # default: aes-128-ctr ascon-aead128
//! ```
//!
//! With `--forks N` every benchmark runs in N child processes of this example (the same
//! program and arguments; the harness recognises the child by its environment).

use std::process::ExitCode;

use cipherlab_bench::corpus::{self, DataType};
use cipherlab_ciphers::{CipherSpec, generate_iv, generate_key, providers};
use cipherlab_harness::{BatchSize, Harness, Mode, Settings};
use cipherlab_results::id::{BenchId, Phase, Progress, Suite};
use cipherlab_results::store::{NewRun, Store, now_ms};

struct Options {
    size: usize,
    data_type: DataType,
    settings: Settings,
    db: Option<String>,
    ciphers: Vec<String>,
}

fn parse() -> Result<Options, String> {
    let mut o = Options {
        size: 16 * 1024,
        data_type: DataType::Dense,
        settings: Settings::default(),
        db: None,
        ciphers: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    let mut mode = None;
    let mut forks = None;
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--size" => {
                o.size = value("--size")?
                    .parse()
                    .map_err(|e| format!("--size: {e}"))?
            }
            "--type" => o.data_type = value("--type")?.parse().map_err(|e| format!("{e}"))?,
            "--mode" => {
                mode = Some(
                    value("--mode")?
                        .parse::<Mode>()
                        .map_err(|e| format!("{e}"))?,
                )
            }
            "--forks" => {
                forks = Some(
                    value("--forks")?
                        .parse()
                        .map_err(|e| format!("--forks: {e}"))?,
                )
            }
            "--quick" => o.settings = Settings::quick(),
            "--db" => o.db = Some(value("--db")?),
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            s => o.ciphers.push(s.to_string()),
        }
    }
    if let Some(m) = mode {
        o.settings.mode = m;
    }
    if let Some(f) = forks {
        o.settings.forks = f;
    }
    if o.ciphers.is_empty() {
        o.ciphers = vec!["aes-128-ctr".into(), "ascon-aead128".into()];
    }
    Ok(o)
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let o = parse()?;
    let plaintext = corpus::generate(o.data_type, o.size, 1);
    let harness = Harness::new(o.settings.clone());
    let mut suite = Suite::new();
    for name in &o.ciphers {
        let spec = CipherSpec::parse(name)?;
        let key = generate_key(&spec);
        let iv = generate_iv(&spec);
        let provider = providers::default_for(&spec)?.name();
        let len = o.size;
        let cap = spec.output_len(len);
        let id = |phase: Phase| {
            BenchId::new(
                "example",
                spec,
                provider,
                phase,
                len as u64,
                o.data_type.name(),
            )
        };
        // Prove it works before timing it.
        let mut cipher = providers::init(&spec, &key, None)?;
        let mut ct = plaintext.clone();
        ct.resize(cap, 0);
        let n = cipher.encrypt(&iv, &[], &mut ct, len)?;
        ct.truncate(n);
        let mut check = ct.clone();
        let m = cipher.decrypt(&iv, &[], &mut check)?;
        if check[..m] != plaintext[..] {
            return Err(format!("{name}: decryption does not give the plaintext back").into());
        }

        let (spec_e, key_e, iv_e, pt) = (spec, key.clone(), iv.clone(), plaintext.clone());
        suite.add(id(Phase::Encrypt), Some(len as u64), move |b| {
            // Setup: key schedule and buffer, outside the timed region.
            let Ok(cipher) = providers::init(&spec_e, &key_e, None) else {
                return;
            };
            let mut buf = pt.clone();
            buf.resize(cap, 0);
            let mut state = (cipher, buf);
            b.iter_on(&mut state, |(c, buf)| c.encrypt(&iv_e, &[], buf, len));
        });
        let (spec_d, key_d, iv_d) = (spec, key.clone(), iv.clone());
        suite.add(id(Phase::Decrypt), Some(len as u64), move |b| {
            let Ok(mut cipher) = providers::init(&spec_d, &key_d, None) else {
                return;
            };
            // Each call decrypts a fresh copy of the ciphertext (AEADs check the tag);
            // the copies are made outside the timed region.
            b.iter_batched(
                || ct.clone(),
                |buf| cipher.decrypt(&iv_d, &[], buf),
                BatchSize::Large,
            );
        });
    }

    let started = now_ms();
    let total = suite.len();
    let ms = suite.run(&harness, &mut |p| {
        if let Progress::Finished {
            index,
            measurement: m,
            ..
        } = p
        {
            eprintln!("[{}/{total}] {}", index + 1, m.id);
        }
    })?;

    let v = harness.validity();
    println!(
        "timer: {} resolution {} ns, read {:.1} ns; empty op {:.2} ns (batched), {:.0} ns (alone); TSC {:?} at {:.3} GHz",
        v.timer,
        v.resolution_ns,
        v.timer_overhead_ns,
        v.empty_op_ns,
        v.empty_call_ns,
        v.counter_invariant
            .map(|i| if i { "invariant" } else { "variable" }),
        v.counter_ticks_per_ns.unwrap_or(0.0)
    );
    println!(
        "{:<40} {:>12} {:>25} {:>10} {:>11} {:>4}",
        "benchmark", "median", "99% CI", "MB/s", "ticks/byte", "n"
    );
    for m in &ms {
        let s = &m.summary;
        println!(
            "{:<40} {:>9.0} {} {:>11.0}..{:<11.0} {:>10.1} {:>11.2} {:>4}",
            format!("{}/{}", m.id.algorithm, m.id.phase),
            s.median,
            m.unit,
            s.median_ci.low,
            s.median_ci.high,
            m.bytes_per_second.unwrap_or(0.0) / 1e6,
            m.ticks_per_byte.unwrap_or(f64::NAN),
            s.n
        );
        for w in &m.warnings {
            println!("    warning: {w}");
        }
    }
    let machine = cipherlab_bench::this_machine();
    println!(
        "machine: {} ({} cores, {}), {}, {}",
        machine.cpu_model,
        machine.logical_cores,
        machine.flags_present(),
        machine.os,
        machine.rustc
    );
    if let Some(path) = o.db {
        let mut store = Store::open(&path)?;
        let run = NewRun {
            started_ms: started,
            command_line: std::env::args().collect::<Vec<_>>().join(" "),
            machine,
            settings: o.settings,
            validity: v.clone(),
            load_start: None,
            load_end: None,
        };
        let id = store.save_run(&run, &ms, now_ms())?;
        println!("saved as run {id} in {path}");
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
