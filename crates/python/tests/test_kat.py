"""Every official KAT of the lightweight AEADs and hashes in ../shared/kat, through the
Python API. The KAT files are the catalogue's (`algorithms()`/`hash_algorithms()` name
them), so a new algorithm with a KAT is tested here without a new line."""

import pytest

import cipherlab
from conftest import read_lwc_kat

AEADS = [a for a in cipherlab.algorithms() if a["lwc_kat"]]
HASHES = cipherlab.hash_algorithms()


def test_every_lightweight_aead_has_a_class():
    assert sorted(a["name"] for a in AEADS) == sorted(n for n in cipherlab.AEADS if n != "chacha20-poly1305")
    assert len(AEADS) == 9


@pytest.mark.parametrize("alg", AEADS, ids=lambda a: a["name"])
def test_aead_kat(kats, alg):
    cls = cipherlab.AEADS[alg["name"]]
    records = read_lwc_kat(kats / alg["lwc_kat"])
    assert len(records) == 1089
    for r in records:
        key, nonce = bytes.fromhex(r["Key"]), bytes.fromhex(r["Nonce"])
        pt, ad, ct = bytes.fromhex(r["PT"]), bytes.fromhex(r["AD"]), bytes.fromhex(r["CT"])
        aead = cls(key)
        assert aead.encrypt(nonce, pt, ad) == ct, f"{alg['name']} Count = {r['Count']}"
        assert aead.decrypt(nonce, ct, ad) == pt, f"{alg['name']} Count = {r['Count']}"
        # The buffer path (bytearray in, a caller's buffer out) gives the same bytes.
        out = bytearray(len(ct) + 3)
        assert aead.encrypt_into(bytearray(nonce), bytearray(pt), memoryview(ad), out) == len(ct)
        assert bytes(out[: len(ct)]) == ct
        back = bytearray(len(pt))
        assert aead.decrypt_into(nonce, bytearray(ct), ad, back) == len(pt)
        assert back == pt


@pytest.mark.parametrize("alg", HASHES, ids=lambda h: h["name"])
def test_hash_kat(kats, alg):
    cls = cipherlab.HASHES[alg["name"]]
    records = read_lwc_kat(kats / alg["lwc_kat"])
    assert len(records) >= 1024
    for r in records:
        msg, md = bytes.fromhex(r["Msg"]), bytes.fromhex(r["MD"])
        if "Z" in r:
            h = cls(msg, customization=bytes.fromhex(r["Z"]))
        else:
            h = cls(msg)
        length = None if len(md) == cls.digest_size else len(md)
        assert h.digest(length) == md, f"{alg['name']} Count = {r['Count']}"
        # In pieces, as hashlib objects are fed.
        if "Z" in r:
            h2 = cls(customization=bytes.fromhex(r["Z"]))
        else:
            h2 = cls()
        for i in range(0, len(msg), 7):
            h2.update(msg[i : i + 7])
        assert h2.hexdigest(length) == md.hex()
