//! The stream filters the file structure needs: FlateDecode with PNG/TIFF predictors, for
//! cross-reference streams and object streams (§7.4.4, §7.5.7, §7.5.8). Content streams are
//! never decoded: decryption works on the encoded bytes.

use std::io::Read;

use crate::error::{Error, Result};
use crate::object::{Dict, Object};

/// Largest decoded object or cross-reference stream we accept.
pub const MAX_DECODED: usize = 256 << 20;

/// The filter names and parameter dictionaries of a stream, paired.
pub fn filter_chain(dict: &Dict) -> Vec<(Vec<u8>, Option<Dict>)> {
    let names: Vec<Vec<u8>> = match dict.get(b"Filter") {
        Some(Object::Name(n)) => vec![n.clone()],
        Some(Object::Array(a)) => a
            .iter()
            .filter_map(|o| o.as_name().map(<[u8]>::to_vec))
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

/// Decodes a structural stream's data through its filters.
pub fn decode(dict: &Dict, data: &[u8], what: &str) -> Result<Vec<u8>> {
    let mut cur = data.to_vec();
    for (name, parms) in filter_chain(dict) {
        cur = match name.as_slice() {
            b"FlateDecode" | b"Fl" => {
                let raw = inflate(&cur, what)?;
                match parms {
                    Some(p) => predict(&raw, &p, what)?,
                    None => raw,
                }
            }
            b"Crypt" => cur,
            other => {
                return Err(Error::Unsupported(format!(
                    "{what} uses the filter /{}; only /FlateDecode is supported for object and \
                     cross-reference streams",
                    String::from_utf8_lossy(other)
                )));
            }
        };
    }
    Ok(cur)
}

/// zlib inflate, tolerant of a missing or bad checksum at the end (common in real files),
/// capped at [`MAX_DECODED`].
pub fn inflate(data: &[u8], what: &str) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len().saturating_mul(4).min(MAX_DECODED));
    let mut dec = flate2::read::ZlibDecoder::new(data).take(MAX_DECODED as u64 + 1);
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
    if out.len() > MAX_DECODED {
        return Err(Error::Limit(format!(
            "{what} decodes to more than {} MiB",
            MAX_DECODED >> 20
        )));
    }
    Ok(out)
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
