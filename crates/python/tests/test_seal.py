"""cipherlab.seal: the container of `cipherlab encrypt`/`decrypt`, both ways between
Python and the command line, streams, and what happens to damaged files."""

import io
import json
import os
import pickle
import subprocess

import pytest

import cipherlab
from cipherlab import InvalidTag, seal

# The Argon2id floor (19 MiB, 2 passes, OWASP's minimum): the cheapest cost that needs no
# "weak" flag, so passphrase tests stay quick.
FLOOR = dict(argon2_memory_mib=19, argon2_passes=2, argon2_lanes=1)


@pytest.fixture
def key(tmp_path):
    k = seal.KeyFile.generate("ascon-aead128")
    path = tmp_path / "k.key"
    k.save(path)
    return path


def test_key_files(tmp_path, key):
    k = seal.KeyFile.load(key)
    assert k.cipher == "ascon-aead128" and len(k.key) == 16
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    with pytest.raises(FileExistsError):
        k.save(key)
    k.save(key, force=True)
    assert "<secret>" in repr(k) and k.key.hex() not in repr(k)
    with pytest.raises(TypeError, match="do not pickle"):
        pickle.dumps(k)
    bad = tmp_path / "bad.key"
    bad.write_text("cipherlab-key: 1\ncipher: xoodyak\nkey: 00112233\n")
    with pytest.raises(ValueError, match="16-byte key") as e:
        seal.KeyFile.load(bad)
    assert "00112233" not in str(e.value)
    assert seal.KeyFile.from_key("xoodyak", b"\x01" * 16).cipher == "xoodyak"


@pytest.mark.parametrize("size", [0, 1, 65535, 65536, 65537, 300_000])
def test_files_round_trip(tmp_path, key, size):
    src, dst, back = tmp_path / "in.bin", tmp_path / "out.cl", tmp_path / "back.bin"
    data = os.urandom(size)
    src.write_bytes(data)
    s = seal.encrypt_file(src, dst, key_file=key)
    assert s["cipher"] == "ascon-aead128" and s["bytes_in"] == size
    assert dst.read_bytes()[:4] == b"\x89CLS"
    seal.decrypt_file(dst, back, key_file=seal.KeyFile.load(key))
    assert back.read_bytes() == data
    with pytest.raises(FileExistsError):
        seal.decrypt_file(dst, back, key_file=key)


def test_damaged_files_release_nothing(tmp_path, key):
    src, dst, back = tmp_path / "in.bin", tmp_path / "out.cl", tmp_path / "back.bin"
    src.write_bytes(os.urandom(200_000))
    seal.encrypt_file(src, dst, key_file=key)
    sealed = dst.read_bytes()
    cases = {
        "flipped": sealed[:150_000] + bytes([sealed[150_000] ^ 1]) + sealed[150_001:],
        "truncated": sealed[:-100],
        "last chunk dropped": sealed[: len(sealed) - (200_000 - 3 * 65536) - 16],
    }
    for what, damaged in cases.items():
        dst.write_bytes(damaged)
        with pytest.raises(InvalidTag):
            seal.decrypt_file(dst, back, key_file=key)
        assert not back.exists(), what  # no partial output
        with pytest.raises(InvalidTag):
            seal.decrypt(damaged, key_file=key)
    other = seal.KeyFile.generate("ascon-aead128")
    with pytest.raises(InvalidTag, match="wrong key file"):
        seal.decrypt(sealed, key_file=other)
    with pytest.raises(ValueError, match="key file is for xoodyak"):
        seal.decrypt(sealed, key_file=seal.KeyFile.generate("xoodyak"))
    with pytest.raises(ValueError, match="passphrase"):
        seal.decrypt(sealed, passphrase="not the way in")
    with pytest.raises(ValueError, match="not a cipherlab file"):
        seal.decrypt(b"plain text, not sealed at all", key_file=key)


def test_passphrases_and_options():
    data = os.urandom(10_000)
    sealed = seal.encrypt(data, passphrase="correct horse battery staple", cipher="xoodyak", chunk_kib=1, **FLOOR)
    assert seal.decrypt(sealed, passphrase=b"correct horse battery staple") == data
    with pytest.raises(InvalidTag, match="wrong passphrase"):
        seal.decrypt(sealed, passphrase="wrong horse battery staple")
    with pytest.raises(ValueError, match="below the floor"):
        seal.encrypt(data, passphrase="pw", argon2_memory_mib=8, argon2_passes=1)
    with pytest.raises(ValueError, match="limit"):
        seal.decrypt(sealed, passphrase="correct horse battery staple", argon2_max_memory_mib=8)
    with pytest.raises(ValueError, match="AEAD"):
        seal.encrypt(data, passphrase="pw", cipher="aes-128-cbc", **FLOOR)
    with pytest.raises(ValueError, match="not both"):
        seal.encrypt(data, passphrase="pw", key_file=seal.KeyFile.generate("xoodyak"))


def test_streams_carry_json(key):
    records = [{"patient": i, "reading": i * 1.5, "note": "x" * (i % 300)} for i in range(3000)]
    buf = io.BytesIO()
    with seal.SealWriter(buf, key_file=key) as w:
        for r in records:
            w.write(json.dumps(r).encode() + b"\n")
        assert w.cipher == "ascon-aead128"
    assert not buf.closed  # the underlying file stays open, as with gzip
    sealed = buf.getvalue()
    assert seal.decrypt(sealed, key_file=key).count(b"\n") == 3000
    r = seal.SealReader(io.BytesIO(sealed), key_file=key)
    back = [json.loads(line) for line in io.BufferedReader(r)]
    assert back == records
    bad = bytearray(sealed)
    bad[len(bad) // 2] ^= 4
    with pytest.raises(InvalidTag):
        seal.SealReader(io.BytesIO(bytes(bad)), key_file=key).read()


def test_unclosed_writer_is_not_a_valid_file(key):
    buf = io.BytesIO()
    w = seal.SealWriter(buf, key_file=key)
    w.write(b"half of the data")
    del w  # dropped without close(): the stream must not pass as complete
    with pytest.raises(InvalidTag, match="truncated"):
        seal.decrypt(buf.getvalue(), key_file=key)


def test_open_writes_whole_files_or_nothing(tmp_path, key):
    path = tmp_path / "doc.cl"
    with pytest.raises(RuntimeError):
        with seal.open(path, "wb", key_file=key) as f:
            f.write(b"part one")
            raise RuntimeError("the producer failed")
    assert list(tmp_path.iterdir()) == [key]  # nothing left, not even a temporary file
    with seal.open(path, "wb", key_file=key) as f:
        f.write(b"all of it")
    with seal.open(path, "rb", key_file=key) as f:
        assert f.read() == b"all of it"


def test_python_and_the_command_line_open_each_other(tmp_path, key, cli):
    data = os.urandom(150_000)
    plain = tmp_path / "plain.bin"
    plain.write_bytes(data)
    # The command line seals, Python opens.
    subprocess.run([cli, "encrypt", "--key-file", str(key), str(plain), "-o", str(tmp_path / "a.cl")], check=True)
    assert seal.decrypt((tmp_path / "a.cl").read_bytes(), key_file=key) == data
    env = dict(os.environ, CIPHERLAB_PASSPHRASE="a long enough passphrase")
    subprocess.run(
        [cli, "encrypt", "--passphrase", "--cipher", "isap-a-128a", "--argon2-memory", "19",
         "--argon2-passes", "2", str(plain), "-o", str(tmp_path / "b.cl")],
        check=True, env=env,
    )
    seal.decrypt_file(tmp_path / "b.cl", tmp_path / "b.bin", passphrase="a long enough passphrase")
    assert (tmp_path / "b.bin").read_bytes() == data
    # Python seals, the command line opens.
    seal.encrypt_file(plain, tmp_path / "c.cl", key_file=key)
    subprocess.run([cli, "decrypt", "--key-file", str(key), str(tmp_path / "c.cl"), "-o", str(tmp_path / "c.bin")], check=True)
    assert (tmp_path / "c.bin").read_bytes() == data
    (tmp_path / "d.cl").write_bytes(seal.encrypt(data, passphrase="a long enough passphrase", cipher="chacha20-poly1305", **FLOOR))
    subprocess.run([cli, "decrypt", "--passphrase", str(tmp_path / "d.cl"), "-o", str(tmp_path / "d.bin")], check=True, env=env)
    assert (tmp_path / "d.bin").read_bytes() == data
    # A key file made by `cipherlab keygen` loads in Python.
    subprocess.run([cli, "keygen", "--cipher", "xoodyak", "-o", str(tmp_path / "x.key")], check=True)
    assert seal.KeyFile.load(tmp_path / "x.key").cipher == "xoodyak"
    # A tampered file: the command line refuses it too (exit 1), and writes nothing.
    sealed = bytearray((tmp_path / "c.cl").read_bytes())
    sealed[-5] ^= 1
    (tmp_path / "e.cl").write_bytes(sealed)
    r = subprocess.run([cli, "decrypt", "--key-file", str(key), str(tmp_path / "e.cl"), "-o", str(tmp_path / "e.bin")])
    assert r.returncode == 1 and not (tmp_path / "e.bin").exists()
