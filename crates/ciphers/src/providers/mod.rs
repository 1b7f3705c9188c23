//! The providers and how one is chosen. Every provider passes the same vectors (the
//! tests run each vector file through each provider that supports it); the default for
//! an algorithm is the fastest correct one on the machine, by the order below, which
//! comes from the measurements in docs/BENCHMARKS.md.

mod aead;
#[cfg(feature = "aws-lc")]
mod aws_lc;
pub(crate) mod block_modes;
mod by_size;
mod cipherlab;
mod keystream;
mod lanes;
mod openssl;
pub(crate) mod ours;
mod ring;
mod rustcrypto;

pub use block_modes::cfb1;

use crate::api::{Cipher, Provider};
use crate::catalogue::AlgorithmId;
use crate::error::Error;
use crate::spec::CipherSpec;

#[cfg(feature = "aws-lc")]
pub use aws_lc::AwsLc;
pub use by_size::BySize;
pub use cipherlab::Cipherlab;
pub use lanes::BATCH_BACKEND_VAR;
pub use openssl::OpenSsl;
pub use ring::Ring;
pub use rustcrypto::RustCrypto;

/// Every provider compiled in.
pub static PROVIDERS: &[&dyn Provider] = &[
    &Cipherlab,
    &RustCrypto,
    &OpenSsl,
    &Ring,
    #[cfg(feature = "aws-lc")]
    &AwsLc,
];

/// Defaults split by message length (see [`BySize`]), chosen by [`default_for`] on CPUs
/// where the fastest provider per byte is not the cheapest per short message. The
/// thresholds are the measured crossovers (docs/BENCHMARKS.md, "Cipher catalogue").
#[cfg(feature = "aws-lc")]
static RING_AWS_LC: BySize = BySize {
    name: "ring+aws-lc",
    short: &Ring,
    long: &AwsLc,
    // ring wins at 2 KiB (736 vs 783 ticks per call), ties at 4 KiB, loses at 16 KiB.
    threshold: 4096,
};
static RING_OPENSSL: BySize = BySize {
    name: "ring+openssl",
    short: &Ring,
    long: &OpenSsl,
    // ring wins at 1 KiB (1,471 vs 1,663 ticks per call), OpenSSL from 2 KiB (2,348 vs 2,450).
    threshold: 2048,
};

/// Every composite default, for [`by_name`].
static COMPOSITES: &[&BySize] = &[
    #[cfg(feature = "aws-lc")]
    &RING_AWS_LC,
    &RING_OPENSSL,
];

/// The provider called `name` (a composite such as `ring+openssl` too, or one
/// [`register`]ed at run time).
pub fn by_name(name: &str) -> Result<&'static dyn Provider, Error> {
    built_in(name)
        .or_else(|| {
            registered()
                .into_iter()
                .find(|p| p.name().eq_ignore_ascii_case(name))
        })
        .ok_or_else(|| Error::UnknownProvider(name.into()))
}

fn built_in(name: &str) -> Option<&'static dyn Provider> {
    PROVIDERS
        .iter()
        .copied()
        .chain(COMPOSITES.iter().map(|c| *c as &dyn Provider))
        .find(|p| p.name().eq_ignore_ascii_case(name))
}

/// Providers added at run time ([`register`]): C implementations loaded by
/// `cipherlab-native`, for instance. They never become a default ([`default_for`]).
static REGISTERED: std::sync::RwLock<Vec<&'static dyn Provider>> =
    std::sync::RwLock::new(Vec::new());

/// Adds `provider` for the rest of the process: [`by_name`], [`init`] and
/// [`supporting`] find it. A name a built-in or an already registered provider has
/// (ignoring case) is refused. Leak a box to get the `&'static` (`Box::leak`).
pub fn register(provider: &'static dyn Provider) -> Result<(), Error> {
    let name = provider.name();
    let taken = |why: &str| Error::Provider {
        provider: "registry",
        message: format!("the provider name \"{name}\" is {why}: choose another"),
    };
    if name.is_empty() || built_in(name).is_some() {
        return Err(taken("a built-in provider's"));
    }
    let mut list = REGISTERED.write().unwrap_or_else(|p| p.into_inner());
    if list.iter().any(|p| p.name().eq_ignore_ascii_case(name)) {
        return Err(taken("registered already"));
    }
    list.push(provider);
    Ok(())
}

/// The providers [`register`]ed so far, in order.
pub fn registered() -> Vec<&'static dyn Provider> {
    REGISTERED.read().unwrap_or_else(|p| p.into_inner()).clone()
}

/// The composite default for `spec` on this CPU, if there is one: where the AVX-512
/// code of aws-lc (AES-GCM) or OpenSSL (ChaCha20-Poly1305) is the fastest per byte but
/// ring stays the cheapest per short message. Without AVX-512 (Zen 3: ring first at
/// every size) there is none.
fn composite_for(spec: &CipherSpec) -> Option<&'static BySize> {
    use crate::spec::Mode;
    #[cfg(target_arch = "x86_64")]
    {
        let avx512 = std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("avx512bw");
        let vector_aes = std::arch::is_x86_feature_detected!("vaes")
            && std::arch::is_x86_feature_detected!("vpclmulqdq");
        let candidate: Option<&'static BySize> = match (spec.algorithm.id, spec.mode) {
            #[cfg(feature = "aws-lc")]
            (AlgorithmId::Aes, Some(Mode::Gcm)) if avx512 && vector_aes => Some(&RING_AWS_LC),
            (AlgorithmId::ChaCha20Poly1305, _) if avx512 => Some(&RING_OPENSSL),
            _ => None,
        };
        // ring has no AES-192-GCM: then the plain preference order applies.
        candidate.filter(|c| c.supports(spec) && c.available(spec).is_ok())
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = spec;
        None
    }
}

/// Names of the providers that implement `spec` (built-in, then registered).
pub fn supporting(spec: &CipherSpec) -> Vec<&'static str> {
    PROVIDERS
        .iter()
        .copied()
        .chain(registered())
        .filter(|p| p.supports(spec))
        .map(|p| p.name())
        .collect()
}

/// Preference order per algorithm and mode, fastest first. The order is the measured
/// one: the table "Cipher catalogue: providers side by side" in docs/BENCHMARKS.md
/// (`cargo bench -p cipherlab-ciphers --bench catalogue`, TSC ticks per byte at 1 MiB,
/// every provider in the same run). Change it only with a new measurement recorded there.
/// A provider not compiled in (`aws-lc` without its feature) is skipped; the first
/// provider that supports the spec wins, then any other that does.
fn preference(spec: &CipherSpec) -> &'static [&'static dyn Provider] {
    use crate::spec::Mode;
    match (spec.algorithm.id, spec.mode) {
        // Without AVX-512 (Zen 3) ring's VAES/VPCLMULQDQ AES-GCM is ~1.9x OpenSSL 3.0 and
        // aws-lc at 1 MiB and the cheapest per 64-byte call; it has no AES-192-GCM, where
        // aws-lc is next. With AVX-512, `composite_for` splits by length first.
        (AlgorithmId::Aes, Some(Mode::Gcm)) => &[
            &Ring,
            #[cfg(feature = "aws-lc")]
            &AwsLc,
            &OpenSsl,
            &RustCrypto,
        ],
        (AlgorithmId::ChaCha20Poly1305, _) => &[
            &Ring,
            #[cfg(feature = "aws-lc")]
            &AwsLc,
            &OpenSsl,
            &RustCrypto,
        ],
        // aws-lc calls AES_ctr128/AES_cbc directly: OpenSSL's speed without EVP's per-message
        // re-initialisation.
        (AlgorithmId::Aes, Some(Mode::Ctr | Mode::Cbc)) => &[
            #[cfg(feature = "aws-lc")]
            &AwsLc,
            &OpenSsl,
            &RustCrypto,
        ],
        (AlgorithmId::Aes, Some(Mode::Ecb | Mode::Cfb | Mode::Ofb)) => &[
            &RustCrypto,
            &OpenSsl,
            #[cfg(feature = "aws-lc")]
            &AwsLc,
        ],
        (AlgorithmId::Aes, Some(Mode::Cfb8)) => &[
            &RustCrypto,
            #[cfg(feature = "aws-lc")]
            &AwsLc,
            &OpenSsl,
        ],
        (AlgorithmId::Aes, Some(Mode::Cfb1)) => &[
            &OpenSsl,
            &RustCrypto,
            #[cfg(feature = "aws-lc")]
            &AwsLc,
        ],
        // OpenSSL's DES is 2.3-2.6x the des crate's.
        (AlgorithmId::Des | AlgorithmId::Tdes, _) => &[&OpenSsl, &RustCrypto],
        // OpenSSL's BF_cbc_encrypt loop wins CBC; the blowfish crate wins the other modes.
        (AlgorithmId::Blowfish, Some(Mode::Cbc)) => &[&OpenSsl, &RustCrypto],
        (AlgorithmId::Blowfish, _) => &[&RustCrypto, &OpenSsl],
        (AlgorithmId::Rc2, _) => &[&RustCrypto, &OpenSsl],
        // OpenSSL's RC4 assembly is 1.6-2.3x the Rust byte loops.
        (AlgorithmId::Rc4, _) => &[&OpenSsl, &Cipherlab, &RustCrypto],
        _ => &[&Cipherlab, &RustCrypto],
    }
}

/// The default provider for `spec`: a composite split by message length where this CPU
/// has one ([`composite_for`]), else the first in preference order that supports it and
/// is available on this machine.
pub fn default_for(spec: &CipherSpec) -> Result<&'static dyn Provider, Error> {
    if let Some(c) = composite_for(spec) {
        return Ok(c);
    }
    preference(spec)
        .iter()
        .copied()
        .chain(PROVIDERS.iter().copied())
        .find(|p| p.supports(spec) && p.available(spec).is_ok())
        .ok_or_else(|| Error::Unsupported {
            provider: "any provider".into(),
            cipher: spec.to_string(),
            available: Vec::new(),
        })
}

/// The name of the single provider that the default for `spec` uses for messages of
/// `msg_len` bytes (the default itself, or the matching part of a composite).
pub fn default_at(spec: &CipherSpec, msg_len: usize) -> Result<&'static str, Error> {
    match composite_for(spec) {
        Some(c) => Ok(c.part_for(msg_len).name()),
        None => default_for(spec).map(|p| p.name()),
    }
}

/// Initialises `spec` with `key` through `provider` (or the default).
pub fn init(
    spec: &CipherSpec,
    key: &[u8],
    provider: Option<&str>,
) -> Result<Box<dyn Cipher>, Error> {
    let p = match provider {
        Some(name) => by_name(name)?,
        None => default_for(spec)?,
    };
    if !p.supports(spec) {
        return Err(Error::Unsupported {
            provider: p.name().into(),
            cipher: spec.to_string(),
            available: supporting(spec),
        });
    }
    p.init(spec, key)
}
