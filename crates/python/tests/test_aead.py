"""The AEAD classes: tampering and wrong keys, the buffer types, the `*_into` methods,
sizes from the catalogue, agreement with `cryptography` and the `ascon` package."""

import array
import os
import pickle
import random

import numpy as np
import pytest

import cipherlab
from cipherlab import InvalidTag

ALL = list(cipherlab.AEADS.values())


def fresh(cls):
    return cls(cls.generate_key()), os.urandom(cls.nonce_size)


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.name)
def test_sizes_come_from_the_catalogue(cls):
    desc = next(a for a in cipherlab.algorithms() if a["name"] == cls.name)
    assert cls.nonce_size == desc["nonce_size"]
    assert cls.tag_size == desc["tag_size"] == 16
    assert cls.key_size * 8 == desc["default_key_bits"]
    assert len(cls.generate_key()) == cls.key_size
    assert cls.generate_key() != cls.generate_key()


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.name)
def test_tampering_and_wrong_keys_raise_invalid_tag(cls):
    aead, nonce = fresh(cls)
    msg, ad = os.urandom(100), b"header"
    ct = aead.encrypt(nonce, msg, ad)
    assert len(ct) == len(msg) + 16 and ct[:100] != msg
    assert aead.decrypt(nonce, ct, ad) == msg
    for i in (0, 50, 99, 100, 115):  # ciphertext bytes and tag bytes
        bad = bytearray(ct)
        bad[i] ^= 0x01
        with pytest.raises(InvalidTag):
            aead.decrypt(nonce, bytes(bad), ad)
    with pytest.raises(InvalidTag):
        aead.decrypt(nonce, ct, b"headeR")
    with pytest.raises(InvalidTag):
        aead.decrypt(bytes(a ^ 1 if i == 0 else a for i, a in enumerate(nonce)), ct, ad)
    with pytest.raises(InvalidTag):
        cls(cls.generate_key()).decrypt(nonce, ct, ad)
    with pytest.raises(InvalidTag):
        aead.decrypt(nonce, ct[:15], ad)  # shorter than a tag
    with pytest.raises(InvalidTag):
        aead.decrypt(nonce, ct[:-1], ad)  # truncated


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.name)
def test_failed_decrypt_into_leaves_no_plaintext(cls):
    aead, nonce = fresh(cls)
    msg = b"\xaa" * 64
    ct = bytearray(aead.encrypt(nonce, msg))
    ct[-1] ^= 0x80
    out = bytearray(b"\x55" * 64)
    with pytest.raises(InvalidTag):
        aead.decrypt_into(nonce, ct, None, out)
    assert msg not in bytes(out) and b"\xaa" * 8 not in bytes(out)


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.name)
def test_bad_lengths_are_value_errors(cls):
    with pytest.raises(ValueError, match="key"):
        cls(b"\x00" * (cls.key_size + 1))
    aead, _ = fresh(cls)
    with pytest.raises(ValueError, match="nonce"):
        aead.encrypt(b"\x00" * (cls.nonce_size - 1), b"x")
    with pytest.raises(TypeError, match="buffer protocol"):
        aead.encrypt(b"\x00" * cls.nonce_size, "text is not bytes")
    with pytest.raises(ValueError, match="out has"):
        aead.encrypt_into(b"\x00" * cls.nonce_size, b"abc", None, bytearray(18))
    with pytest.raises(BufferError, match="writable"):
        aead.encrypt_into(b"\x00" * cls.nonce_size, b"abc", None, b"\x00" * 19)


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.name)
def test_any_buffer_in_same_bytes_out(cls):
    aead, nonce = fresh(cls)
    raw = os.urandom(4096)
    expect = aead.encrypt(nonce, raw, b"ad")
    views = [
        bytearray(raw),
        memoryview(raw),
        memoryview(bytearray(raw))[0:4096],
        array.array("B", raw),
        np.frombuffer(raw, dtype=np.uint8),
        np.frombuffer(raw, dtype=np.int32),  # any dtype: its bytes
        np.frombuffer(raw, dtype=np.uint8).reshape(64, 64),
    ]
    for v in views:
        assert aead.encrypt(nonce, v, bytearray(b"ad")) == expect, type(v)
    with pytest.raises(TypeError, match="C-contiguous|buffer"):
        aead.encrypt(nonce, np.frombuffer(raw, dtype=np.uint8).reshape(64, 64)[:, ::2])


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.name)
def test_into_a_numpy_array_and_in_place(cls):
    aead, nonce = fresh(cls)
    msg = os.urandom(1000)
    expect = aead.encrypt(nonce, msg)
    out = np.zeros(len(msg) + 16, dtype=np.uint8)
    assert aead.encrypt_into(nonce, msg, None, out) == len(expect)
    assert out.tobytes() == expect
    # In place: the message in the front of the output buffer itself.
    buf = bytearray(msg) + bytearray(16)
    assert aead.encrypt_into(nonce, memoryview(buf)[: len(msg)], None, buf) == len(expect)
    assert bytes(buf) == expect
    assert aead.decrypt_into(nonce, buf, None, buf) == len(msg)
    assert bytes(buf[: len(msg)]) == msg


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.name)
def test_keyed_objects_do_not_pickle(cls):
    aead, _ = fresh(cls)
    with pytest.raises(TypeError, match="do not pickle"):
        pickle.dumps(aead)
    assert cls.name in repr(aead) and aead_key_not_in(repr(aead))


def aead_key_not_in(text):
    return "key=" not in text


def test_aesgcm_and_chacha_agree_with_cryptography():
    from cryptography.hazmat.primitives.ciphers import aead as ref

    rng = random.Random(17)
    for bits in (128, 192, 256):
        key = cipherlab.AESGCM.generate_key(bits)
        ours, theirs = cipherlab.AESGCM(key), ref.AESGCM(key)
        assert ours.name == f"aes-{bits}-gcm" and ours.key_size * 8 == bits
        for n in (0, 1, 15, 16, 17, 64, 1000, 70000):
            nonce, msg, ad = os.urandom(12), rng.randbytes(n), rng.randbytes(n % 40)
            assert ours.encrypt(nonce, msg, ad) == theirs.encrypt(nonce, msg, ad)
            assert ours.decrypt(nonce, theirs.encrypt(nonce, msg, ad), ad) == msg
    with pytest.raises(ValueError, match="AES-GCM takes a key of 128, 192, 256 bits"):
        cipherlab.AESGCM(b"\x00" * 20)
    key = cipherlab.ChaCha20Poly1305.generate_key()
    ours, theirs = cipherlab.ChaCha20Poly1305(key), ref.ChaCha20Poly1305(key)
    for n in (0, 64, 5000):
        nonce, msg = os.urandom(12), rng.randbytes(n)
        assert ours.encrypt(nonce, msg, b"a") == theirs.encrypt(nonce, msg, b"a")


V12 = [(cipherlab.Ascon128, "Ascon-128"), (cipherlab.Ascon128a, "Ascon-128a"), (cipherlab.Ascon80pq, "Ascon-80pq")]


@pytest.mark.parametrize("cls,variant", V12, ids=[v for _, v in V12])
def test_v12_agrees_with_the_ascon_package(cls, variant):
    """The designers' pure-Python package (v1.2) on random inputs."""
    import ascon

    rng = random.Random(1234)
    for _ in range(200):
        key, nonce = rng.randbytes(cls.key_size), rng.randbytes(16)
        msg, ad = rng.randbytes(rng.randrange(0, 200)), rng.randbytes(rng.randrange(0, 50))
        ours = cls(key).encrypt(nonce, msg, ad)
        assert ours == ascon.encrypt(key, nonce, ad, msg, variant)
        assert ascon.decrypt(key, nonce, ad, ours, variant) == msg


@pytest.mark.parametrize(
    "cls,variant",
    [(cipherlab.AsconHash, "Ascon-Hash"), (cipherlab.AsconHasha, "Ascon-Hasha"),
     (cipherlab.AsconXof, "Ascon-Xof"), (cipherlab.AsconXofa, "Ascon-Xofa")],
)
def test_v12_hashes_agree_with_the_ascon_package(cls, variant):
    import ascon

    rng = random.Random(99)
    for _ in range(100):
        msg = rng.randbytes(rng.randrange(0, 300))
        n = 32 if not cls.is_xof else rng.randrange(1, 100)
        assert cls(msg).digest(None if not cls.is_xof else n) == ascon.hash(msg, variant, n)
