'use strict';
// The Node verifier against docs/deck.md's test vectors and a real exported
// log (test/fixtures/hands.log, written by tests/replay/make_fixture.py),
// untouched and tampered with; and a log an older server wrote, its deals'
// fields flat (test/fixtures/hands-flat-deal.log: HandStarted version 2,
// HandDealt version 1), untouched.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { canonical, deckSeed, freshDeck, link, shuffle, verifyLines } = require('../src/verify.js');

const fixture = (name) => fs.readFileSync(path.join(__dirname, 'fixtures', name), 'utf8')
  .split('\n').filter((l) => l.trim());
const LINES = fixture('hands.log');
const KEY = JSON.parse(LINES[0]).public_key;
const FLAT = fixture('hands-flat-deal.log');

const seed = (hex) => Buffer.from(hex, 'hex');
const COUNTING = seed('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');

test('the shuffle gives deck.md\'s test vectors', () => {
  assert.equal(shuffle(Buffer.alloc(32), 'deck', freshDeck(false)).join(' '),
    '6c 7c Qd 8c 7s 5c 9s 3s Ts Kh 3c 9c 4h 4d 8h 5h 2s 3d Kd As 2c 3h Qc Ah 9h 2d Jh 8d Qh Jd 6d Jc 6h 7d 4s 7h 6s 2h 5d 9d 5s Tc Js Ks Ad 4c Th 8s Td Qs Kc Ac');
  assert.equal(shuffle(COUNTING, 'deck', freshDeck(false)).join(' '),
    '3h 8d 7s 5s 4d 8s 2c Kh 2d Td 9s Ac 7h Jc 3c Js 9d Ah 5c Kd 3s 8c Jd Ts Qh 2s 7c 5h 7d Tc 2h 9c Qd 9h 6d Kc Qs Ks Ad As Qc Th 4s Jh 6s 4h 3d 4c 6h 5d 6c 8h');
  assert.equal(shuffle(seed('a5'.repeat(32)), 'deck', freshDeck(true)).join(' '),
    '4h Td 5c 3d Kd 6c Jd Kc 9h Qh Jh Qd 5d As Ac 9s 2s 7h 6d 3c Ah 9c Jk 8c 7c 8h 8d Ts 5s 7s 6s Kh 5h Jc 8s 4s Tc 4d 4c 2c 9d 3h Th 6h 2d 2h Qc Ad Ks Qs 7d 3s Js');
  const stub = '8c 2d 7h Ks 3c 9d Jh'.split(' ');
  assert.equal(shuffle(COUNTING, 'reshuffle/1', stub).join(' '), '2d 9d 3c 7h 8c Ks Jh');
  assert.equal(shuffle(COUNTING, 'reshuffle/2', stub).join(' '), '9d Jh 7h Ks 2d 3c 8c');
  assert.equal(crypto.createHash('sha256').update(Buffer.alloc(32)).digest('hex'),
    '66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925');
});

test('the v2 deck seed and deck give deck.md\'s test vectors', () => {
  const elevens = Buffer.alloc(32, 0x11);
  const fortyFours = Buffer.alloc(32, 0x44);
  const vectors = [
    [[], '92bfe3f14bbf10c327d07349b1edbd4ab85b8490ba337c9dfcb18044b8dcfa2b',
      '3h Qc 7d 8h Kh 3c 2d Ks 6d Qs 3s Ah Ac 9s 2s 8s 5s Ts 6c 7s 6s Jd Kc 5c 5d 2c Js 6h 9h 4d Th 2h As Qd 4c 9d Jc 8d 9c 7c Kd Td 3d Ad 4h Tc 7h 4s 8c Jh 5h Qh'],
    [[[4, fortyFours], [1, elevens]], '6e856284780c991eda70a8fe817592ba8de4086ef9c2438a7c35667a0e54a65f',
      '3s 2s Qc Kd 2c Jc Ts 6s 4d 6h Qh 2d Js Jh Kh Jd 7h Ac 8s 7c Qs Ks 3d 8c 3h As Kc 8d 5c Qd 5s 9h 2h Tc 9s 7d 4s 4h 5d 6c Td 9d 4c 6d 3c 8h Ad Th 7s 9c Ah 5h'],
    [[[1, elevens]], '45c7831b4c841d1f80aaf9be26f70ea22d0d5259d175490d94f4ef24b13cbf0a',
      '5h 9h 7h Qc 3d 4d 6s 3h 5s Ad 2s 2h Js 9c 5d 8d 6h 2c Jc Kd 7c 9s Tc 3s Qd 8h Qs 6c Td 4s Kc 2d 3c Jh 8c Jd 5c Ah Ac Th Ks 9d Qh Ts 7s 6d 4c 8s 4h 7d As Kh'],
  ];
  for (const [contributions, seedHex, cards] of vectors) {
    const mixed = deckSeed(COUNTING, contributions);
    assert.equal(mixed.toString('hex'), seedHex);
    assert.equal(shuffle(mixed, 'deck', freshDeck(false)).join(' '), cards);
  }
  assert.equal(crypto.createHash('sha256').update(elevens).digest('hex'),
    '02d449a31fbb267c8f352e9968a79e3e5fc95c1bbeaa502fd6454ebde5a4bedc');
});

test('canonical JSON sorts keys, drops spaces and escapes non-ASCII', () => {
  assert.equal(canonical({ b: [1, true, null], a: 'é"' }).toString(), '{"a":"\\u00e9\\"","b":[1,true,null]}');
});

async function verify(lines, key = KEY) {
  return verifyLines(lines, key);
}

/** The fixture with one record changed by `change` (which returns true
 * once it has changed the record it wants); the hand or table changed. */
function tampered(change) {
  const out = LINES.slice();
  for (let i = 1; i < out.length; i++) {
    const record = JSON.parse(out[i]);
    if (change(record, out, i)) {
      out[i] = JSON.stringify(record);
      return { lines: out, id: record.id };
    }
  }
  throw new Error('nothing to tamper with');
}

test('the exported log verifies clean, with reshuffled stubs in it', async () => {
  const report = await verify(LINES);
  assert.deepEqual(report.failures, []);
  assert.equal(report.hands, JSON.parse(LINES[0]).selection.exported_hands);
  assert.ok(LINES.some((l) => l.includes('"StubReshuffled"')));
  assert.ok(LINES.some((l) => l.includes('"type":"HandStarted","version":3')));
});

test('a log an older server wrote, its deals flat, still verifies clean', async () => {
  const report = await verify(FLAT, JSON.parse(FLAT[0]).public_key);
  assert.deepEqual(report.failures, []);
  assert.equal(report.hands, 14);
  assert.ok(FLAT.some((l) => l.includes('"type":"HandStarted","version":2')));
  assert.ok(FLAT.some((l) => l.includes('"type":"HandDealt","version":1')));
});

const TAMPERINGS = {
  'a card swapped': (r) => r.type === 'CardDealt' && ((r.data.card = r.data.card === 'As' ? 'Ks' : 'As'), true),
  'a card from a reshuffled stub swapped': (r) => r.type === 'CardDealt' && r.data.stub > 0
    && ((r.data.card = r.data.card === 'As' ? 'Ks' : 'As'), true),
  'a seal signature replaced': (r) => r.kind === 'seal' && ((r.signature = 'ab'.repeat(64)), true),
  'a seal re-signed with another key': (r) => {
    if (r.kind !== 'seal') return false;
    const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
    r.signature = crypto.sign(null, Buffer.from(r.link, 'hex'), privateKey).toString('hex');
    r.public_key = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url').toString('hex');
    return true;
  },
  'the seed replaced': (r) => r.type === 'HandEnded' && ((r.data.seed = 'cd'.repeat(32)), true),
  'a table record changed': (r) => r.type === 'SatDown' && ((r.data.buy_in += 1), true),
  'a link changed': (r) => r.kind === 'hand' && r.position === 3 && ((r.link = 'ee'.repeat(32)), true),
};

for (const [how, change] of Object.entries(TAMPERINGS)) {
  test(`${how} is caught and the stream named`, async () => {
    const { lines, id } = tampered(change);
    const report = await verify(lines);
    assert.ok(!report.ok, how);
    assert.deepEqual([...new Set(report.failures.map((f) => f.id))], [id]);
  });
}

test('a log signed by another key than the one given fails', async () => {
  const report = await verify(LINES, '00'.repeat(32));
  assert.ok(report.failures.length > 0);
  assert.ok(report.failures.every((f) => f.check === 'key'));
});

/** The fixture's records as the key's holder writes them today: each hand
 * record `timed` (its time in the chain), an account's and a tournament's
 * streams after the rest, every stream chained again and signed where it
 * was, by a new key. */
function signedAnew(change = () => {}) {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
  const key = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url').toString('hex');
  const sign = (digest) => crypto.sign(null, digest, privateKey).toString('hex');
  const account = {
    kind: 'account', id: '5d6c0f2e-9b1a-4c3d-8e7f-001122334455', position: 1, type: 'Minted',
    version: 1, data: { amount: 1000, by: 'admin' }, signature: 'x',
  };
  const tournament = [1, 2].map((position) => ({
    kind: 'tournament', id: '7e1d2c3b-4a59-4687-9a0b-112233445566', position, type: 'Registered',
    version: 1, data: { player: `p${position}` }, signature: 'x',
  }));
  const records = [...LINES.slice(1).map((l) => JSON.parse(l)), account, ...tournament];
  let stream = null;
  let previous = Buffer.alloc(32);
  for (const record of records) {
    if (record.kind === 'hand') record.timed = true;
    change(record);
    if (record.kind === 'seal') {
      Object.assign(record, { link: previous.toString('hex'), public_key: key, signature: sign(previous) });
      stream = null;
      continue;
    }
    if (`${record.kind} ${record.id}` !== stream) [stream, previous] = [`${record.kind} ${record.id}`, Buffer.alloc(32)];
    previous = link(previous, record.kind, record.id, record.position, record);
    record.link = previous.toString('hex');
    if (record.signature) Object.assign(record, { signature: sign(previous), signed_by: key });
  }
  return { lines: [LINES[0], ...records.map((r) => JSON.stringify(r))], key, records };
}

test('a timed record chains its time, and an account stream verifies', async () => {
  const { lines, key } = signedAnew();
  const report = await verify(lines, key);
  assert.deepEqual(report.failures, []);
  assert.equal(report.accounts, 1);
});

test('a hand moved to another time is caught at its first record', async () => {
  const { lines, key, records } = signedAnew();
  const first = records.findIndex((r) => r.kind === 'hand');
  const moved = { ...records[first], at: records[first].at - 86400 };
  lines[first + 1] = JSON.stringify(moved);
  const report = await verify(lines, key);
  assert.deepEqual(report.failures.map((f) => [f.check, f.kind, f.id, f.position]),
    [['chain', 'hand', moved.id, 1]]);
});

test('a tournament\'s stream is chained as a tournament\'s, and a record changed in it is caught', async () => {
  const { lines, key, records } = signedAnew();
  const last = records.length - 1;
  const changed = { ...records[last], data: { player: 'someone else' } };
  lines[last + 1] = JSON.stringify(changed);
  const report = await verify(lines, key);
  assert.deepEqual(report.failures.map((f) => [f.check, f.kind, f.id, f.position]),
    [['chain', 'tournament', changed.id, 2], ['signature', 'tournament', changed.id, 2]]);
});

test('an account whose last record is unsigned is caught', async () => {
  const { lines, key } = signedAnew((r) => { if (r.kind === 'account') r.signature = ''; });
  const report = await verify(lines, key);
  assert.deepEqual(report.failures.map((f) => [f.check, f.kind, f.position]),
    [['signature', 'account', 1]]);
});

test('a running tournament\'s withheld seed is chained on from its link, and withheld elsewhere fails', async () => {
  const seed = { kind: 'tournament', id: '7e1d2c3b-4a59-4687-9a0b-112233445566', type: 'SeedDrawn', withheld: true };
  const { lines, key, records } = signedAnew();
  const first = records.findIndex((r) => r.kind === 'tournament');
  const withheld = { ...seed, position: 1, version: 1, link: records[first].link, signature: records[first].signature,
    signed_by: key };
  lines[first + 1] = JSON.stringify(withheld);
  assert.deepEqual((await verify(lines, key)).failures, []);
  const elsewhere = { ...withheld, type: 'Registered' };
  lines[first + 1] = JSON.stringify(elsewhere);
  const report = await verify(lines, key);
  assert.deepEqual(report.failures.map((f) => [f.check, f.kind, f.position, f.found]),
    [['record', 'tournament', 1, 'withheld']]);
});
