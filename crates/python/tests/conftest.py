"""Shared fixtures: where the KATs and the `cipherlab` command are, and the NIST LWC
KAT file reader."""

import importlib
import os
import pathlib
import shutil

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


def kat_dir():
    """../shared/kat beside the repository, or $CIPHERLAB_KAT_DIR (as the Rust tests)."""
    env = os.environ.get("CIPHERLAB_KAT_DIR")
    return pathlib.Path(env) if env else REPO.parent / "shared" / "kat"


def read_lwc_kat(path):
    """The records of a NIST LWC KAT file: a list of dicts of its fields (values as
    strings, hex where the format says so), in file order. CRLF or LF."""
    records, current = [], {}
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line:
            if current:
                records.append(current)
                current = {}
            continue
        field, _, value = line.partition("=")
        current[field.strip()] = value.strip()
    if current:
        records.append(current)
    return records


@pytest.fixture(scope="session")
def kats():
    d = kat_dir()
    if not d.is_dir():
        pytest.fail(f"no KAT directory at {d}: set CIPHERLAB_KAT_DIR or put shared/kat beside the repository")
    return d


def cli_binary():
    """The `cipherlab` binary: $CIPHERLAB_BIN, else the newest of the workspace's
    target/{release,debug}/cipherlab, else one on PATH."""
    env = os.environ.get("CIPHERLAB_BIN")
    if env:
        return env
    built = [p for p in (REPO / "target" / "release" / "cipherlab", REPO / "target" / "debug" / "cipherlab") if p.is_file()]
    if built:
        return str(max(built, key=lambda p: p.stat().st_mtime))
    return shutil.which("cipherlab")


@pytest.fixture(scope="session")
def cli():
    path = cli_binary()
    if path is None:
        if os.environ.get("CIPHERLAB_REQUIRE_CLI"):
            pytest.fail("no cipherlab binary: build it (cargo build -p cipherlab-cli) or set CIPHERLAB_BIN")
        skip_or_fail("no cipherlab binary (cargo build -p cipherlab-cli, or set CIPHERLAB_BIN)")
    return path


def nothing_may_skip():
    """In CI (`CI` set) or with `CIPHERLAB_REQUIRE_KAT`, a missing tool fails its test
    instead of skipping it (tests/pytest.rs applies the same rule to the environment)."""
    return bool(os.environ.get("CI") or os.environ.get("CIPHERLAB_REQUIRE_KAT"))


def skip_or_fail(why):
    if nothing_may_skip():
        pytest.fail(f"{why} (CI or CIPHERLAB_REQUIRE_KAT is set: no skipping)")
    pytest.skip(why)


def require_module(name):
    """The module, or a skip (a failure in CI) naming what is missing."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        skip_or_fail(f"{name} is not installed ({e}); bash crates/python/setup installs it")
