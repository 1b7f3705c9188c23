#!/usr/bin/env python3
"""A runner of the user's for the tests (platforms/PROTOCOL.md): `info` lists one
provider, the vector operations are answered by `cipherlab vectors` (a child process),
and `time` checks its verification call and answers made-up samples. Options make it
misbehave as the tests need:

  --cipherlab PATH     the cipherlab binary answering the vectors (required)
  --provider NAME      the provider's name (default: go, a built-in runner's)
  --algs A,B           the algorithms it lists (default: aes-128-cbc)
  --runtime NAME       the runtime it reports (default: proxy)
  --hang-on OP         on the first request of that op: a line on stderr, then no answer
  --wrong-digest       `time` encrypt answers a digest that is not the last output's
  --ctr32              CTR with a 32-bit counter: wrong where the IV's low 32 bits wrap
"""
import argparse, hashlib, json, random, subprocess, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("--cipherlab", required=True)
ap.add_argument("--provider", default="go")
ap.add_argument("--algs", default="aes-128-cbc")
ap.add_argument("--runtime", default="proxy")
ap.add_argument("--hang-on")
ap.add_argument("--wrong-digest", action="store_true")
ap.add_argument("--ctr32", action="store_true")
opts = ap.parse_args()
algs = opts.algs.split(",")
vectors = subprocess.Popen([opts.cipherlab, "vectors"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True)


def cipherlab(req):
    vectors.stdin.write(json.dumps(req) + "\n")
    vectors.stdin.flush()
    return json.loads(vectors.stdout.readline())


def answer(req):
    op = req.get("op")
    if op == opts.hang_on:
        print(f"proxy: stuck on a {op} request", file=sys.stderr, flush=True)
        time.sleep(3600)
    if op == "info":
        return {"runtime": opts.runtime, "version": "0.1", "startup_ns": 1000,
                "clock": "time.perf_counter_ns",
                "providers": [{"name": opts.provider, "library": "cipherlab vectors",
                               "version": "1", "algorithms": algs}]}
    if req.get("provider", opts.provider) != opts.provider or req.get("alg") not in algs:
        return {"error": "unsupported"}
    req.pop("provider", None)
    if op in ("encrypt", "decrypt"):
        a = cipherlab(req)
        iv = req.get("iv", "")
        if opts.ctr32 and req["alg"].endswith("-ctr") and iv.lower().endswith("fffffffe"):
            # A counter that wraps within its low 32 bits: the third block on is wrong.
            field = "ct" if op == "encrypt" else "pt"
            if len(a.get(field, "")) > 64:
                a[field] = a[field][:64] + ("00" if a[field][64:66] != "00" else "01") + a[field][66:]
        return a
    if op == "time":
        with open(req["input"], "rb") as f:
            data = f.read()
        enc = {"op": "encrypt", "alg": req["alg"], "key": req["key"], "pt": data.hex()}
        for k in ("iv", "nonce", "ad", "padding"):
            if k in req:
                enc[k] = req[k]
        a = cipherlab(enc)
        if "error" in a:
            return a
        out = bytes.fromhex(a["ct"] + a.get("tag", ""))
        if req["direction"] == "encrypt":
            digest = hashlib.sha256(out).hexdigest()
            if "expect" in req and req["expect"] != digest:
                return {"error": "digest mismatch: verification call"}
            if opts.wrong_digest:
                digest = hashlib.sha256(b"not the output").hexdigest()
        else:
            digest = hashlib.sha256(data).hexdigest()
            out = data
        n = int(req["reps"])
        base = 1000 + len(data)
        samples = [int(base * random.uniform(0.99, 1.01)) for _ in range(n)]
        return {"samples_ns": samples, "digest": digest, "out_len": len(out),
                "first_call_ns": base * 10, "warmup_calls": 0, "warmup_ns": 0,
                "steady_warmup": True, "steady": True, "drift": 0.0, "startup_ns": 1000,
                "clock": "time.perf_counter_ns", "runtime": opts.runtime,
                "runtime_version": "0.1", "provider": opts.provider, "library_version": "1"}
    return {"error": f"unknown op {op}"}


for line in sys.stdin:
    req = json.loads(line)
    a = answer(dict(req))
    if "id" in req:
        a["id"] = req["id"]
    print(json.dumps(a), flush=True)
