'use strict';
// The real server of the tests that need one (tournaments, matches,
// replay, the witness's cosignatures: the fake has none of them); not a
// test itself (`npm test` runs test/*.test.js). FELTLINE_TEST_SERVER names
// one (JSON: target, admin token, player tokens, and over TLS `tls`, the
// paths of the CA's certificate and of a client certificate and key), as
// in CI; else tests/client/real_server.py is started for the test, and
// stopped after it. FELTLINE_PYTHON picks the Python (default: the
// workspace's .venv, made by `uv sync`).

const { spawn } = require('node:child_process');
const events = require('node:events');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');

const { FeltlineClient, tlsCredentials } = require('../src/feltline.js');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const PYTHON = process.env.FELTLINE_PYTHON || path.join(ROOT, '.venv', 'bin', 'python');

// The server's settings, for test `t`.
async function realServer(t) {
  if (process.env.FELTLINE_TEST_SERVER) return JSON.parse(process.env.FELTLINE_TEST_SERVER);
  const real = spawn(PYTHON, [path.join(ROOT, 'tests', 'client', 'real_server.py')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  t.after(() => real.stdin.end()); // it stops when its stdin closes
  const lines = readline.createInterface({ input: real.stdout });
  const [first] = await Promise.race([
    events.once(lines, 'line'),
    events.once(real, 'exit').then(() => {
      throw new Error('the real server exited');
    }),
  ]);
  return JSON.parse(first);
}

// A client of the server with `token`, over TLS when the server says so.
function connect(settings, token, contract) {
  const tls = settings.tls;
  if (!tls) return new FeltlineClient(settings.target, token, { contract });
  const read = (file) => (file ? fs.readFileSync(file) : undefined);
  const credentials = tlsCredentials({ ca: read(tls.ca), cert: read(tls.cert), key: read(tls.key) });
  return new FeltlineClient(settings.target, token, { contract, credentials });
}

module.exports = { ROOT, PYTHON, realServer, connect };
