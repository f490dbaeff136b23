'use strict';
// The Node witness (src/witness.js): RFC 6962 proofs against
// transparency-dev/merkle's vectors (as tests/audit/test_merkle.py), a
// witness that cosigns only a checkpoint extending the one it holds and
// refuses a fork and a truncation keeping nothing, and, against a real
// server, a witness that carries on from `feltline-replay witness`'s state
// and whose cosignature the server takes and serves.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const transparency = require('../src/transparency.js');
const { Witness, Refused, main } = require('../src/witness.js');
const { FeltlineClient, playHand } = require('../src/feltline.js');
const { PYTHON, ROOT, connect, realServer } = require('./real-server.js');
const h = (...hexes) => hexes.map((x) => Buffer.from(x, 'hex'));

const LEAVES = h('', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f');
const ROOTS = h(
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
);
const INCLUSION = [ // [index from 0, size, proof]
  [0, 8, h('96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
    '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
    '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4')],
  [5, 8, h('bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
    'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7')],
  [2, 3, h('fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125')],
  [0, 1, []],
];
const CONSISTENCY = [ // [first, second, proof]
  [1, 1, []],
  [1, 8, h('96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
    '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
    '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4')],
  [6, 8, h('0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
    'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
    'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7')],
  [2, 5, h('5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
    'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b')],
  [6, 7, h('0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
    'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f',
    'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7')],
];

/** Every proof with one byte of one hash changed, or one hash left off or added. */
function changed(proof) {
  const out = [proof.concat([Buffer.alloc(32)])];
  proof.forEach((_, i) => {
    const flipped = proof.map((x) => Buffer.from(x));
    flipped[i][0] ^= 1;
    out.push(flipped, proof.filter((__, j) => j !== i));
  });
  return out;
}

test('inclusion and consistency proofs verify as transparency-dev says, and a changed one does not', () => {
  const leaves = LEAVES.map((leaf) => transparency.leafHash(leaf));
  for (let size = 1; size <= 8; size += 1) assert.ok(transparency.treeHash(leaves.slice(0, size)).equals(ROOTS[size - 1]));
  for (const [index, size, proof] of INCLUSION) {
    transparency.verifyInclusion(index, size, leaves[index], proof, ROOTS[size - 1]);
    for (const bad of changed(proof)) {
      assert.throws(() => transparency.verifyInclusion(index, size, leaves[index], bad, ROOTS[size - 1]));
    }
  }
  for (const [first, second, proof] of CONSISTENCY) {
    transparency.verifyConsistency(first, second, ROOTS[first - 1], ROOTS[second - 1], proof);
    for (const bad of changed(proof)) {
      assert.throws(() => transparency.verifyConsistency(first, second, ROOTS[first - 1], ROOTS[second - 1], bad));
    }
    if (first < second) {
      assert.throws(() => transparency.verifyConsistency(first, second, ROOTS[second - 1], ROOTS[second - 1], proof));
    }
  }
});

/** A log of its own: a key that signs checkpoints of the vectors' tree (docs/transparency.md). */
function log(origin = 'example.org/log') {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url');
  const sign = (size, root = ROOTS[size - 1], named = origin) => {
    const text = `${named}\n${size}\n${root.toString('base64')}\n`;
    const blob = Buffer.concat([transparency.keyId(origin, 1, raw), crypto.sign(null, Buffer.from(text), privateKey)]);
    return `${text}\n\u2014 ${origin} ${blob.toString('base64')}\n`;
  };
  return { vkey: transparency.verifierKey(origin, 1, raw), sign };
}

const proofOf = (first, second) => CONSISTENCY.find(([f, s]) => f === first && s === second)[2];
const tempState = (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'feltline-witness-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
};

test('a witness cosigns what extends its checkpoint and refuses a fork and a truncation, keeping nothing', (t) => {
  const state = tempState(t);
  const { vkey, sign } = log();
  const witness = new Witness(state, 'witness.example', () => 1_700_000_000);
  const logKey = witness.logKey(vkey);
  const own = transparency.parseVerifierKey(witness.key);

  const first = witness.witness(sign(6), logKey, []);
  assert.equal(transparency.cosigned(transparency.parseNote(first), own), 1_700_000_000);
  assert.ok(transparency.noteSigned(transparency.parseNote(first), logKey), "the log's signature stays");
  const held = () => fs.readFileSync(path.join(state, 'checkpoint'), 'utf8');
  assert.equal(held(), first);

  const refusal = (note, proof, kind, why) => assert.throws(() => witness.witness(note, logKey, proof), (e) => {
    assert.ok(e instanceof Refused);
    assert.equal(e.kind, kind);
    assert.match(e.message, why);
    assert.equal(held(), first, 'nothing kept');
    return true;
  });
  refusal(sign(8), proofOf(6, 7), 'fork', /^fork: the tree of 8 leaves does not extend the one of 6 accepted before/);
  refusal(sign(8, ROOTS[6]), proofOf(6, 8), 'fork', /^fork: the tree of 8 leaves does not extend/);
  refusal(sign(6, ROOTS[5].map((b) => b ^ 1)), [], 'fork', /^fork: another root for the tree of 6 leaves$/);
  refusal(sign(5), [], 'truncation', /^truncation: the log shows 5 leaves after it showed 6$/);
  refusal(log().sign(8), proofOf(6, 8), 'signature', /not signed by the log's key/);
  refusal(sign(8, ROOTS[7], 'elsewhere/log'), proofOf(6, 8), 'origin', /^origin: the checkpoint is of elsewhere\/log, not example\.org\/log$/);

  const second = witness.witness(sign(8), logKey, proofOf(6, 8));
  assert.match(second, /^example\.org\/log\n8\n/);
  assert.equal(held(), second);
  assert.equal(transparency.cosigned(transparency.parseNote(second), own), 1_700_000_000);
  assert.equal(transparency.parseNote(second).signatures.length, 2, 'one cosignature of this witness');
  assert.ok(witness.witness(second, logKey, []), 'the same checkpoint again is no fork');
  assert.throws(() => witness.logKey(log().vkey), /^Error: signature: this witness follows the log key/);
});

test('a witness key rotated: the old key signs the new, which carries on from the checkpoint held', async (t) => {
  const state = tempState(t);
  const { vkey, sign } = log();
  let now = 1_700_000_000;
  const witness = new Witness(state, 'witness.example', () => now);
  const logKey = witness.logKey(vkey);
  const oldKey = witness.key;
  const oldPrivate = witness.privateKey;
  witness.witness(sign(6), logKey, []);

  now += 60;
  const statement = witness.rotate();
  assert.notEqual(witness.key, oldKey);
  const rotation = transparency.parseRotation(statement);
  assert.deepEqual([rotation.oldText, rotation.newText, rotation.time, rotation.held.size], [oldKey, witness.key, now, 6]);
  assert.deepEqual(transparency.splitRotations(fs.readFileSync(path.join(state, 'rotations'), 'utf8')), [statement]);
  assert.deepEqual(fs.readdirSync(state).sort(), ['checkpoint', 'log.vkey', 'rotations', 'witness.pem']);
  const held = witness.last();
  assert.equal(transparency.cosigned(held, transparency.parseVerifierKey(oldKey)), 1_700_000_000);
  assert.equal(transparency.cosigned(held, transparency.parseVerifierKey(witness.key)), now);
  // The Python witness's reading of the statement the Node witness wrote.
  const python = spawnSync(PYTHON, ['-c', [
    'import sys',
    'from feltline_replay.transparency import Rotation',
    'r = Rotation.parse(sys.stdin.read())',
    'print(r.old.vkey, r.new.vkey, r.time, r.held.size)',
  ].join('\n')], { input: statement, encoding: 'utf8' });
  assert.equal(python.stdout, `${oldKey} ${witness.key} ${now} 6\n`, python.stderr);

  now += 60;
  const after = transparency.parseNote(witness.witness(sign(8), logKey, proofOf(6, 8)));
  const [following] = transparency.followWitnesses([oldKey], [statement]);
  assert.equal(transparency.witnessCosigned(after, following), true);
  assert.equal(transparency.witnessCosigned(after, transparency.followWitnesses([oldKey])[0]), false);
  // The old key, leaked after its retirement, cosigns the newest checkpoint.
  const served = { text: after.text, signatures: after.signatures.slice(0, 1) };
  const late = transparency.cosign(served, 'witness.example', oldPrivate, now);
  assert.equal(transparency.witnessCosigned(late, following), false);
  assert.equal(transparency.witnessCosigned(transparency.cosign(served, 'witness.example', oldPrivate, now - 120), following), true);

  const stranger = new Witness(tempState(t), 'witness.example');
  assert.throws(() => transparency.followWitnesses([stranger.key], [statement]), /^Error: the rotation from .* follows no witness key trusted$/);
  const forged = statement.replace(`new ${witness.key}`, `new ${stranger.key}`);
  assert.throws(() => transparency.parseRotation(forged), /^Error: the rotation to .* is not signed by /);

  // From the command line, needing no server: a second rotation, followed from the first key.
  const said = [];
  const code = await main(['--state', state, '--name', 'witness.example', '--rotate-key'], () => assert.fail('no server'), {
    write: (text) => said.push(text),
  });
  const third = new Witness(state, 'witness.example').key;
  assert.deepEqual([code, said], [0, [`rotated witness.example from ${witness.key} to ${third}\n`]]);
  const statements = transparency.splitRotations(fs.readFileSync(path.join(state, 'rotations'), 'utf8'));
  assert.equal(statements.length, 2);
  assert.equal(transparency.followWitnesses([oldKey], statements)[0].keys.at(-1).key.publicKey
    .equals(transparency.parseVerifierKey(third).publicKey), true);
});

test('against a real server the Node witness carries on from feltline-replay witness and the server serves its cosignature', async (t) => {
  const settings = await realServer(t);
  const tls = settings.tls ? ['--tls-ca', settings.tls.ca, '--tls-cert', settings.tls.cert, '--tls-key', settings.tls.key] : [];
  const admin = connect(settings, settings.admin);
  const alice = connect(settings, settings.players.alice);
  const bob = connect(settings, settings.players.bob);
  t.after(() => [admin, alice, bob].forEach((c) => c.close()));
  const table = await admin.createTable({
    rules: {
      game: 'GAME_HOLDEM',
      stakes: { structure: 'STRUCTURE_FIXED_LIMIT', small_bet: 10, big_bet: 20, small_blind: 5, big_blind: 10 },
    },
    seats: 6,
  }, 'node witness test');
  for (const player of ['alice', 'bob']) await admin.mintChips(player, 1000, 'node witness test');
  const hand = () => Promise.all([
    playHand(alice, table.table_id, { seat: 1, buy_in: 400 }),
    playHand(bob, table.table_id, { seat: 2, buy_in: 400 }),
  ]);
  await hand();

  const state = tempState(t);
  const { verifier_key: logKey } = await admin.getCheckpoint();
  const python = spawnSync(path.join(ROOT, '.venv', 'bin', 'feltline-replay'), [
    'witness', '--server', settings.target, '--token', settings.admin, '--state', state,
    '--name', 'witness.example', '--log-key', logKey, ...tls,
  ], { encoding: 'utf8' });
  assert.equal(python.status, 0, python.stderr);
  const before = transparency.parseCheckpoint(fs.readFileSync(path.join(state, 'checkpoint'), 'utf8'));
  assert.ok(before.size >= 1);

  await hand();
  const args = ['--server', settings.target, '--token', settings.admin, '--state', state, '--name', 'witness.example', ...tls];
  const said = [];
  let served = null; // the server's reply to the cosignature handed back
  const noting = (target, token, given) => {
    const client = new FeltlineClient(target, token, { credentials: given });
    const add = client.addCosignature.bind(client);
    client.addCosignature = (...handed) => add(...handed).then((reply) => (served = reply));
    return client;
  };
  const code = await main(args, noting, { write: (text) => said.push(text) });
  assert.equal(code, 0);
  const witnessKey = new Witness(state, 'witness.example').key;
  const after = transparency.parseCheckpoint(fs.readFileSync(path.join(state, 'checkpoint'), 'utf8'));
  assert.ok(after.size > before.size, 'the tree grew by the second hand');
  assert.deepEqual(said, [`cosigned ${after.origin} at ${after.size} leaves as ${witnessKey}\n`]);
  // The server keeps only a cosignature it verified (docs/transparency.md): its own
  // Python check of the Node witness's line, under the key the Python witness made.
  assert.equal(served.size, after.size);
  assert.notEqual(transparency.cosigned(transparency.parseNote(served.note), transparency.parseVerifierKey(witnessKey)), null);
});
