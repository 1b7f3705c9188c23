//! Many independent messages at once: Ascon-AEAD128 and Ascon-128a over a batch of
//! jobs, several states permuted side by side in SIMD lanes.
//!
//! One Ascon message is one long chain of dependent permutation rounds, so a single
//! message cannot use the vector units; many independent messages can. This module
//! takes a slice of jobs (nonce, associated data, buffer encrypted or decrypted in
//! place, tag), runs them in as many lanes as the CPU's best [`Backend`] has, and gives
//! **byte-identical** results to the one-message API (`aead::AeadInOut`), which the
//! differential tests check on random batches of mixed lengths on every backend this
//! CPU can run.
//!
//! # Use
//!
//! Under one key (the chunks of one file, the objects of one PDF):
//!
//! ```
//! use cipherlab_lwc::AsconAead128;
//! use cipherlab_lwc::aead::KeyInit;
//! use cipherlab_lwc::batch::{OpenJob, SealJob};
//!
//! let cipher = AsconAead128::new(&[7u8; 16].into());
//! let mut data = vec![0x55u8; 3 * 1000 + 10];
//! let nonce = |i: usize| -> [u8; 16] { core::array::from_fn(|b| if b == 15 { i as u8 } else { 0 }) };
//!
//! // Seal each 1000-byte chunk of `data` as one message; the tags come back in the jobs.
//! let mut jobs: Vec<SealJob> = data
//!     .chunks_mut(1000)
//!     .enumerate()
//!     .map(|(i, chunk)| SealJob::new(nonce(i), b"header", chunk))
//!     .collect();
//! cipher.encrypt_batch(&mut jobs);
//! let tags: Vec<[u8; 16]> = jobs.iter().map(|j| *j.tag()).collect();
//! drop(jobs);
//!
//! // Open them again: every job is verified on its own; a failed one is wiped.
//! let mut jobs: Vec<OpenJob> = data
//!     .chunks_mut(1000)
//!     .zip(&tags)
//!     .enumerate()
//!     .map(|(i, (chunk, tag))| OpenJob::new(nonce(i), b"header", chunk, *tag))
//!     .collect();
//! assert!(cipher.decrypt_batch(&mut jobs).is_ok());
//! assert!(jobs.iter().all(|j| j.is_verified()));
//! drop(jobs);
//! assert!(data.iter().all(|&b| b == 0x55));
//! ```
//!
//! Under a key per job, pair each job with its cipher and call
//! [`Backend::encrypt_keyed`] / [`Backend::decrypt_keyed`]. [`Backend::detect`] is
//! the path the `*_batch` methods take; [`Backend::all`] lists every path this CPU can
//! run (tests and benchmarks compare them).
//!
//! The core API takes slices and allocates nothing (`no_std`); the caller decides how
//! many jobs to hand over at once. Four or more jobs of similar length keep every lane
//! busy; jobs of any mix of lengths are correct (a lane whose job ends takes the next
//! job; when too few jobs are left to fill the lanes, they finish on the one-message
//! code).
//!
//! # Backends
//!
//! * **avx512** (x86-64 with AVX-512 F, VL and BW usable, detected at run time by
//!   CPUID and XGETBV): eight states, each state word one 512-bit register. Written
//!   once as plain-Rust lane arrays (`[u64; 8]` per word) and compiled with AVX-512
//!   enabled, so the compiler emits `vprolq` for the rotations and `vpternlogq` for
//!   the S-box logic; the unit tests also run that source without AVX-512. Only the
//!   move of message blocks into and out of the rate words uses AVX-512 shuffles
//!   written as intrinsics, after a first-use self-test against the element-wise
//!   moves (on a mismatch the element-wise ones run). The default wherever it is
//!   available.
//! * **avx2** (x86-64 with AVX2, BMI1 and BMI2, detected at run time by CPUID; no
//!   `target-cpu` flag needed): four states in the 64-bit elements of five 256-bit
//!   registers. The default on AVX2 CPUs without AVX-512, except AMD Zen 1 and Zen+.
//! * **xmm+gpr** (the same CPUs): two states in 128-bit registers and two in
//!   general-purpose registers, permuted round by round together, so the integer
//!   units work while the vector units do. The default on AMD Zen 1 and Zen+ (family
//!   17h, models below 30h), whose single vector-shift pipe makes four AVX2 lanes only
//!   slightly faster than one scalar state; on the AMD Zen 4 and the Intel Xeon
//!   measured, `avx2` is the faster (docs/BENCHMARKS.md).
//!   `cargo bench -p cipherlab-lwc --bench lwc -- batch` shows every backend.
//! * **serial** (every CPU): one message after another through the one-message code.
//!
//! # Side channels
//!
//! The SIMD code holds the same promises as the rest of the crate (see the crate
//! documentation and `SIDE-CHANNELS.md`): the round is XOR, AND-NOT, OR and shifts by
//! constant amounts on whole registers; blocks move by fixed loads, stores and byte
//! shuffles. No branch and no memory index depends on a key, a nonce, a message or a
//! tag; which lane holds which job and how many steps run depend only on the public
//! lengths of the associated data and the messages. Each job's tag is compared in
//! constant time and a job that fails is wiped before the call returns; the other
//! jobs of the batch are not affected.

#[cfg(target_arch = "x86_64")]
mod avx2;
mod engine;
#[cfg(target_arch = "x86_64")]
mod wide;

use core::fmt;

use super::{Ascon128a, AsconAead128};
use crate::permutation::ascon::AsconState;
use engine::{Job, Variant};

/// One message of a batch encryption: its nonce, its associated data, the buffer
/// encrypted in place, and (after the batch) its tag.
#[derive(Debug)]
pub struct SealJob<'a> {
    nonce: [u8; 16],
    ad: &'a [u8],
    buf: &'a mut [u8],
    tag: [u8; 16],
}

impl<'a> SealJob<'a> {
    /// A job encrypting `buf` in place under `nonce` with associated data `ad`.
    pub fn new(nonce: [u8; 16], ad: &'a [u8], buf: &'a mut [u8]) -> Self {
        SealJob {
            nonce,
            ad,
            buf,
            tag: [0; 16],
        }
    }

    /// The tag (meaningful once the job has been through a batch).
    pub fn tag(&self) -> &[u8; 16] {
        &self.tag
    }

    /// The buffer (the ciphertext once the job has been through a batch).
    pub fn buf(&self) -> &[u8] {
        self.buf
    }
}

/// One message of a batch decryption: its nonce, its associated data, the buffer
/// decrypted in place, the received tag, and (after the batch) whether it verified.
/// A job that fails verification has its buffer zeroed.
#[derive(Debug)]
pub struct OpenJob<'a> {
    nonce: [u8; 16],
    ad: &'a [u8],
    buf: &'a mut [u8],
    tag: [u8; 16],
    verified: bool,
}

impl<'a> OpenJob<'a> {
    /// A job decrypting `buf` in place under `nonce` with associated data `ad`,
    /// checking it against the received `tag`.
    pub fn new(nonce: [u8; 16], ad: &'a [u8], buf: &'a mut [u8], tag: [u8; 16]) -> Self {
        OpenJob {
            nonce,
            ad,
            buf,
            tag,
            verified: false,
        }
    }

    /// Whether the job's tag verified (`false` before the job has been through a
    /// batch; then, and on failure, the buffer holds no plaintext).
    pub fn is_verified(&self) -> bool {
        self.verified
    }

    /// The buffer (the plaintext once the job has verified, zeros if it failed).
    pub fn buf(&self) -> &[u8] {
        self.buf
    }
}

impl<'a> Job<'a> for SealJob<'a> {
    fn nonce(&self) -> [u8; 16] {
        self.nonce
    }
    fn ad(&self) -> &'a [u8] {
        self.ad
    }
    fn take_buf(&mut self) -> &'a mut [u8] {
        core::mem::take(&mut self.buf)
    }
    fn complete(&mut self, buf: &'a mut [u8], tag: [u8; 16]) {
        self.buf = buf;
        self.tag = tag;
    }
}

impl<'a> Job<'a> for OpenJob<'a> {
    fn nonce(&self) -> [u8; 16] {
        self.nonce
    }
    fn ad(&self) -> &'a [u8] {
        self.ad
    }
    fn take_buf(&mut self) -> &'a mut [u8] {
        core::mem::take(&mut self.buf)
    }
    fn complete(&mut self, buf: &'a mut [u8], tag: [u8; 16]) {
        self.verified = crate::tag::verify_or_wipe(&tag, &self.tag, buf).is_ok();
        self.buf = buf;
    }
}

/// A job with its own key.
impl<'a, C, J: Job<'a>> Job<'a> for (&C, J) {
    fn nonce(&self) -> [u8; 16] {
        self.1.nonce()
    }
    fn ad(&self) -> &'a [u8] {
        self.1.ad()
    }
    fn take_buf(&mut self) -> &'a mut [u8] {
        self.1.take_buf()
    }
    fn complete(&mut self, buf: &'a mut [u8], tag: [u8; 16]) {
        self.1.complete(buf, tag);
    }
}

/// The AEADs the batch runs: [`AsconAead128`] and [`Ascon128a`] (rate 16 bytes). Sealed.
pub trait BatchAead: Variant {}

impl BatchAead for AsconAead128 {}
impl BatchAead for Ascon128a {}

macro_rules! variant {
    ($ty:ty, $be:literal) => {
        impl Variant for $ty {
            const BE: bool = $be;
            #[inline(always)]
            fn initial_state(&self, nonce: &[u8; 16]) -> AsconState {
                <$ty>::initial_state(self, nonce)
            }
            #[inline(always)]
            fn add_key_after_init(&self, s: &mut AsconState) {
                <$ty>::add_key_after_init(self, s)
            }
            #[inline(always)]
            fn add_key_before_final(&self, s: &mut AsconState) {
                <$ty>::add_key_before_final(self, s)
            }
            #[inline(always)]
            fn tag(&self, s: &AsconState) -> [u8; 16] {
                <$ty>::tag(self, s)
            }
            #[inline]
            fn seal_one(&self, nonce: &[u8; 16], ad: &[u8], buf: &mut [u8]) -> [u8; 16] {
                <$ty>::seal(self, nonce, ad, buf)
            }
            #[inline]
            fn open_one(&self, nonce: &[u8; 16], ad: &[u8], buf: &mut [u8]) -> [u8; 16] {
                <$ty>::open(self, nonce, ad, buf)
            }
        }

        impl $ty {
            /// Encrypts every job in place and stores its tag in the job, on the
            /// fastest [`Backend`] of this CPU ([`batch`](crate::batch)). Each job
            /// gets exactly the ciphertext and tag of the one-message API.
            pub fn encrypt_batch(&self, jobs: &mut [SealJob<'_>]) {
                Backend::detect().encrypt(self, jobs);
            }

            /// Decrypts and verifies every job in place, on the fastest [`Backend`] of
            /// this CPU ([`batch`](crate::batch)). A job whose tag fails is zeroed and
            /// marked unverified; the others are unaffected. `Err` if any job failed.
            pub fn decrypt_batch(&self, jobs: &mut [OpenJob<'_>]) -> aead::Result<()> {
                Backend::detect().decrypt(self, jobs)
            }
        }
    };
}

variant!(AsconAead128, false);
variant!(Ascon128a, true);

/// How a batch runs. A value exists only for a path this CPU can run.
#[derive(Clone, Copy, Debug)]
pub struct Backend(Kind);

#[derive(Clone, Copy, Debug)]
enum Kind {
    Serial,
    #[cfg(target_arch = "x86_64")]
    Avx2(crate::cpu::Avx2Token),
    #[cfg(target_arch = "x86_64")]
    XmmGpr(crate::cpu::Avx2Token),
    #[cfg(target_arch = "x86_64")]
    Avx512(crate::cpu::Avx512Token),
}

/// The lane sets of the two SIMD backends.
#[cfg(target_arch = "x86_64")]
type Avx2Lanes = avx2::Hybrid<avx2::Ymm, 0>;
#[cfg(target_arch = "x86_64")]
type XmmGprLanes = avx2::Hybrid<avx2::Xmm, 2>;

impl Backend {
    /// The fastest backend of this CPU, chosen from measurements
    /// (docs/BENCHMARKS.md): `avx512` where AVX-512 F, VL and BW are usable; else
    /// `xmm+gpr` on AMD Zen 1 and Zen+ (family 17h, models below 30h, one
    /// vector-shift pipe: 1.46x a loop of single messages against 1.05x for `avx2`
    /// at 8 x 4 KiB) and `avx2` on every other AVX2 CPU (the faster of the two on
    /// the AMD Zen 4 and the Intel Xeon measured); else `serial`.
    pub fn detect() -> Backend {
        if let Some(b) = Self::avx512() {
            return b;
        }
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::single_vector_shift_pipe() {
            return Self::xmm_gpr().unwrap_or(Self::serial());
        }
        Self::avx2().unwrap_or(Self::serial())
    }

    /// Eight lanes in 512-bit registers (the lane-array source compiled for AVX-512),
    /// if this CPU (and OS) support AVX-512 F, VL and BW.
    pub fn avx512() -> Option<Backend> {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = crate::cpu::Avx512Token::detect() {
            return Some(Backend(Kind::Avx512(t)));
        }
        None
    }

    /// One message after another through the one-message code (every CPU).
    pub fn serial() -> Backend {
        Backend(Kind::Serial)
    }

    /// Four lanes in 256-bit AVX2 registers, if this CPU (and OS) support AVX2, BMI1
    /// and BMI2.
    pub fn avx2() -> Option<Backend> {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = crate::cpu::Avx2Token::detect() {
            return Some(Backend(Kind::Avx2(t)));
        }
        None
    }

    /// Four lanes: two in 128-bit vector registers and two in general-purpose
    /// registers, permuted round by round together; offered where AVX2, BMI1 and BMI2
    /// are (the same CPUs as [`avx2`](Self::avx2)).
    pub fn xmm_gpr() -> Option<Backend> {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = crate::cpu::Avx2Token::detect() {
            return Some(Backend(Kind::XmmGpr(t)));
        }
        None
    }

    /// Every backend this CPU can run, the serial one first.
    pub fn all() -> impl Iterator<Item = Backend> {
        [
            Some(Self::serial()),
            Self::avx2(),
            Self::xmm_gpr(),
            Self::avx512(),
        ]
        .into_iter()
        .flatten()
    }

    /// The backend's name: `serial`, `avx2`, `xmm+gpr`.
    pub fn name(&self) -> &'static str {
        match self.0 {
            Kind::Serial => "serial",
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2(_) => "avx2",
            #[cfg(target_arch = "x86_64")]
            Kind::XmmGpr(_) => "xmm+gpr",
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512(_) => "avx512",
        }
    }

    /// How many messages it processes at once.
    pub fn lanes(&self) -> usize {
        use engine::Lanes;
        match self.0 {
            Kind::Serial => 1,
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2(_) => Avx2Lanes::N,
            #[cfg(target_arch = "x86_64")]
            Kind::XmmGpr(_) => XmmGprLanes::N,
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512(_) => wide::Wide::<true>::N,
        }
    }

    /// Encrypts every job in place under `cipher` and stores its tag in the job.
    pub fn encrypt<C: BatchAead>(&self, cipher: &C, jobs: &mut [SealJob<'_>]) {
        self.run_seal(jobs, |_| cipher);
    }

    /// Decrypts and verifies every job in place under `cipher`. A job whose tag fails
    /// is zeroed and marked unverified. `Err` if any job failed.
    pub fn decrypt<C: BatchAead>(&self, cipher: &C, jobs: &mut [OpenJob<'_>]) -> aead::Result<()> {
        self.run_open(jobs, |_| cipher);
        if jobs.iter().all(OpenJob::is_verified) {
            Ok(())
        } else {
            Err(aead::Error)
        }
    }

    /// Encrypts every job in place under its own cipher and stores its tag in the job.
    pub fn encrypt_keyed<C: BatchAead>(&self, jobs: &mut [(&C, SealJob<'_>)]) {
        self.run_seal(jobs, |j| j.0);
    }

    /// Decrypts and verifies every job in place under its own cipher. A job whose tag
    /// fails is zeroed and marked unverified. `Err` if any job failed.
    pub fn decrypt_keyed<C: BatchAead>(&self, jobs: &mut [(&C, OpenJob<'_>)]) -> aead::Result<()> {
        self.run_open(jobs, |j| j.0);
        if jobs.iter().all(|j| j.1.is_verified()) {
            Ok(())
        } else {
            Err(aead::Error)
        }
    }

    fn run_seal<'a, 'c, C: BatchAead + 'c, J: Job<'a>>(
        &self,
        jobs: &mut [J],
        cipher_of: impl Fn(&J) -> &'c C,
    ) {
        match self.0 {
            Kind::Serial => {
                for job in jobs {
                    let cipher = cipher_of(job);
                    let (nonce, ad, buf) = (job.nonce(), job.ad(), job.take_buf());
                    let tag = cipher.seal_one(&nonce, ad, buf);
                    job.complete(buf, tag);
                }
            }
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2(t) => avx2::run::<Avx2Lanes, C, J, false>(t, jobs, cipher_of),
            #[cfg(target_arch = "x86_64")]
            Kind::XmmGpr(t) => avx2::run::<XmmGprLanes, C, J, false>(t, jobs, cipher_of),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512(t) => wide::run_avx512::<C, J, false>(t, jobs, cipher_of),
        }
    }

    fn run_open<'a, 'c, C: BatchAead + 'c, J: Job<'a>>(
        &self,
        jobs: &mut [J],
        cipher_of: impl Fn(&J) -> &'c C,
    ) {
        match self.0 {
            Kind::Serial => {
                for job in jobs {
                    let cipher = cipher_of(job);
                    let (nonce, ad, buf) = (job.nonce(), job.ad(), job.take_buf());
                    let tag = cipher.open_one(&nonce, ad, buf);
                    job.complete(buf, tag);
                }
            }
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2(t) => avx2::run::<Avx2Lanes, C, J, true>(t, jobs, cipher_of),
            #[cfg(target_arch = "x86_64")]
            Kind::XmmGpr(t) => avx2::run::<XmmGprLanes, C, J, true>(t, jobs, cipher_of),
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512(t) => wide::run_avx512::<C, J, true>(t, jobs, cipher_of),
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lanes = self.lanes();
        let unit = if lanes == 1 { "lane" } else { "lanes" };
        write!(f, "{} ({lanes} {unit})", self.name())
    }
}
