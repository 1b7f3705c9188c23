//! The raw legacy mode: any catalogue cipher with the key and IV the user gives, output
//! byte for byte what `openssl enc -K .. -iv .. -nosalt` and Java's JCE give (PKCS#7
//! padding for ECB and CBC unless turned off; AEADs as JCE: ciphertext then tag).
//!
//! No integrity for anything but the AEADs, no salt, no header: for experiments and old
//! data. Block modes stream in 64 KiB pieces, carrying the chaining value from one piece
//! to the next (CBC and CFB: the last ciphertext block; OFB: the last keystream block;
//! CTR: the counter advanced by the blocks done), so memory stays bounded; AEADs
//! (one message, one tag) hold the whole input in memory.

use std::io::{Read, Write};

use cipher::{KeyInit, StreamCipher};
use cipherlab_ciphers::{Cipher, CipherSpec, Kind, Mode, Padding, Status, providers};
use zeroize::Zeroizing;

use crate::chunk::Source;
use crate::error::{Error, Result};
use crate::pipeline::Progress;

/// Piece size: a multiple of every block size (8 and 16 bytes).
const PIECE: usize = 64 * 1024;

/// A cipher with the user's key and IV.
pub struct RawParams {
    /// The cipher (mode and padding included).
    pub spec: CipherSpec,
    /// The key.
    pub key: Zeroizing<Vec<u8>>,
    /// The IV or nonce (empty for ECB and RC4).
    pub iv: Vec<u8>,
    /// Catalogue provider (`None`: the default).
    pub provider: Option<String>,
}

impl RawParams {
    /// Checks the key and IV lengths, with messages that say the expected lengths.
    pub fn new(spec: CipherSpec, key: &[u8], iv: &[u8], provider: Option<String>) -> Result<Self> {
        if key.len() != spec.key_len() {
            return Err(Error::Usage(format!(
                "{spec} needs a {}-byte key ({} hex digits), got {} bytes",
                spec.key_len(),
                2 * spec.key_len(),
                key.len()
            )));
        }
        if iv.len() != spec.iv_len() {
            return Err(Error::Usage(match spec.iv_len() {
                0 => format!("{spec} takes no IV: leave --iv out"),
                n => format!(
                    "{spec} needs a {n}-byte IV ({} hex digits) with --iv, got {} bytes",
                    2 * n,
                    iv.len()
                ),
            }));
        }
        Ok(RawParams {
            spec,
            key: Zeroizing::new(key.to_vec()),
            iv: iv.to_vec(),
            provider,
        })
    }
}

/// The warnings raw mode prints for `spec`.
pub fn warnings(spec: &CipherSpec) -> Vec<String> {
    let mut w = Vec::new();
    if spec.is_aead() {
        w.push(format!(
            "--raw with {spec}: the tag is checked, but nothing stops the same key and IV \
             being used twice, which breaks {spec}; the container (without --raw) picks \
             fresh nonces for you"
        ));
    } else {
        w.push(
            "--raw output has NO integrity protection: changes to it go undetected, and a \
             wrong key decrypts to garbage without an error; use the container (without \
             --raw) to protect data"
                .into(),
        );
    }
    match spec.algorithm.status {
        Status::Modern => {}
        s => w.push(format!(
            "{} is {} (catalogue status): use it to read old data or to measure, not to \
             protect new data",
            spec.algorithm.title,
            s.as_str()
        )),
    }
    if spec.mode == Some(Mode::Ecb) {
        w.push("ECB leaks the plaintext's patterns (equal blocks give equal ciphertext)".into());
    }
    // Keystream modes: the same key and IV (or, for RC4, the same key) twice gives the
    // same keystream, and the XOR of the two ciphertexts is the XOR of the plaintexts.
    let keystream = matches!(
        spec.mode,
        Some(Mode::Ctr | Mode::Ofb | Mode::Cfb | Mode::Cfb8 | Mode::Cfb1)
    ) || spec.algorithm.kind == cipherlab_ciphers::Kind::Stream;
    if keystream && !spec.is_aead() {
        let what = if spec.mode.is_some() {
            "key and IV"
        } else {
            "key (RC4 has no IV)"
        };
        w.push(format!(
            "{spec} encrypts by XOR with a keystream: never use the same {what} for a second \
             message -- the XOR of the two ciphertexts is the XOR of the two plaintexts"
        ));
    }
    w
}

/// Encrypts `input` into `output`; returns the bytes written.
pub fn encrypt<R: Read, W: Write>(
    input: R,
    output: W,
    p: &RawParams,
    progress: Option<Progress<'_>>,
) -> Result<u64> {
    run(true, input, output, p, progress)
}

/// Decrypts `input` into `output`; returns the bytes written.
pub fn decrypt<R: Read, W: Write>(
    input: R,
    output: W,
    p: &RawParams,
    progress: Option<Progress<'_>>,
) -> Result<u64> {
    run(false, input, output, p, progress)
}

fn run<R: Read, W: Write>(
    encrypting: bool,
    input: R,
    mut output: W,
    p: &RawParams,
    progress: Option<Progress<'_>>,
) -> Result<u64> {
    let mut src = Source::new(input);
    let wr = |e| Error::io("writing the output", e);
    let rd = |e| Error::io("reading the input", e);
    let spec = p.spec;
    let provider = p.provider.as_deref();
    if spec.is_aead() {
        // One message, one tag: the whole input in memory (as JCE's doFinal).
        let mut buf = Zeroizing::new(Vec::new());
        let mut reader = src;
        std::io::Read::read_to_end(&mut ReadSource(&mut reader), &mut buf).map_err(rd)?;
        let len = buf.len();
        let mut c = providers::init(&spec, &p.key, provider)?;
        let n = if encrypting {
            buf.resize(spec.output_len(len), 0);
            c.encrypt(&p.iv, &[], &mut buf, len)?
        } else {
            c.decrypt(&p.iv, &[], &mut buf)?
        };
        output.write_all(&buf[..n]).map_err(wr)?;
        output.flush().map_err(wr)?;
        if let Some(f) = progress {
            f(len as u64);
        }
        return Ok(n as u64);
    }
    let mut buf = Zeroizing::new(vec![0u8; PIECE + 32]);
    let mut written = 0u64;
    if spec.algorithm.kind == Kind::Stream {
        // RC4: one keystream over the whole input.
        let mut rc4 = rc4::Rc4::new_from_slice(&p.key)
            .map_err(|_| Error::Usage(format!("{spec} cannot take a {}-byte key", p.key.len())))?;
        loop {
            let n = src.fill(&mut buf[..PIECE]).map_err(rd)?;
            rc4.apply_keystream(&mut buf[..n]);
            output.write_all(&buf[..n]).map_err(wr)?;
            written += n as u64;
            if let Some(f) = progress {
                f(src.consumed);
            }
            if n < PIECE {
                break;
            }
        }
        output.flush().map_err(wr)?;
        return Ok(written);
    }
    let mode = spec.mode.unwrap_or(Mode::Ecb);
    let bs = spec.algorithm.block_bytes;
    let mut middle: Box<dyn Cipher> =
        providers::init(&spec.with_padding(Padding::None), &p.key, provider)?;
    let mut last: Option<Box<dyn Cipher>> = if spec.pads() {
        Some(providers::init(&spec, &p.key, provider)?)
    } else {
        None
    };
    let mut iv = p.iv.clone();
    let mut in_tail = vec![0u8; bs];
    loop {
        let n = src.fill(&mut buf[..PIECE]).map_err(rd)?;
        let final_piece = n < PIECE || src.at_end().map_err(rd)?;
        if n >= bs {
            in_tail.copy_from_slice(&buf[n - bs..n]);
        }
        let c = match (&mut last, final_piece) {
            (Some(c), true) => c,
            _ => &mut middle,
        };
        let out = if encrypting {
            c.encrypt(&iv, &[], &mut buf[..], n)?
        } else {
            c.decrypt(&iv, &[], &mut buf[..n])?
        };
        output.write_all(&buf[..out]).map_err(wr)?;
        written += out as u64;
        if let Some(f) = progress {
            f(src.consumed);
        }
        if final_piece {
            break;
        }
        // A middle piece is PIECE bytes, whole blocks: carry the chaining value over.
        let out_tail = &buf[out - bs..out];
        match mode {
            Mode::Cbc | Mode::Cfb | Mode::Cfb8 | Mode::Cfb1 => {
                iv.copy_from_slice(if encrypting { out_tail } else { &in_tail });
            }
            Mode::Ofb => {
                for ((v, a), b) in iv.iter_mut().zip(&in_tail).zip(out_tail) {
                    *v = a ^ b;
                }
            }
            Mode::Ctr => add_be(&mut iv, (PIECE / bs) as u64),
            Mode::Ecb | Mode::Gcm => {}
        }
    }
    output.flush().map_err(wr)?;
    Ok(written)
}

/// Adds `n` to the big-endian integer `v`, modulo 2^(8 len) (OpenSSL's CTR counter).
fn add_be(v: &mut [u8], mut n: u64) {
    for byte in v.iter_mut().rev() {
        let s = u64::from(*byte) + (n & 0xff);
        *byte = s as u8;
        n = (n >> 8) + (s >> 8);
        if n == 0 {
            break;
        }
    }
}

/// `Read` over a [`Source`].
struct ReadSource<'a, R>(&'a mut Source<R>);

impl<R: Read> Read for ReadSource<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.fill(buf)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn counter_addition_carries_and_wraps() {
        let mut v = [0x00, 0xff, 0xff];
        add_be(&mut v, 1);
        assert_eq!(v, [1, 0, 0]);
        let mut v = [0xff; 4];
        add_be(&mut v, 0x1_0001);
        assert_eq!(v, [0, 1, 0, 0]);
    }

    /// Streaming in pieces gives what one message through the catalogue gives, for
    /// every mode, at sizes around the piece boundary.
    #[test]
    fn streaming_equals_one_shot() {
        let mut cases = 0;
        for name in [
            "aes-128-ecb",
            "aes-192-cbc",
            "aes-256-cfb",
            "aes-128-cfb8",
            "aes-128-ofb",
            "aes-128-ctr",
            "des-cbc",
            "3des-168-ofb",
            "blowfish-128-cfb",
            "rc2-40-ctr",
            "skipjack-cbc",
            "rc4-128",
            "aes-128-gcm",
            "chacha20-poly1305",
        ] {
            let spec = CipherSpec::parse(name).unwrap();
            let key: Vec<u8> = (0..spec.key_len() as u8).collect();
            let iv: Vec<u8> = (0..spec.iv_len() as u8).map(|b| b ^ 0xA5).collect();
            let p = RawParams::new(spec, &key, &iv, None).unwrap();
            for len in [0, 1, PIECE - 1, PIECE, PIECE + 1, 3 * PIECE + 17] {
                let msg: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
                let mut ours = Vec::new();
                encrypt(msg.as_slice(), &mut ours, &p, None).unwrap();
                let mut c = providers::init(&spec, &key, None).unwrap();
                let mut one = msg.clone();
                one.resize(spec.output_len(len), 0);
                let n = c.encrypt(&iv, &[], &mut one, len).unwrap();
                assert_eq!(ours, one[..n], "{name} {len}");
                let mut back = Vec::new();
                decrypt(ours.as_slice(), &mut back, &p, None).unwrap();
                assert_eq!(back, msg, "{name} {len}");
                cases += 1;
            }
        }
        println!("{cases} raw streaming cases equal the one-shot catalogue output");
    }
}
