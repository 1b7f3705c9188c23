//! `cipherlab keygen`, `encrypt` and `decrypt` through the binary: key file permissions,
//! `--force`, no output left behind on failure, exit codes, stdin/stdout pipelines, disk
//! full, `--raw` against `openssl enc`, and the memory bound on a 2 GiB stream.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use cipherlab_testkit::files::listing;
use cipherlab_testkit::process::stderr;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cipherlab"));
    c.env_remove("CIPHERLAB_PASSPHRASE");
    c
}

fn run(args: &[&str], dir: &Path) -> Output {
    bin()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn run_with_input(args: &[&str], dir: &Path, input: &[u8]) -> Output {
    let mut child = bin()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

fn data(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
}

fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let o = run(
        &["keygen", "--cipher", "aes-128-gcm", "-o", "k.key"],
        dir.path(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let path = dir.path().to_path_buf();
    (dir, path)
}

#[test]
fn keygen_writes_owner_only_files_and_respects_force() {
    let (_t, d) = setup();
    let mode = fs::metadata(d.join("k.key")).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let before = fs::read(d.join("k.key")).unwrap();
    let o = run(&["keygen", "-o", "k.key"], &d);
    assert_eq!(code(&o), 4, "{}", stderr(&o));
    assert!(stderr(&o).contains("--force"));
    assert_eq!(
        fs::read(d.join("k.key")).unwrap(),
        before,
        "the old key is intact"
    );
    let o = run(
        &["keygen", "-o", "k.key", "--force", "--cipher", "xoodyak"],
        &d,
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = fs::read_to_string(d.join("k.key")).unwrap();
    assert!(text.contains("cipher: xoodyak"), "{text}");
    let o = run(&["keygen", "-o", "des.key", "--cipher", "des-cbc"], &d);
    assert!(stderr(&o).contains("--raw"), "{}", stderr(&o));
    assert_eq!(listing(&d), ["des.key", "k.key"]);
}

#[test]
fn files_round_trip_and_force_protects_existing_output() {
    let (_t, d) = setup();
    let pt = data(200_000);
    fs::write(d.join("in"), &pt).unwrap();
    fs::write(d.join("in.cl"), b"precious").unwrap();
    let o = run(&["encrypt", "-k", "k.key", "in", "-o", "in.cl"], &d);
    assert_eq!(code(&o), 4, "{}", stderr(&o));
    assert_eq!(fs::read(d.join("in.cl")).unwrap(), b"precious");
    let o = run(
        &["encrypt", "-k", "k.key", "in", "-o", "in.cl", "--force"],
        &d,
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run(&["decrypt", "-k", "k.key", "in.cl", "-o", "out"], &d);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(fs::read(d.join("out")).unwrap(), pt);
    assert_eq!(listing(&d), ["in", "in.cl", "k.key", "out"]);
}

const ZERO16: &str = "00000000000000000000000000000000";

#[test]
fn failures_leave_no_output_and_name_the_cause() {
    let (_t, d) = setup();
    let pt = data(300_000);
    fs::write(d.join("in"), &pt).unwrap();
    assert_eq!(
        code(&run(&["encrypt", "-k", "k.key", "in", "-o", "c"], &d)),
        0
    );
    run(
        &["keygen", "--cipher", "aes-128-gcm", "-o", "other.key"],
        &d,
    );
    let c = fs::read(d.join("c")).unwrap();
    let mut corrupt = c.clone();
    corrupt[c.len() / 2] ^= 4;
    fs::write(d.join("corrupt"), &corrupt).unwrap();
    fs::write(d.join("short"), &c[..c.len() - 16 - 300_000 % 65536]).unwrap();
    fs::write(d.join("plain"), b"hello, not encrypted").unwrap();
    fs::write(d.join("g4k"), data(4096)).unwrap();
    let mut bad_version = c.clone();
    bad_version[8] = 9;
    fs::write(d.join("v9"), &bad_version).unwrap();
    let cases: &[(&[&str], i32, &str)] = &[
        (&["decrypt", "-k", "other.key", "c"], 1, "wrong key file"),
        (&["decrypt", "-k", "k.key", "corrupt"], 1, "chunk 2"),
        (&["decrypt", "-k", "k.key", "short"], 1, "truncated"),
        (
            &["decrypt", "-k", "k.key", "plain"],
            3,
            "not a cipherlab file",
        ),
        (
            &["decrypt", "-k", "k.key", "v9"],
            3,
            "unsupported container version 9",
        ),
        (
            &["decrypt", "-p", "--passphrase-file", "in", "c"],
            2,
            "use --key-file",
        ),
        (&["decrypt", "c"], 2, "--key-file FILE"),
        (&["decrypt", "-k", "missing.key", "c"], 2, "cannot read"),
        (
            &["encrypt", "-k", "k.key", "--cipher", "aes-128-cbc", "in"],
            2,
            "--raw",
        ),
        (
            &[
                "decrypt",
                "--raw",
                "--cipher",
                "aes-128-cbc",
                "--key",
                ZERO16,
                "--iv",
                ZERO16,
                "g4k",
            ],
            1,
            "bad padding",
        ),
        (
            &[
                "decrypt",
                "--raw",
                "--cipher",
                "aes-128-gcm",
                "--key",
                ZERO16,
                "--iv",
                "000000000000000000000000",
                "g4k",
            ],
            1,
            "authentication failed",
        ),
        (
            &[
                "encrypt",
                "--raw",
                "--cipher",
                "aes-128-cbc",
                "--key",
                "00",
                "in",
            ],
            2,
            "32 hex digits",
        ),
        (
            &[
                "encrypt",
                "--raw",
                "--cipher",
                "aes-128-cbc",
                "--key",
                ZERO16,
                "in",
            ],
            2,
            "--iv",
        ),
    ];
    let before = listing(&d);
    for (args, want, needle) in cases {
        let mut a = args.to_vec();
        a.extend(["-o", "result"]);
        let o = run(&a, &d);
        assert_eq!(code(&o), *want, "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
        assert_eq!(listing(&d), before, "{args:?} left a file behind");
    }
    println!(
        "{} failure cases: right exit code, message and no output",
        cases.len()
    );
}

#[test]
fn pipelines_through_stdin_and_stdout() {
    let (_t, d) = setup();
    let pt = data(3 << 20);
    let enc = run_with_input(&["encrypt", "-k", "k.key"], &d, &pt);
    assert_eq!(code(&enc), 0, "{}", stderr(&enc));
    let dec = run_with_input(&["decrypt", "-k", "k.key", "-", "-o", "-"], &d, &enc.stdout);
    assert_eq!(code(&dec), 0, "{}", stderr(&dec));
    assert!(dec.stdout == pt);

    // Passphrase from the environment and from a file.
    fs::write(d.join("pass"), "a long passphrase\n").unwrap();
    let mut c = bin();
    c.args([
        "encrypt",
        "-p",
        "--argon2-memory",
        "8",
        "--argon2-passes",
        "1",
        "--argon2-allow-weak",
    ]);
    let enc = {
        let mut child = c
            .current_dir(&d)
            .env("CIPHERLAB_PASSPHRASE", "a long passphrase")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&pt[..1000]).unwrap();
        child.wait_with_output().unwrap()
    };
    assert_eq!(code(&enc), 0);
    let dec = run_with_input(&["decrypt", "--passphrase-file", "pass"], &d, &enc.stdout);
    assert_eq!(code(&dec), 0, "{}", stderr(&dec));
    assert!(dec.stdout == pt[..1000]);

    // A corrupt chunk on stdout: what came before it (verified) is out, then exit 1.
    let enc = run_with_input(&["encrypt", "-k", "k.key"], &d, &pt);
    let mut corrupt = enc.stdout.clone();
    let header = corrupt.len() - pt.len() - 48 * 16;
    corrupt[header + 30 * (65536 + 16) + 100] ^= 1;
    let dec = run_with_input(&["decrypt", "-k", "k.key"], &d, &corrupt);
    assert_eq!(code(&dec), 1, "{}", stderr(&dec));
    assert!(stderr(&dec).contains("chunk 30"), "{}", stderr(&dec));
    assert!(dec.stdout.len() <= 30 * 65536 && dec.stdout == pt[..dec.stdout.len()]);
}

#[test]
fn disk_full_on_stdout_is_reported() {
    let (_t, d) = setup();
    fs::write(d.join("in"), data(100_000)).unwrap();
    let full = fs::OpenOptions::new().write(true).open("/dev/full");
    let Ok(full) = full else {
        println!("SKIP: no /dev/full");
        return;
    };
    let o = bin()
        .args(["encrypt", "-k", "k.key", "in"])
        .current_dir(&d)
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(code(&o), 6, "{}", stderr(&o));
    assert!(stderr(&o).contains("disk full"), "{}", stderr(&o));
}

/// `--raw` gives what `openssl enc -K -iv -nosalt` gives, both ways, for a sample of
/// ciphers and modes, at sizes around the 64 KiB streaming piece.
#[test]
fn raw_mode_equals_openssl_enc() {
    if Command::new("openssl").arg("version").output().is_err() {
        println!("SKIP: openssl is not installed (.ci/setup installs it)");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let cases: &[(&str, &str, bool)] = &[
        ("aes-128-cbc", "aes-128-cbc", false),
        ("aes-256-ctr", "aes-256-ctr", false),
        ("aes-192-cfb", "aes-192-cfb", false),
        ("aes-128-cfb8", "aes-128-cfb8", false),
        ("aes-128-ofb", "aes-128-ofb", false),
        ("aes-256-ecb", "aes-256-ecb", false),
        ("3des-168-cbc", "des-ede3-cbc", false),
        ("des-cbc", "des-cbc", true),
        ("blowfish-128-cbc", "bf-cbc", true),
        ("rc4-128", "rc4", true),
    ];
    let mut checked = 0;
    for (ours, theirs, legacy) in cases {
        let spec_key = match *ours {
            n if n.starts_with("aes-128") => 16,
            n if n.starts_with("aes-192") => 24,
            n if n.starts_with("aes-256") || n.starts_with("3des") => {
                if n.starts_with("3des") {
                    24
                } else {
                    32
                }
            }
            "des-cbc" => 8,
            _ => 16,
        };
        let iv_len = match *ours {
            n if n.ends_with("ecb") || n.starts_with("rc4") => 0,
            n if n.starts_with("aes") => 16,
            _ => 8,
        };
        let key: String = (0..spec_key)
            .map(|i| format!("{:02x}", (i * 17 + 1) as u8))
            .collect();
        let iv: String = (0..iv_len)
            .map(|i| format!("{:02x}", (0xf0 - i) as u8))
            .collect();
        for len in [0usize, 1, 65535, 65536, 65537, 150_001] {
            let pt = data(len);
            fs::write(d.join("pt"), &pt).unwrap();
            let name = format!("-{theirs}");
            let mut args = vec!["enc", &name[..], "-K", &key, "-nosalt", "-in", "pt"];
            if iv_len > 0 {
                args.extend(["-iv", &iv]);
            }
            if *legacy {
                args.extend(["-provider", "legacy", "-provider", "default"]);
            }
            let ossl = Command::new("openssl")
                .args(&args)
                .current_dir(d)
                .output()
                .unwrap();
            if !ossl.status.success() {
                println!(
                    "SKIP {theirs}: openssl refused ({})",
                    String::from_utf8_lossy(&ossl.stderr)
                        .lines()
                        .next()
                        .unwrap_or("")
                );
                break;
            }
            let mut ours_args = vec!["encrypt", "--raw", "--cipher", ours, "--key", &key, "pt"];
            if iv_len > 0 {
                ours_args.extend(["--iv", &iv]);
            }
            let o = run(&ours_args, d);
            assert_eq!(code(&o), 0, "{ours}: {}", stderr(&o));
            assert!(
                o.stdout == ossl.stdout,
                "{ours} {len}: differs from openssl enc -{theirs}"
            );
            assert!(stderr(&o).contains("NO integrity"), "{}", stderr(&o));
            assert_eq!(
                stderr(&o).contains("(catalogue status)"),
                *legacy || ours.starts_with("3des")
            );
            fs::write(d.join("ct"), &ossl.stdout).unwrap();
            ours_args[0] = "decrypt";
            ours_args[6] = "ct";
            let o = run(&ours_args, d);
            assert_eq!(code(&o), 0, "{ours}: {}", stderr(&o));
            assert!(o.stdout == pt, "{ours} {len}: decrypting openssl's output");
            checked += 1;
        }
    }
    println!("{checked} raw encryptions equal openssl enc and decrypt back");
    assert!(checked >= 40);
}

/// Peak resident memory of a process, from /proc (the high-water mark only rises).
fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let s = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// 2 GiB generated on the fly, through `encrypt | decrypt` (never stored), checked on
/// the way out; both processes stay under 64 MiB resident. Release build, about 10 s:
/// `cargo test --release -p cipherlab-cli --test seal_cli -- --ignored --nocapture`
#[test]
#[ignore = "2 GiB through two processes; run by hand (command in the doc comment)"]
fn two_gib_stream_stays_under_64_mib() {
    memory_bound(2 << 30);
}

/// The same on 256 MiB, in the normal suite.
#[test]
fn stream_memory_stays_bounded() {
    memory_bound(256 << 20);
}

fn memory_bound(total: u64) {
    let (_t, d) = setup();
    let mut enc = bin()
        .args(["encrypt", "-k", "k.key"])
        .current_dir(&d)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut dec = bin()
        .args(["decrypt", "-k", "k.key"])
        .current_dir(&d)
        .stdin(enc.stdout.take().unwrap())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let block = |i: u64| -> Vec<u8> {
        // Sparse-ish: mostly zeros, a counter every 4 KiB.
        let mut b = vec![0u8; 1 << 20];
        for (j, page) in b.chunks_mut(4096).enumerate() {
            page[..8].copy_from_slice(&(i * 256 + j as u64).to_le_bytes());
        }
        b
    };
    let blocks = total >> 20;
    let mut stdin = enc.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        for i in 0..blocks {
            stdin.write_all(&block(i)).unwrap();
        }
    });
    let pids = [enc.id(), dec.id()];
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop2 = stop.clone();
    let watcher = std::thread::spawn(move || {
        let mut peak = [0u64; 2];
        while !stop2.load(std::sync::atomic::Ordering::Relaxed) {
            for (p, pid) in peak.iter_mut().zip(pids) {
                *p = (*p).max(vm_hwm_kib(pid).unwrap_or(0));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        peak
    });
    let started = std::time::Instant::now();
    let mut out = dec.stdout.take().unwrap();
    let mut buf = vec![0u8; 1 << 20];
    for i in 0..blocks {
        out.read_exact(&mut buf).unwrap();
        assert!(buf == block(i), "block {i} differs");
    }
    assert_eq!(out.read(&mut buf).unwrap(), 0, "extra output");
    // Read the marks once more while both are still alive or just exiting.
    feeder.join().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(50));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let peak = watcher.join().unwrap();
    assert!(enc.wait().unwrap().success() && dec.wait().unwrap().success());
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{} MiB through encrypt | decrypt in {secs:.1} s: peak RSS encrypt {} KiB, decrypt {} KiB",
        total >> 20,
        peak[0],
        peak[1]
    );
    assert!(
        peak[0] > 0 && peak[1] > 0,
        "could not read /proc/PID/status"
    );
    assert!(
        peak[0] < 64 << 10 && peak[1] < 64 << 10,
        "over 64 MiB: {peak:?}"
    );
}

/// Runs `cipherlab ARGS` in `dir` and returns its peak resident memory (KiB), sampled
/// from /proc while it runs.
fn peak_rss_kib(args: &[&str], dir: &Path) -> u64 {
    let mut child = bin().args(args).current_dir(dir).spawn().unwrap();
    let mut peak = 0;
    loop {
        peak = peak.max(vm_hwm_kib(child.id()).unwrap_or(0));
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "cipherlab {args:?}: {status}");
            return peak;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// File to file (the path where workers write at their offsets): 256 MiB each way stays
/// under 64 MiB resident, and the round trip gives the file back.
#[test]
fn file_memory_stays_bounded() {
    let (_t, d) = setup();
    let size = 256u64 << 20;
    {
        // Mostly a hole (reads as zeros), with a marker in every MiB.
        let f = fs::File::create(d.join("big")).unwrap();
        f.set_len(size).unwrap();
        use std::os::unix::fs::FileExt;
        for i in 0..size >> 20 {
            f.write_all_at(&i.to_le_bytes(), i << 20).unwrap();
        }
    }
    let enc = peak_rss_kib(&["encrypt", "-k", "k.key", "big", "-o", "big.cl"], &d);
    let dec = peak_rss_kib(&["decrypt", "-k", "k.key", "big.cl", "-o", "big.back"], &d);
    println!("256 MiB file to file: peak RSS encrypt {enc} KiB, decrypt {dec} KiB");
    assert!(enc > 0 && dec > 0, "could not read /proc/PID/status");
    assert!(enc < 64 << 10 && dec < 64 << 10, "over 64 MiB: {enc} {dec}");
    let (mut a, mut b) = (
        fs::File::open(d.join("big")).unwrap(),
        fs::File::open(d.join("big.back")).unwrap(),
    );
    let (mut x, mut y) = (vec![0u8; 1 << 20], vec![0u8; 1 << 20]);
    for i in 0..size >> 20 {
        a.read_exact(&mut x).unwrap();
        b.read_exact(&mut y).unwrap();
        assert!(x == y, "MiB {i} differs");
    }
    assert_eq!(b.read(&mut y).unwrap(), 0, "extra output");
}

/// What the process `pid` has open in `dir` (its temporary output among them).
fn open_in(pid: u32, dir: &Path) -> Vec<String> {
    let Ok(rd) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return Vec::new();
    };
    rd.filter_map(|e| fs::read_link(e.ok()?.path()).ok())
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| p.starts_with(&*dir.to_string_lossy()))
        .collect()
}

/// An interrupted `decrypt` leaves nothing behind: not the unnamed temporary file (where
/// the filesystem has O_TMPFILE), and not the named one (forced with
/// CIPHERLAB_OUTFILE_NAMED=1), whose verified plaintext a signal used to leave on disk.
#[test]
fn interrupted_decrypt_leaves_no_plaintext() {
    let (_t, d) = setup();
    let plain = data(8 << 20);
    fs::write(d.join("p.bin"), &plain).unwrap();
    let o = run(&["encrypt", "-k", "k.key", "p.bin", "-o", "c.clab"], &d);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let sealed = fs::read(d.join("c.clab")).unwrap();
    for (named, signal) in [
        (false, "TERM"),
        (true, "TERM"),
        (true, "INT"),
        (true, "HUP"),
    ] {
        let out = tempfile::tempdir().unwrap();
        let dest = out.path().join("plain.out");
        let mut c = bin();
        if named {
            c.env("CIPHERLAB_OUTFILE_NAMED", "1");
        }
        let mut child = c
            .args(["decrypt", "-k", "k.key", "-", "-o"])
            .arg(&dest)
            .current_dir(&d)
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Half the container, then the pipe stays open: decryption waits mid-file with
        // verified plaintext already in its temporary output.
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&sealed[..sealed.len() / 2]).unwrap();
        stdin.flush().unwrap();
        let mut seen = false;
        for _ in 0..200 {
            let temp = if named {
                !listing(out.path()).is_empty()
            } else {
                !open_in(child.id(), out.path()).is_empty()
            };
            if temp {
                seen = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        assert!(seen, "named {named}: no temporary output was ever open");
        if !named {
            assert!(
                listing(out.path()).is_empty(),
                "an unnamed temporary output has a name: {:?}",
                listing(out.path())
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
        let k = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(k.success());
        let status = child.wait().unwrap();
        drop(stdin);
        assert!(!status.success(), "named {named} {signal}: {status:?}");
        assert!(
            listing(out.path()).is_empty(),
            "named {named}, SIG{signal}: left behind {:?}",
            listing(out.path())
        );
        println!("interrupted decrypt (named temp {named}, SIG{signal}): nothing left");
    }
}

fn run_env(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Output {
    let mut c = bin();
    c.args(args).current_dir(dir).stdin(Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// Passphrases: Argon2id below the floor needs --argon2-allow-weak and warns; a short
/// passphrase warns; a header asking for more than --argon2-max-memory is refused (exit 8)
/// before Argon2id runs, and nothing is written.
#[test]
fn argon2_floor_limit_and_short_passphrases() {
    let (_t, d) = setup();
    fs::write(d.join("p.bin"), data(1000)).unwrap();
    let pass = [("CIPHERLAB_PASSPHRASE", "correct horse battery staple")];
    let weak = [
        "encrypt",
        "-p",
        "--argon2-memory",
        "8",
        "--argon2-passes",
        "1",
        "p.bin",
        "-o",
        "weak.clab",
    ];
    let o = run_env(&weak, &d, &pass);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("--argon2-allow-weak"), "{}", stderr(&o));
    assert!(!d.join("weak.clab").exists());
    let o = run_env(&[&weak[..], &["--argon2-allow-weak"]].concat(), &d, &pass);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("below the floor"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("characters"), "{}", stderr(&o));

    let o = run_env(
        &["encrypt", "-p", "p.bin", "-o", "short.clab"],
        &d,
        &[("CIPHERLAB_PASSPHRASE", "hunter2")],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("7 characters"), "{}", stderr(&o));

    // The default cost is 64 MiB: a limit of 32 refuses it, the default opens it.
    let o = run_env(&["encrypt", "-p", "p.bin", "-o", "c.clab"], &d, &pass);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = run_env(
        &[
            "decrypt",
            "-p",
            "c.clab",
            "-o",
            "out.bin",
            "--argon2-max-memory",
            "32",
        ],
        &d,
        &pass,
    );
    assert_eq!(code(&o), 8, "{}", stderr(&o));
    assert!(stderr(&o).contains("--argon2-max-memory"), "{}", stderr(&o));
    assert!(!d.join("out.bin").exists());
    let o = run_env(&["decrypt", "-p", "c.clab", "-o", "out.bin"], &d, &pass);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(fs::read(d.join("out.bin")).unwrap(), data(1000));
}

/// `--raw`: a key file's cipher cannot be overridden by --cipher (a container's key must
/// not become another cipher's raw key); the key can come from a file or standard input;
/// keystream modes warn against reusing the key and IV.
#[test]
fn raw_keys_are_for_one_cipher_and_come_from_files() {
    let (_t, d) = setup(); // k.key is an aes-128-gcm container key
    fs::write(d.join("p.bin"), data(100)).unwrap();
    let o = run(
        &[
            "encrypt",
            "--raw",
            "-k",
            "k.key",
            "--cipher",
            "aes-128-ctr",
            "--iv",
            &"00".repeat(16),
            "p.bin",
            "-o",
            "x",
        ],
        &d,
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("a key serves one cipher"),
        "{}",
        stderr(&o)
    );
    assert!(!d.join("x").exists());

    let key = "000102030405060708090a0b0c0d0e0f";
    fs::write(d.join("raw.hex"), format!("{key}\n")).unwrap();
    let iv = "f0".repeat(16);
    let by_arg = run(
        &[
            "encrypt",
            "--raw",
            "--cipher",
            "aes-128-ctr",
            "--key",
            key,
            "--iv",
            &iv,
            "p.bin",
            "-o",
            "a",
        ],
        &d,
    );
    assert_eq!(code(&by_arg), 0, "{}", stderr(&by_arg));
    assert!(
        stderr(&by_arg).contains("never use the same key and IV"),
        "{}",
        stderr(&by_arg)
    );
    let by_file = run(
        &[
            "encrypt",
            "--raw",
            "--cipher",
            "aes-128-ctr",
            "--key-hex-file",
            "raw.hex",
            "--iv",
            &iv,
            "p.bin",
            "-o",
            "b",
        ],
        &d,
    );
    assert_eq!(code(&by_file), 0, "{}", stderr(&by_file));
    let by_stdin = run_with_input(
        &[
            "encrypt",
            "--raw",
            "--cipher",
            "aes-128-ctr",
            "--key-hex-file",
            "-",
            "--iv",
            &iv,
            "p.bin",
            "-o",
            "c",
        ],
        &d,
        format!("{key}\n").as_bytes(),
    );
    assert_eq!(code(&by_stdin), 0, "{}", stderr(&by_stdin));
    let a = fs::read(d.join("a")).unwrap();
    assert_eq!(a, fs::read(d.join("b")).unwrap());
    assert_eq!(a, fs::read(d.join("c")).unwrap());
}
