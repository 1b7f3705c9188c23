//! One [`Cipher`] adapter for unauthenticated stream ciphers without an IV (RC4): each
//! message XORs the keystream from its start. Providers supply only the keystream.

use crate::api::{Cipher, check_iv_ad, check_room};
use crate::error::Error;
use crate::spec::CipherSpec;

/// A keyed keystream that restarts from the beginning for every message.
pub(crate) trait Keystream: Send {
    /// XORs the keystream, from its first byte, into `data`.
    fn apply(&self, data: &mut [u8]) -> Result<(), Error>;
}

/// A keystream behind the catalogue's API.
pub(crate) struct KeystreamCipher<K> {
    spec: CipherSpec,
    provider: &'static str,
    keystream: K,
}

impl<K> KeystreamCipher<K> {
    pub(crate) fn new(spec: CipherSpec, provider: &'static str, keystream: K) -> Self {
        KeystreamCipher {
            spec,
            provider,
            keystream,
        }
    }
}

impl<K: Keystream> Cipher for KeystreamCipher<K> {
    fn spec(&self) -> &CipherSpec {
        &self.spec
    }

    fn provider(&self) -> &'static str {
        self.provider
    }

    fn encrypt(
        &mut self,
        iv: &[u8],
        ad: &[u8],
        buf: &mut [u8],
        msg_len: usize,
    ) -> Result<usize, Error> {
        check_iv_ad(&self.spec, iv, ad)?;
        check_room(&self.spec, buf, msg_len)?;
        self.keystream.apply(&mut buf[..msg_len])?;
        Ok(msg_len)
    }

    fn decrypt(&mut self, iv: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<usize, Error> {
        check_iv_ad(&self.spec, iv, ad)?;
        self.keystream.apply(buf)?;
        Ok(buf.len())
    }
}
