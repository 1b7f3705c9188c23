"""The hash classes behave as hashlib objects do."""

import hashlib
import os

import pytest

import cipherlab

ALL = list(cipherlab.HASHES.values())


def test_every_catalogue_hash_has_a_class():
    assert sorted(cipherlab.HASHES) == sorted(h["name"] for h in cipherlab.hash_algorithms())
    for h in cipherlab.hash_algorithms():
        cls = cipherlab.HASHES[h["name"]]
        assert (cls.digest_size, cls.block_size) == (h["digest_size"], h["block_size"])
        assert cls.is_xof == (h["kind"] != "hash")


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.name)
def test_hashlib_semantics(cls):
    msg = os.urandom(5000)
    whole = cls(msg).digest()
    assert len(whole) == cls.digest_size
    h = cls()
    h.update(msg[:1000])
    fork = h.copy()
    h.update(bytearray(msg[1000:]))
    assert h.digest() == whole and h.digest() == whole  # reading does not end it
    assert h.hexdigest() == whole.hex()
    assert fork.digest() == cls(msg[:1000]).digest()  # the copy went its own way
    fork.update(msg[1000:])
    assert fork.digest() == whole
    assert cipherlab.new(cls.name, msg).digest() == whole
    # The same shape as hashlib's: these attributes and methods exist there too.
    for attr in ("update", "digest", "hexdigest", "copy", "name", "digest_size", "block_size"):
        assert hasattr(hashlib.sha256(), attr) and hasattr(h, attr)


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.name)
def test_lengths(cls):
    h = cls(b"abc")
    if cls.is_xof:
        long = h.digest(200)
        assert len(long) == 200 and long[:32] == h.digest(32) == h.digest()
        with pytest.raises(ValueError, match="above the limit"):
            h.digest(1 << 30)
    else:
        assert h.digest(32) == h.digest()
        with pytest.raises(ValueError, match="exactly 32 bytes"):
            h.digest(16)


def test_cxof_customization():
    a = cipherlab.AsconCxof128(b"msg", customization=b"app A").digest()
    b = cipherlab.AsconCxof128(b"msg", customization=b"app B").digest()
    assert a != b and cipherlab.AsconCxof128(b"msg").digest() != a
    assert cipherlab.new("ascon-cxof128", b"msg", customization=b"app A").digest() == a
    with pytest.raises(ValueError, match="256"):
        cipherlab.AsconCxof128(customization=b"x" * 257)
    with pytest.raises(ValueError, match="customization"):
        cipherlab.new("ascon-hash256", b"", customization=b"x")
    with pytest.raises(TypeError):
        cipherlab.AsconHash256(b"", customization=b"x")
    with pytest.raises(ValueError, match="unknown hash"):
        cipherlab.new("sha-256")
