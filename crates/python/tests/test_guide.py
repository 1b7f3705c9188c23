"""The examples of docs/python.md run as written: every ```python block, in order, in one
namespace (as a reader types them into one session), in a temporary directory. A block
preceded by a `<!-- not run ... -->` comment says which other test runs its code."""

import os
import pathlib
import re

GUIDE = pathlib.Path(__file__).resolve().parents[3] / "docs" / "python.md"
BLOCK = re.compile(r"(<!-- not run[^>]*-->\n)?```python\n(.*?)```", re.S)


def blocks():
    """(code, run) for every Python block of the guide, in order."""
    return [(m[2], m[1] is None) for m in BLOCK.finditer(GUIDE.read_text())]


def test_the_guide_has_examples():
    found = blocks()
    assert sum(run for _, run in found) >= 6, found
    assert all(code.strip() for code, _ in found)


def test_the_guides_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # The one input the examples assume exists: the file the "Files and streams" block seals.
    (tmp_path / "scan.dcm").write_bytes(os.urandom(300_000))
    scan = (tmp_path / "scan.dcm").read_bytes()
    namespace = {"__name__": "guide"}
    for number, (code, run) in enumerate(blocks(), 1):
        if run:
            exec(compile(code, f"docs/python.md block {number}", "exec"), namespace)
    # What the blocks claim, checked once more from outside.
    assert (tmp_path / "scan.dcm").read_bytes() == scan          # decrypted back in place
    assert (tmp_path / "scan.dcm.cl").stat().st_size > len(scan)
    assert oct((tmp_path / "lake.key").stat().st_mode & 0o777) == "0o600"
    assert (tmp_path / "readings.jsonl.cl").exists()
