'use strict';
// Two Node clients play a whole draw-declare hand against each other.
// The server: FELTLINE_TEST_SERVER (JSON: target, admin token, player tokens,
// and for a server over TLS, `tls`: the paths of the CA's certificate and of
// a client certificate and key) names a real one; otherwise the Python fake
// of tests/client/fake_server.py is started. The contract is loaded from
// protos/ alone (its import vendored in protos/vendor). FELTLINE_PYTHON picks the Python
// (default: the workspace's .venv, made by `uv sync`).

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const readline = require('node:readline');

const { FeltlineClient, checkContribution, loadContract, playHand, tlsCredentials } = require('../src/feltline.js');
const transparency = require('../src/transparency.js');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const PYTHON = process.env.FELTLINE_PYTHON || path.join(ROOT, '.venv', 'bin', 'python');

async function server(t) {
  if (process.env.FELTLINE_TEST_SERVER) return JSON.parse(process.env.FELTLINE_TEST_SERVER);
  const fake = spawn(PYTHON, [path.join(ROOT, 'tests', 'client', 'fake_server.py')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  t.after(() => fake.stdin.end()); // the fake stops when its stdin closes
  const lines = readline.createInterface({ input: fake.stdout });
  const [first] = await Promise.race([
    require('node:events').once(lines, 'line'),
    require('node:events').once(fake, 'exit').then(() => {
      throw new Error('the fake server exited');
    }),
  ]);
  return JSON.parse(first);
}

// A client of the test's server, over TLS when the server says so.
function connect(settings, target, token, contract) {
  const tls = settings.tls;
  if (!tls) return new FeltlineClient(target, token, { contract });
  const read = (file) => (file ? fs.readFileSync(file) : undefined);
  const credentials = tlsCredentials({ ca: read(tls.ca), cert: read(tls.cert), key: read(tls.key) });
  return new FeltlineClient(target, token, { contract, credentials });
}

// A six-seat no-limit draw-declare table, with chips for alice and bob.
async function drawTable(admin, name) {
  for (const player of ['alice', 'bob']) await admin.mintChips(player, 1000, 'node test');
  return admin.createTable(
    {
      rules: {
        game: 'GAME_DRAW_DECLARE',
        stakes: { structure: 'STRUCTURE_NO_LIMIT', small_bet: 10, ante: 5 },
      },
      seats: 6,
    },
    name,
  );
}

async function closeTable(admin, tableId) {
  await admin.closeTable(tableId, 'test over');
}

test('two clients sit down, watch and play a whole hand', async (t) => {
  const settings = await server(t);
  const contract = loadContract();
  const admin = connect(settings, settings.target, settings.admin, contract);
  const alice = connect(settings, settings.target, settings.players.alice, contract);
  const bob = connect(settings, settings.target, settings.players.bob, contract);
  t.after(() => [admin, alice, bob].forEach((c) => c.close()));

  const table = await drawTable(admin, 'node client test');

  const [a, b] = await Promise.all([
    playHand(alice, table.table_id, { seat: 1, buy_in: 400 }),
    playHand(bob, table.table_id, { seat: 2, buy_in: 400 }),
  ]);
  await closeTable(admin, table.table_id);

  assert.equal(a.hand_number, b.hand_number);
  assert.equal(a.cards.length, 5, 'alice sees her own five cards');
  assert.ok(a.cards.every((c) => /^([2-9TJQKA][cdhs]|Jk)$/.test(c)));
  const theirs = a.events.filter((e) => e.kind === 'card_dealt' && e.card_dealt.seat === 2);
  assert.ok(theirs.every((e) => e.card_dealt.card == null && e.redacted), "bob's cards stay hidden");

  const kinds = a.events.map((e) => e.kind);
  for (const kind of ['hand_started', 'drew', 'declarations_revealed', 'pot_awarded', 'hand_ended']) {
    assert.ok(kinds.includes(kind), `the hand had ${kind}`);
  }
  const revealed = a.events.find((e) => e.kind === 'declarations_revealed');
  assert.deepEqual(
    revealed.declarations_revealed.choices.map((c) => c.choice),
    ['DECLARATION_HIGH', 'DECLARATION_HIGH'],
  );
  const ended = a.events.find((e) => e.kind === 'hand_ended').hand_ended;
  assert.equal(ended.stacks.reduce((sum, s) => sum + s.amount, 0), 800, 'no chip lost');
  assert.ok(a.moves.some((m) => m.draw) && a.moves.some((m) => m.declare));
});

test("two clients play a fixed-limit hold'em hand with blinds", async (t) => {
  const settings = await server(t);
  const contract = loadContract();
  const admin = connect(settings, settings.target, settings.admin, contract);
  const alice = connect(settings, settings.target, settings.players.alice, contract);
  const bob = connect(settings, settings.target, settings.players.bob, contract);
  t.after(() => [admin, alice, bob].forEach((c) => c.close()));

  for (const player of ['alice', 'bob']) await admin.mintChips(player, 1000, 'node test');
  const table = await admin.createTable(
    {
      rules: {
        game: 'GAME_HOLDEM',
        stakes: {
          structure: 'STRUCTURE_FIXED_LIMIT',
          small_bet: 10,
          big_bet: 20,
          small_blind: 5,
          big_blind: 10,
        },
      },
      seats: 6,
    },
    'node client hold em test',
  );

  const [a, b] = await Promise.all([
    playHand(alice, table.table_id, { seat: 1, buy_in: 400 }),
    playHand(bob, table.table_id, { seat: 2, buy_in: 400 }),
  ]);
  await closeTable(admin, table.table_id);

  assert.equal(a.hand_number, b.hand_number);
  assert.equal(a.cards.length, 2, 'alice sees her own two hole cards');
  assert.ok(a.moves.length > 0 && b.moves.length > 0, 'both seats acted');
  const kinds = a.events.map((e) => e.kind);
  for (const kind of ['hand_started', 'posted', 'pot_awarded', 'hand_ended']) {
    assert.ok(kinds.includes(kind), `the hand had ${kind}`);
  }
  const ended = a.events.find((e) => e.kind === 'hand_ended').hand_ended;
  assert.equal(ended.stacks.reduce((sum, s) => sum + s.amount, 0), 800, 'no chip lost');
});

// A TCP proxy to the server whose open connections cut() drops, as a
// network failure would: calls through it fail with UNAVAILABLE.
async function cuttingProxy(t, target) {
  const colon = target.lastIndexOf(':');
  const [host, port] = [target.slice(0, colon), Number(target.slice(colon + 1))];
  const sockets = new Set();
  let connections = 0;
  const proxy = net.createServer((inbound) => {
    connections += 1;
    const outbound = net.connect(port, host);
    for (const [a, b] of [[inbound, outbound], [outbound, inbound]]) {
      sockets.add(a);
      a.pipe(b);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        sockets.delete(a);
        b.destroy();
      });
    }
  });
  await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  t.after(() => proxy.close());
  return {
    target: `127.0.0.1:${proxy.address().port}`,
    cut: () => sockets.forEach((s) => s.destroy()),
    connections: () => connections,
  };
}

test('a dropped watch resumes from its cursor: every event once, none missed', async (t) => {
  const settings = await server(t);
  const contract = loadContract();
  const proxy = await cuttingProxy(t, settings.target);
  const admin = connect(settings, settings.target, settings.admin, contract);
  const watcher = connect(settings, proxy.target, settings.admin, contract);
  const alice = connect(settings, settings.target, settings.players.alice, contract);
  const bob = connect(settings, settings.target, settings.players.bob, contract);
  t.after(() => [admin, watcher, alice, bob].forEach((c) => c.close()));

  const table = await drawTable(admin, 'node client resume test');

  const items = [];
  const watch = watcher.watch(table.table_id, '', { retries: 6, backoff: 50 });
  const watched = new Promise((resolve, reject) => {
    watch.on('data', (item) => {
      items.push(item);
      if (item.item === 'event' && item.event.kind === 'table_closed') {
        watch.cancel();
        resolve();
      } else if (items.length % 5 === 0) {
        proxy.cut(); // mid-stream, mid-hand
      }
    });
    watch.on('error', reject);
    watch.on('end', resolve);
  });
  await new Promise((resolve) => setTimeout(resolve, 200)); // the watch is open
  await Promise.all([
    playHand(alice, table.table_id, { seat: 1, buy_in: 400 }),
    playHand(bob, table.table_id, { seat: 2, buy_in: 400 }),
  ]);
  await closeTable(admin, table.table_id);
  await watched;

  assert.ok(proxy.connections() >= 2, `the watch was re-opened (${proxy.connections()} connections)`);
  assert.equal(items.filter((i) => i.item === 'snapshot').length, 1, 'resumed, never restarted');
  const events = items.filter((i) => i.item === 'event').map((i) => i.event);
  const keys = events.map((e) => `${e.hand_number}/${e.sequence}`);
  assert.equal(new Set(keys).size, keys.length, 'no event twice');
  for (const number of new Set(events.map((e) => e.hand_number))) {
    const sequences = events.filter((e) => e.hand_number === number).map((e) => e.sequence);
    const first = sequences[0];
    assert.deepEqual(sequences, sequences.map((_, i) => first + i), `hand ${number}: no gap`);
  }
  const kinds = events.map((e) => e.kind);
  for (const kind of ['hand_started', 'hand_ended', 'table_closed']) {
    assert.ok(kinds.includes(kind), `saw ${kind}`);
  }
});

test('at a table whose seats must contribute, two clients make the deck with their bytes', async (t) => {
  const settings = await server(t);
  if (!process.env.FELTLINE_TEST_SERVER) {
    t.skip('feltline-deck-v2 needs a real server (FELTLINE_TEST_SERVER): the fake deals alone');
    return;
  }
  const contract = loadContract();
  const admin = connect(settings, settings.target, settings.admin, contract);
  const alice = connect(settings, settings.target, settings.players.alice, contract);
  const bob = connect(settings, settings.target, settings.players.bob, contract);
  t.after(() => [admin, alice, bob].forEach((c) => c.close()));

  for (const player of ['alice', 'bob']) await admin.mintChips(player, 1000, 'node test');
  const table = await admin.createTable(
    {
      rules: {
        game: 'GAME_HOLDEM',
        stakes: {
          structure: 'STRUCTURE_NO_LIMIT', small_bet: 10, small_blind: 5, big_blind: 10,
        },
      },
      seats: 6,
      seat_entropy: 'SEAT_ENTROPY_REQUIRED',
      contribution_window: { seconds: 5 },
    },
    'node client contributes',
  );
  const [a, b] = await Promise.all([
    playHand(alice, table.table_id, { seat: 1, buy_in: 400 }),
    playHand(bob, table.table_id, { seat: 2, buy_in: 400 }),
  ]);
  await closeTable(admin, table.table_id);

  // Dealt, not cancelled: both committed and revealed, each step receipted.
  assert.equal(a.hand_number, b.hand_number);
  assert.equal(a.cards.length, 2);
  for (const mine of [a, b]) {
    assert.equal(mine.receipts.length, 2, 'a receipt for the commitment and one for the reveal');
    assert.ok(mine.receipts.every((r) => r.signature && r.signature.length > 0));
    // After the hand, the seat checks its own bytes went into the deck.
    const revealed = a.events
      .filter((e) => e.kind === 'contribution_revealed')
      .map((e) => e.contribution_revealed);
    const own = revealed.find((r) => r.seat === mine.seat);
    assert.ok(own && Buffer.from(own.contribution).equals(mine.contribution));
  }
  const ended = a.events.find((e) => e.kind === 'hand_ended').hand_ended;
  assert.equal(ended.cancelled, false, 'dealt from the contributed deck, not cancelled');

  // After the hand, from the hand as each player recalls it: its bytes went into the
  // deck, and its receipt proves the hand is in the log the server signed.
  const { verifier_key: logKey } = await admin.getCheckpoint(); // logs every hand sealed
  const handId = a.events[0].hand_id;
  for (const [client, mine] of [[alice, a], [bob, b]]) {
    const recalled = (await client.recall()).find((h) => h.hand.hand_id === handId);
    assert.deepEqual(checkContribution(mine.contribution, mine.seat, recalled.events, mine.receipts), []);
    assert.deepEqual(transparency.checkReceipt(handId, recalled.inclusion, logKey), []);
  }
  const recalled = (await alice.recall()).find((h) => h.hand.hand_id === handId);
  const events = recalled.events;
  const mineRevealed = (e) => e.kind === 'contribution_revealed' && e.contribution_revealed.seat === 1;
  const dropped = checkContribution(a.contribution, 1, events.filter((e) => !mineRevealed(e)), a.receipts);
  assert.equal(dropped[0], `hand ${a.hand_number}: seat 1's reveal is not in the hand: its deck left it out`);
  assert.equal(dropped.length, 3, 'the two receipts named, for an auditor');
  assert.match(dropped[2], /evidence for an auditor$/);
  const other = Buffer.alloc(32);
  assert.deepEqual(checkContribution(other, 1, events), [
    `hand ${a.hand_number}: seat 1's commitment is ${crypto.createHash('sha256').update(a.contribution).digest('hex')}, `
      + `not ${crypto.createHash('sha256').update(other).digest('hex')}, its bytes' SHA-256`,
    `hand ${a.hand_number}: seat 1's reveal is not the bytes it committed to`,
  ]);
  const reveal = events.find(mineRevealed).sequence;
  const early = events.map((e) => (e.kind === 'deck_shuffled' ? { ...e, sequence: reveal - 1 } : e));
  assert.deepEqual(checkContribution(a.contribution, 1, early), [`hand ${a.hand_number}: the deck was shuffled before seat 1's reveal`]);
  const v1 = events.map((e) => (e.kind === 'hand_started' ? { ...e, hand_started: { ...e.hand_started, algorithm: 'feltline-deck-v1' } } : e));
  assert.deepEqual(checkContribution(a.contribution, 1, v1), [`hand ${a.hand_number}: dealt by feltline-deck-v1, which takes no seat's bytes`]);

  // A receipt for another hand, or with a changed path, or under another key, does not hold.
  const receipt = recalled.inclusion;
  const otherHand = crypto.randomUUID();
  assert.match(transparency.checkReceipt(otherHand, receipt, logKey)[0], /^hand .*: the receipt's leaf is not this hand's/);
  if (receipt.hashes.length) {
    const bent = { ...receipt, hashes: receipt.hashes.map((x, i) => (i ? x : Buffer.alloc(32))) };
    assert.deepEqual(transparency.checkReceipt(handId, bent, logKey), [`hand ${handId}: leaf ${receipt.leaf_index} is not in the tree of ${receipt.tree_size} leaves with that root`]);
  }
  const moved = { ...receipt, leaf_index: receipt.leaf_index + 1 };
  assert.equal(transparency.checkReceipt(handId, moved, logKey).length, 1);
  const { publicKey } = crypto.generateKeyPairSync('ed25519');
  const otherKey = transparency.verifierKey(receipt.checkpoint.origin, 1, Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url'));
  assert.deepEqual(transparency.checkReceipt(handId, receipt, otherKey), [`hand ${handId}: the receipt's checkpoint is not signed by ${otherKey}`]);
});
