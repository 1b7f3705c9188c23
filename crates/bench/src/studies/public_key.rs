//! How the `phases` study times public-key encryption ([`cipherlab_ciphers::asym`]):
//! the same four phases as the symmetric ciphers, on one 32-byte message (a session
//! key: what RSA and ECIES encrypt in practice, and within one RSA block at every size).
//!
//! - `keygen`: a fresh key pair. RSA key generation searches for primes: seconds at
//!   4096 bits and a wide spread, so it is timed single-shot with a few samples.
//! - `init`: both contexts bound to the keys (OpenSSL's `EVP_PKEY_encrypt_init` and
//!   `EVP_PKEY_decrypt_init` with the padding set; Java's two `Cipher.init`).
//! - `encrypt`: the public-key operation (ECIES: an ephemeral key pair and the key
//!   agreement, then AES-256-GCM).
//! - `decrypt`: the private-key operation.
//!
//! Every scheme is proven first: inside the benchmark, before anything is timed, one
//! message must round-trip, or the measurement fails with the reason.

use std::hint::black_box;
use std::sync::{Arc, Mutex};

use cipherlab_ciphers::asym::{AsymSpec, Decryptor, Encryptor, Keypair};

use super::Scale;
use cipherlab_harness::{Bencher, Mode, Settings};
use cipherlab_results::id::{BenchId, Phase, Subject, Suite};

/// What is encrypted: a 256-bit session key's worth of bytes.
pub const MESSAGE: [u8; 32] = *b"a 256-bit session key, 32 bytes.";

/// The provider of every public-key scheme.
pub const PROVIDER: &str = "openssl";

fn id(study: &'static str, spec: AsymSpec, phase: Phase, size: u64, label: &str) -> BenchId {
    BenchId::new(
        study,
        Subject::named(spec.to_string()),
        PROVIDER,
        phase,
        size,
        label,
    )
}

/// One key pair per scheme and process: RSA-4096 key generation takes seconds, and the
/// four benchmarks of a scheme need not pay it four times.
fn key_pair(spec: AsymSpec) -> Result<Arc<Keypair>, String> {
    static PAIRS: Mutex<Vec<(AsymSpec, Arc<Keypair>)>> = Mutex::new(Vec::new());
    let mut pairs = PAIRS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, pair)) = pairs.iter().find(|(s, _)| *s == spec) {
        return Ok(pair.clone());
    }
    let pair = Arc::new(Keypair::generate(spec).map_err(|e| e.to_string())?);
    pairs.push((spec, pair.clone()));
    Ok(pair)
}

/// A key pair and both contexts, round-trip checked.
fn proven(spec: AsymSpec) -> Result<(Arc<Keypair>, Encryptor, Decryptor, Vec<u8>), String> {
    let pair = key_pair(spec)?;
    let public = pair.public_key().map_err(|e| e.to_string())?;
    let mut enc = Encryptor::new(&public).map_err(|e| e.to_string())?;
    let mut dec = Decryptor::new(&pair).map_err(|e| e.to_string())?;
    let (mut ct, mut pt) = (Vec::new(), Vec::new());
    enc.encrypt(&MESSAGE, &mut ct).map_err(|e| e.to_string())?;
    dec.decrypt(&ct, &mut pt).map_err(|e| e.to_string())?;
    if pt != MESSAGE {
        return Err(format!("{spec}: decryption did not return the message"));
    }
    Ok((pair, enc, dec, ct))
}

/// Single-shot settings for key generation: samples by scale and cost.
fn keygen_settings(spec: AsymSpec, scale: Scale) -> Option<Settings> {
    let AsymSpec::Rsa { bits, .. } = spec else {
        return None; // elliptic-curve key pairs take microseconds: the usual average time
    };
    // `--quick` times RSA up to 2048 bits only (`phases::timed_at`).
    let samples = match bits {
        0..=2048 => scale.pick(10, 20, 30),
        _ => scale.pick(10, 10, 30),
    };
    Some(Settings {
        iterations: samples,
        ..scale
            .pick(Settings::quick(), Settings::default(), Settings::thorough())
            .with_mode(Mode::SingleShot)
    })
}

fn with<'a>(
    suite: &mut Suite<'a>,
    id: BenchId,
    settings: Option<Settings>,
    bench: impl FnMut(&mut Bencher<'_>) + 'a,
) {
    match settings {
        Some(s) => suite.add_with_settings(id, None, s, bench),
        None => suite.add(id, None, bench),
    };
}

/// Adds the four phases of `spec`.
pub fn add_phases(suite: &mut Suite<'_>, study: &'static str, spec: AsymSpec, scale: Scale) {
    with(
        suite,
        id(study, spec, Phase::Keygen, 0, "none"),
        keygen_settings(spec, scale),
        move |b| {
            if let Err(e) = proven(spec) {
                return b.fail(e);
            }
            b.iter(|| Keypair::generate(black_box(spec)).is_ok());
        },
    );
    with(
        suite,
        id(study, spec, Phase::Init, 0, "none"),
        None,
        move |b| {
            let (pair, ..) = match proven(spec) {
                Ok(p) => p,
                Err(e) => return b.fail(e),
            };
            let public = match pair.public_key() {
                Ok(p) => p,
                Err(e) => return b.fail(e.to_string()),
            };
            b.iter(|| {
                Encryptor::new(black_box(&public)).is_ok()
                    && Decryptor::new(black_box(&pair)).is_ok()
            });
        },
    );
    let size = MESSAGE.len() as u64;
    with(
        suite,
        id(study, spec, Phase::Encrypt, size, "session-key"),
        None,
        move |b| {
            let (_, mut enc, ..) = match proven(spec) {
                Ok(p) => p,
                Err(e) => return b.fail(e),
            };
            let mut out = Vec::with_capacity(spec.ciphertext_len(MESSAGE.len()));
            b.iter(|| enc.encrypt(black_box(&MESSAGE), &mut out).is_ok());
        },
    );
    with(
        suite,
        id(study, spec, Phase::Decrypt, size, "session-key"),
        None,
        move |b| {
            let (_, _, mut dec, ct) = match proven(spec) {
                Ok(p) => p,
                Err(e) => return b.fail(e),
            };
            let mut out = Vec::with_capacity(MESSAGE.len() + 16);
            b.iter(|| dec.decrypt(black_box(&ct), &mut out).is_ok());
        },
    );
}
