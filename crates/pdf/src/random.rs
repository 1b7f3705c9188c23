//! Randomness from the operating system's generator (`getrandom`): file keys, salts and
//! IDs straight from it, IVs and nonces through a small buffer so that a file with 65,000
//! strings does not make 65,000 system calls. IVs are public, so the buffer holds nothing
//! secret; keys never pass through it.

use zeroize::Zeroizing;

use crate::error::{Error, Result};

fn os_fill(out: &mut [u8]) -> Result<()> {
    getrandom::fill(out).map_err(|e| {
        Error::Random(format!(
            "the operating system's random number generator failed ({e}); nothing was written"
        ))
    })
}

/// `N` fresh random bytes for a key, wiped when dropped.
pub fn key<const N: usize>() -> Result<Zeroizing<[u8; N]>> {
    let mut k = Zeroizing::new([0u8; N]);
    os_fill(&mut k[..])?;
    Ok(k)
}

/// `N` fresh random bytes (salts, IDs).
pub fn bytes<const N: usize>() -> Result<[u8; N]> {
    let mut b = [0u8; N];
    os_fill(&mut b)?;
    Ok(b)
}

/// A source of IVs and nonces: the OS generator, read 4 KiB at a time. Each thread that
/// encrypts has its own.
pub struct Rng {
    buf: Box<[u8; 4096]>,
    pos: usize,
}

impl Default for Rng {
    fn default() -> Self {
        Rng::new()
    }
}

impl Rng {
    /// An empty buffer; the first [`Rng::fill`] reads from the OS.
    pub fn new() -> Rng {
        Rng {
            buf: Box::new([0u8; 4096]),
            pos: 4096,
        }
    }

    /// Fills `out` with fresh random bytes; each byte is handed out once.
    pub fn fill(&mut self, out: &mut [u8]) -> Result<()> {
        if out.len() > self.buf.len() {
            return os_fill(out);
        }
        if self.pos + out.len() > self.buf.len() {
            os_fill(&mut self.buf[..])?;
            self.pos = 0;
        }
        out.copy_from_slice(&self.buf[self.pos..self.pos + out.len()]);
        // Used bytes are overwritten so that no value can be handed out twice.
        self.buf[self.pos..self.pos + out.len()].fill(0);
        self.pos += out.len();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn ivs_differ_across_refills() {
        let mut r = Rng::new();
        let mut seen = std::collections::HashSet::new();
        for _ in 0..1000 {
            let mut iv = [0u8; 16];
            r.fill(&mut iv).unwrap();
            assert!(seen.insert(iv), "an IV repeated");
        }
        let mut big = vec![0u8; 5000];
        r.fill(&mut big).unwrap();
        assert!(big.iter().any(|&b| b != 0));
    }
}
