//! Independent work on several threads.
//!
//! - [`join`]: revision 6 key derivation is four (writing) or three (reading) runs of
//!   Algorithm 2.B, about a millisecond each, in independent pairs; for a small file they
//!   are most of the work, so each pair runs side by side.
//! - [`chunks`]: per-object work (compressing, encrypting) split into contiguous chunks of
//!   about equal bytes, one thread each, when there is enough of it to pay for the threads.
//!   Reading, the top-level objects are parsed this way (`Pdf::parse_top`) and so are
//!   the object streams (`document::parse_containers`, the /Values budget shared);
//!   writing, each object stream's members are serialised and compressed this way
//!   (`writer::pack`), and the streams encrypted (`phases::encrypt_standard`); the
//!   read-back check records the top-level objects this way (`readback::counts`); a large
//!   document's reference graph is gathered in two halves with [`join`]
//!   (`document::RefGraph::of`).

/// Runs `a` on a second thread and `b` on this one, and returns both results.
///
/// On a busy machine the second thread may not get a CPU for a while; so when `b` is
/// done and that thread has not started `a` yet, `a` runs here instead (the thread then
/// finds nothing to do). We never wait for a thread that has not started.
pub fn join<A, B, FA, FB>(a: FA, b: FB) -> (A, B)
where
    A: Send,
    FA: FnOnce() -> A + Send,
    FB: FnOnce() -> B,
{
    let cell = std::sync::Mutex::new(Some(a));
    let take = || cell.lock().ok().and_then(|mut g| g.take());
    std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .spawn_scoped(s, || take().map(|f| f()))
            .ok();
        let rb = b();
        // Not started (or no thread): run it here.
        if let Some(f) = take() {
            return (f(), rb);
        }
        match handle.map(|h| h.join()) {
            Some(Ok(Some(ra))) => (ra, rb),
            // A panic on the other thread is re-raised here, as if `a` had run here.
            Some(Err(p)) => std::panic::resume_unwind(p),
            // The thread took `a` and returned without running it: impossible.
            _ => std::panic::resume_unwind(Box::new("par::join lost its closure")),
        }
    })
}

/// Below this many bytes of work, [`chunks`] stays on one thread (starting a thread costs
/// tens of microseconds; encrypting 256 KiB with AES costs about as much as a few).
pub const PARALLEL_MIN: usize = 256 << 10;

/// How many threads [`chunks`] uses for `work` bytes: one below [`PARALLEL_MIN`], else
/// the machine's parallelism, at most 8.
pub fn threads_for(work: usize) -> usize {
    if work < PARALLEL_MIN {
        return 1;
    }
    // Asked once: std reads the cgroup files each time.
    static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(8)))
}

/// Splits `items` into contiguous chunks of about equal `weight` (at most
/// [`threads_for`] of the total), runs `f` on each chunk on its own thread (the first on
/// this one) and returns the results in order. A chunk whose thread has not started when
/// this thread is done with its own (or cannot be started) runs here.
pub fn chunks<T, R, W, F>(items: &mut [T], weight: W, f: F) -> Vec<R>
where
    T: Send,
    R: Send,
    W: Fn(&T) -> usize,
    F: Fn(&mut [T]) -> R + Sync,
{
    let total: usize = items.iter().map(&weight).sum();
    let n = threads_for(total).min(items.len().max(1));
    if n <= 1 {
        return vec![f(items)];
    }
    // Cut points where the running weight passes k/n of the total.
    let mut parts: Vec<&mut [T]> = Vec::with_capacity(n);
    let mut rest = items;
    let mut done = 0usize;
    for k in 1..n {
        let target = total / n * k;
        let mut i = 0;
        while i < rest.len() && done < target {
            done += weight(&rest[i]);
            i += 1;
        }
        let (a, b) = rest.split_at_mut(i);
        parts.push(a);
        rest = b;
    }
    parts.push(rest);
    // Each chunk but the first is handed over through a cell, so that it can run here if
    // its thread does not start.
    let mut parts = parts.into_iter();
    let first = parts.next();
    let cells: Vec<std::sync::Mutex<Option<&mut [T]>>> =
        parts.map(|p| std::sync::Mutex::new(Some(p))).collect();
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = cells
            .iter()
            .map(|c| {
                std::thread::Builder::new()
                    .spawn_scoped(s, move || take(c).map(f))
                    .ok()
            })
            .collect();
        let mut out = Vec::with_capacity(n);
        if let Some(p) = first {
            out.push(f(p));
        }
        // Chunks whose thread has not started yet run here (see [`join`]); results keep
        // their order.
        for (h, c) in handles.into_iter().zip(&cells) {
            let r = match take(c) {
                Some(p) => Some(f(p)),
                None => match h.map(|h| h.join()) {
                    Some(Ok(r)) => r,
                    Some(Err(p)) => std::panic::resume_unwind(p),
                    None => None,
                },
            };
            if let Some(r) = r {
                out.push(r);
            }
        }
        out
    })
}

/// The chunk in `c`, if still there.
fn take<'a, T>(c: &std::sync::Mutex<Option<&'a mut [T]>>) -> Option<&'a mut [T]> {
    c.lock().ok().and_then(|mut g| g.take())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_everything_once() {
        let mut v: Vec<u64> = (0..1000).collect();
        // Heavy enough to split.
        let sums = chunks(
            &mut v,
            |_| PARALLEL_MIN / 100,
            |c| {
                for x in c.iter_mut() {
                    *x += 1;
                }
                c.iter().sum::<u64>()
            },
        );
        assert_eq!(sums.iter().sum::<u64>(), (1..=1000).sum::<u64>());
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64 + 1));
        let one = chunks(&mut v, |_| 1, |c| c.len());
        assert_eq!(one, [1000]);
    }

    #[test]
    fn both_run() {
        let (a, b) = join(|| 2 + 2, || "b");
        assert_eq!((a, b), (4, "b"));
    }
}
