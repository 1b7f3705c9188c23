// cipherlab's Node.js runner: node:crypto (the OpenSSL built into Node, its legacy
// provider loaded by `run` for DES, Blowfish, RC2 and RC4) behind the protocol of
// platforms/PROTOCOL.md (JSON lines on stdin and stdout: the vector operations of
// `cipherlab vectors`, `info` and `time`).
'use strict';

const STARTED = process.hrtime.bigint(); // first line of code: start-up is measured from here

const crypto = require('node:crypto');
const fs = require('node:fs');
const readline = require('node:readline');

class Unsupported extends Error {}
class AuthFailed extends Error {}

// ------------------------------------------------------------------ catalogue names

const BLOCK_MODES = ['ecb', 'cbc', 'cfb', 'cfb8', 'cfb1', 'ofb', 'ctr'];
// The probe set of the last `info` request (PROTOCOL.md, "info"): per algorithm with many
// key sizes, the sizes to list it at (`bits`) and the sizes its names may have (`range`).
// Until an `info` brings one, such names are unsupported.
let PROBE = {};

/** The parsed catalogue name: family, key bits, mode and the sizes that follow. */
function parse(name) {
  const modes = BLOCK_MODES.join('|');
  let m;
  const spec = (family, bits, mode) => {
    const block = family === 'aes' ? 16 : 8;
    const aead = mode === 'gcm' || family === 'chacha20-poly1305';
    const keyLen = family === 'des' ? 8 : family === '3des' ? bits / 7 : bits / 8;
    const ivLen = aead ? 12 : mode === null || mode === 'ecb' ? 0 : block;
    return { name, family, bits, mode, block, aead, keyLen, ivLen, pads: mode === 'ecb' || mode === 'cbc' };
  };
  if (name === 'chacha20-poly1305') return spec(name, 256, null);
  if ((m = new RegExp(`^aes-(128|192|256)-(${modes}|gcm)$`).exec(name))) return spec('aes', +m[1], m[2]);
  if ((m = new RegExp(`^des-(${modes})$`).exec(name))) return spec('des', 56, m[1]);
  if ((m = new RegExp(`^3des-(112|168)-(${modes})$`).exec(name))) return spec('3des', +m[1], m[2]);
  m = new RegExp(`^(blowfish|rc2)-([1-9][0-9]*)-(${modes})$`).exec(name) || /^(rc4)-([1-9][0-9]*)()$/.exec(name);
  if (m) {
    const [lo, hi] = (PROBE[m[1]] || {}).range || [1, 0];
    const bits = +m[2];
    if (bits >= lo && bits <= hi && bits % 8 === 0) return spec(m[1], bits, m[3] || null);
  }
  throw new Unsupported();
}

function candidateNames() {
  const out = [];
  for (const b of [128, 192, 256]) for (const m of [...BLOCK_MODES, 'gcm']) out.push(`aes-${b}-${m}`);
  for (const m of BLOCK_MODES) out.push(`des-${m}`);
  for (const b of [112, 168]) for (const m of BLOCK_MODES) out.push(`3des-${b}-${m}`);
  const bits = (fam) => (PROBE[fam] || {}).bits || [];
  for (const fam of ['blowfish', 'rc2']) for (const b of bits(fam)) for (const m of BLOCK_MODES) out.push(`${fam}-${b}-${m}`);
  for (const b of bits('rc4')) out.push(`rc4-${b}`);
  out.push('chacha20-poly1305');
  return out;
}

/** OpenSSL's name for a spec (null: OpenSSL has no such cipher). */
function opensslName(spec) {
  const mode = spec.mode;
  switch (spec.family) {
    case 'aes': return `aes-${spec.bits}-${mode}`;
    case 'des': return `des-${mode}`;
    case '3des': return `${spec.bits === 168 ? 'des-ede3' : 'des-ede'}-${mode}`;
    case 'blowfish': return `bf-${mode}`;
    case 'rc2': return `rc2-${mode}`;
    case 'rc4': return 'rc4';
    case 'chacha20-poly1305': return 'chacha20-poly1305';
  }
  return null;
}

// ------------------------------------------------------------------ the provider
//
// `encryptor` and `decryptor` build, for one spec, key, IV and AD, a function of the
// message that does what an application does per message: create and initialise the
// cipher, process, finish. Encryption returns ciphertext followed by the tag.

/** OpenSSL's name for a spec with the RC2 effective bits asked for. */
function cipherName(spec, eff) {
  if (spec.family !== 'rc2' || eff === 128) return opensslName(spec);
  // OpenSSL's RC2 uses 128 effective key bits, except its rc2-40-cbc and rc2-64-cbc.
  if (spec.mode === 'cbc' && (eff === 40 || eff === 64) && spec.bits === eff) return `rc2-${eff}-cbc`;
  throw new Unsupported();
}

function encryptor(spec, key, iv, ad, pad, eff) {
  const name = cipherName(spec, eff);
  const ivArg = spec.ivLen ? iv : null;
  try {
    crypto.createCipheriv(name, key, ivArg, spec.aead ? { authTagLength: 16 } : undefined);
  } catch (e) {
    throw new Unsupported();
  }
  if (spec.aead) {
    return (data) => {
      const c = crypto.createCipheriv(name, key, iv, { authTagLength: 16 });
      c.setAAD(ad);
      const ct = c.update(data);
      const fin = c.final();
      return Buffer.concat([ct, fin, c.getAuthTag()]);
    };
  }
  return (data) => {
    const c = crypto.createCipheriv(name, key, ivArg);
    if (!pad) c.setAutoPadding(false);
    return Buffer.concat([c.update(data), c.final()]);
  };
}

function decryptor(spec, key, iv, ad, pad, eff) {
  const name = cipherName(spec, eff);
  encryptor(spec, key, iv, ad, pad, eff); // refuse now what OpenSSL lacks
  const ivArg = spec.ivLen ? iv : null;
  if (spec.aead) {
    return (data) => {
      if (data.length < 16) throw new Error('input shorter than the tag');
      const d = crypto.createDecipheriv(name, key, iv, { authTagLength: 16 });
      d.setAAD(ad);
      d.setAuthTag(data.subarray(data.length - 16));
      const pt = d.update(data.subarray(0, data.length - 16));
      try {
        return Buffer.concat([pt, d.final()]);
      } catch (e) {
        throw new AuthFailed();
      }
    };
  }
  return (data) => {
    const d = crypto.createDecipheriv(name, key, ivArg);
    if (!pad) d.setAutoPadding(false);
    return Buffer.concat([d.update(data), d.final()]);
  };
}

function probe(name) {
  try {
    const spec = parse(name);
    const key = Buffer.alloc(spec.keyLen, 0).map((_, i) => (i % 251) + 1);
    const iv = Buffer.alloc(spec.ivLen);
    const msg = Buffer.from('0123456789abcdef');
    const eff = Math.min(spec.bits, 1024);
    const ct = encryptor(spec, key, iv, Buffer.alloc(0), spec.pads, eff)(msg);
    return decryptor(spec, key, iv, Buffer.alloc(0), spec.pads, eff)(ct).equals(msg);
  } catch (e) {
    return false;
  }
}

const PROVIDER = { name: 'node', library: 'OpenSSL (node:crypto)', version: process.versions.openssl };
const READY = process.hrtime.bigint();
// The algorithms listed, per probe set; the first probing counts into the start-up.
const LISTED = new Map();
let probingNs = 0n;

/** Takes the probe set of an `info` request (absent: the one before stays). */
function setProbe(p) {
  if (p === undefined) return;
  if (p === null || typeof p !== 'object' || Array.isArray(p)) throw new Error('"probe" must be an object');
  const next = {};
  for (const [fam, v] of Object.entries(p)) {
    const ints = (a) => Array.isArray(a) && a.every((b) => Number.isInteger(b) && b > 0);
    if (!v || !ints(v.bits) || !ints(v.range) || v.range.length !== 2) {
      throw new Error(`"probe"."${fam}" must be {"bits": [...], "range": [lo, hi]}`);
    }
    next[fam] = { bits: v.bits, range: v.range };
  }
  PROBE = next;
}

function algorithms() {
  const key = JSON.stringify(PROBE);
  if (!LISTED.has(key)) {
    const t0 = process.hrtime.bigint();
    LISTED.set(key, candidateNames().filter(probe));
    if (LISTED.size === 1) probingNs = process.hrtime.bigint() - t0;
  }
  return LISTED.get(key);
}

// ------------------------------------------------------------------ requests

const CIPHER_FIELDS = ['id', 'alg', 'op', 'key', 'iv', 'nonce', 'ad', 'padding', 'effective_bits', 'provider'];
const ALLOWED = {
  encrypt: [...CIPHER_FIELDS, 'pt'],
  decrypt: [...CIPHER_FIELDS, 'ct', 'tag'],
  time: [...CIPHER_FIELDS, 'direction', 'input', 'reps', 'warmup', 'reuse', 'expect'],
  info: ['id', 'op', 'probe'],
};

function hexField(req, name, required = true) {
  if (!(name in req)) {
    if (required) throw new Error(`missing field "${name}"`);
    return Buffer.alloc(0);
  }
  const v = req[name];
  if (typeof v !== 'string' || v.length % 2 || !/^[0-9a-fA-F]*$/.test(v)) throw new Error(`field "${name}" is not hex`);
  return Buffer.from(v, 'hex');
}

function prepare(req) {
  const spec = parse(String(req.alg));
  if (req.provider !== undefined && req.provider !== PROVIDER.name) throw new Unsupported();
  const key = hexField(req, 'key');
  if ('iv' in req && 'nonce' in req) throw new Error('give "iv" or "nonce", not both');
  const iv = hexField(req, 'iv' in req ? 'iv' : 'nonce', false);
  const ad = hexField(req, 'ad', false);
  if (key.length !== spec.keyLen) throw new Error(`key must be ${spec.keyLen} bytes, got ${key.length}`);
  if (iv.length !== spec.ivLen) throw new Error(`iv/nonce must be ${spec.ivLen} bytes, got ${iv.length}`);
  if (ad.length && !spec.aead) throw new Error(`${spec.name} takes no associated data`);
  const padding = req.padding === undefined ? 'pkcs7' : req.padding;
  if (!['pkcs7', 'pkcs5', 'none'].includes(padding)) throw new Error(`padding "${padding}" is not pkcs7 or none`);
  const pad = spec.pads && padding !== 'none';
  const eff = req.effective_bits === undefined ? Math.min(spec.bits, 1024) : req.effective_bits;
  if (eff !== Math.min(spec.bits, 1024) && spec.family !== 'rc2') throw new Error('effective_bits is for rc2 only');
  return { spec, key, iv, ad, pad, eff };
}

function checkLength(spec, pad, n) {
  if (spec.pads && !pad && n % spec.block) throw new Error(`without padding the input must be whole ${spec.block}-byte blocks`);
}

function serveVector(req) {
  const { spec, key, iv, ad, pad, eff } = prepare(req);
  if (req.op === 'encrypt') {
    const pt = hexField(req, 'pt');
    checkLength(spec, pad, pt.length);
    const out = encryptor(spec, key, iv, ad, pad, eff)(pt);
    if (spec.aead) return { ct: out.subarray(0, out.length - 16).toString('hex'), tag: out.subarray(out.length - 16).toString('hex') };
    return { ct: out.toString('hex') };
  }
  let ct = hexField(req, 'ct');
  if (spec.aead) {
    const tag = hexField(req, 'tag');
    if (tag.length !== 16) throw new Error(`tag must be 16 bytes, got ${tag.length}`);
    ct = Buffer.concat([ct, tag]);
  } else if ('tag' in req) {
    throw new Error(`${spec.name} has no tag`);
  }
  checkLength(spec, pad, ct.length);
  return { pt: decryptor(spec, key, iv, ad, pad, eff)(ct).toString('hex') };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const sha256 = (b) => crypto.createHash('sha256').update(b).digest('hex');

/** Median of the last quarter over the quarter before it, minus one. */
function driftOf(samples) {
  if (samples.length < 8) return 0;
  const q = Math.floor(samples.length / 4);
  const n = samples.length;
  return median(samples.slice(n - q)) / Math.max(median(samples.slice(n - 2 * q, n - q)), 1) - 1;
}

function serveTime(req) {
  const { spec, key, iv, ad, pad, eff } = prepare(req);
  const direction = req.direction;
  if (direction !== 'encrypt' && direction !== 'decrypt') throw new Error('direction must be "encrypt" or "decrypt"');
  const reps = req.reps;
  if (!Number.isInteger(reps) || reps < 1 || reps > 1000000) throw new Error('reps must be 1 to 1000000');
  const warmup = req.warmup === undefined ? 0 : req.warmup;
  if (warmup !== 'steady' && !(Number.isInteger(warmup) && warmup >= 0)) throw new Error('warmup must be a count or "steady"');
  if (req.reuse) throw new Error('reuse unsupported'); // a node:crypto Cipher serves one message
  const plain = fs.readFileSync(String(req.input));
  checkLength(spec, pad, plain.length);
  const encrypt = encryptor(spec, key, iv, ad, pad, eff);
  let data, call, expect;
  if (direction === 'encrypt') {
    [data, call, expect] = [plain, encrypt, req.expect];
  } else {
    [data, call, expect] = [encrypt(plain), decryptor(spec, key, iv, ad, pad, eff), sha256(plain)];
  }
  const clock = process.hrtime.bigint;
  let t = clock();
  let out = call(data);
  const firstCall = Number(clock() - t);
  const got = sha256(out);
  if (expect !== undefined && got !== String(expect).toLowerCase()) {
    throw new Error(`digest mismatch: got ${got}, expected ${expect}; nothing timed`);
  }

  const warmStart = clock();
  let warmCalls = 0;
  let steadyWarmup = true;
  if (warmup === 'steady') {
    const batch = 10;
    let previous = null;
    for (;;) {
      const times = [];
      for (let i = 0; i < batch; i++) {
        t = clock();
        call(data);
        times.push(Number(clock() - t));
      }
      warmCalls += batch;
      const m = median(times);
      if (previous !== null && warmCalls >= 3 * batch && Math.abs(m / previous - 1) <= 0.02) break;
      if (clock() - warmStart > 30000000000n) {
        steadyWarmup = false;
        break;
      }
      previous = m;
    }
  } else {
    for (let i = 0; i < warmup; i++) call(data);
    warmCalls = warmup;
  }
  const warmupNs = Number(clock() - warmStart);

  const samples = new Array(reps);
  let sink = 0;
  for (let i = 0; i < reps; i++) {
    out = null; // the previous output is released before the clock starts
    t = clock();
    out = call(data);
    samples[i] = Number(clock() - t);
    sink ^= out.length;
  }
  if (sink === -1) process.stderr.write(''); // keeps `sink` alive
  // The last timed output must be the verified one: a context that breaks after its
  // first use is not timed (PROTOCOL.md, `time`).
  const last = sha256(out);
  if (last !== got) {
    throw new Error(`digest mismatch after timing: the last timed output's SHA-256 is ${last}, expected ${got}; figure refused`);
  }
  const drift = driftOf(samples);
  return {
    samples_ns: samples, digest: last, out_len: out.length, first_call_ns: firstCall,
    warmup_calls: warmCalls, warmup_ns: warmupNs, steady_warmup: steadyWarmup,
    steady: Math.abs(drift) <= 0.05, drift, ...runFacts(), provider: PROVIDER.name, library_version: PROVIDER.version,
  };
}

function runFacts() {
  return { startup_ns: Number(READY - STARTED + probingNs), clock: 'process.hrtime.bigint', runtime: 'node', runtime_version: process.versions.node };
}

function info(req) {
  setProbe(req.probe);
  const algs = algorithms();
  const f = runFacts();
  return { runtime: 'node', version: f.runtime_version, startup_ns: f.startup_ns, clock: f.clock, providers: [{ ...PROVIDER, algorithms: algs }] };
}

function answer(req) {
  const op = req.op;
  if (op === 'hash') throw new Unsupported();
  if (!(op in ALLOWED)) throw new Error(`op "${op}" is not one of encrypt, decrypt, time, info`);
  const unknown = Object.keys(req).filter((k) => !ALLOWED[op].includes(k)).sort();
  if (unknown.length) throw new Error(`field(s) ${unknown.join(', ')} not used by op "${op}"`);
  if (op === 'info') return info(req);
  if (op === 'time') return serveTime(req);
  return serveVector(req);
}

let malformed = 0;
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  if (!line.trim()) return;
  let reply;
  let req;
  try {
    req = JSON.parse(line);
    if (req === null || typeof req !== 'object' || Array.isArray(req)) throw new Error('not a JSON object');
  } catch (e) {
    malformed += 1;
    process.stdout.write(JSON.stringify({ error: `not JSON: ${e.message}` }) + '\n');
    return;
  }
  reply = 'id' in req ? { id: req.id } : {};
  try {
    Object.assign(reply, answer(req));
  } catch (e) {
    reply.error = e instanceof Unsupported ? 'unsupported' : e instanceof AuthFailed ? 'authentication failed' : e.message;
  }
  process.stdout.write(JSON.stringify(reply) + '\n');
});
rl.on('close', () => {
  process.exitCode = malformed ? 1 : 0;
});
