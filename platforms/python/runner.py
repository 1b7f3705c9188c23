"""cipherlab's Python runner: `cryptography`, `pycryptodome`, the Ascon designers' `ascon`
package and cipherlab's own Python package (crates/python) behind the protocol of platforms/PROTOCOL.md (JSON lines on stdin and
stdout: the vector operations of `cipherlab vectors`, `info` and `time`)."""

import time

STARTED = time.perf_counter_ns()  # first line of code: start-up is measured from here

import hashlib  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402
from importlib import metadata  # noqa: E402


class Unsupported(Exception):
    """The provider lacks the algorithm, key size or mode."""


class AuthFailed(Exception):
    """The tag did not verify."""


# ---------------------------------------------------------------- catalogue names

BLOCK_MODES = ["ecb", "cbc", "cfb", "cfb8", "cfb1", "ofb", "ctr"]
LWC = {  # name -> key bytes (all take a 16-byte nonce and give a 16-byte tag)
    "ascon-aead128": 16, "ascon-128": 16, "ascon-128a": 16, "ascon-80pq": 20,
    "xoodyak": 16, "isap-a-128a": 16, "isap-a-128": 16, "isap-k-128a": 16, "isap-k-128": 16,
}
# The probe set of the last `info` request (PROTOCOL.md, "info"): per algorithm with many
# key sizes, the sizes to list it at ("bits") and the sizes its names may have ("range").
# Until an `info` brings one, such names are unsupported.
PROBE = {}


class Spec:
    """A parsed catalogue name: family, key bits, mode and the sizes that follow."""

    def __init__(self, name, family, bits, mode):
        self.name, self.family, self.bits, self.mode = name, family, bits, mode
        self.block = 16 if family == "aes" else 8
        self.aead = mode == "gcm" or family == "chacha20-poly1305" or family in LWC
        if family == "des":
            self.key_len = 8
        elif family == "3des":
            self.key_len = bits // 7
        elif family in LWC:
            self.key_len = LWC[family]
        else:
            self.key_len = bits // 8
        if family in LWC:
            self.iv_len = 16
        elif family == "chacha20-poly1305" or mode == "gcm":
            self.iv_len = 12
        elif mode in (None, "ecb"):
            self.iv_len = 0
        else:
            self.iv_len = self.block
        self.pads = mode in ("ecb", "cbc")


def parse(name):
    """The Spec of a canonical catalogue name; Unsupported for anything else."""
    if name in LWC or name == "chacha20-poly1305":
        return Spec(name, name, LWC.get(name, 32) * 8, None)
    modes = "|".join(BLOCK_MODES)
    m = re.fullmatch(rf"aes-(128|192|256)-({modes}|gcm)", name)
    if m:
        return Spec(name, "aes", int(m[1]), m[2])
    m = re.fullmatch(rf"(des|skipjack)-({modes})", name)
    if m:
        return Spec(name, m[1], 56 if m[1] == "des" else 80, m[2])
    m = re.fullmatch(rf"3des-(112|168)-({modes})", name)
    if m:
        return Spec(name, "3des", int(m[1]), m[2])
    m = re.fullmatch(rf"(blowfish|rc2)-(\d+)-({modes})", name) or re.fullmatch(r"(rc4)-(\d+)()", name)
    if m:
        lo, hi = PROBE.get(m[1], {}).get("range", (1, 0))
        bits = int(m[2])
        if lo <= bits <= hi and bits % 8 == 0 and m[2] == str(bits):
            return Spec(name, m[1], bits, m[3] or None)
    raise Unsupported()


def candidate_names():
    """Every canonical name a Python provider could have (probed at the first `info`)."""
    out = [f"aes-{b}-{m}" for b in (128, 192, 256) for m in BLOCK_MODES + ["gcm"]]
    out += [f"des-{m}" for m in BLOCK_MODES]
    out += [f"3des-{b}-{m}" for b in (112, 168) for m in BLOCK_MODES]
    for fam in ("blowfish", "rc2"):
        out += [f"{fam}-{b}-{m}" for b in PROBE.get(fam, {}).get("bits", []) for m in BLOCK_MODES]
    out += [f"skipjack-{m}" for m in BLOCK_MODES]
    out += [f"rc4-{b}" for b in PROBE.get("rc4", {}).get("bits", [])]
    return out + ["chacha20-poly1305"] + list(LWC)


# ---------------------------------------------------------------- providers
#
# A provider builds, for one spec, key, IV and AD, a function of the message that does
# what an application does per message: create and initialise the cipher, process,
# finish. `encryptor` returns ciphertext followed by the tag; `decryptor` takes the same
# and returns the plaintext or raises AuthFailed. `context` (where the library keeps a
# keyed object) returns a function of (iv, ad, data) that reuses the key schedule.


class Cryptography:
    name, library = "python-cryptography", "cryptography"

    def __init__(self):
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.decrepit.ciphers import algorithms as decrepit
        from cryptography.hazmat.decrepit.ciphers import modes as decrepit_modes
        from cryptography.hazmat.primitives import padding
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305

        self.InvalidTag, self.Cipher, self.padding = InvalidTag, Cipher, padding
        self.aeads = {"gcm": AESGCM, "chacha20-poly1305": ChaCha20Poly1305}
        self.algorithms = {
            "aes": algorithms.AES,
            # TripleDES with one 8-byte key is DES (K1 = K2 = K3); the library offers no
            # other DES.
            "des": decrepit.TripleDES,
            "3des": decrepit.TripleDES,
            "blowfish": decrepit.Blowfish,
            "rc2": getattr(decrepit, "RC2", None),
            "rc4": decrepit.ARC4,
        }
        # CFB, CFB8 and OFB now live in the library's "decrepit" corner.
        self.modes = {"ecb": lambda iv: modes.ECB(), "cbc": modes.CBC, "cfb": decrepit_modes.CFB,
                      "cfb8": decrepit_modes.CFB8, "ofb": decrepit_modes.OFB, "ctr": modes.CTR}
        self.version = metadata.version("cryptography")
        # The library warns (on every call) that 1- and 2-key TripleDES are deprecated; the
        # catalogue's des and 3des-112 are exactly those, on purpose.
        from cryptography.utils import CryptographyDeprecationWarning

        warnings.filterwarnings("ignore", category=CryptographyDeprecationWarning)

    def _aead(self, spec):
        return self.aeads.get("gcm" if spec.mode == "gcm" else spec.family)

    def _cipher(self, spec, key, iv, eff):
        algorithm = self.algorithms.get(spec.family)
        if algorithm is None or (spec.mode is not None and spec.mode not in self.modes):
            raise Unsupported()
        if spec.family == "rc2" and eff != 128:
            raise Unsupported()  # OpenSSL's RC2 here always uses 128 effective bits
        try:
            mode = self.modes[spec.mode](iv) if spec.mode else None
            return self.Cipher(algorithm(key), mode)
        except Exception as e:  # the library refused the algorithm, size or mode
            raise Unsupported() from e

    def encryptor(self, spec, key, iv, ad, pad, eff):
        aead = self._aead(spec)
        if aead:
            return lambda data: aead(key).encrypt(iv, data, ad)
        self._cipher(spec, key, iv, eff)  # refuse now what the library lacks
        Cipher, algorithm, mode = self.Cipher, self.algorithms[spec.family], self.modes.get(spec.mode)
        if pad:
            PKCS7 = self.padding.PKCS7
            bits = spec.block * 8

            def call(data):
                padder = PKCS7(bits).padder()
                enc = Cipher(algorithm(key), mode(iv)).encryptor()
                return enc.update(padder.update(data) + padder.finalize()) + enc.finalize()
            return call
        def stream(data):
            enc = Cipher(algorithm(key), mode(iv) if mode else None).encryptor()  # no mode: RC4
            return enc.update(data) + enc.finalize()
        return stream

    def decryptor(self, spec, key, iv, ad, pad, eff):
        aead = self._aead(spec)
        if aead:
            def open_(data):
                try:
                    return aead(key).decrypt(iv, data, ad)
                except self.InvalidTag:
                    raise AuthFailed()
            return open_
        self._cipher(spec, key, iv, eff)
        Cipher, algorithm, mode = self.Cipher, self.algorithms[spec.family], self.modes.get(spec.mode)
        if pad:
            PKCS7 = self.padding.PKCS7
            bits = spec.block * 8

            def call(data):
                dec = Cipher(algorithm(key), mode(iv)).decryptor()
                unpadder = PKCS7(bits).unpadder()
                padded = dec.update(data) + dec.finalize()
                return unpadder.update(padded) + unpadder.finalize()
            return call
        def stream(data):
            dec = Cipher(algorithm(key), mode(iv) if mode else None).decryptor()  # no mode: RC4
            return dec.update(data) + dec.finalize()
        return stream

    def context(self, spec, key, direction, pad, eff):
        aead = self._aead(spec)
        if not aead:
            return None
        keyed = aead(key)
        if direction == "encrypt":
            return lambda iv, ad, data: keyed.encrypt(iv, data, ad)
        return lambda iv, ad, data: keyed.decrypt(iv, data, ad)


class PyCryptodome:
    name, library = "python-pycryptodome", "pycryptodome"

    def __init__(self):
        from Crypto.Cipher import AES, ARC2, ARC4, DES, DES3, Blowfish, ChaCha20_Poly1305
        from Crypto.Util.Padding import pad, unpad

        self.pad, self.unpad = pad, unpad
        self.ChaCha = ChaCha20_Poly1305
        self.modules = {"aes": AES, "des": DES, "3des": DES3, "blowfish": Blowfish,
                        "rc2": ARC2, "rc4": ARC4}
        self.version = metadata.version("pycryptodome")

    def _factory(self, spec, key, iv, eff):
        """A function that makes a fresh cipher object for one message."""
        if spec.family == "chacha20-poly1305":
            ChaCha = self.ChaCha
            return lambda: ChaCha.new(key=key, nonce=iv)
        mod = self.modules.get(spec.family)
        if mod is None or spec.mode == "cfb1":  # segment sizes are whole bytes only
            raise Unsupported()
        if spec.family == "rc4":
            return lambda: mod.new(key)
        extra = {"effective_keylen": eff} if spec.family == "rc2" else {}
        mode = {"ecb": mod.MODE_ECB, "cbc": mod.MODE_CBC, "cfb": mod.MODE_CFB,
                "cfb8": mod.MODE_CFB, "ofb": mod.MODE_OFB, "ctr": mod.MODE_CTR,
                "gcm": getattr(mod, "MODE_GCM", None)}[spec.mode]
        if spec.mode == "ecb":
            args = {}
        elif spec.mode in ("cfb", "cfb8"):
            args = {"iv": iv, "segment_size": spec.block * 8 if spec.mode == "cfb" else 8}
        elif spec.mode == "ctr":  # the whole IV block is the big-endian counter
            args = {"nonce": b"", "initial_value": iv}
        elif spec.mode == "gcm":
            args = {"nonce": iv, "mac_len": 16}
        else:
            args = {"iv": iv}
        args.update(extra)
        try:
            mod.new(key, mode, **args)  # refuse now what the library lacks
        except ValueError as e:
            raise Unsupported() from e
        return lambda: mod.new(key, mode, **args)

    def encryptor(self, spec, key, iv, ad, pad, eff):
        new = self._factory(spec, key, iv, eff)
        if spec.aead:
            def seal(data):
                c = new()
                c.update(ad)
                ct, tag = c.encrypt_and_digest(data)
                return ct + tag
            return seal
        if pad:
            padf, block = self.pad, spec.block
            return lambda data: new().encrypt(padf(data, block))
        return lambda data: new().encrypt(data)

    def decryptor(self, spec, key, iv, ad, pad, eff):
        new = self._factory(spec, key, iv, eff)
        if spec.aead:
            def open_(data):
                if len(data) < 16:
                    raise ValueError("input shorter than the tag")
                c = new()
                c.update(ad)
                try:
                    return c.decrypt_and_verify(data[:-16], data[-16:])
                except ValueError:
                    raise AuthFailed()
            return open_
        if pad:
            unpadf, block = self.unpad, spec.block
            return lambda data: unpadf(new().decrypt(data), block)
        return lambda data: new().decrypt(data)

    def context(self, spec, key, direction, pad, eff):
        return None  # pycryptodome's cipher objects serve one message each


class Ascon:
    name, library = "python-ascon", "ascon"
    VARIANTS = {"ascon-128": "Ascon-128", "ascon-128a": "Ascon-128a", "ascon-80pq": "Ascon-80pq"}

    def __init__(self):
        import ascon

        self.ascon = ascon
        self.version = metadata.version("ascon")

    def encryptor(self, spec, key, iv, ad, pad, eff):
        variant = self.VARIANTS.get(spec.family)
        if variant is None:
            raise Unsupported()
        enc = self.ascon.encrypt
        return lambda data: enc(key, iv, ad, data, variant)

    def decryptor(self, spec, key, iv, ad, pad, eff):
        variant = self.VARIANTS.get(spec.family)
        if variant is None:
            raise Unsupported()
        dec = self.ascon.decrypt

        def open_(data):
            if len(data) < 16:
                raise ValueError("input shorter than the tag")
            pt = dec(key, iv, ad, data, variant)
            if pt is None:
                raise AuthFailed()
            return pt
        return open_

    def context(self, spec, key, direction, pad, eff):
        return None


class Cipherlab:
    """cipherlab's own Python package (crates/python; crates/python/setup installs its
    wheel into this runner's environment). The AEADs through their classes (the
    `AESGCM`-shaped API a Python user calls), everything else through `Cipher(name, key,
    iv)`, both with the catalogue's default (fastest correct) provider."""

    name, library = "python-cipherlab", "cipherlab"

    def __init__(self):
        import cipherlab

        self.InvalidTag, self.Cipher = cipherlab.InvalidTag, cipherlab.Cipher
        self.aeads = dict(cipherlab.AEADS)
        self.gcm = cipherlab.AESGCM
        self.version = metadata.version("cipherlab")
        # The catalogue warns on legacy and broken ciphers and ECB, as the command line
        # does; here they are measured on purpose.
        warnings.filterwarnings("ignore", category=cipherlab.LegacyCipherWarning)

    def _aead(self, spec):
        return self.gcm if spec.mode == "gcm" else self.aeads.get(spec.name)

    def _keyed(self, spec, key, iv, pad, eff):
        """A `Cipher` for the spec, or Unsupported."""
        extra = {"effective_bits": eff} if spec.family == "rc2" else {}
        try:
            return self.Cipher(spec.name, key, iv or None, padding="pkcs7" if pad else "none", **extra)
        except ValueError as e:  # a name or size the catalogue lacks
            raise Unsupported() from e

    def encryptor(self, spec, key, iv, ad, pad, eff):
        aead = self._aead(spec)
        if aead:
            return lambda data: aead(key).encrypt(iv, data, ad)
        self._keyed(spec, key, iv, pad, eff)  # refuse now what the catalogue lacks
        Cipher, extra = self.Cipher, ({"effective_bits": eff} if spec.family == "rc2" else {})
        padding = "pkcs7" if pad else "none"
        return lambda data: Cipher(spec.name, key, iv or None, padding=padding, **extra).encrypt(data)

    def decryptor(self, spec, key, iv, ad, pad, eff):
        aead = self._aead(spec)
        if aead:
            def open_(data):
                try:
                    return aead(key).decrypt(iv, data, ad)
                except self.InvalidTag:
                    raise AuthFailed()
            return open_
        self._keyed(spec, key, iv, pad, eff)
        Cipher, extra = self.Cipher, ({"effective_bits": eff} if spec.family == "rc2" else {})
        padding = "pkcs7" if pad else "none"
        return lambda data: Cipher(spec.name, key, iv or None, padding=padding, **extra).decrypt(data)

    def context(self, spec, key, direction, pad, eff):
        aead = self._aead(spec)
        if aead:
            keyed = aead(key)
            if direction == "encrypt":
                return lambda iv, ad, data: keyed.encrypt(iv, data, ad)
            return lambda iv, ad, data: keyed.decrypt(iv, data, ad)
        # The keyed Cipher takes a new IV per call (`iv=`); ECB and RC4 have none.
        keyed = self._keyed(spec, key, bytes(spec.iv_len), pad, eff)
        run = keyed.encrypt if direction == "encrypt" else keyed.decrypt
        if spec.iv_len:
            return lambda iv, ad, data: run(data, iv=iv)
        return lambda iv, ad, data: run(data)


def load_providers():
    out = []
    for cls in (Cryptography, PyCryptodome, Ascon, Cipherlab):
        try:
            out.append(cls())
        except ImportError as e:
            setup = "crates/python/setup" if cls is Cipherlab else "platforms/setup"
            print(f"python runner: {cls.library} is not installed ({e}); bash {setup} installs it",
                  file=sys.stderr)
    return out


PROVIDERS = load_providers()


def probe(provider, name):
    """Whether the provider serves `name`: one round trip with a fixed key."""
    spec = parse(name)
    key, iv = bytes(i % 251 + 1 for i in range(spec.key_len)), bytes(spec.iv_len)
    eff = min(spec.bits, 1024)
    try:
        enc = provider.encryptor(spec, key, iv, b"", spec.pads, eff)(b"0123456789abcdef")
        return provider.decryptor(spec, key, iv, b"", spec.pads, eff)(enc) == b"0123456789abcdef"
    except Exception:
        return False


READY = time.perf_counter_ns()
LISTED = {}  # probe set (as JSON) -> provider name -> the algorithms it serves
PROBING_NS = 0  # the first probing, counted into the start-up


def set_probe(p):
    """Takes the probe set of an `info` request (None: the one before stays)."""
    global PROBE
    if p is None:
        return
    if not isinstance(p, dict):
        raise ValueError('"probe" must be an object')
    nxt = {}
    for fam, v in p.items():
        ints = lambda a: isinstance(a, list) and all(type(b) is int and b > 0 for b in a)
        if not isinstance(v, dict) or not ints(v.get("bits")) or not ints(v.get("range")) \
                or len(v["range"]) != 2:
            raise ValueError(f'"probe"."{fam}" must be {{"bits": [...], "range": [lo, hi]}}')
        nxt[fam] = {"bits": v["bits"], "range": tuple(v["range"])}
    PROBE = nxt


def algorithms():
    """Per provider, the algorithms it serves at the current probe set."""
    global PROBING_NS
    key = json.dumps(PROBE, sort_keys=True)
    if key not in LISTED:
        t0 = time.perf_counter_ns()
        LISTED[key] = {p.name: [n for n in candidate_names() if probe(p, n)] for p in PROVIDERS}
        if len(LISTED) == 1:
            PROBING_NS = time.perf_counter_ns() - t0
    return LISTED[key]


# ---------------------------------------------------------------- requests

CIPHER_FIELDS = {"id", "alg", "op", "key", "iv", "nonce", "ad", "padding", "effective_bits", "provider"}
ALLOWED = {
    "encrypt": CIPHER_FIELDS | {"pt"},
    "decrypt": CIPHER_FIELDS | {"ct", "tag"},
    "time": CIPHER_FIELDS | {"direction", "input", "reps", "warmup", "reuse", "expect"},
    "info": {"id", "op", "probe"},
}


def hexfield(req, name, required=True):
    if name not in req:
        if required:
            raise ValueError(f'missing field "{name}"')
        return b""
    try:
        return bytes.fromhex(req[name])
    except (ValueError, TypeError):
        raise ValueError(f'field "{name}" is not hex')


def prepare(req):
    """Provider, spec and the checked key, IV, AD, padding and RC2 effective bits."""
    spec = parse(req.get("alg", ""))
    wanted = req.get("provider")
    candidates = [p for p in PROVIDERS if wanted in (None, p.name)]
    if wanted is not None and not candidates:
        raise Unsupported()
    listed = algorithms()
    served = [p for p in candidates if spec.name in listed[p.name]] or candidates
    if not served:
        raise Unsupported()
    provider = served[0]
    key = hexfield(req, "key")
    if "iv" in req and "nonce" in req:
        raise ValueError('give "iv" or "nonce", not both')
    iv = hexfield(req, "iv" if "iv" in req else "nonce", required=False)
    ad = hexfield(req, "ad", required=False)
    if len(key) != spec.key_len:
        raise ValueError(f"key must be {spec.key_len} bytes, got {len(key)}")
    if len(iv) != spec.iv_len:
        raise ValueError(f"iv/nonce must be {spec.iv_len} bytes, got {len(iv)}")
    if ad and not spec.aead:
        raise ValueError(f"{spec.name} takes no associated data")
    padding = req.get("padding", "pkcs7")
    if padding not in ("pkcs7", "pkcs5", "none"):
        raise ValueError(f'padding "{padding}" is not pkcs7 or none')
    pad = spec.pads and padding != "none"
    eff = req.get("effective_bits", min(spec.bits, 1024))
    if eff != min(spec.bits, 1024) and spec.family != "rc2":
        raise ValueError("effective_bits is for rc2 only")
    return provider, spec, key, iv, ad, pad, eff


def check_length(spec, pad, n):
    if spec.mode in ("ecb", "cbc") and not pad and n % spec.block:
        raise ValueError(f"without padding the input must be whole {spec.block}-byte blocks")


def serve_vector(req):
    provider, spec, key, iv, ad, pad, eff = prepare(req)
    if req["op"] == "encrypt":
        pt = hexfield(req, "pt")
        check_length(spec, pad, len(pt))
        out = provider.encryptor(spec, key, iv, ad, pad, eff)(pt)
        if spec.aead:
            return {"ct": out[:-16].hex(), "tag": out[-16:].hex()}
        return {"ct": out.hex()}
    ct = hexfield(req, "ct")
    if spec.aead:
        tag = hexfield(req, "tag")
        if len(tag) != 16:
            raise ValueError(f"tag must be 16 bytes, got {len(tag)}")
        ct += tag
    elif "tag" in req:
        raise ValueError(f"{spec.name} has no tag")
    check_length(spec, pad, len(ct))
    return {"pt": provider.decryptor(spec, key, iv, ad, pad, eff)(ct).hex()}


def drift_of(samples):
    """Median of the last quarter over the quarter before it, minus one."""
    q = len(samples) // 4
    if len(samples) < 8:
        return 0.0
    return statistics.median(samples[-q:]) / max(statistics.median(samples[-2 * q:-q]), 1) - 1


def serve_time(req):
    provider, spec, key, iv, ad, pad, eff = prepare(req)
    direction = req.get("direction")
    if direction not in ("encrypt", "decrypt"):
        raise ValueError('direction must be "encrypt" or "decrypt"')
    reps = req.get("reps")
    if not isinstance(reps, int) or not 1 <= reps <= 1_000_000:
        raise ValueError("reps must be 1 to 1000000")
    warmup = req.get("warmup", 0)
    if warmup != "steady" and (not isinstance(warmup, int) or warmup < 0):
        raise ValueError('warmup must be a count or "steady"')
    with open(req.get("input", ""), "rb") as f:
        plain = f.read()
    check_length(spec, pad, len(plain))
    encrypt = provider.encryptor(spec, key, iv, ad, pad, eff)
    if direction == "encrypt":
        data, call = plain, encrypt
        expect = req.get("expect")
    else:
        data = encrypt(plain)
        call = provider.decryptor(spec, key, iv, ad, pad, eff)
        expect = hashlib.sha256(plain).hexdigest()
    if req.get("reuse", False):
        ctx = provider.context(spec, key, direction, pad, eff)
        if ctx is None:
            raise ValueError("reuse unsupported")
        call = lambda data, ctx=ctx: ctx(iv, ad, data)  # noqa: E731
    clock = time.perf_counter_ns
    t = clock()
    out = call(data)
    first_call = clock() - t
    got = hashlib.sha256(out).hexdigest()
    if expect is not None and got != expect.lower():
        raise ValueError(f"digest mismatch: got {got}, expected {expect}; nothing timed")

    warm_start, warm_calls, steady_warmup = clock(), 0, True
    if warmup == "steady":
        previous, batch = None, 10
        while True:
            times = []
            for _ in range(batch):
                t = clock()
                call(data)
                times.append(clock() - t)
            warm_calls += batch
            median = statistics.median(times)
            if previous is not None and warm_calls >= 3 * batch and abs(median / previous - 1) <= 0.02:
                break
            if clock() - warm_start > 30_000_000_000:
                steady_warmup = False
                break
            previous = median
    else:
        for _ in range(warmup):
            call(data)
        warm_calls = warmup
    warmup_ns = clock() - warm_start

    samples = [0] * reps
    sink = 0
    for i in range(reps):
        out = None  # the previous output is released before the clock starts
        t = clock()
        out = call(data)
        samples[i] = clock() - t
        sink ^= len(out)
    # The last timed output must be the verified one: a context that breaks after its
    # first use is not timed (PROTOCOL.md, `time`).
    last = hashlib.sha256(out).hexdigest()
    if last != got:
        raise ValueError(f"digest mismatch after timing: the last timed output's SHA-256 is {last}, "
                         f"expected {got}; figure refused")
    drift = drift_of(samples)
    return {"samples_ns": samples, "digest": last, "out_len": len(out),
            "first_call_ns": first_call, "warmup_calls": warm_calls, "warmup_ns": warmup_ns,
            "steady_warmup": steady_warmup, "steady": abs(drift) <= 0.05, "drift": drift,
            **run_facts(), "provider": provider.name, "library_version": provider.version}


def run_facts():
    return {"startup_ns": READY - STARTED + PROBING_NS, "clock": "time.perf_counter_ns",
            "runtime": "python", "runtime_version": platform.python_version()}


def info(req):
    set_probe(req.get("probe"))
    listed = algorithms()
    facts = run_facts()
    return {"runtime": "python", "version": facts["runtime_version"], "startup_ns": facts["startup_ns"],
            "clock": facts["clock"],
            "providers": [{"name": p.name, "library": p.library, "version": p.version,
                           "algorithms": listed[p.name]} for p in PROVIDERS]}


def answer(req):
    op = req.get("op")
    if op == "hash":
        raise Unsupported()
    if op not in ALLOWED:
        raise ValueError(f'op "{op}" is not one of encrypt, decrypt, time, info')
    unknown = sorted(set(req) - ALLOWED[op])
    if unknown:
        raise ValueError(f'field(s) {", ".join(unknown)} not used by op "{op}"')
    if op == "info":
        return info(req)
    if op == "time":
        return serve_time(req)
    return serve_vector(req)


def main():
    malformed = 0
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            if not isinstance(req, dict):
                raise ValueError("not a JSON object")
        except ValueError as e:
            malformed += 1
            reply = {"error": f"not JSON: {e}"}
        else:
            reply = {"id": req["id"]} if "id" in req else {}
            try:
                reply.update(answer(req))
            except Unsupported:
                reply["error"] = "unsupported"
            except AuthFailed:
                reply["error"] = "authentication failed"
            except Exception as e:  # any other refusal answers on its line
                reply["error"] = str(e) or type(e).__name__
        sys.stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        sys.stdout.flush()
    return 1 if malformed else 0


if __name__ == "__main__":
    sys.exit(main())
