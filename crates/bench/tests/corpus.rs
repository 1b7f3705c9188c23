//! The corpus: determinism, exact sizes, streaming, and the validity of every format
//! (headers parsed back field by field, and `file`'s verdict where it is installed).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Read;
use std::process::Command;

use cipherlab_bench::corpus::{self, DataType, Generator, guess_type, load_dir};
use cipherlab_harness::stats::byte_entropy;

fn u16le(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn u32le(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn u16be(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
fn u32be(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(b[at..at + 4].try_into().unwrap())
}

const SIZES: &[usize] = &[
    0, 1, 2, 3, 45, 53, 54, 55, 66, 67, 1000, 4097, 65_537, 300_001,
];

#[test]
fn same_seed_same_bytes_other_seed_other_bytes_exact_sizes() {
    let mut checks = 0;
    for kind in DataType::ALL {
        for &size in SIZES {
            let a = corpus::generate(kind, size, 42);
            assert_eq!(a.len(), size, "{kind} {size}");
            assert!(
                a == corpus::generate(kind, size, 42),
                "{kind} {size}: not reproducible"
            );
            if size >= 4097 {
                assert!(
                    a != corpus::generate(kind, size, 43),
                    "{kind} {size}: seed ignored"
                );
            }
            checks += 1;
        }
        // The same seed gives different files for different kinds.
        let other = DataType::ALL.iter().find(|k| **k != kind).unwrap();
        assert!(
            corpus::generate(kind, 4096, 1) != corpus::generate(*other, 4096, 1),
            "{kind} and {other} share bytes"
        );
    }
    println!("determinism: {checks} (kind, size) pairs");
}

#[test]
fn streaming_gives_the_same_bytes_as_generate() {
    for kind in DataType::ALL {
        let size = 200_003;
        let whole = corpus::generate(kind, size, 7);
        let mut streamed = Vec::new();
        let n = corpus::write(kind, size as u64, 7, &mut streamed).unwrap();
        assert_eq!(n, size as u64);
        assert!(streamed == whole, "{kind}: write differs");
        // Odd read sizes must not change the stream either.
        let mut g = Generator::new(kind, size as u64, 7);
        let mut pieces = Vec::new();
        let mut buf = [0u8; 977];
        let mut step = 1;
        loop {
            let k = step.min(buf.len());
            let n = g.read(&mut buf[..k]).unwrap();
            if n == 0 {
                break;
            }
            pieces.extend_from_slice(&buf[..n]);
            step = step % 977 + 13;
        }
        assert!(pieces == whole, "{kind}: chunked reads differ");
    }
}

#[test]
fn the_first_bytes_are_pinned() {
    // The corpus is part of cipherlab's contract: a change here changes every published
    // figure's input. Update deliberately, never by accident.
    let text = corpus::generate(DataType::AsciiText, 48, 0);
    assert_eq!(text, b"Sithepea nyplygych souhu iybrou la la, thum    \n");
    let compressed = corpus::generate(DataType::Compressed, 8, 0);
    assert_eq!(compressed, [0x85, 0x24, 0xb2, 0x36, 0xc8, 0xad, 0x18, 0x2b]);
}

#[test]
fn bmp_header_parses_and_the_picture_is_flat() {
    for &size in &[66usize, 1000, 54 + 3 * 4 * 7, 100_000, 1_000_003] {
        let b = corpus::generate(DataType::Bmp, size, 3);
        assert_eq!(&b[..2], b"BM");
        assert_eq!(u32le(&b, 2) as usize, size, "bfSize");
        let offset = u32le(&b, 10) as usize;
        assert_eq!(u32le(&b, 14), 40, "BITMAPINFOHEADER");
        let w = u32le(&b, 18) as usize;
        let h = u32le(&b, 22) as usize;
        assert_eq!(u16le(&b, 26), 1, "planes");
        assert_eq!(u16le(&b, 28), 24, "bits per pixel");
        assert_eq!(u32le(&b, 30), 0, "BI_RGB");
        assert_eq!(u32le(&b, 34) as usize, 3 * w * h, "image size");
        assert_eq!(w % 4, 0, "rows need no padding");
        assert_eq!(
            offset + 3 * w * h,
            size,
            "pixel array ends at the end of the file"
        );
        assert!(offset >= 54 && offset - 54 < 3 * w, "gap {offset}");
        if size >= 100_000 {
            // Roughly 4:3.
            assert!(w * 10 >= h * 11 && w * 10 <= h * 15, "{w} x {h}");
            let pixels = &b[offset..];
            let mut colours: Vec<&[u8]> = pixels.chunks(3).collect();
            colours.sort();
            colours.dedup();
            assert!(colours.len() <= 14, "{} colours: not flat", colours.len());
            // ECB-visible structure: most 16-byte blocks repeat.
            let mut blocks: Vec<&[u8]> = pixels.chunks_exact(16).collect();
            let total = blocks.len();
            blocks.sort();
            blocks.dedup();
            println!(
                "bmp {size} B: {w}x{h}, {} colours, {} distinct of {total} 16-byte blocks",
                colours.len(),
                blocks.len()
            );
            assert!(blocks.len() * 10 < total, "too few repeated blocks");
            // ... and it is a picture, not one colour.
            assert!(colours.len() >= 4);
        }
    }
}

#[test]
fn wav_header_parses() {
    for &size in &[46usize, 1000, 1001, 88_244] {
        let b = corpus::generate(DataType::Wav, size, 5);
        assert_eq!(&b[..4], b"RIFF");
        assert_eq!(u32le(&b, 4) as usize, size - 8);
        assert_eq!(&b[8..16], b"WAVEfmt ");
        assert_eq!(u32le(&b, 16), 16);
        assert_eq!(u16le(&b, 20), 1, "PCM");
        assert_eq!(u16le(&b, 22), 1, "mono");
        assert_eq!(u32le(&b, 24), 44_100);
        assert_eq!(u32le(&b, 28), 88_200);
        assert_eq!(u16le(&b, 32), 2);
        assert_eq!(u16le(&b, 34), 16);
        assert_eq!(&b[36..40], b"data");
        let data = u32le(&b, 40) as usize;
        assert_eq!(data, (size - 44) & !1);
        if size % 2 == 1 {
            assert_eq!(b[size - 1], 0, "pad byte");
        }
    }
    // One second of audio: loud, not clipped flat, with both signs.
    let b = corpus::generate(DataType::Wav, 44 + 88_200, 5);
    let samples: Vec<i16> = b[44..]
        .chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect();
    let rms =
        (samples.iter().map(|&s| f64::from(s).powi(2)).sum::<f64>() / samples.len() as f64).sqrt();
    println!("wav: rms {rms:.0}");
    assert!((2000.0..20_000.0).contains(&rms), "rms {rms}");
    assert!(samples.iter().any(|&s| s > 5000) && samples.iter().any(|&s| s < -5000));
    assert!(
        samples.iter().all(|&s| s != i16::MIN && s != i16::MAX),
        "clipping"
    );
}

#[test]
fn aiff_header_parses() {
    for &size in &[56usize, 1000, 1001, 88_254] {
        let b = corpus::generate(DataType::Aiff, size, 5);
        assert_eq!(&b[..4], b"FORM");
        assert_eq!(u32be(&b, 4) as usize, size - 8);
        assert_eq!(&b[8..16], b"AIFFCOMM");
        assert_eq!(u32be(&b, 16), 18);
        assert_eq!(u16be(&b, 20), 1, "channels");
        let frames = u32be(&b, 22) as usize;
        assert_eq!(u16be(&b, 26), 16, "bits");
        // 80-bit extended 44100: exponent 0x400E, mantissa 0xAC44 << 48.
        let exponent = u16be(&b, 28);
        let mantissa = u64::from_be_bytes(b[30..38].try_into().unwrap());
        let rate = mantissa >> (16383 + 63 - u64::from(exponent));
        assert_eq!((exponent, rate), (0x400E, 44_100));
        assert_eq!(&b[38..42], b"SSND");
        let ssnd = u32be(&b, 42) as usize;
        assert_eq!(u32be(&b, 46), 0, "offset");
        assert_eq!(u32be(&b, 50), 0, "block size");
        assert_eq!(ssnd, 8 + 2 * frames);
        assert_eq!(2 * frames, (size - 54) & !1);
    }
    // Big-endian samples of loud audio (read little-endian they would be noise-like).
    let aiff = corpus::generate(DataType::Aiff, 54 + 88_200, 9);
    let rms = |samples: Vec<i16>| {
        (samples.iter().map(|&s| f64::from(s).powi(2)).sum::<f64>() / samples.len() as f64).sqrt()
    };
    let be = rms(aiff[54..]
        .chunks(2)
        .map(|c| i16::from_be_bytes([c[0], c[1]]))
        .collect());
    assert!((2000.0..20_000.0).contains(&be), "rms {be}");
    // Neighbouring samples of a tone are close; byte-swapped they are not.
    let smooth = |v: Vec<i16>| {
        v.windows(2)
            .map(|w| (i32::from(w[1]) - i32::from(w[0])).abs() as f64)
            .sum::<f64>()
            / v.len() as f64
    };
    let step_be = smooth(
        aiff[54..]
            .chunks(2)
            .map(|c| i16::from_be_bytes([c[0], c[1]]))
            .collect(),
    );
    let step_le = smooth(
        aiff[54..]
            .chunks(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect(),
    );
    println!("aiff: rms {be:.0}, mean step big-endian {step_be:.0}, little-endian {step_le:.0}");
    assert!(step_be * 4.0 < step_le);
}

#[test]
fn text_kinds_are_valid_text() {
    let ascii = corpus::generate(DataType::AsciiText, 100_000, 1);
    assert!(ascii.is_ascii());
    let s = std::str::from_utf8(&ascii).unwrap();
    assert!(s.lines().all(|l| l.chars().count() <= 80), "line too long");
    assert!(s.lines().count() > 1000);
    assert!(s.contains(". ") && s.contains("\n\n"));
    assert_eq!(ascii[ascii.len() - 1], b'\n');
    let words: Vec<&str> = s.split_whitespace().collect();
    let mut distinct = words.clone();
    distinct.sort();
    distinct.dedup();
    println!(
        "ascii: {} words, {} distinct; first line {:?}",
        words.len(),
        distinct.len(),
        s.lines().next().unwrap()
    );
    assert!(
        distinct.len() * 5 < words.len(),
        "words should repeat like real text"
    );

    for &size in &[10usize, 999, 100_000] {
        let utf8 = corpus::generate(DataType::Utf8Text, size, 2);
        let s = std::str::from_utf8(&utf8).unwrap_or_else(|e| panic!("size {size}: {e}"));
        if size == 100_000 {
            let has = |lo: u32, hi: u32| s.chars().any(|c| (lo..=hi).contains(&(c as u32)));
            assert!(has(0x0391, 0x03CE), "Greek");
            assert!(has(0x0410, 0x044F), "Cyrillic");
            assert!(has(0x4E00, 0x9FFF), "CJK");
            assert!(has(0x00C0, 0x017F), "Latin with diacritics");
            assert!(s.chars().any(|c| c.len_utf8() == 4), "4-byte sequences");
            println!("utf8: {} bytes, {} chars", s.len(), s.chars().count());
        }
    }

    for &size in &[4usize, 1000, 100_000, 100_001] {
        let u = corpus::generate(DataType::Utf16Text, size, 3);
        assert_eq!(&u[..2], &[0xFF, 0xFE], "BOM");
        let units: Vec<u16> = u[2..]
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        let s = String::from_utf16(&units).unwrap_or_else(|e| panic!("size {size}: {e}"));
        if size >= 100_000 {
            assert!(s.chars().any(|c| (c as u32) > 0xFFFF), "surrogate pairs");
            assert!(s.chars().any(|c| (0x4E00..=0x9FFF).contains(&(c as u32))));
        }
        assert!(
            s.ends_with('\n') || size < 8,
            "size {size}: {:?}",
            &s[s.len().saturating_sub(8)..]
        );
    }
}

#[test]
fn density_and_entropy() {
    let n = 1 << 20;
    let sparse = corpus::generate(DataType::Sparse, n, 1);
    let zeros = sparse.iter().filter(|&&b| b == 0).count() as f64 / n as f64;
    let compressed = corpus::generate(DataType::Compressed, n, 1);
    let dense = corpus::generate(DataType::Dense, n, 1);
    let dense_zeros = dense.iter().filter(|&&b| b == 0).count() as f64 / n as f64;
    let (hs, hc, hd) = (
        byte_entropy(&sparse),
        byte_entropy(&compressed),
        byte_entropy(&dense),
    );
    println!(
        "1 MiB: sparse {:.1}% zeros, {hs:.3} bits/byte; compressed {hc:.4}; dense {hd:.3}, {:.2}% zeros",
        100.0 * zeros,
        100.0 * dense_zeros
    );
    assert!(zeros > 0.9, "sparse: {zeros}");
    assert!(sparse.iter().any(|&b| b != 0));
    assert!(hc > 7.99, "compressed entropy {hc}");
    assert!(hd > 6.5 && hd < 7.95, "dense entropy {hd}");
    assert!(dense_zeros < 0.02);
    assert!(hs < 1.0);
}

fn file_verdict(path: &std::path::Path) -> Option<String> {
    let out = Command::new("file").arg("-b").arg(path).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[test]
fn file_command_recognizes_the_formats() {
    let dir = tempfile::tempdir().unwrap();
    let probe = dir.path().join("probe");
    std::fs::write(&probe, b"hello\n").unwrap();
    if file_verdict(&probe).is_none() {
        println!("SKIP: the `file` command is not installed (apt-get install file)");
        return;
    }
    let expect = [
        (DataType::Bmp, "PC bitmap"),
        (DataType::Wav, "RIFF (little-endian) data, WAVE audio"),
        (DataType::Aiff, "IFF data, AIFF audio"),
        (DataType::AsciiText, "ASCII text"),
        (DataType::Utf8Text, "UTF-8"),
        (DataType::Utf16Text, "UTF-16, little-endian"),
    ];
    for (kind, want) in expect {
        let path = dir.path().join(format!("x.{}", kind.extension()));
        std::fs::write(&path, corpus::generate(kind, 100_000, 4)).unwrap();
        let got = file_verdict(&path).unwrap();
        println!("file: {kind}: {got}");
        assert!(
            got.contains(want),
            "{kind}: `file` says {got:?}, expected {want:?}"
        );
    }
}

#[test]
fn guesses_match_the_generated_kinds_and_the_loader_walks_a_folder() {
    for kind in DataType::ALL {
        let b = corpus::generate(kind, 100_000, 8);
        assert_eq!(guess_type(&b), kind, "guess for {kind}");
    }
    assert_eq!(guess_type(b"\x1f\x8b\x08\x00rest"), DataType::Compressed);

    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(
        dir.path().join("b.wav"),
        corpus::generate(DataType::Wav, 5000, 1),
    )
    .unwrap();
    std::fs::write(sub.join("a.bmp"), corpus::generate(DataType::Bmp, 7000, 1)).unwrap();
    std::fs::write(
        dir.path().join("c.txt"),
        corpus::generate(DataType::AsciiText, 300, 1),
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.path().join("b.wav"), dir.path().join("link.wav")).unwrap();
    let files = load_dir(dir.path()).unwrap();
    let summary: Vec<(String, u64, DataType)> = files
        .iter()
        .map(|f| (f.label(dir.path()), f.size, f.data_type))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("b.wav".to_string(), 5000, DataType::Wav),
            ("c.txt".to_string(), 300, DataType::AsciiText),
            ("sub/a.bmp".to_string(), 7000, DataType::Bmp),
        ]
    );
    assert_eq!(files[0].read().unwrap().len(), 5000);

    let empty = tempfile::tempdir().unwrap();
    let e = load_dir(empty.path()).unwrap_err();
    assert!(e.to_string().contains("no regular files"), "{e}");
    let e = load_dir(&dir.path().join("b.wav")).unwrap_err();
    assert!(e.to_string().contains("not a folder"), "{e}");
    assert!(load_dir(&dir.path().join("missing")).is_err());
}

#[test]
fn names_round_trip() {
    for kind in DataType::ALL {
        assert_eq!(kind.name().parse::<DataType>().unwrap(), kind);
        assert!(!kind.description().is_empty());
        assert!(
            corpus::generate(kind, kind.min_valid_size() as usize, 0).len() as u64
                == kind.min_valid_size()
        );
    }
    let e = "jpeg".parse::<DataType>().unwrap_err();
    assert!(e.to_string().contains("ascii-text"), "{e}");
}

#[test]
fn every_kind_is_pinned_by_its_digest() {
    use sha2::{Digest, Sha256};
    // SHA-256 (first 16 hex digits) of 64 KiB of each kind from seed 1: the same on every
    // platform and in every version. A deliberate change to a generator updates these
    // and says so in the changelog: published figures' inputs change with them.
    let pinned = [
        (DataType::AsciiText, "294df86129243018"),
        (DataType::Utf8Text, "5c8521f01499cb59"),
        (DataType::Utf16Text, "9c7d009336702776"),
        (DataType::Bmp, "d44715493fb637a3"),
        (DataType::Wav, "ac59266089ac42ef"),
        (DataType::Aiff, "30a16a1ae10022a4"),
        (DataType::Compressed, "f10b51ec42d7edd1"),
        (DataType::Sparse, "222b598261ab831a"),
        (DataType::Dense, "d90d056bd677a687"),
    ];
    let mut failed = Vec::new();
    for (kind, want) in pinned {
        let digest = Sha256::digest(corpus::generate(kind, 65_536, 1));
        let got: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        if got != want {
            println!("{kind}: {got}, pinned {want}");
            failed.push(kind);
        }
    }
    assert!(failed.is_empty(), "digests changed for {failed:?}");
    println!("corpus digests: {} kinds match", pinned.len());
}
