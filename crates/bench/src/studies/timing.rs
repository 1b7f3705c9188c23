//! How the studies time a catalogue cipher: set up outside, nothing but the operation
//! inside the timed region.
//!
//! - `encrypt`: every call encrypts a fresh copy of the plaintext (made outside the
//!   timed region by [`Bencher::iter_batched`]). Encrypting the same buffer over and
//!   over would time ciphertext after the first call, and the file-features paper's
//!   question is precisely whether the *plaintext* matters.
//! - `decrypt`: every call decrypts a fresh copy of one ciphertext (AEADs check the tag).
//! - `init`: the key schedule, [`providers::init`], as a program pays it per key.
//! - `keygen`: a fresh key from the OS RNG, as Java's `KeyGenerator` does.

use std::hint::black_box;

use cipherlab_ciphers::{CipherSpec, generate_iv, generate_key, providers};

use super::check;
use super::inputs::Input;
use cipherlab_harness::{BatchSize, Bencher, Settings};
use cipherlab_results::id::{BenchId, Phase, Suite};

/// Inputs above this size are copied one per call (not ten), to bound memory.
const LARGE_INPUT: u64 = 16 << 20;

/// What to time: a cipher through a provider on an input.
#[derive(Debug, Clone)]
pub struct Target {
    /// The study it belongs to.
    pub study: &'static str,
    /// The cipher.
    pub spec: CipherSpec,
    /// The provider (`None`: the default).
    pub provider: Option<&'static str>,
    /// Bytes of associated data per message (AEADs only; the `lwc` study uses 32).
    pub ad_len: usize,
}

impl Target {
    /// `spec` through its default provider.
    pub fn new(study: &'static str, spec: CipherSpec) -> Target {
        Target {
            study,
            spec,
            provider: None,
            ad_len: 0,
        }
    }

    /// `spec` through each in-process provider `cfg` asks for: the default without
    /// `--provider` ([`super::Config::rust_providers`]).
    pub fn each(study: &'static str, spec: CipherSpec, cfg: &super::Config) -> Vec<Target> {
        cfg.rust_providers(&spec)
            .into_iter()
            .map(|provider| Target {
                provider,
                ..Target::new(study, spec)
            })
            .collect()
    }

    /// Proves the cipher (see [`check`]) and returns the provider that will run it.
    fn prove(&self) -> Result<&'static str, String> {
        check::prove(&self.spec, self.provider)
    }

    fn id(&self, provider: &str, phase: Phase, size: u64, label: &str) -> BenchId {
        BenchId::new(self.study, self.spec, provider, phase, size, label)
    }
}

fn batch_size(len: u64) -> BatchSize {
    if len > LARGE_INPUT {
        BatchSize::PerIteration
    } else if len > 64 * 1024 {
        BatchSize::Large
    } else {
        BatchSize::Small
    }
}

/// Adds `encrypt` of `input` (fresh plaintext per call).
pub fn add_encrypt(suite: &mut Suite<'_>, s: &Target, input: &Input) -> Result<(), String> {
    add_encrypt_with(suite, s, input, None)
}

/// [`add_encrypt`] with its own settings.
pub fn add_encrypt_with(
    suite: &mut Suite<'_>,
    s: &Target,
    input: &Input,
    settings: Option<Settings>,
) -> Result<(), String> {
    let provider = s.prove()?;
    let id = s.id(provider, Phase::Encrypt, input.size, &input.label);
    let (spec, input) = (s.spec, input.clone());
    let key = generate_key(&spec);
    let iv = generate_iv(&spec);
    let size = input.size;
    let ad = vec![0xAD; s.ad_len];
    let bench = move |b: &mut Bencher<'_>| {
        let pt = match input.load() {
            Ok(pt) => pt,
            Err(e) => return b.fail(e.to_string()),
        };
        let mut cipher = match providers::init(&spec, &key, Some(provider)) {
            Ok(c) => c,
            Err(e) => return b.fail(e.to_string()),
        };
        let (len, cap) = (pt.len(), spec.output_len(pt.len()));
        b.iter_batched(
            || {
                let mut buf = Vec::with_capacity(cap);
                buf.extend_from_slice(&pt);
                buf.resize(cap, 0);
                buf
            },
            |buf| cipher.encrypt(&iv, &ad, buf, len),
            batch_size(len as u64),
        );
    };
    // Rates count plaintext bytes: what the user's file holds.
    add(suite, id, Some(size), settings, bench);
    Ok(())
}

/// Adds `decrypt` of the ciphertext of `input` (fresh copy per call).
pub fn add_decrypt(suite: &mut Suite<'_>, s: &Target, input: &Input) -> Result<(), String> {
    add_decrypt_with(suite, s, input, None)
}

/// [`add_decrypt`] with its own settings.
pub fn add_decrypt_with(
    suite: &mut Suite<'_>,
    s: &Target,
    input: &Input,
    settings: Option<Settings>,
) -> Result<(), String> {
    let provider = s.prove()?;
    let id = s.id(provider, Phase::Decrypt, input.size, &input.label);
    let (spec, input) = (s.spec, input.clone());
    let key = generate_key(&spec);
    let iv = generate_iv(&spec);
    let size = input.size;
    let ad = vec![0xAD; s.ad_len];
    let bench = move |b: &mut Bencher<'_>| {
        let pt = match input.load() {
            Ok(pt) => pt,
            Err(e) => return b.fail(e.to_string()),
        };
        let mut cipher = match providers::init(&spec, &key, Some(provider)) {
            Ok(c) => c,
            Err(e) => return b.fail(e.to_string()),
        };
        // Setup: the ciphertext to decrypt, made once.
        let mut ct = pt.to_vec();
        ct.resize(spec.output_len(pt.len()), 0);
        match cipher.encrypt(&iv, &ad, &mut ct, pt.len()) {
            Ok(n) => ct.truncate(n),
            Err(e) => return b.fail(e.to_string()),
        }
        b.iter_batched(
            || ct.clone(),
            |buf| cipher.decrypt(&iv, &ad, buf),
            batch_size(size),
        );
    };
    add(suite, id, Some(size), settings, bench);
    Ok(())
}

/// Adds `init`: the key schedule, once per call.
pub fn add_init(suite: &mut Suite<'_>, s: &Target) -> Result<(), String> {
    let provider = s.prove()?;
    let id = s.id(provider, Phase::Init, 0, "none");
    let spec = s.spec;
    let key = generate_key(&spec);
    let bench = move |b: &mut Bencher<'_>| {
        b.iter(|| providers::init(&spec, black_box(&key), Some(provider)).is_ok());
    };
    add(suite, id, None, None, bench);
    Ok(())
}

/// Adds `keygen`: a fresh key from the OS RNG.
pub fn add_keygen(suite: &mut Suite<'_>, s: &Target) -> Result<(), String> {
    let provider = s.prove()?;
    let id = s.id(provider, Phase::Keygen, 0, "none");
    let spec = s.spec;
    let bench = move |b: &mut Bencher<'_>| {
        b.iter(|| generate_key(black_box(&spec)));
    };
    add(suite, id, None, None, bench);
    Ok(())
}

fn add<'a, F>(
    suite: &mut Suite<'a>,
    id: BenchId,
    bytes: Option<u64>,
    settings: Option<Settings>,
    bench: F,
) where
    F: FnMut(&mut Bencher<'_>) + 'a,
{
    match settings {
        Some(s) => suite.add_with_settings(id, bytes, s, bench),
        None => suite.add(id, bytes, bench),
    };
}
