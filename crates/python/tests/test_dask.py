"""The Dask example of docs/python.md, on a local cluster on the loopback interface (two
worker processes): a folder of files sealed in parallel, every output checked."""

import os
import pathlib
import subprocess
import sys

from cipherlab import seal
from conftest import require_module

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "dask_seal.py"


def test_dask_seals_a_folder(tmp_path):
    require_module("dask.distributed")
    src, dst = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    files = {f"doc{i}.bin": os.urandom(i * 37_000) for i in range(12)}
    for name, data in files.items():
        (src / name).write_bytes(data)
    key = tmp_path / "lake.key"
    seal.KeyFile.generate("ascon-aead128").save(key)
    r = subprocess.run(
        [sys.executable, str(EXAMPLE), str(src), str(dst), str(key), "--workers", "2"],
        capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert f"sealed {len(files)} files" in r.stdout
    k = seal.KeyFile.load(key)
    for name, data in files.items():
        assert seal.decrypt((dst / (name + ".cl")).read_bytes(), key_file=k) == data
