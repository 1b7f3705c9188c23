// The accuracy check's reference for the Node.js runner: the runner's per-message calls
// timed by a plain process.hrtime.bigint loop around each call (the median call).
//   node --openssl-legacy-provider bench.js KEY IV NONCE CBC_INPUT GCM_INPUT
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const [key, iv, nonce] = process.argv.slice(2, 5).map((h) => Buffer.from(h, 'hex'));
const cbcData = fs.readFileSync(process.argv[5]);
const gcmData = fs.readFileSync(process.argv[6]);
let sink = 0;
const cases = {
  'aes-128-cbc': [cbcData, (d) => { const c = crypto.createCipheriv('aes-128-cbc', key, iv); return Buffer.concat([c.update(d), c.final()]); }],
  'aes-128-gcm': [gcmData, (d) => { const c = crypto.createCipheriv('aes-128-gcm', key, nonce, { authTagLength: 16 }); const ct = c.update(d); const f = c.final(); return Buffer.concat([ct, f, c.getAuthTag()]); }],
};
for (const [name, [data, call]] of Object.entries(cases)) {
  const n = name === 'aes-128-cbc' ? 200 : 5000;
  for (let i = 0; i < n; i++) sink ^= call(data).length; // warm-up
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    sink ^= call(data).length;
    times.push(Number(process.hrtime.bigint() - t));
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ case: name, tool: 'process.hrtime.bigint loop (per call)', median_ns: times[n / 2], sink }));
}
