"""Threads: one object shared by many threads gives the single-thread results, and large
calls release the GIL (other Python threads run meanwhile)."""

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import cipherlab


def test_shared_objects_give_the_same_results_from_many_threads():
    aead = cipherlab.AsconAead128(os.urandom(16))
    gcm = cipherlab.AESGCM(os.urandom(32))
    cbc = cipherlab.Cipher("aes-128-cbc", os.urandom(16), os.urandom(16))
    jobs = [(os.urandom(16), os.urandom(n)) for n in (0, 100, 5000, 70000, 300000) * 8]
    expect = [(aead.encrypt(nc, m), gcm.encrypt(nc[:12], m), cbc.encrypt(m)) for nc, m in jobs]
    block = os.urandom(100_000)
    hasher = cipherlab.AsconXof128()

    def work(job):
        nc, m = job
        hasher.update(block)  # the same block from every thread: order cannot matter
        got = (aead.encrypt(nc, m), gcm.encrypt(nc[:12], m), cbc.encrypt(m))
        assert aead.decrypt(nc, got[0]) == m and gcm.decrypt(nc[:12], got[1]) == m
        assert cbc.decrypt(got[2]) == m
        return got

    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(work, jobs)) == expect
    assert hasher.digest(64) == cipherlab.AsconXof128(block * len(jobs)).digest(64)


def test_large_calls_release_the_gil():
    """While the main thread encrypts 32 MiB with ISAP-K-128 (about half a second here), a
    pure-Python loop in another thread keeps counting. Were the GIL held, the loop could
    run at most one switch interval (5 ms) of the call."""
    aead = cipherlab.IsapK128(os.urandom(16))
    msg = bytes(32 << 20)
    box, stop = [0], [False]
    ready = threading.Event()

    def counter():
        ready.set()
        while not stop[0]:
            box[0] += 1

    t = threading.Thread(target=counter)
    t.start()
    ready.wait()
    before = box[0]
    aead.encrypt(os.urandom(16), msg)
    during = box[0] - before
    stop[0] = True
    t.join()
    assert during > 200_000, during
