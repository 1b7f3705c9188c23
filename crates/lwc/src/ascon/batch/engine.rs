//! The lane scheduler: runs many Ascon AEAD jobs through a set of permutation lanes
//! (several states permuted at once), refilling a lane with the next job as soon as its
//! job is done. Safe code only; the lanes themselves ([`Lanes`]) live in the SIMD
//! module.
//!
//! A job is initialisation (p^12), then *steps*, each one rate block followed by one
//! data permutation p^8 (the full associated-data blocks and the padded last one, none
//! when the AD is empty; then the full message blocks), then the padded last message
//! block and finalisation (p^12, the tag).
//!
//! The lanes run whatever all busy lanes can do together:
//!
//! * initialisation, when every lane starts a new job at once (the start of a batch,
//!   and whenever all jobs of a group ended together);
//! * AD steps, while every busy lane is absorbing AD;
//! * message steps, in the fused loop [`Lanes::message_steps`], while every busy lane
//!   is in its message phase, for as many steps as the shortest job allows;
//! * finalisation, when every busy lane ends its job at once.
//!
//! Anything else (jobs of different shapes meeting in one group) goes through the
//! scalar code one lane at a time: one general step moves each lane's state through
//! the scalar block code; a job refilling one lane is initialised on the scalar state,
//! a job ending alone is finalised there. When the jobs run out and fewer lanes than
//! the backend's break-even stay busy, the rest of each job finishes on the scalar code.
//!
//! Constant time: which lane holds which job, how many steps run and which of the
//! paths above runs depend only on the public lengths of the AD and the messages.

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
    fn permute8(&mut self);
    /// The initialisation and finalisation permutation p^12 on every lane.
    fn permute12(&mut self);
    /// XORs `blocks[j]` into the rate of lane `j`, every lane (`BE`: the byte order).
    fn absorb<const BE: bool>(&mut self, blocks: &[[u8; RATE]; MAX_LANES]);
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

/// The Ascon variants the batch runs (rate 16 bytes, p^8 between blocks): their byte
/// order, the key-dependent halves of initialisation and finalisation around p^12,
/// and their one-message code. `pub` only so that the public
/// [`BatchAead`](super::BatchAead) can name it as a sealed supertrait; this module is
/// private.
pub trait Variant {
    /// `true` for the v1.2 big-endian convention, `false` for SP 800-232.
    const BE: bool;
    /// The state before the initial p^12: IV, key, nonce.
    fn initial_state(&self, nonce: &[u8; 16]) -> AsconState;
    /// The key addition after the initial p^12.
    fn add_key_after_init(&self, s: &mut AsconState);
    /// The key addition before the final p^12.
    fn add_key_before_final(&self, s: &mut AsconState);
    /// The tag, from the state after the final p^12.
    fn tag(&self, s: &AsconState) -> [u8; 16];
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

impl<'a, 'c, C: Variant> Lane<'a, 'c, C> {
    /// A lane for job `job` of the caller's slice (its buffer taken out of the job).
    fn new<J: Job<'a>>(job: usize, cipher: &'c C, j: &mut J) -> Self {
        let ad = j.ad();
        let buf = j.take_buf();
        let ad_steps = if ad.is_empty() {
            0
        } else {
            ad.len() / RATE + 1
        };
        Lane {
            job,
            cipher,
            ad,
            steps: ad_steps + buf.len() / RATE,
            buf,
            done: 0,
            ad_steps,
        }
    }

    /// The key addition after the initial p^12, and the domain separation at once
    /// when there is no AD.
    #[inline(always)]
    fn after_init<const BE: bool>(&self, s: &mut AsconState) {
        self.cipher.add_key_after_init(s);
        if self.ad_steps == 0 {
            s.0[4] ^= dsep::<BE>();
        }
    }

    /// AD block `k` (the padded remainder when it is the last).
    #[inline(always)]
    fn ad_block<const BE: bool>(&self, k: usize) -> [u8; RATE] {
        match self.ad.get(RATE * k..RATE * (k + 1)) {
            Some(full) => {
                let mut b = [0u8; RATE];
                b.copy_from_slice(full);
                b
            }
            None => padded::<RATE, BE>(&self.ad[RATE * k..]),
        }
    }

    /// Step `self.done` on the scalar state `s`, without the permutation.
    #[inline(always)]
    fn step_input<const BE: bool, const DECRYPT: bool>(&mut self, s: &mut AsconState) {
        if self.done < self.ad_steps {
            let (a, b) = load2::<BE>(&self.ad_block::<BE>(self.done));
            s.0[0] ^= a;
            s.0[1] ^= b;
            return;
        }
        let i = self.done - self.ad_steps;
        message_block::<BE, DECRYPT>(s, &mut self.buf.as_chunks_mut::<RATE>().0[i]);
    }

    /// Counts a finished step; whether the domain separation is due now (after the
    /// last AD step).
    #[inline(always)]
    fn count_step(&mut self) -> bool {
        self.done += 1;
        self.done == self.ad_steps
    }

    /// Runs what is left of the job's data (steps not done yet, the padded last
    /// message block) on the scalar state `s`; the state is then ready for the key
    /// addition before the final p^12.
    #[inline(always)]
    fn finish_data<const BE: bool, const DECRYPT: bool>(&mut self, s: &mut AsconState) {
        while self.done < self.ad_steps {
            self.step_input::<BE, DECRYPT>(s);
            s.permute_const::<8>();
            if self.count_step() {
                s.0[4] ^= dsep::<BE>();
            }
        }
        // The remaining full blocks and the padded last one, as in the one-message code.
        let rest = &mut self.buf[RATE * (self.done - self.ad_steps)..];
        if DECRYPT {
            common::decrypt::<RATE, BE, 8>(s, rest);
        } else {
            common::encrypt::<RATE, BE, 8>(s, rest);
        }
    }

    /// Runs the rest of the job on the scalar state `s` and completes it.
    #[inline(always)]
    fn finish<const BE: bool, const DECRYPT: bool, J: Job<'a>>(
        mut self,
        mut s: AsconState,
        jobs: &mut [J],
    ) {
        self.finish_data::<BE, DECRYPT>(&mut s);
        self.cipher.add_key_before_final(&mut s);
        s.permute_const::<12>();
        jobs[self.job].complete(self.buf, self.cipher.tag(&s));
    }
}

/// Runs every job of `jobs` through `lanes`, the key of each given by `cipher_of`.
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
        let remaining = jobs.len() - next;
        if slots.iter().all(Option::is_none) && remaining >= min_live {
            // A new group: initialise all its jobs in the lanes at once.
            for (j, slot) in slots.iter_mut().enumerate().take(L::N.min(remaining)) {
                let lane = Lane::new(next, cipher_of(&jobs[next]), &mut jobs[next]);
                lanes.set(j, lane.cipher.initial_state(&jobs[next].nonce()));
                *slot = Some(lane);
                next += 1;
            }
            lanes.permute12();
            for (j, slot) in slots.iter().enumerate() {
                if let Some(l) = slot {
                    let mut s = lanes.get(j);
                    l.after_init::<BE>(&mut s);
                    lanes.set(j, s);
                }
            }
            // Jobs with no step (no AD, under one block of message) end here.
            finish_done::<L, C, J, BE, DECRYPT>(lanes, &mut slots, jobs);
        } else {
            // Refill idle lanes one by one on the scalar code; a job with no step
            // ends at once and its lane takes the next job.
            for (j, slot) in slots.iter_mut().enumerate().take(L::N) {
                while slot.is_none() && next < jobs.len() {
                    let lane = Lane::new(next, cipher_of(&jobs[next]), &mut jobs[next]);
                    let mut s = lane.cipher.initial_state(&jobs[next].nonce());
                    s.permute_const::<12>();
                    lane.after_init::<BE>(&mut s);
                    next += 1;
                    if lane.steps == 0 {
                        lane.finish::<BE, DECRYPT, J>(s, jobs);
                    } else {
                        lanes.set(j, s);
                        *slot = Some(lane);
                    }
                }
            }
        }
        let live = slots.iter().flatten().count();
        if live == 0 {
            if next == jobs.len() {
                return;
            }
            continue;
        }
        if next == jobs.len() && live < min_live {
            for (j, slot) in slots.iter_mut().enumerate() {
                if let Some(lane) = slot.take() {
                    lane.finish::<BE, DECRYPT, J>(lanes.get(j), jobs);
                }
            }
            return;
        }
        // Every busy lane has a step left: jobs end (below) as soon as their last
        // step is done.
        debug_assert!(slots.iter().flatten().all(|l| l.done < l.steps));
        if slots.iter().flatten().all(|l| l.done < l.ad_steps) {
            // Every lane absorbs AD: one step in the lanes.
            let mut blocks = [[0u8; RATE]; MAX_LANES];
            for (b, slot) in blocks.iter_mut().zip(&slots) {
                if let Some(l) = slot {
                    *b = l.ad_block::<BE>(l.done);
                }
            }
            lanes.absorb::<BE>(&blocks);
            lanes.permute8();
            count_steps::<L, C, BE>(lanes, &mut slots);
        } else if slots.iter().flatten().all(|l| l.done >= l.ad_steps) {
            // Every lane is in its message phase: the fused loop until the shortest
            // job has no full block left.
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
            // Lanes in different phases: one general step through the scalar states.
            for (j, slot) in slots.iter_mut().enumerate() {
                if let Some(l) = slot {
                    let mut s = lanes.get(j);
                    l.step_input::<BE, DECRYPT>(&mut s);
                    lanes.set(j, s);
                }
            }
            lanes.permute8();
            count_steps::<L, C, BE>(lanes, &mut slots);
        }
        finish_done::<L, C, J, BE, DECRYPT>(lanes, &mut slots, jobs);
    }
}

/// Counts one step for every busy lane and applies the domain separation to those
/// whose AD phase just ended.
#[inline(always)]
fn count_steps<'a, 'c, L: Lanes, C: Variant, const BE: bool>(
    lanes: &mut L,
    slots: &mut [Option<Lane<'a, 'c, C>>; MAX_LANES],
) {
    for (j, slot) in slots.iter_mut().enumerate() {
        if let Some(l) = slot
            && l.count_step()
        {
            let mut s = lanes.get(j);
            s.0[4] ^= dsep::<BE>();
            lanes.set(j, s);
        }
    }
}

/// Completes the jobs that have run all their steps: in the lanes at once when every
/// busy lane is done, else one by one on the scalar code.
#[inline(always)]
fn finish_done<'a, 'c, L, C, J, const BE: bool, const DECRYPT: bool>(
    lanes: &mut L,
    slots: &mut [Option<Lane<'a, 'c, C>>; MAX_LANES],
    jobs: &mut [J],
) where
    L: Lanes,
    C: Variant,
    J: Job<'a>,
{
    let done = |l: &Lane<'a, 'c, C>| l.done == l.steps;
    let finished = slots.iter().flatten().filter(|l| done(l)).count();
    if finished >= 2 && slots.iter().flatten().all(done) {
        for (j, slot) in slots.iter_mut().enumerate() {
            if let Some(l) = slot {
                let mut s = lanes.get(j);
                l.finish_data::<BE, DECRYPT>(&mut s);
                l.cipher.add_key_before_final(&mut s);
                lanes.set(j, s);
            }
        }
        lanes.permute12();
        for (j, slot) in slots.iter_mut().enumerate() {
            if let Some(l) = slot.take() {
                let tag = l.cipher.tag(&lanes.get(j));
                jobs[l.job].complete(l.buf, tag);
            }
        }
    } else if finished > 0 {
        for (j, slot) in slots.iter_mut().enumerate() {
            if slot.as_ref().is_some_and(done)
                && let Some(lane) = slot.take()
            {
                lane.finish::<BE, DECRYPT, J>(lanes.get(j), jobs);
            }
        }
    }
}
