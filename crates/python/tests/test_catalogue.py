"""`Cipher(name, key, iv)` for every cipher `cipherlab list` shows: round trips, the
command line's warnings, and byte-for-byte agreement with `cryptography`."""

import os
import warnings

import pytest
from cryptography.hazmat.primitives import padding as ref_padding
from cryptography.hazmat.primitives.ciphers import Cipher as RefCipher
from cryptography.hazmat.primitives.ciphers import algorithms as ref_alg
from cryptography.hazmat.primitives.ciphers import modes as ref_modes

import cipherlab
from cipherlab import LegacyCipherWarning


def names():
    """One name per algorithm and mode, at the default key size."""
    out = []
    for a in cipherlab.algorithms():
        stem = a["name"] if len(a["key_bits"]) == 1 else f"{a['name']}-{a['default_key_bits']}"
        out += [f"{stem}-{m}" for m in a["modes"]] or [stem]
    return out


def test_the_list_is_the_cli_catalogue():
    got = {a["name"] for a in cipherlab.algorithms()}
    assert {"aes", "des", "3des", "rc2", "blowfish", "skipjack", "rc4", "chacha20-poly1305",
            "ascon-aead128", "xoodyak", "isap-k-128"} <= got
    assert len(names()) > 40


@pytest.mark.parametrize("name", names())
def test_round_trip_and_warnings(name):
    desc = next(a for a in cipherlab.algorithms() if name.startswith(a["name"]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c = cipherlab.Cipher(name, os.urandom(desc["key_size"]))
    legacy = [w for w in caught if issubclass(w.category, LegacyCipherWarning)]
    assert bool(legacy) == (c.status != "modern" or name.endswith("-ecb")), (name, [str(w.message) for w in legacy])
    if legacy:
        assert legacy[0].filename == __file__  # points at the caller's line
    assert c.name == name and c.status == desc["status"]
    iv = os.urandom(c.iv_size) if c.iv_size else None
    for n in (0, 1, 100):
        msg = os.urandom(n)
        ct = c.encrypt(msg, iv=iv)
        assert c.decrypt(ct, iv=iv) == msg
        assert len(ct) >= n + c.tag_size


def test_agrees_with_cryptography_and_padding():
    key, iv = os.urandom(24), os.urandom(16)
    for mode, ref_mode in (("cbc", ref_modes.CBC(iv)), ("ctr", ref_modes.CTR(iv)), ("ofb", None)):
        if ref_mode is None:
            continue
        c = cipherlab.Cipher(f"aes-192-{mode}", key, iv)
        for n in (0, 1, 15, 16, 33, 4096):
            msg = os.urandom(n)
            data = msg
            if mode == "cbc":
                p = ref_padding.PKCS7(128).padder()
                data = p.update(msg) + p.finalize()
            e = RefCipher(ref_alg.AES(key), ref_mode).encryptor()
            assert c.encrypt(msg) == e.update(data) + e.finalize(), (mode, n)
    raw = cipherlab.Cipher("aes-128-cbc", key[:16], iv, padding="none")
    with pytest.raises(ValueError, match="multiple of the 16-byte block"):
        raw.encrypt(b"x" * 15)
    assert len(raw.encrypt(b"x" * 32)) == 32
    padded = cipherlab.Cipher("aes-128-cbc", key[:16], iv)
    wrong = cipherlab.Cipher("aes-128-cbc", os.urandom(16), iv)
    with pytest.raises(ValueError, match="padding|authentication"):
        for _ in range(8):  # a wrong key gives valid padding by chance 1/256 of the time
            wrong.decrypt(padded.encrypt(os.urandom(40)))


def test_aead_by_name_and_errors():
    key, nonce = os.urandom(16), os.urandom(16)
    c = cipherlab.Cipher("ascon-aead128", key, nonce)
    assert c.is_aead and c.tag_size == 16 and c.provider == "cipherlab"
    ct = c.encrypt(b"m", b"ad")
    assert ct == cipherlab.AsconAead128(key).encrypt(nonce, b"m", b"ad")
    with pytest.raises(cipherlab.InvalidTag):
        c.decrypt(ct, b"AD")
    with pytest.raises(ValueError, match="did you mean"):
        cipherlab.Cipher("aez-128-cbc", key)
    with pytest.raises(ValueError, match="no 129-bit key"):
        cipherlab.Cipher("aes-129-cbc", key)
    with pytest.raises(ValueError, match="IV/nonce"):
        cipherlab.Cipher("aes-128-cbc", key, b"short")
    with pytest.raises(ValueError, match="effective_bits"):
        cipherlab.Cipher("aes-128-cbc", key, effective_bits=40)
    with pytest.warns(LegacyCipherWarning, match="broken"):
        rc2 = cipherlab.Cipher("rc2-128-cbc", key, os.urandom(8), effective_bits=64)
    assert rc2.decrypt(rc2.encrypt(b"abc")) == b"abc"
    with pytest.warns(LegacyCipherWarning):
        assert cipherlab.Cipher("des-ede3-cbc", os.urandom(24)).name == "3des-168-cbc"


def test_into_variants():
    key, iv = os.urandom(16), os.urandom(16)
    c = cipherlab.Cipher("aes-128-cbc", key, iv)
    msg = os.urandom(100)
    out = bytearray(112)
    assert c.encrypt_into(msg, out) == 112 and bytes(out) == c.encrypt(msg)
    back = bytearray(112)
    assert c.decrypt_into(out, back) == 100 and bytes(back[:100]) == msg
    assert c.decrypt_into(out, out) == 100 and bytes(out[:100]) == msg
