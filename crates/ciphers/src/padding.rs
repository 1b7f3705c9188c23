//! PKCS#7 padding (PKCS#5 for 8-byte blocks), shared by every provider that pads itself.

use crate::error::Error;

/// Writes the padding after `buf[..msg_len]`; returns the padded length.
/// The caller has checked that `buf` has room for it.
pub(crate) fn pad(buf: &mut [u8], msg_len: usize, block: usize) -> usize {
    let n = block - msg_len % block;
    buf[msg_len..msg_len + n].fill(n as u8);
    msg_len + n
}

/// Checks the padding of decrypted `buf` and returns the message length.
///
/// The check inspects every byte of the last block without data-dependent early exit,
/// to narrow (not close: the error itself is an oracle, inherent to unauthenticated
/// CBC) the padding-oracle timing channel.
pub(crate) fn unpad(buf: &[u8], block: usize) -> Result<usize, Error> {
    if buf.is_empty() || !buf.len().is_multiple_of(block) {
        return Err(Error::NotBlockAligned {
            len: buf.len(),
            block,
        });
    }
    let last = &buf[buf.len() - block..];
    let n = last[block - 1];
    let mut bad = u8::from(n == 0) | u8::from(usize::from(n) > block);
    for (i, &b) in last.iter().rev().enumerate() {
        let inside = u8::from(i < usize::from(n));
        bad |= inside & u8::from(b != n);
    }
    if bad != 0 {
        Err(Error::BadPadding)
    } else {
        Ok(buf.len() - usize::from(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_every_length() {
        for block in [8, 16] {
            for len in 0..40 {
                let mut buf = vec![0xAA; len + block];
                let padded = pad(&mut buf, len, block);
                assert_eq!(padded % block, 0);
                assert!(padded > len && padded <= len + block);
                assert_eq!(unpad(&buf[..padded], block), Ok(len));
            }
        }
    }

    #[test]
    fn rejects_bad_padding() {
        let mut b = [0u8; 16];
        assert_eq!(unpad(&b, 16), Err(Error::BadPadding)); // pad byte 0
        b[15] = 17;
        assert_eq!(unpad(&b, 16), Err(Error::BadPadding)); // longer than a block
        b[15] = 2;
        b[14] = 3;
        assert_eq!(unpad(&b, 16), Err(Error::BadPadding)); // inconsistent bytes
        assert!(matches!(
            unpad(&b[..15], 16),
            Err(Error::NotBlockAligned { .. })
        ));
    }
}
