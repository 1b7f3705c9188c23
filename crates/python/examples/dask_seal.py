"""Seal every file of a folder in parallel on a Dask cluster (docs/python.md).

    python dask_seal.py SRC_DIR DST_DIR KEY_FILE [--scheduler tcp://HOST:8786]

Without --scheduler it starts a local cluster on the loopback interface. Each task gets a
file's path and the key file's path; the worker reads the key file itself, so no key ever
travels through the scheduler (KeyFile objects refuse to pickle). The key file, the source
and the destination must be reachable by every worker (a shared or network filesystem on
a real cluster). Each output appears only when complete.
"""

import argparse
import functools
import os
import sys

from dask.distributed import Client, LocalCluster

from cipherlab import seal


@functools.lru_cache(maxsize=None)
def worker_key(key_path):
    """The key file, read once per worker process."""
    return seal.KeyFile.load(key_path)


def seal_one(src, dst, key_path):
    """Runs on a worker: seals one file; returns its sizes."""
    summary = seal.encrypt_file(src, dst, key_file=worker_key(key_path), threads=1, force=True)
    return src, summary["bytes_in"], summary["bytes_out"]


def seal_folder(client, src_dir, dst_dir, key_path):
    """Seals every file of src_dir into dst_dir/<name>.cl on the client's cluster."""
    os.makedirs(dst_dir, exist_ok=True)
    names = sorted(n for n in os.listdir(src_dir) if os.path.isfile(os.path.join(src_dir, n)))
    futures = client.map(
        seal_one,
        [os.path.join(src_dir, n) for n in names],
        [os.path.join(dst_dir, n + ".cl") for n in names],
        key_path=os.path.abspath(key_path),
        pure=False,
    )
    return client.gather(futures)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("src_dir")
    p.add_argument("dst_dir")
    p.add_argument("key_file")
    p.add_argument("--scheduler", help="address of a running Dask scheduler")
    p.add_argument("--workers", type=int, default=2, help="local cluster size (without --scheduler)")
    args = p.parse_args(argv)
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True,
            host="127.0.0.1", dashboard_address=None,
        )
        client = Client(cluster)
    with client:
        done = seal_folder(client, args.src_dir, args.dst_dir, args.key_file)
    total = sum(n_in for _, n_in, _ in done)
    print(f"sealed {len(done)} files, {total} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
