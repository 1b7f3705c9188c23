//! The general-purpose stream filters (§7.4): FlateDecode and LZWDecode with PNG/TIFF
//! predictors, ASCIIHexDecode, ASCII85Decode, RunLengthDecode -- for cross-reference and
//! object streams (§7.5.7, §7.5.8), and for encryption, which re-compresses streams in the
//! old filters with Flate as qpdf does. Decryption never decodes content streams: it works
//! on the encoded bytes. Image filters (DCT, JPX, JBIG2, CCITT) are never decoded.

use std::io::Read;

use crate::error::{Error, Result};
use crate::limits::{Limits, Which, exceeded};
use crate::object::{Dict, Name, Object};

/// The filter names and parameter dictionaries of a stream, paired.
pub fn filter_chain(dict: &Dict) -> Vec<(Name, Option<Dict>)> {
    let names: Vec<Name> = match dict.get(b"Filter") {
        Some(Object::Name(n)) => vec![n.clone()],
        Some(Object::Array(a)) => a
            .iter()
            .filter_map(|o| o.as_name().map(Name::from))
            .collect(),
        _ => Vec::new(),
    };
    let parms: Vec<Option<Dict>> = match dict.get(b"DecodeParms") {
        Some(Object::Dict(d)) => vec![Some(d.clone())],
        Some(Object::Array(a)) => a
            .iter()
            .map(|o| match o {
                Object::Dict(d) => Some(d.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    names
        .into_iter()
        .enumerate()
        .map(|(i, n)| (n, parms.get(i).cloned().flatten()))
        .collect()
}

/// Whether `name` is a filter [`decode`] undoes (the general-purpose ones of §7.4).
pub fn is_general(name: &[u8]) -> bool {
    matches!(
        name,
        b"FlateDecode"
            | b"Fl"
            | b"LZWDecode"
            | b"LZW"
            | b"ASCIIHexDecode"
            | b"AHx"
            | b"ASCII85Decode"
            | b"A85"
            | b"RunLengthDecode"
            | b"RL"
            | b"Crypt"
    )
}

/// Decodes a stream's data through its filters (the general-purpose ones; see
/// [`is_general`]), capped at the default [`Limits::stream_bytes`].
pub fn decode(dict: &Dict, data: &[u8], what: &str) -> Result<Vec<u8>> {
    decode_capped(dict, data, what, Limits::default().stream_bytes)
}

/// [`decode`] with the decoded size capped at `max` bytes after each filter: beyond it,
/// [`Error::Limit`].
pub fn decode_capped(dict: &Dict, data: &[u8], what: &str, max: usize) -> Result<Vec<u8>> {
    let mut cur = data.to_vec();
    for (name, parms) in filter_chain(dict) {
        cur = match name.as_slice() {
            b"FlateDecode" | b"Fl" => {
                let raw = inflate_capped(&cur, what, max)?;
                match parms {
                    Some(p) => predict(&raw, &p, what)?,
                    None => raw,
                }
            }
            b"LZWDecode" | b"LZW" => {
                let early = parms.as_ref().and_then(|p| p.int(b"EarlyChange")) != Some(0);
                let raw = lzw(&cur, early, what, max)?;
                match parms {
                    Some(p) => predict(&raw, &p, what)?,
                    None => raw,
                }
            }
            b"ASCIIHexDecode" | b"AHx" => ascii_hex(&cur, what)?,
            b"ASCII85Decode" | b"A85" => ascii85(&cur, what)?,
            b"RunLengthDecode" | b"RL" => run_length(&cur, what, max)?,
            b"Crypt" => cur,
            other => {
                return Err(Error::Unsupported(format!(
                    "{what} uses the filter /{}; the general-purpose filters (Flate, LZW, \
                     ASCIIHex, ASCII85, RunLength) are supported here",
                    String::from_utf8_lossy(other)
                )));
            }
        };
        if cur.len() > max {
            return Err(too_big(what, max));
        }
    }
    Ok(cur)
}

fn too_big(what: &str, max: usize) -> Error {
    exceeded(
        Which::StreamBytes,
        format_args!("{what} decodes to more than {}", mib(max)),
    )
}

/// `n` bytes in MiB, for messages.
fn mib(n: usize) -> String {
    if n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else {
        format!("{n} bytes")
    }
}

/// ASCIIHexDecode (§7.4.2): hex digits, white space ignored, `>` ends the data; an odd
/// last digit is followed by an implied 0.
fn ascii_hex(data: &[u8], what: &str) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len() / 2);
    let mut hi: Option<u8> = None;
    for &b in data {
        let v = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            b'>' => break,
            _ if crate::object::is_ws(b) => continue,
            _ => {
                return Err(Error::Damaged(format!(
                    "{what}: ASCIIHexDecode: '{}' is not a hex digit",
                    char::from(b).escape_default()
                )));
            }
        };
        match hi.take() {
            Some(h) => out.push(h << 4 | v),
            None => hi = Some(v),
        }
    }
    if let Some(h) = hi {
        out.push(h << 4);
    }
    Ok(out)
}

/// ASCII85Decode (§7.4.3): groups of five characters `!`..`u` for four bytes, `z` for four
/// zero bytes, white space ignored, `~>` ends the data; a last group of n < 5 characters
/// gives n - 1 bytes.
fn ascii85(data: &[u8], what: &str) -> Result<Vec<u8>> {
    let bad = |m: String| Error::Damaged(format!("{what}: ASCII85Decode: {m}"));
    let mut out = Vec::with_capacity(data.len() / 5 * 4 + 4);
    let (mut acc, mut n) = (0u64, 0usize);
    for &b in data {
        match b {
            b'~' => break,
            b'z' if n == 0 => out.extend_from_slice(&[0; 4]),
            b'!'..=b'u' => {
                acc = acc * 85 + u64::from(b - b'!');
                n += 1;
                if n == 5 {
                    let v = u32::try_from(acc)
                        .map_err(|_| bad("a group is larger than 2^32".into()))?;
                    out.extend_from_slice(&v.to_be_bytes());
                    (acc, n) = (0, 0);
                }
            }
            _ if crate::object::is_ws(b) => {}
            _ => {
                return Err(bad(format!(
                    "'{}' is not an ASCII85 character",
                    char::from(b).escape_default()
                )));
            }
        }
    }
    match n {
        0 => {}
        1 => return Err(bad("a final group of one character".into())),
        _ => {
            for _ in n..5 {
                acc = acc * 85 + 84;
            }
            let v = u32::try_from(acc).map_err(|_| bad("the final group is too large".into()))?;
            out.extend_from_slice(&v.to_be_bytes()[..n - 1]);
        }
    }
    Ok(out)
}

/// RunLengthDecode (§7.4.5): a length byte L, then L + 1 literal bytes (L < 128) or one
/// byte repeated 257 - L times (L > 128); 128 ends the data.
fn run_length(data: &[u8], what: &str, max: usize) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len() * 2);
    let mut i = 0;
    while let Some(&l) = data.get(i) {
        i += 1;
        match l {
            0..=127 => {
                let n = usize::from(l) + 1;
                let Some(lit) = data.get(i..i + n) else {
                    out.extend_from_slice(&data[i..]);
                    break;
                };
                out.extend_from_slice(lit);
                i += n;
            }
            128 => break,
            _ => {
                let Some(&b) = data.get(i) else { break };
                i += 1;
                out.resize(out.len() + 257 - usize::from(l), b);
            }
        }
        if out.len() > max {
            return Err(too_big(what, max));
        }
    }
    Ok(out)
}

/// LZWDecode (§7.4.4): variable-length codes of 9 to 12 bits, most significant bit first;
/// 256 clears the table, 257 ends the data; with `early` (EarlyChange 1, the default)
/// the code length grows one code early.
fn lzw(data: &[u8], early: bool, what: &str, max: usize) -> Result<Vec<u8>> {
    const CLEAR: usize = 256;
    const EOD: usize = 257;
    // Entry i > 257: (prefix entry, last byte, length). Entries below 256 are single bytes.
    let mut table: Vec<(u16, u8, u32)> = Vec::with_capacity(4096);
    let reset = |t: &mut Vec<(u16, u8, u32)>| {
        t.clear();
        t.extend((0..=255u16).map(|b| (0, b as u8, 1)));
        t.extend([(0, 0, 0), (0, 0, 0)]); // 256, 257: not data
    };
    reset(&mut table);
    let mut out: Vec<u8> = Vec::with_capacity(data.len().saturating_mul(3).min(max));
    let (mut bits, mut nbits, mut pos) = (0u32, 0u32, 0usize);
    let mut prev: Option<usize> = None;
    // Appends entry `code` to `out`, returns its first byte.
    let emit = |t: &[(u16, u8, u32)], code: usize, out: &mut Vec<u8>| -> u8 {
        let len = t[code].2 as usize;
        let start = out.len();
        out.resize(start + len, 0);
        let mut c = code;
        for i in (0..len).rev() {
            out[start + i] = t[c].1;
            c = usize::from(t[c].0);
        }
        out[start]
    };
    loop {
        let next = table.len();
        let width = match next + usize::from(early) {
            0..=511 => 9,
            512..=1023 => 10,
            1024..=2047 => 11,
            _ => 12,
        };
        while nbits < width {
            let Some(&b) = data.get(pos) else {
                return Ok(out); // data ended without EOD: what was decoded stands
            };
            pos += 1;
            bits = bits << 8 | u32::from(b);
            nbits += 8;
        }
        let code = ((bits >> (nbits - width)) & ((1 << width) - 1)) as usize;
        nbits -= width;
        bits &= (1u32 << nbits).wrapping_sub(1);
        match code {
            CLEAR => {
                reset(&mut table);
                prev = None;
            }
            EOD => return Ok(out),
            _ => {
                let Some(p) = prev else {
                    if code > 255 {
                        return Err(Error::Damaged(format!(
                            "{what}: LZWDecode: the first code {code} is not a byte"
                        )));
                    }
                    out.push(code as u8);
                    prev = Some(code);
                    continue;
                };
                let first = if code < next {
                    emit(&table, code, &mut out)
                } else if code == next {
                    let f = emit(&table, p, &mut out);
                    out.push(f);
                    f
                } else {
                    return Err(Error::Damaged(format!(
                        "{what}: LZWDecode: code {code} is beyond the table ({next} entries)"
                    )));
                };
                if next < 4096 {
                    let len = table[p].2 + 1;
                    table.push((p as u16, first, len));
                }
                prev = Some(code);
                if out.len() > max {
                    return Err(too_big(what, max));
                }
            }
        }
    }
}

/// zlib inflate, tolerant of a missing or bad checksum at the end (common in real files),
/// capped at the default [`Limits::stream_bytes`].
pub fn inflate(data: &[u8], what: &str) -> Result<Vec<u8>> {
    inflate_capped(data, what, Limits::default().stream_bytes)
}

/// [`inflate`] capped at `max` bytes: the decoder stops one byte beyond it, so a bomb
/// costs at most `max` bytes of memory.
pub fn inflate_capped(data: &[u8], what: &str, max: usize) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len().saturating_mul(4).min(max));
    let mut dec = flate2::read::ZlibDecoder::new(data).take(max as u64 + 1);
    let mut chunk = [0u8; 16384];
    loop {
        match dec.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&chunk[..n]),
            Err(e) => {
                if out.is_empty() {
                    return Err(Error::Damaged(format!("{what}: FlateDecode failed: {e}")));
                }
                break;
            }
        }
    }
    if out.len() > max {
        return Err(too_big(what, max));
    }
    Ok(out)
}

/// Whether `data` starts as zlib data that inflates (its first KiB is decoded): cheap
/// evidence that a stream is not encrypted.
pub fn inflates(data: &[u8]) -> bool {
    let mut dec = flate2::read::ZlibDecoder::new(data);
    let mut first = [0u8; 1024];
    matches!(dec.read(&mut first), Ok(n) if n > 0)
}

/// Undoes a PNG (10-15) or TIFF (2) predictor.
fn predict(data: &[u8], parms: &Dict, what: &str) -> Result<Vec<u8>> {
    let predictor = parms.int(b"Predictor").unwrap_or(1);
    if predictor <= 1 {
        return Ok(data.to_vec());
    }
    let colors = parms.int(b"Colors").unwrap_or(1);
    let bpc = parms.int(b"BitsPerComponent").unwrap_or(8);
    let columns = parms.int(b"Columns").unwrap_or(1);
    if !(1..=32).contains(&colors)
        || ![1, 2, 4, 8, 16].contains(&bpc)
        || !(1..=1 << 20).contains(&columns)
    {
        return Err(Error::Damaged(format!(
            "{what}: bad predictor parameters (Colors {colors}, BitsPerComponent {bpc}, Columns {columns})"
        )));
    }
    let bits_per_pixel = (colors * bpc) as usize;
    let bpp = bits_per_pixel.div_ceil(8).max(1);
    let row = (bits_per_pixel * columns as usize).div_ceil(8);
    if predictor == 2 {
        if bpc != 8 {
            return Err(Error::Unsupported(format!(
                "{what}: TIFF predictor with {bpc} bits per component"
            )));
        }
        let mut out = data.to_vec();
        for r in out.chunks_mut(row) {
            for i in bpp..r.len() {
                r[i] = r[i].wrapping_add(r[i - bpp]);
            }
        }
        return Ok(out);
    }
    let mut out = Vec::with_capacity(data.len());
    let mut prev = vec![0u8; row];
    for chunk in data.chunks(row + 1) {
        let (&ty, src) = match chunk.split_first() {
            Some(x) => x,
            None => break,
        };
        let mut cur = vec![0u8; row];
        cur[..src.len()].copy_from_slice(src);
        for i in 0..row {
            let a = if i >= bpp { cur[i - bpp] } else { 0 };
            let b = prev[i];
            let c = if i >= bpp { prev[i - bpp] } else { 0 };
            cur[i] = match ty {
                0 => cur[i],
                1 => cur[i].wrapping_add(a),
                2 => cur[i].wrapping_add(b),
                3 => cur[i].wrapping_add(((u16::from(a) + u16::from(b)) / 2) as u8),
                4 => {
                    let p = i16::from(a) + i16::from(b) - i16::from(c);
                    let (pa, pb, pc) = (
                        (p - i16::from(a)).abs(),
                        (p - i16::from(b)).abs(),
                        (p - i16::from(c)).abs(),
                    );
                    let pred = if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    };
                    cur[i].wrapping_add(pred)
                }
                _ => {
                    return Err(Error::Damaged(format!(
                        "{what}: PNG predictor row type {ty}"
                    )));
                }
            };
        }
        out.extend_from_slice(&cur[..src.len()]);
        prev = cur;
    }
    Ok(out)
}

/// zlib deflate (for the object streams and cross-reference streams we write).
pub fn deflate(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::ZlibEncoder::new(
        Vec::with_capacity(data.len() / 3 + 64),
        flate2::Compression::new(6),
    );
    // Writing to a Vec cannot fail.
    let _ = e.write_all(data);
    e.finish().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn old_filters() {
        assert_eq!(ascii_hex(b"48 65 6c6C6f 7>", "t").unwrap(), b"Hello\x70");
        assert_eq!(
            ascii85(b"87cURD]i,\"Ebo80~>", "t").unwrap(),
            b"Hello World!"
        );
        assert_eq!(ascii85(b"z!!~>", "t").unwrap(), [0, 0, 0, 0, 0]);
        assert!(ascii85(b"s8W-\"~>", "t").is_err(), "2^32 overflows");
        assert_eq!(
            run_length(&[2, b'a', b'b', b'c', 253, b'x', 128], "t", 100).unwrap(),
            b"abcxxxx"
        );
        // "-----A---B" from ISO 32000-2 §7.4.4.2, EarlyChange 1.
        let codes = [256u16, 45, 258, 258, 65, 259, 66, 257];
        let (mut acc, mut n, mut enc) = (0u64, 0u32, Vec::new());
        for c in codes {
            acc = acc << 9 | u64::from(c);
            n += 9;
            while n >= 8 {
                enc.push((acc >> (n - 8)) as u8);
                n -= 8;
            }
        }
        if n > 0 {
            enc.push((acc << (8 - n)) as u8);
        }
        assert_eq!(enc, [0x80, 0x0B, 0x60, 0x50, 0x22, 0x0C, 0x0C, 0x85, 0x01]);
        assert_eq!(lzw(&enc, true, "t", 100).unwrap(), b"-----A---B");
        assert!(lzw(&[0xff, 0xff, 0xff], true, "t", 100).is_err());
    }

    #[test]
    fn png_up_predictor() {
        let mut p = Dict::new();
        p.set(b"Predictor", Object::Int(12));
        p.set(b"Columns", Object::Int(3));
        let data = [2, 1, 2, 3, 2, 1, 1, 1];
        assert_eq!(predict(&data, &p, "t").unwrap(), vec![1, 2, 3, 2, 3, 4]);
        let z = deflate(b"hello hello hello");
        assert_eq!(inflate(&z, "t").unwrap(), b"hello hello hello");
    }
}
