'use strict';
// feltline-deck-v2 hands before the Node verifier (test/fixtures/contributed.log,
// written by tests/replay/contributed.py): they verify clean and the seat that
// withheld its reveal is listed; a server that changes its seed after seeing the
// contributions is caught, whether it reveals the new seed or the committed one,
// though it signs everything again with its key.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { deckSeed, freshDeck, link, shuffle, verifyLines } = require('../src/verify.js');

const LINES = fs.readFileSync(path.join(__dirname, 'fixtures', 'contributed.log'), 'utf8')
  .split('\n').filter((l) => l.trim());
const KEY = JSON.parse(LINES[0]).public_key;
const FIRST = '2b0c4a56-9d1e-4f37-8a6b-5c3d2e1f0a01';

test('v2 hands verify clean and the seat that withheld is listed', async () => {
  const report = await verifyLines(LINES, KEY);
  assert.deepEqual(report.failures, []);
  assert.equal(report.hands, 3);
  assert.deepEqual(report.withheld, [{ id: '2b0c4a56-9d1e-4f37-8a6b-5c3d2e1f0a02', seats: [4] }]);
  assert.ok(LINES.some((l) => l.includes('"StubReshuffled"')));
});

/** The first hand's records changed by `change`, every link chained again and
 * every signature made again by a new key: what the key's holder can write. */
function forged(change) {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
  const key = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url').toString('hex');
  const records = LINES.slice(1).map((l) => JSON.parse(l)).filter((r) => r.id === FIRST);
  change(records);
  let previous = Buffer.alloc(32);
  for (const record of records) {
    if (record.kind === 'seal') {
      Object.assign(record, { link: previous.toString('hex'), public_key: key,
        signature: crypto.sign(null, previous, privateKey).toString('hex') });
      continue;
    }
    previous = link(previous, 'hand', record.id, record.position, record);
    record.link = previous.toString('hex');
    if (record.signature) {
      Object.assign(record, { signature: crypto.sign(null, previous, privateKey).toString('hex'), signed_by: key });
    }
  }
  return { lines: [LINES[0], ...records.map((r) => JSON.stringify(r))], key, records };
}

const of = (records, type) => records.find((r) => r.type === type);
const reveals = (records) => records.filter((r) => r.type === 'ContributionRevealed')
  .map((r) => [r.data.seat, Buffer.from(r.data.contribution, 'hex')]);

/** Deal from `seed` once the reveals are in, the end revealing `shown`; the
 * HandStarted the players saw, and its commitment, left as it was. */
const reseed = (seed, shown) => (records) => {
  const mixed = deckSeed(seed, reveals(records));
  const deck = shuffle(mixed, 'deck', freshDeck(false));
  for (const r of records) {
    if (r.type === 'SeedDrawn') r.data.seed = seed.toString('hex');
    else if (r.type === 'DeckShuffled') Object.assign(r.data, { seed: mixed.toString('hex'), cards: deck });
    else if (r.type === 'CardDealt' && r.data.stub === 0) r.data.card = deck[r.data.position];
    else if (r.type === 'BoardDealt') r.data.cards = r.data.positions.map((p) => deck[p]);
    else if (r.type === 'HandEnded') r.data.seed = shown.toString('hex');
  }
};

const checks = (report) => report.failures.map((f) => [f.check, f.position]);

test('a server changing its seed after the reveals, and revealing it, is caught', async () => {
  const other = Buffer.alloc(32);
  const { lines, key, records } = forged(reseed(other, other));
  const report = await verifyLines(lines, key);
  assert.deepEqual(checks(report), [['commitment', of(records, 'HandEnded').position]]);
});

test('a server dealing from another seed but revealing the committed one is caught', async () => {
  const committed = Buffer.from(of(LINES.slice(1).map((l) => JSON.parse(l)).filter((r) => r.id === FIRST), 'SeedDrawn').data.seed, 'hex');
  const { lines, key, records } = forged(reseed(Buffer.alloc(32), committed));
  const report = await verifyLines(lines, key);
  const deck = of(records, 'DeckShuffled').position;
  assert.deepEqual(checks(report).filter(([check]) => check !== 'card'), [['deck', deck]]);
  assert.ok(checks(report).some(([check]) => check === 'card'));
});

test('the forgery\'s machinery with the server\'s own seed changes nothing', async () => {
  const committed = Buffer.from(of(LINES.slice(1).map((l) => JSON.parse(l)).filter((r) => r.id === FIRST), 'SeedDrawn').data.seed, 'hex');
  const { lines, key } = forged(reseed(committed, committed));
  assert.deepEqual((await verifyLines(lines, key)).failures, []);
});

test('a reveal that is not the committed bytes is caught', async () => {
  const { lines, key, records } = forged((rs) => { of(rs, 'ContributionRevealed').data.contribution = '00'.repeat(32); });
  const report = await verifyLines(lines, key);
  assert.ok(checks(report).some(([c, p]) => c === 'contribution' && p === of(records, 'ContributionRevealed').position));
});

test('a deck that leaves out a reveal is caught', async () => {
  const { lines, key, records } = forged((rs) => {
    const given = reveals(rs).slice(0, -1);
    const server = Buffer.from(of(rs, 'SeedDrawn').data.seed, 'hex');
    const mixed = deckSeed(server, given);
    Object.assign(of(rs, 'DeckShuffled').data, { seed: mixed.toString('hex'), cards: shuffle(mixed, 'deck', freshDeck(false)) });
  });
  const report = await verifyLines(lines, key);
  assert.ok(checks(report).some(([c, p]) => c === 'deck' && p === of(records, 'DeckShuffled').position));
});

test('a reveal moved before the reveals open is caught', async () => {
  const { lines, key } = forged((rs) => {
    const opened = rs.findIndex((r) => r.type === 'RevealsOpened');
    const first = rs.findIndex((r) => r.type === 'ContributionRevealed');
    [rs[opened], rs[first]] = [rs[first], rs[opened]];
    rs.forEach((r, i) => { if (r.kind === 'hand' || r.kind === 'seal') r.position = i + 1; });
  });
  const report = await verifyLines(lines, key);
  assert.ok(checks(report).some(([c]) => c === 'order'));
});
