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
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const readline = require('node:readline');

const { FeltlineClient, loadContract, playHand, tlsCredentials } = require('../src/feltline.js');

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
