//! Whole streams at full speed: the input is read in batches of chunks (one `readv` per
//! batch) and the batches are sealed or opened by one worker per core. Into a file
//! ([`encrypt_to`], [`decrypt_to`]), each worker reads its next batch, processes it and
//! writes it at its offset, so a batch stays on one core; into any other writer (a pipe,
//! a `Vec`), a reader feeds the workers and a writer thread puts batches back in order.
//! Memory is bounded by the buffers: a few batches of about 1 MiB each per worker,
//! whatever the input size. A batch that fails authentication stops the run: in order,
//! the chunks of it that verified before the failing one are written (to a pipe they are
//! plaintext already checked), nothing after; to a file, the caller discards the file.

use std::collections::BTreeMap;
use std::io::{IoSlice, IoSliceMut, Read, Seek, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};

use zeroize::{Zeroize, Zeroizing};

use crate::chunk::{ChunkCipher, Source};
use crate::error::{Error, Result};
use crate::format::{Header, TAG_LEN};
use crate::keys::Secret;
use crate::output::Output;
use crate::stream::{SealOptions, new_header, read_header};

/// Called with the number of input bytes processed so far.
pub type Progress<'a> = &'a (dyn Fn(u64) + Sync);

/// What a run did.
#[derive(Clone, Debug)]
pub struct Summary {
    /// The container header (cipher, chunk size, KDF).
    pub header: Header,
    /// Bytes read.
    pub bytes_in: u64,
    /// Bytes written.
    pub bytes_out: u64,
    /// Chunks sealed or opened.
    pub chunks: u64,
    /// Worker threads used.
    pub threads: usize,
}

/// At most this many workers (each holds about one batch in flight).
const MAX_THREADS: usize = 64;

/// Plaintext bytes per batch (whole chunks; at least one).
const BATCH_BYTES: usize = 1 << 20;

/// Encrypts `input` into `output` in the container format, on every core.
///
/// `output` receives the header, then chunks in order. On error, what was written is
/// incomplete: write to a temporary file and discard it on error ([`crate::Output`]).
pub fn encrypt<R: Read, W: Write + Send>(
    input: R,
    mut output: W,
    secret: Secret<'_>,
    opts: &SealOptions,
    progress: Option<Progress<'_>>,
) -> Result<Summary> {
    let (job, header_len) = Job::seal(&mut output, secret, opts)?;
    let mut s = job.run(input, output, progress)?;
    s.bytes_out += header_len;
    Ok(s)
}

/// Decrypts a container from `input` into `output`, on every core. Plaintext reaches
/// `output` only chunk by chunk, after each chunk verified.
pub fn decrypt<R: Read, W: Write + Send>(
    mut input: R,
    output: W,
    secret: Secret<'_>,
    opts: &SealOptions,
    progress: Option<Progress<'_>>,
) -> Result<Summary> {
    let job = Job::open(&mut input, secret, opts)?;
    let header_len = job.in_offset;
    let mut s = job.run(input, output, progress)?;
    s.bytes_in += header_len;
    Ok(s)
}

/// [`encrypt`] into an [`Output`]: to a file, the workers write their own batches at
/// their offsets (no writer thread, no hand-over of buffers between cores).
pub fn encrypt_to<R: Read + Send>(
    input: R,
    output: &mut Output,
    secret: Secret<'_>,
    opts: &SealOptions,
    progress: Option<Progress<'_>>,
) -> Result<Summary> {
    let (job, header_len) = Job::seal(output, secret, opts)?;
    let mut s = job.run_to(input, output, progress)?;
    s.bytes_out += header_len;
    Ok(s)
}

/// [`decrypt`] into an [`Output`], as [`encrypt_to`] does.
pub fn decrypt_to<R: Read + Send>(
    mut input: R,
    output: &mut Output,
    secret: Secret<'_>,
    opts: &SealOptions,
    progress: Option<Progress<'_>>,
) -> Result<Summary> {
    let job = Job::open(&mut input, secret, opts)?;
    let header_len = job.in_offset;
    let mut s = job.run_to(input, output, progress)?;
    s.bytes_in += header_len;
    Ok(s)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Seal,
    Open,
}

/// A batch buffer, wiped when dropped as far as it was ever written (a fresh buffer is
/// untouched zero pages; wiping only the dirty part keeps small inputs cheap).
struct Buf {
    v: Vec<u8>,
    dirty: usize,
}

impl Buf {
    fn new(len: usize) -> Buf {
        Buf {
            v: vec![0u8; len],
            dirty: 0,
        }
    }
}

impl Drop for Buf {
    fn drop(&mut self) {
        self.v[..self.dirty].zeroize();
    }
}

struct Job {
    dir: Direction,
    header: Header,
    key: Zeroizing<Vec<u8>>,
    provider: Option<String>,
    threads: usize,
    /// Input offset of the first chunk (the header's length when opening).
    in_offset: u64,
}

impl Job {
    /// Sealing: makes a header for `secret`, writes it to `output`, and returns the job
    /// with the header's length.
    fn seal(output: &mut impl Write, secret: Secret<'_>, opts: &SealOptions) -> Result<(Job, u64)> {
        let (header, bytes, key) = new_header(secret, opts)?;
        output
            .write_all(&bytes)
            .map_err(|e| Error::io("writing the output", e))?;
        let job = Job {
            dir: Direction::Seal,
            header,
            key,
            provider: opts.provider.clone(),
            threads: opts.threads,
            in_offset: 0,
        };
        Ok((job, bytes.len() as u64))
    }

    /// Opening: reads and checks the header from `input`; the first chunk follows it.
    fn open(input: &mut impl Read, secret: Secret<'_>, opts: &SealOptions) -> Result<Job> {
        let (header, key, header_len) = read_header(input, secret, &opts.argon2_limit)?;
        Ok(Job {
            dir: Direction::Open,
            header,
            key,
            provider: opts.provider.clone(),
            threads: opts.threads,
            in_offset: header_len,
        })
    }
}

/// A batch of consecutive chunks, in one buffer with a stride of chunk + tag.
struct Batch {
    seq: u64,
    buf: Buf,
    /// Per slot: input length, then output length once processed.
    lens: Vec<usize>,
    first_index: u64,
    /// Input offset of the first slot.
    offset: u64,
    in_bytes: usize,
    final_batch: bool,
    /// The slot that failed, and why.
    error: Option<(usize, Error)>,
}

impl Job {
    fn chunk(&self) -> usize {
        self.header.chunk_size()
    }
    fn stride(&self) -> usize {
        self.chunk() + TAG_LEN
    }
    fn per_batch(&self) -> usize {
        (BATCH_BYTES / self.chunk()).max(1)
    }

    fn cipher(&self) -> Result<ChunkCipher> {
        ChunkCipher::new(&self.header, &self.key, self.provider.as_deref())
    }

    fn threads(&self) -> usize {
        match self.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
        .min(MAX_THREADS)
    }

    /// Reads the first batch: it tells whether the input is small enough for one thread.
    fn start<R: Read>(&self, input: R) -> Result<(Source<R>, Batch)> {
        let mut src = Source::new(input);
        let mut first = self.new_batch(Buf::new(self.per_batch() * self.stride()));
        self.read_batch(&mut src, &mut first)?;
        Ok((src, first))
    }

    /// To any writer: a reader, the workers, and a writer thread putting batches in order.
    fn run<R: Read, W: Write + Send>(
        self,
        input: R,
        mut output: W,
        progress: Option<Progress<'_>>,
    ) -> Result<Summary> {
        let (mut src, first) = self.start(input)?;
        let threads = self.threads();
        let mut out = Writer::new(&mut output, &self, progress);
        let used = if first.final_batch || threads == 1 {
            self.sequential(&mut src, first, &mut out)?;
            1
        } else {
            self.parallel(src, first, threads, &mut out)?;
            threads
        };
        out.finish(used)
    }

    /// To an [`Output`]: a file gets [`Job::parallel_at`], standard output [`Job::run`].
    fn run_to<R: Read + Send>(
        self,
        input: R,
        output: &mut Output,
        progress: Option<Progress<'_>>,
    ) -> Result<Summary> {
        let mut file = match output {
            #[cfg(unix)]
            Output::File(f) => f.as_file(),
            _ => return self.run(input, output, progress),
        };
        let (mut src, first) = self.start(input)?;
        let threads = self.threads();
        if first.final_batch || threads == 1 {
            let mut out = Writer::new(&mut file, &self, progress);
            self.sequential(&mut src, first, &mut out)?;
            return out.finish(1);
        }
        let base = file
            .stream_position()
            .map_err(|e| Error::io("writing the output", e))?;
        self.parallel_at(src, first, threads, file, base, progress)
    }

    /// Small input, or asked for one thread: no threads to start.
    fn sequential<R: Read, W: Write>(
        &self,
        src: &mut Source<R>,
        first: Batch,
        out: &mut Writer<'_, '_, W>,
    ) -> Result<()> {
        let mut cipher = self.cipher()?;
        let mut batch = first;
        loop {
            self.process(&mut cipher, &mut batch);
            let done = batch.final_batch;
            let buf = out.write(batch)?;
            if done {
                return Ok(());
            }
            batch = self.new_batch(buf);
            batch.seq = out.next;
            self.read_batch(src, &mut batch)?;
        }
    }

    fn new_batch(&self, buf: Buf) -> Batch {
        Batch {
            seq: 0,
            buf,
            lens: Vec::with_capacity(self.per_batch()),
            first_index: 0,
            offset: 0,
            in_bytes: 0,
            final_batch: false,
            error: None,
        }
    }

    /// Fills `b` (whose `seq` is set) from the input.
    fn read_batch<R: Read>(&self, src: &mut Source<R>, b: &mut Batch) -> Result<()> {
        let per = self.per_batch() as u64;
        b.first_index = b.seq * per;
        b.offset = self.in_offset + src.consumed;
        let before = src.consumed;
        let (chunk, stride) = (self.chunk(), self.stride());
        let rd = |e| Error::io("reading the input", e);
        match self.dir {
            Direction::Seal => {
                // Each chunk goes to its slot, leaving room for its tag after it.
                let mut slots: Vec<IoSliceMut<'_>> = b
                    .buf
                    .v
                    .chunks_mut(stride)
                    .take(self.per_batch())
                    .map(|slot| IoSliceMut::new(&mut slot[..chunk]))
                    .collect();
                let room = slots.len() * chunk;
                let n = src.fill_vectored(&mut slots).map_err(rd)?;
                b.lens.resize(n / chunk, chunk);
                // A partial last chunk; or the empty input's one empty chunk. An input that
                // ends on a chunk boundary has its last full chunk as the final one.
                if n % chunk > 0 || (n == 0 && b.first_index == 0) {
                    b.lens.push(n % chunk);
                }
                b.final_batch = n < room;
            }
            Direction::Open => {
                let n = src.fill(&mut b.buf.v).map_err(rd)?;
                b.final_batch = n < b.buf.v.len();
                let mut left = n;
                while left > 0 {
                    b.lens.push(left.min(stride));
                    left -= left.min(stride);
                }
                if b.lens.is_empty() {
                    b.lens.push(0); // nothing after the header: open_piece says "truncated"
                }
            }
        }
        if !b.final_batch {
            b.final_batch = src.at_end().map_err(rd)?;
        }
        b.in_bytes = (src.consumed - before) as usize;
        b.buf.dirty = b.buf.dirty.max((b.lens.len() * stride).min(b.buf.v.len()));
        Ok(())
    }

    /// Seals or opens every slot of `b`, stopping at the first failure.
    fn process(&self, cipher: &mut ChunkCipher, b: &mut Batch) {
        let stride = self.stride();
        let count = b.lens.len();
        for j in 0..count {
            let index = b.first_index + j as u64;
            let last = b.final_batch && j + 1 == count;
            let off = j * stride;
            let len = b.lens[j];
            let r = match self.dir {
                Direction::Seal => cipher.seal(index, last, &mut b.buf.v[off..off + stride], len),
                Direction::Open => cipher.open_piece(
                    index,
                    b.offset + off as u64,
                    last,
                    &mut b.buf.v[off..off + len],
                ),
            };
            match r {
                Ok(n) => b.lens[j] = n,
                Err(e) => {
                    b.error = Some((j, e));
                    return;
                }
            }
        }
    }

    /// Reader on this thread, `threads` workers, writer on its own thread.
    fn parallel<R: Read, W: Write + Send>(
        &self,
        mut src: Source<R>,
        first: Batch,
        threads: usize,
        out: &mut Writer<'_, '_, W>,
    ) -> Result<()> {
        let pool = threads + 2;
        let mut ciphers = Vec::with_capacity(threads);
        for _ in 0..threads {
            ciphers.push(self.cipher()?);
        }
        let (work_tx, work_rx) = sync_channel::<Batch>(threads);
        let work_rx = Arc::new(Mutex::new(work_rx));
        let (done_tx, done_rx) = sync_channel::<Batch>(pool);
        let (free_tx, free_rx) = sync_channel::<Buf>(pool);
        let size = first.buf.v.len();
        for _ in 1..pool {
            // The channel holds `pool` buffers and is empty: this cannot block or fail.
            let _ = free_tx.send(Buf::new(size));
        }
        std::thread::scope(|s| {
            for mut cipher in ciphers {
                let rx = Arc::clone(&work_rx);
                let tx = done_tx.clone();
                s.spawn(move || worker(self, &mut cipher, &rx, &tx));
            }
            drop(work_rx);
            drop(done_tx);
            let writer = s.spawn(move || out.write_all(&done_rx, &free_tx));
            let read_result = self.reader(&mut src, first, &work_tx, &free_rx);
            drop(work_tx);
            drop(free_rx);
            let write_result = writer
                .join()
                .unwrap_or_else(|_| Err(Error::Usage("the writer thread panicked".into())));
            match (write_result, read_result) {
                // A failure in stream order comes first; a reader that stopped because
                // the writer failed has nothing to add.
                (Err(e), _) | (Ok(_), Err(e)) => Err(e),
                (Ok(true), Ok(())) => Ok(()),
                (Ok(false), Ok(())) => Err(Error::Usage(
                    "internal error: the input stopped before its final batch".into(),
                )),
            }
        })
    }

    /// Every worker reads its next batch (the input is shared under a lock), seals or
    /// opens it and writes it at its own offset of `file`: a batch stays on one core from
    /// read to write, and no thread waits to put batches in order. Measured on 1 GiB
    /// (2 cores): less wall and CPU time than reader, workers and writer threads, which
    /// move every batch across cores twice. A failure stops the workers; the earliest in
    /// stream order is reported, and the caller discards the file.
    #[cfg(unix)]
    fn parallel_at<R: Read + Send>(
        &self,
        src: Source<R>,
        first: Batch,
        threads: usize,
        file: &std::fs::File,
        base: u64,
        progress: Option<Progress<'_>>,
    ) -> Result<Summary> {
        let mut ciphers = Vec::with_capacity(threads);
        for _ in 0..threads {
            ciphers.push(self.cipher()?);
        }
        let shared = Shared {
            feed: Mutex::new(Feed {
                src,
                first: Some(first),
                next_seq: 1,
                done: false,
            }),
            failure: Mutex::new(None),
            stop: AtomicBool::new(false),
            bytes_in: AtomicU64::new(0),
            bytes_out: AtomicU64::new(0),
            chunks: AtomicU64::new(0),
            saw_final: AtomicBool::new(false),
        };
        std::thread::scope(|s| {
            for mut cipher in ciphers {
                let shared = &shared;
                s.spawn(move || self.worker_at(shared, &mut cipher, file, base, progress));
            }
        });
        let failure = shared
            .failure
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((_, e)) = failure {
            return Err(e);
        }
        if !shared.saw_final.load(Ordering::Acquire) {
            return Err(Error::Usage(
                "internal error: the input stopped before its final batch".into(),
            ));
        }
        Ok(Summary {
            bytes_in: shared.bytes_in.into_inner(),
            bytes_out: shared.bytes_out.into_inner(),
            chunks: shared.chunks.into_inner(),
            threads,
            header: self.header.clone(),
        })
    }

    /// One worker of [`Job::parallel_at`].
    #[cfg(unix)]
    fn worker_at<R: Read>(
        &self,
        shared: &Shared<R>,
        cipher: &mut ChunkCipher,
        file: &std::fs::File,
        base: u64,
        progress: Option<Progress<'_>>,
    ) {
        let mut spare: Option<Buf> = None;
        while !shared.stop.load(Ordering::Acquire) {
            let mut b = {
                let Ok(mut feed) = shared.feed.lock() else {
                    return;
                };
                if let Some(first) = feed.first.take() {
                    feed.done = first.final_batch;
                    first
                } else if feed.done {
                    return;
                } else {
                    let buf = spare
                        .take()
                        .unwrap_or_else(|| Buf::new(self.per_batch() * self.stride()));
                    let mut b = self.new_batch(buf);
                    b.seq = feed.next_seq;
                    feed.next_seq += 1;
                    if let Err(e) = self.read_batch(&mut feed.src, &mut b) {
                        feed.done = true;
                        shared.fail(b.seq, e);
                        return;
                    }
                    feed.done = b.final_batch;
                    b
                }
            };
            self.process(cipher, &mut b);
            let good = b.error.as_ref().map_or(b.lens.len(), |(j, _)| *j);
            match self.write_at(file, base, &mut b, good) {
                Ok(n) => shared.bytes_out.fetch_add(n, Ordering::Relaxed),
                Err(e) => return shared.fail(b.seq, e),
            };
            shared.chunks.fetch_add(good as u64, Ordering::Relaxed);
            if let Some((_, e)) = b.error.take() {
                return shared.fail(b.seq, e);
            }
            let done = shared
                .bytes_in
                .fetch_add(b.in_bytes as u64, Ordering::Relaxed)
                + b.in_bytes as u64;
            if b.final_batch {
                shared.saw_final.store(true, Ordering::Release);
            }
            if let Some(p) = progress {
                p(done);
            }
            spare = Some(b.buf);
        }
    }

    /// Writes the first `good` slots of `b` where they belong in the output: batch `seq`
    /// starts `seq` whole batches after `base`. Returns the bytes written.
    #[cfg(unix)]
    fn write_at(&self, file: &std::fs::File, base: u64, b: &mut Batch, good: usize) -> Result<u64> {
        use std::os::unix::fs::FileExt;
        let (stride, per) = (self.stride(), self.per_batch() as u64);
        let (start, len) = match self.dir {
            // Sealed slots fill their stride but for the last: already contiguous.
            Direction::Seal => {
                let len = good.checked_sub(1).map_or(0, |l| l * stride + b.lens[l]);
                (base + b.seq * per * stride as u64, len)
            }
            // Opened slots hold chunk bytes each: moved together first (in cache, cheap).
            Direction::Open => {
                let mut len = 0;
                for j in 0..good {
                    let n = b.lens[j];
                    b.buf.v.copy_within(j * stride..j * stride + n, len);
                    len += n;
                }
                (base + b.seq * per * self.chunk() as u64, len)
            }
        };
        file.write_all_at(&b.buf.v[..len], start)
            .map_err(|e| Error::io("writing the output", e))?;
        Ok(len as u64)
    }

    fn reader<R: Read>(
        &self,
        src: &mut Source<R>,
        first: Batch,
        work: &SyncSender<Batch>,
        free: &Receiver<Buf>,
    ) -> Result<()> {
        let mut done = first.final_batch;
        let mut seq = 0;
        if work.send(first).is_err() {
            return Ok(());
        }
        while !done {
            let Ok(buf) = free.recv() else {
                return Ok(()); // the writer stopped; it has the error
            };
            seq += 1;
            let mut b = self.new_batch(buf);
            b.seq = seq;
            self.read_batch(src, &mut b)?;
            done = b.final_batch;
            if work.send(b).is_err() {
                return Ok(());
            }
        }
        Ok(())
    }
}

/// What the workers of [`Job::parallel_at`] share.
struct Shared<R> {
    feed: Mutex<Feed<R>>,
    /// The earliest failure in stream order: (batch, error).
    failure: Mutex<Option<(u64, Error)>>,
    stop: AtomicBool,
    bytes_in: AtomicU64,
    bytes_out: AtomicU64,
    chunks: AtomicU64,
    saw_final: AtomicBool,
}

impl<R> Shared<R> {
    /// Records a failure of batch `seq` and stops every worker.
    fn fail(&self, seq: u64, e: Error) {
        self.stop.store(true, Ordering::Release);
        let mut f = self
            .failure
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if f.as_ref().is_none_or(|(s, _)| seq < *s) {
            *f = Some((seq, e));
        }
    }
}

/// The input, handed out batch by batch.
struct Feed<R> {
    src: Source<R>,
    /// The batch read before the workers started.
    first: Option<Batch>,
    next_seq: u64,
    done: bool,
}

fn worker(
    job: &Job,
    cipher: &mut ChunkCipher,
    rx: &Mutex<Receiver<Batch>>,
    tx: &SyncSender<Batch>,
) {
    loop {
        let next = match rx.lock() {
            Ok(guard) => guard.recv(),
            Err(_) => return,
        };
        let Ok(mut b) = next else { return };
        job.process(cipher, &mut b);
        if tx.send(b).is_err() {
            return;
        }
    }
}

struct Writer<'a, 'p, W> {
    output: &'a mut W,
    job: &'a Job,
    next: u64,
    bytes_in: u64,
    bytes_out: u64,
    chunks: u64,
    saw_final: bool,
    progress: Option<Progress<'p>>,
}

impl<'a, 'p, W: Write> Writer<'a, 'p, W> {
    fn new(output: &'a mut W, job: &'a Job, progress: Option<Progress<'p>>) -> Self {
        Writer {
            output,
            job,
            next: 0,
            bytes_in: 0,
            bytes_out: 0,
            chunks: 0,
            saw_final: false,
            progress,
        }
    }

    fn finish(self, threads: usize) -> Result<Summary> {
        self.output
            .flush()
            .map_err(|e| Error::io("writing the output", e))?;
        Ok(Summary {
            bytes_in: self.bytes_in,
            bytes_out: self.bytes_out,
            chunks: self.chunks,
            threads,
            header: self.job.header.clone(),
        })
    }

    /// Writes one processed batch (the next in order); returns its buffer.
    fn write(&mut self, mut b: Batch) -> Result<Buf> {
        let stride = self.job.stride();
        let good = b.error.as_ref().map_or(b.lens.len(), |(j, _)| *j);
        // One system call for the whole batch where the output takes vectored writes.
        let mut slices: Vec<IoSlice<'_>> = b.lens[..good]
            .iter()
            .enumerate()
            .filter(|(_, len)| **len > 0)
            .map(|(j, len)| IoSlice::new(&b.buf.v[j * stride..j * stride + len]))
            .collect();
        let mut rest = &mut slices[..];
        while !rest.is_empty() {
            match self.output.write_vectored(rest) {
                Ok(0) => {
                    let e = std::io::Error::from(std::io::ErrorKind::WriteZero);
                    return Err(Error::io("writing the output", e));
                }
                Ok(n) => {
                    self.bytes_out += n as u64;
                    IoSlice::advance_slices(&mut rest, n);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io("writing the output", e)),
            }
        }
        self.chunks += good as u64;
        if let Some((_, e)) = b.error.take() {
            return Err(e);
        }
        self.bytes_in += b.in_bytes as u64;
        self.next += 1;
        self.saw_final = b.final_batch;
        if let Some(p) = self.progress {
            p(self.bytes_in);
        }
        Ok(b.buf)
    }

    /// Writes batches in order until the final one (`Ok(true)`) or until the workers
    /// stop without it (`Ok(false)`: the reader failed and has the error).
    fn write_all(&mut self, done: &Receiver<Batch>, free: &SyncSender<Buf>) -> Result<bool> {
        let mut pending = BTreeMap::new();
        while let Ok(b) = done.recv() {
            pending.insert(b.seq, b);
            while let Some(b) = pending.remove(&self.next) {
                let buf = self.write(b)?;
                let _ = free.send(buf); // the reader may have stopped: fine
                if self.saw_final {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }
}
