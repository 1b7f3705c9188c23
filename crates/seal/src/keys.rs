//! Secrets: key files, passphrases, and how the per-file keys are derived from them.
//!
//! ```text
//! master      = key file's key                               (kdf 0)
//!             | Argon2id(passphrase, salt, m, t, p) -> 32 B  (kdf 1)
//! prk         = HKDF-Extract(salt, master)                   (SHA-256)
//! payload key = HKDF-Expand(prk, "cipherlab-seal v1 payload" || header body, key length)
//! mac key     = HKDF-Expand(prk, "cipherlab-seal v1 header mac", 32)
//! header mac  = HMAC-SHA256(mac key, header body)
//! ```
//!
//! Every file gets its own payload key (the salt is random), so one key file can seal
//! any number of files without nonce reuse across them; and the payload key depends on
//! every header byte, so a changed header could not decrypt a chunk even without the MAC.

use std::fmt;
use std::fs;
use std::io::Write;
use std::path::Path;

use cipherlab_ciphers::CipherSpec;
use hmac::{KeyInit, Mac};
use zeroize::Zeroizing;

use crate::error::{Error, Result, Unlock};
use crate::format::{Header, Kdf, MAC_LEN};

/// The first line of a key file (after comments).
pub const KEY_FILE_MAGIC: &str = "cipherlab-key: 1";

/// A cipher and its key, as a key file holds them. The key is wiped when dropped.
#[derive(Clone)]
pub struct KeyFile {
    spec: CipherSpec,
    key: Zeroizing<Vec<u8>>,
}

impl fmt::Debug for KeyFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyFile")
            .field("spec", &self.spec.to_string())
            .field("key", &"<secret>")
            .finish()
    }
}

/// A key file's text that cannot be read as one: what is wrong and on which line, never
/// any of its bytes.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct KeyFileError(String);

impl KeyFile {
    /// A fresh random key for `spec` from the OS RNG.
    pub fn generate(spec: CipherSpec) -> KeyFile {
        KeyFile {
            key: cipherlab_ciphers::generate_key(&spec),
            spec,
        }
    }

    /// A key given by the caller; its length must suit `spec`.
    pub fn from_key(spec: CipherSpec, key: &[u8]) -> Result<KeyFile> {
        if key.len() != spec.key_len() {
            return Err(Error::Usage(format!(
                "{spec} needs a {}-byte key, got {} bytes",
                spec.key_len(),
                key.len()
            )));
        }
        Ok(KeyFile {
            spec,
            key: Zeroizing::new(key.to_vec()),
        })
    }

    /// The cipher the key is for.
    pub fn spec(&self) -> &CipherSpec {
        &self.spec
    }

    /// The key bytes.
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// The key file's text (docs/format.md, "Key files").
    pub fn to_text(&self) -> Zeroizing<String> {
        Zeroizing::new(format!(
            "# cipherlab key file. Keep it secret: whoever holds it can decrypt what it encrypted.\n\
             {KEY_FILE_MAGIC}\ncipher: {}\nkey: {}\n",
            self.spec,
            Zeroizing::new(hex::encode(&*self.key)).as_str()
        ))
    }

    /// Parses a key file's text; the error says what is wrong and on which line, but never
    /// quotes the file: any of its bytes might be the key (a line of bare hex, a key on the
    /// cipher's line).
    pub fn parse(text: &str) -> std::result::Result<KeyFile, KeyFileError> {
        KeyFile::parse_text(text).map_err(KeyFileError)
    }

    fn parse_text(text: &str) -> std::result::Result<KeyFile, String> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
        match lines.next() {
            Some((_, KEY_FILE_MAGIC)) => {}
            Some((n, l)) if l.starts_with("cipherlab-key:") => {
                return Err(format!(
                    "unsupported key file version on line {n} (this cipherlab reads \
                     \"{KEY_FILE_MAGIC}\")"
                ));
            }
            _ => {
                return Err(format!(
                    "not a cipherlab key file (its first line must be \"{KEY_FILE_MAGIC}\"; \
                     make one with `cipherlab keygen --cipher C -o FILE`)"
                ));
            }
        }
        let (mut cipher, mut key) = (None, None);
        for (n, line) in lines {
            let Some((field, value)) = line.split_once(':') else {
                return Err(format!("line {n} is not \"field: value\""));
            };
            let slot = match field.trim() {
                "cipher" => &mut cipher,
                "key" => &mut key,
                _ => {
                    return Err(format!(
                        "line {n} has an unknown field (known: cipher, key)"
                    ));
                }
            };
            if slot.replace((n, value.trim())).is_some() {
                return Err(format!("line {n} repeats the field \"{}\"", field.trim()));
            }
        }
        let (n, cipher) = cipher.ok_or("the \"cipher:\" line is missing")?;
        let (_, key) = key.ok_or("the \"key:\" line is missing")?;
        let spec = CipherSpec::parse(cipher).map_err(|_| {
            format!(
                "line {n}: the cipher is not a catalogue name (`cipherlab list` shows them; \
                 `cipherlab keygen` writes valid key files)"
            )
        })?;
        let key =
            Zeroizing::new(hex::decode(key).map_err(|_| "the key is not hexadecimal".to_string())?);
        if key.len() != spec.key_len() {
            return Err(format!(
                "{spec} needs a {}-byte key, the file holds {} bytes",
                spec.key_len(),
                key.len()
            ));
        }
        Ok(KeyFile { spec, key })
    }

    /// Reads a key file.
    pub fn load(path: &Path) -> Result<KeyFile> {
        let text = Zeroizing::new(fs::read_to_string(path).map_err(|e| Error::KeyFile {
            path: path.to_path_buf(),
            reason: format!("cannot read it: {e}"),
        })?);
        KeyFile::parse(&text).map_err(|KeyFileError(reason)| Error::KeyFile {
            path: path.to_path_buf(),
            reason,
        })
    }

    /// Writes the key file with owner-only permissions (0600), atomically; refuses to
    /// replace an existing file unless `force`.
    pub fn save(&self, path: &Path, force: bool) -> Result<()> {
        let mut out = crate::output::Output::file(path, force)?;
        out.write_all(self.to_text().as_bytes())
            .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
        out.commit()
    }
}

/// What unlocks a file: a key file, or a passphrase.
#[derive(Clone, Copy)]
pub enum Secret<'a> {
    /// A key file's key (its cipher must match the file's).
    Key(&'a KeyFile),
    /// A passphrase (UTF-8 or any bytes), stretched with Argon2id.
    Passphrase(&'a [u8]),
}

impl Secret<'_> {
    fn kind(&self) -> Unlock {
        match self {
            Secret::Key(_) => Unlock::KeyFile,
            Secret::Passphrase(_) => Unlock::Passphrase,
        }
    }
}

impl fmt::Debug for Secret<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Secret::Key(k) => write!(f, "Secret::Key({k:?})"),
            Secret::Passphrase(_) => f.write_str("Secret::Passphrase(<secret>)"),
        }
    }
}

/// The keys of one file.
pub(crate) struct FileKeys {
    pub payload: Zeroizing<Vec<u8>>,
    pub mac: Zeroizing<[u8; 32]>,
}

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// Derives the file's keys (runs Argon2id for passphrases).
pub(crate) fn derive(header: &Header, body: &[u8], secret: Secret<'_>) -> Result<FileKeys> {
    let master: Zeroizing<Vec<u8>> = match (header.kdf, secret) {
        (Kdf::KeyFile, Secret::Key(k)) => {
            if k.spec() != &header.cipher {
                return Err(Error::KeyFileCipher {
                    key_cipher: k.spec().to_string(),
                    file_cipher: header.cipher.to_string(),
                });
            }
            Zeroizing::new(k.key().to_vec())
        }
        (Kdf::Argon2id(p), Secret::Passphrase(pw)) => {
            let params = argon2::Params::new(p.memory_kib, p.passes, u32::from(p.lanes), Some(32))
                .map_err(|e| Error::Usage(format!("Argon2id parameters: {e}")))?;
            let a =
                argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params);
            let mut out = Zeroizing::new(vec![0u8; 32]);
            a.hash_password_into(pw, &header.salt, &mut out)
                .map_err(|e| Error::Usage(format!("Argon2id: {e}")))?;
            out
        }
        (Kdf::KeyFile, s) | (Kdf::Argon2id(_), s) => {
            let needed = match header.kdf {
                Kdf::KeyFile => Unlock::KeyFile,
                Kdf::Argon2id(_) => Unlock::Passphrase,
            };
            return Err(Error::WrongUnlock {
                needed,
                given: s.kind(),
            });
        }
    };
    let hk = hkdf::Hkdf::<sha2::Sha256>::new(Some(&header.salt), &master);
    let mut payload = Zeroizing::new(vec![0u8; header.cipher.key_len()]);
    let mut info = Zeroizing::new(b"cipherlab-seal v1 payload".to_vec());
    info.extend_from_slice(body);
    hk.expand(&info, &mut payload)
        .map_err(|_| Error::Usage("HKDF output too long".into()))?;
    let mut mac = Zeroizing::new([0u8; 32]);
    hk.expand(b"cipherlab-seal v1 header mac", &mut *mac)
        .map_err(|_| Error::Usage("HKDF output too long".into()))?;
    Ok(FileKeys { payload, mac })
}

/// The header MAC.
pub(crate) fn header_mac(keys: &FileKeys, body: &[u8]) -> Result<[u8; MAC_LEN]> {
    let mut m = <HmacSha256 as KeyInit>::new_from_slice(&*keys.mac)
        .map_err(|_| Error::Usage("HMAC rejected its key".into()))?;
    m.update(body);
    Ok(m.finalize().into_bytes().into())
}

/// Checks the header MAC in constant time.
pub(crate) fn verify_header(
    keys: &FileKeys,
    body: &[u8],
    mac: &[u8],
    secret: Secret<'_>,
) -> Result<()> {
    let mut m = <HmacSha256 as KeyInit>::new_from_slice(&*keys.mac)
        .map_err(|_| Error::WrongKey(secret.kind()))?;
    m.update(body);
    m.verify_slice(mac)
        .map_err(|_| Error::WrongKey(secret.kind()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn key_file_text_round_trip_and_errors() {
        let spec = CipherSpec::parse("xoodyak").unwrap();
        let k = KeyFile::generate(spec);
        let back = KeyFile::parse(&k.to_text()).unwrap();
        assert_eq!((back.spec(), back.key()), (k.spec(), k.key()));
        for (text, needle) in [
            ("", "not a cipherlab key file"),
            ("cipherlab-key: 2\n", "unsupported key file version"),
            (
                "cipherlab-key: 1\ncipher: xoodyak\n",
                "\"key:\" line is missing",
            ),
            ("cipherlab-key: 1\nkey: 00\n", "\"cipher:\" line is missing"),
            (
                "cipherlab-key: 1\ncipher: xoodyak\nkey: zz\n",
                "not hexadecimal",
            ),
            (
                "cipherlab-key: 1\ncipher: xoodyak\nkey: 00\n",
                "16-byte key",
            ),
            (
                "cipherlab-key: 1\ncipher: xoodak\nkey: 00\n",
                "line 2: the cipher is not a catalogue name",
            ),
            ("cipherlab-key: 1\ncolour: red\n", "unknown field"),
            (
                "cipherlab-key: 1\ncipher: xoodyak\ncipher: xoodyak\n",
                "line 3 repeats",
            ),
        ] {
            let e = KeyFile::parse(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{text:?}: {e}");
        }
    }

    /// A malformed key file's error quotes none of its bytes: the key's hex in any place
    /// a careless edit could put it.
    #[test]
    fn errors_never_echo_the_key() {
        let secret = "00112233445566778899aabbccddeeff";
        for text in [
            format!("cipherlab-key: 1\ncipher: aes-128-gcm\n{secret}\n"),
            format!("cipherlab-key: 1\ncipher: {secret}\nkey: {secret}\n"),
            format!("cipherlab-key: 1\n{secret}: aes-128-gcm\n"),
            format!("cipherlab-key: 1{secret}\n"),
            format!("{secret}\n"),
            format!("cipherlab-key: 1\nkey: {secret}\nkey: {secret}\n"),
        ] {
            let e = KeyFile::parse(&text).unwrap_err().to_string();
            for piece in secret.as_bytes().chunks(4) {
                let piece = std::str::from_utf8(piece).unwrap();
                assert!(!e.contains(piece), "{text:?} gave {e:?}");
            }
        }
    }
}
