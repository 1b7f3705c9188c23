"""The Python platform runner (platforms/python) serves this package as its
`python-cipherlab` provider: crates/python/setup installed the same wheel there. Skipped
where platforms/setup has not made the runner's environment, except in CI."""

import json
import os
import pathlib
import subprocess

import pytest

import cipherlab
from conftest import skip_or_fail

RUNNER = pathlib.Path(__file__).resolve().parents[3] / "platforms" / "python"


@pytest.fixture(scope="module")
def ask():
    if not (RUNNER / ".venv" / "bin" / "python").exists():
        skip_or_fail("platforms/python/.venv is missing (bash platforms/setup, then bash crates/python/setup)")

    def ask(*requests):
        lines = "".join(json.dumps(r) + "\n" for r in requests)
        r = subprocess.run([str(RUNNER / "run")], input=lines, capture_output=True, text=True, timeout=120, check=True)
        return [json.loads(line) for line in r.stdout.splitlines()]
    return ask


def test_the_runner_offers_python_cipherlab(ask):
    # The probe set comes with `info` (platforms/PROTOCOL.md); cipherlab sends its own,
    # this test only the one size it looks for.
    (info,) = ask({"op": "info", "probe": {"rc4": {"bits": [128], "range": [40, 2048]}}})
    providers = {p["name"]: p for p in info["providers"]}
    assert "python-cipherlab" in providers, "crates/python/setup did not install the wheel into the runner"
    ours = providers["python-cipherlab"]
    assert ours["version"] == cipherlab.__version__
    for name in ("ascon-aead128", "ascon-128", "xoodyak", "isap-k-128", "aes-256-gcm", "aes-128-cbc", "rc4-128"):
        assert name in ours["algorithms"], name


def test_the_runner_gives_the_packages_bytes(ask):
    key, nonce, ad, pt = os.urandom(16), os.urandom(16), os.urandom(5), os.urandom(100)
    sealed = cipherlab.IsapA128A(key).encrypt(nonce, pt, ad)
    base = {"alg": "isap-a-128a", "provider": "python-cipherlab", "key": key.hex(), "nonce": nonce.hex(), "ad": ad.hex()}
    bad_tag = bytearray(sealed[-16:])
    bad_tag[0] ^= 1
    enc, dec, forged = ask(
        {**base, "id": 1, "op": "encrypt", "pt": pt.hex()},
        {**base, "id": 2, "op": "decrypt", "ct": sealed[:-16].hex(), "tag": sealed[-16:].hex()},
        {**base, "id": 3, "op": "decrypt", "ct": sealed[:-16].hex(), "tag": bad_tag.hex()},
    )
    assert enc == {"id": 1, "ct": sealed[:-16].hex(), "tag": sealed[-16:].hex()}
    assert dec == {"id": 2, "pt": pt.hex()}
    assert forged == {"id": 3, "error": "authentication failed"}
