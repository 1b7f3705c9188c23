//! The lane scheduler: runs many Ascon AEAD jobs through a set of permutation lanes
//! (several states permuted at once), refilling a lane with the next job as soon as its
//! job is done. Safe code only; the lanes themselves ([`Lanes`]) live in the SIMD
//! module.
//!
//! Every job is cut into *steps*, each one rate block followed by one data
//! permutation p^b: first the associated-data blocks (the full ones, then the padded
//! last one; none when the AD is empty), then the full message blocks. What is left of
//! a job after its steps (the padded last message block, the key addition, p^12 and the
//! tag) is done on the scalar state, and so is initialisation (p^12 before the first
//! step): both are a small share of any message longer than a few blocks.
//!
//! While every live lane is in its message phase the lanes run the fused loop
//! [`Lanes::message_steps`] for as many steps as the shortest remaining job allows;
//! otherwise (some lane still absorbing AD) one general step moves each lane's state
//! through the scalar code. When the jobs run out and fewer lanes than the backend's
//! break-even stay busy, the rest of each job finishes on the scalar code.
//!
//! Constant time: which lane holds which job, how many steps run and when a lane is
//! refilled depend only on the public lengths of the AD and the messages.

use super::super::common::{self, dsep, load2, padded, store2};
use crate::permutation::ascon::AsconState;

/// The most lanes any backend has (the slot arrays are this long).
pub(super) const MAX_LANES: usize = 8;

/// Rate of every batched AEAD, in bytes.
pub(super) const RATE: usize = 16;

/// A set of Ascon states permuted together.
pub(super) trait Lanes {
    /// Number of lanes (at most [`MAX_LANES`]).
    const N: usize;
    /// The state of lane `j`.
    fn get(&self, j: usize) -> AsconState;
    /// Replaces the state of lane `j`.
    fn set(&mut self, j: usize, s: AsconState);
    /// The data permutation p^8 on every lane.
    fn permute(&mut self);
    /// `n` message steps on every lane: lane `j` encrypts (or decrypts) the blocks
    /// `blocks[j][..n]` in place, one block and one p^8 per step. A lane whose slice is
    /// shorter than `n` (an idle lane: empty) absorbs zero blocks and writes nothing.
    fn message_steps<const BE: bool, const DECRYPT: bool>(
        &mut self,
        blocks: &mut [&mut [[u8; RATE]]; MAX_LANES],
        n: usize,
    );
}

/// One job as the scheduler sees it: sealing and opening jobs differ only in what
/// happens to the tag.
pub(super) trait Job<'a> {
    /// The job's nonce.
    fn nonce(&self) -> [u8; 16];
    /// The job's associated data.
    fn ad(&self) -> &'a [u8];
    /// Moves the buffer out of the job while a lane works on it.
    fn take_buf(&mut self) -> &'a mut [u8];
    /// Gives the buffer back with the computed tag. An opening job compares the tag
    /// with the received one in constant time and wipes the buffer on mismatch.
    fn complete(&mut self, buf: &'a mut [u8], tag: [u8; 16]);
}

/// The Ascon variants the batch runs (rate 16 bytes, p^8 between blocks): their
/// byte order, their initialisation and finalisation (the key-dependent parts) on one
/// scalar state, and their one-message code. `pub` only so that the public
/// [`BatchAead`](super::BatchAead) can name it as a sealed supertrait; this module is
/// private.
pub trait Variant {
    /// `true` for the v1.2 big-endian convention, `false` for SP 800-232.
    const BE: bool;
    /// The state after initialisation and the key addition.
    fn init(&self, nonce: &[u8; 16]) -> AsconState;
    /// The tag, from the state after the last message block.
    fn finalize(&self, s: AsconState) -> [u8; 16];
    /// Encrypts one message in place with the one-message code; returns the tag.
    fn seal_one(&self, nonce: &[u8; 16], ad: &[u8], buf: &mut [u8]) -> [u8; 16];
    /// Decrypts one message in place with the one-message code; returns the computed
    /// (not yet compared) tag.
    fn open_one(&self, nonce: &[u8; 16], ad: &[u8], buf: &mut [u8]) -> [u8; 16];
}

/// A job in a lane.
struct Lane<'a, 'c, C> {
    /// Index of the job in the caller's slice.
    job: usize,
    cipher: &'c C,
    ad: &'a [u8],
    buf: &'a mut [u8],
    /// Steps done so far.
    done: usize,
    /// AD steps: 0 without AD, else the full AD blocks plus the padded last one.
    ad_steps: usize,
    /// AD steps plus full message blocks.
    steps: usize,
}

/// One full message block on a scalar state, in place: encryption XORs the plaintext
/// into the rate and outputs the rate; decryption outputs rate ^ ciphertext and puts the
/// ciphertext into the rate. The permutation is not applied.
#[inline(always)]
pub(super) fn message_block<const BE: bool, const DECRYPT: bool>(
    s: &mut AsconState,
    blk: &mut [u8; RATE],
) {
    let (c0, c1) = load2::<BE>(blk);
    if DECRYPT {
        *blk = store2::<BE>(s.0[0] ^ c0, s.0[1] ^ c1);
        s.0[0] = c0;
        s.0[1] = c1;
    } else {
        s.0[0] ^= c0;
        s.0[1] ^= c1;
        *blk = store2::<BE>(s.0[0], s.0[1]);
    }
}

/// AD block `k` of `ad` (the padded remainder when it is the last).
#[inline(always)]
fn ad_block<const BE: bool>(ad: &[u8], k: usize) -> [u8; RATE] {
    match ad.get(RATE * k..RATE * (k + 1)) {
        Some(full) => {
            let mut b = [0u8; RATE];
            b.copy_from_slice(full);
            b
        }
        None => padded::<RATE, BE>(&ad[RATE * k..]),
    }
}

impl<'a, 'c, C: Variant> Lane<'a, 'c, C> {
    /// Step `self.done` on the scalar state `s`, without the permutation.
    #[inline(always)]
    fn step_input<const BE: bool, const DECRYPT: bool>(&mut self, s: &mut AsconState) {
        if self.done < self.ad_steps {
            let (a, b) = load2::<BE>(&ad_block::<BE>(self.ad, self.done));
            s.0[0] ^= a;
            s.0[1] ^= b;
            return;
        }
        let i = self.done - self.ad_steps;
        message_block::<BE, DECRYPT>(s, &mut self.buf.as_chunks_mut::<RATE>().0[i]);
    }

    /// Runs what is left of the job on the scalar state `s` and returns the buffer
    /// and the tag.
    #[inline(always)]
    fn finish<const BE: bool, const DECRYPT: bool>(
        mut self,
        mut s: AsconState,
    ) -> (usize, &'a mut [u8], [u8; 16]) {
        while self.done < self.ad_steps {
            self.step_input::<BE, DECRYPT>(&mut s);
            s.permute_const::<8>();
            self.done += 1;
            if self.done == self.ad_steps {
                s.0[4] ^= dsep::<BE>();
            }
        }
        // The remaining full blocks and the padded last one, as in the one-message code.
        let rest = &mut self.buf[RATE * (self.done - self.ad_steps)..];
        if DECRYPT {
            common::decrypt::<RATE, BE, 8>(&mut s, rest);
        } else {
            common::encrypt::<RATE, BE, 8>(&mut s, rest);
        }
        (self.job, self.buf, self.cipher.finalize(s))
    }
}

/// Runs every job of `jobs` through `lanes`, the key of each job given by `cipher_of`.
/// `BE` must be the byte order of `C`, `DECRYPT` the direction of `J`. When no job is
/// left to start and fewer than `min_live` lanes are busy, the busy ones finish on the
/// scalar code.
#[inline(always)]
pub(super) fn run<'a, 'c, L, C, J, const BE: bool, const DECRYPT: bool>(
    lanes: &mut L,
    jobs: &mut [J],
    cipher_of: impl Fn(&J) -> &'c C,
    min_live: usize,
) where
    L: Lanes,
    C: Variant + 'c,
    J: Job<'a>,
{
    const { assert!(L::N <= MAX_LANES) };
    let mut slots: [Option<Lane<'a, 'c, C>>; MAX_LANES] = Default::default();
    let mut next = 0;
    loop {
        // Fill idle lanes; jobs without steps finish at once.
        for (j, slot) in slots.iter_mut().enumerate().take(L::N) {
            while slot.is_none() && next < jobs.len() {
                let job = &mut jobs[next];
                let cipher = cipher_of(job);
                let ad = job.ad();
                let buf = job.take_buf();
                let mut s = cipher.init(&job.nonce());
                let ad_steps = if ad.is_empty() {
                    s.0[4] ^= dsep::<BE>();
                    0
                } else {
                    ad.len() / RATE + 1
                };
                let lane = Lane {
                    job: next,
                    cipher,
                    ad,
                    steps: ad_steps + buf.len() / RATE,
                    buf,
                    done: 0,
                    ad_steps,
                };
                next += 1;
                if lane.steps == 0 {
                    let (i, buf, tag) = lane.finish::<BE, DECRYPT>(s);
                    jobs[i].complete(buf, tag);
                } else {
                    lanes.set(j, s);
                    *slot = Some(lane);
                }
            }
        }
        let live = slots.iter().flatten().count();
        if live == 0 {
            return;
        }
        if next == jobs.len() && live < min_live {
            for (j, slot) in slots.iter_mut().enumerate() {
                if let Some(lane) = slot.take() {
                    let (i, buf, tag) = lane.finish::<BE, DECRYPT>(lanes.get(j));
                    jobs[i].complete(buf, tag);
                }
            }
            return;
        }
        if slots.iter().flatten().all(|l| l.done >= l.ad_steps) {
            // Every busy lane is in its message phase: run the fused loop until the
            // shortest job has no full block left.
            let n = slots
                .iter()
                .flatten()
                .map(|l| l.steps - l.done)
                .min()
                .unwrap_or(0);
            let mut blocks: [&mut [[u8; RATE]]; MAX_LANES] = Default::default();
            for (b, slot) in blocks.iter_mut().zip(slots.iter_mut()) {
                if let Some(l) = slot {
                    let first = l.done - l.ad_steps;
                    *b = &mut l.buf.as_chunks_mut::<RATE>().0[first..first + n];
                }
            }
            lanes.message_steps::<BE, DECRYPT>(&mut blocks, n);
            for l in slots.iter_mut().flatten() {
                l.done += n;
            }
        } else {
            // One general step through the scalar states (some lane is absorbing AD).
            for (j, slot) in slots.iter_mut().enumerate() {
                if let Some(l) = slot {
                    let mut s = lanes.get(j);
                    l.step_input::<BE, DECRYPT>(&mut s);
                    lanes.set(j, s);
                }
            }
            lanes.permute();
            for (j, slot) in slots.iter_mut().enumerate() {
                if let Some(l) = slot {
                    l.done += 1;
                    if l.done == l.ad_steps {
                        let mut s = lanes.get(j);
                        s.0[4] ^= dsep::<BE>();
                        lanes.set(j, s);
                    }
                }
            }
        }
        for (j, slot) in slots.iter_mut().enumerate() {
            if slot.as_ref().is_some_and(|l| l.done == l.steps)
                && let Some(lane) = slot.take()
            {
                let (i, buf, tag) = lane.finish::<BE, DECRYPT>(lanes.get(j));
                jobs[i].complete(buf, tag);
            }
        }
    }
}
