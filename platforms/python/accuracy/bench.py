"""The accuracy check's reference for the Python runner: the runner's per-message calls
(cryptography, its default AES provider) timed by the standard library's timeit, one
call per repetition (timeit.repeat(number=1), the median call).
    .venv/bin/python accuracy/bench.py KEY IV NONCE CBC_INPUT GCM_INPUT"""
import json
import statistics
import sys
import timeit

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

key, iv, nonce = (bytes.fromhex(h) for h in sys.argv[1:4])
cbc_data = open(sys.argv[4], "rb").read()
gcm_data = open(sys.argv[5], "rb").read()


def cbc():
    padder = padding.PKCS7(128).padder()
    enc = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    return enc.update(padder.update(cbc_data) + padder.finalize()) + enc.finalize()


def gcm():
    return AESGCM(key).encrypt(nonce, gcm_data, b"")


for name, call, n in (("aes-128-cbc", cbc, 200), ("aes-128-gcm", gcm, 5000)):
    # "out = call()": the output is released when timeit's inner function returns, after
    # the clock is read, as the runner releases it before its next call.
    timeit.repeat("out = call()", globals={"call": call}, number=1, repeat=n)  # warm-up
    times = timeit.repeat("out = call()", globals={"call": call}, number=1, repeat=n)
    print(json.dumps({"case": name, "tool": "timeit (per call)", "median_ns": statistics.median(times) * 1e9}))
