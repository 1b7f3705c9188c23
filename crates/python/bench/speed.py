"""Speed of the cipherlab Python package beside the Rust library and its Python peers.

    cargo build --release -p cipherlab-python --example ascon_speed
    crates/python/.venv/bin/python crates/python/bench/speed.py \
        --rust target/release/examples/ascon_speed

What it measures, in one sitting, in rounds (each round measures every case once, so drift
and noise from other processes hit all cases alike):

* Ascon-AEAD128 on 1 MiB: `AsconAead128.encrypt` (returns a new bytes object) and
  `encrypt_into` (into a preallocated buffer) against the Rust library's own speed, the
  `ascon_speed` example (same method and clock, median), run as a child process in every
  round: in place (the library's best) and into a separate output buffer (the memory
  traffic of Python's `encrypt`, which cannot encrypt an immutable bytes in place).
* The cost of one call on 64 B: cipherlab's `AsconAead128` and `AESGCM` against
  `cryptography`'s `AESGCM` (the same algorithm, so the difference is the binding's
  overhead), and the Rust library's Ascon-AEAD128 on 64 B (the work itself).
* The designers' pure-Python `ascon` package (Ascon v1.2, "Ascon-128") against
  cipherlab's `Ascon128` at 64 B and 1 MiB (the package takes seconds per MiB: one call
  per round).

Every sample times a batch of calls long enough (about 2 ms of the thread's CPU time) that
the clock's cost vanishes; the figure per case is the median over all samples of all
rounds, and each ratio is the median of the per-round ratios (a round's cases ran within
seconds of each other). Keyed objects
are built once, outside the timed region (as an application keeps its AESGCM object).
Nothing is asserted: this is a benchmark; docs/BENCHMARKS.md records its results.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import cipherlab
from cryptography.hazmat.primitives.ciphers.aead import AESGCM as CryptographyAESGCM

try:
    import ascon as ascon_package
except ImportError:  # the comparison is then left out
    ascon_package = None

MIB, SMALL = 1 << 20, 64
SAMPLE_NS = 2_000_000
# The thread's CPU time: only the time this thread ran counts, so other processes on a busy
# machine do not inflate a sample (the GIL-released work runs on this same thread). The
# Rust example reads the same clock.
clock = time.thread_time_ns


def per_call_samples(call, samples):
    """`samples` figures of nanoseconds per call, each from a batch of about SAMPLE_NS."""
    k = 1
    while True:  # calibrate (and warm up)
        t = clock()
        for _ in range(k):
            call()
        if clock() - t >= SAMPLE_NS:
            break
        k *= 2
    out = []
    for _ in range(samples):
        t = clock()
        for _ in range(k):
            call()
        out.append((clock() - t) / k)
    return out


def cases():
    """name -> zero-argument call, built once."""
    key16, nonce16, nonce12 = os.urandom(16), os.urandom(16), os.urandom(12)
    big, small = os.urandom(MIB), os.urandom(SMALL)
    ours = cipherlab.AsconAead128(key16)
    v12 = cipherlab.Ascon128(key16)
    gcm_ours, gcm_theirs = cipherlab.AESGCM(key16), CryptographyAESGCM(key16)
    out = bytearray(MIB + ours.tag_size)
    c = {
        "cipherlab AsconAead128.encrypt 1 MiB": lambda: ours.encrypt(nonce16, big, None),
        "cipherlab AsconAead128.encrypt_into 1 MiB": lambda: ours.encrypt_into(nonce16, big, None, out),
        "cipherlab AsconAead128.encrypt 64 B": lambda: ours.encrypt(nonce16, small, None),
        "cipherlab AESGCM.encrypt 64 B": lambda: gcm_ours.encrypt(nonce12, small, None),
        "cryptography AESGCM.encrypt 64 B": lambda: gcm_theirs.encrypt(nonce12, small, None),
        "cipherlab Ascon128.encrypt 64 B": lambda: v12.encrypt(nonce16, small, None),
        "cipherlab Ascon128.encrypt 1 MiB": lambda: v12.encrypt(nonce16, big, None),
    }
    if ascon_package is not None:
        enc = ascon_package.encrypt
        # The same inputs must give the same bytes, or the comparison means nothing.
        assert enc(key16, nonce16, b"", small, "Ascon-128") == v12.encrypt(nonce16, small, None)
        c["ascon Ascon-128 64 B"] = lambda: enc(key16, nonce16, b"", small, "Ascon-128")
        c["ascon Ascon-128 1 MiB"] = lambda: enc(key16, nonce16, b"", big, "Ascon-128")
    return c


def one_call_ns(call):
    t = clock()
    call()
    return clock() - t


def rust_figures(binary):
    """The Rust library's median ns per call at 1 MiB and 64 B (one run of the example)."""
    r = subprocess.run([binary, str(MIB), str(SMALL)], capture_output=True, text=True, check=True)
    got = json.loads(r.stdout)
    return {"rust AsconAead128 1 MiB": got["inplace"][str(MIB)],
            "rust AsconAead128 separate out 1 MiB": got["separate"][str(MIB)],
            "rust AsconAead128 64 B": got["inplace"][str(SMALL)]}


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rust", help="the ascon_speed example binary (target/release/examples/ascon_speed)")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--samples", type=int, default=21, help="samples per case per round")
    p.add_argument("--ascon-mib-rounds", type=int, default=3,
                   help="rounds that also time the ascon package on 1 MiB (seconds each)")
    p.add_argument("--json", help="also write the figures here")
    args = p.parse_args(argv)

    calls = cases()
    samples = {name: [] for name in calls}
    rounds = []  # per round: case -> median of that round's samples
    for r in range(args.rounds):
        this = {}
        if args.rust:
            for name, ns in rust_figures(args.rust).items():
                samples.setdefault(name, []).append(ns)
                this[name] = ns
        for name, call in calls.items():
            if name == "ascon Ascon-128 1 MiB":
                if r >= args.ascon_mib_rounds:
                    continue
                got = [one_call_ns(call)]
            elif name.startswith("ascon "):
                got = per_call_samples(call, max(3, args.samples // 4))
            else:
                got = per_call_samples(call, args.samples)
            samples[name] += got
            this[name] = statistics.median(got)
        rounds.append(this)
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)

    med = {name: statistics.median(s) for name, s in samples.items() if s}

    def ratio(a, b):
        """The median over the rounds that measured both of a's median / b's."""
        per_round = [rd[a] / rd[b] for rd in rounds if a in rd and b in rd]
        return statistics.median(per_round) if per_round else None

    ratios = {
        "python encrypt / rust, 1 MiB": ratio("cipherlab AsconAead128.encrypt 1 MiB", "rust AsconAead128 1 MiB"),
        "python encrypt_into / rust, 1 MiB": ratio("cipherlab AsconAead128.encrypt_into 1 MiB", "rust AsconAead128 1 MiB"),
        "python encrypt / rust separate output, 1 MiB": ratio("cipherlab AsconAead128.encrypt 1 MiB",
                                                              "rust AsconAead128 separate out 1 MiB"),
        "rust separate output / rust in place, 1 MiB": ratio("rust AsconAead128 separate out 1 MiB",
                                                             "rust AsconAead128 1 MiB"),
        "cipherlab AESGCM / cryptography AESGCM, 64 B": ratio("cipherlab AESGCM.encrypt 64 B", "cryptography AESGCM.encrypt 64 B"),
        "cipherlab AsconAead128 / cryptography AESGCM, 64 B": ratio("cipherlab AsconAead128.encrypt 64 B", "cryptography AESGCM.encrypt 64 B"),
        "ascon package / cipherlab Ascon128, 64 B (speed-up)": ratio("ascon Ascon-128 64 B", "cipherlab Ascon128.encrypt 64 B"),
        "ascon package / cipherlab Ascon128, 1 MiB (speed-up)": ratio("ascon Ascon-128 1 MiB", "cipherlab Ascon128.encrypt 1 MiB"),
    }
    overhead = None
    if "rust AsconAead128 64 B" in med:
        overhead = med["cipherlab AsconAead128.encrypt 64 B"] - med["rust AsconAead128 64 B"]

    print(f"CPU: {cpu_model()}; Python {platform.python_version()}; cipherlab {cipherlab.__version__}; "
          f"{args.rounds} rounds")
    print(f"{'case':<46} {'median ns/call':>15} {'MB/s':>9}  samples")
    for name in sorted(med, key=lambda n: (n.split()[-2:], n)):
        size = MIB if name.endswith("1 MiB") else SMALL
        print(f"{name:<46} {med[name]:>15,.0f} {size / med[name] * 1e3:>9,.1f}  {len(samples[name])}")
    for name, value in ratios.items():
        if value is not None:
            print(f"{name:<56} {value:8.3f}")
    if overhead is not None:
        print(f"{'Python call overhead of AsconAead128 at 64 B (ns)':<56} {overhead:8.0f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu": cpu_model(), "medians_ns": med, "ratios": ratios,
                       "overhead_ns_64": overhead}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
