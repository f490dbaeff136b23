'use strict';
// A Node client follows a sit-and-go through TournamentService: two
// players register, an admin cancels it, and its watch sends every event
// once, in order, to the last; resumed from a cursor, exactly what came
// after it. Tournaments need the real server: FELTLINE_TEST_SERVER names
// one (as in CI), else tests/client/real_server.py is started here.

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');

const { loadContract } = require('../src/feltline.js');
const { connect, realServer } = require('./real-server.js');

// Every message of a watch (or of its iterator), until the server ends it.
async function watched(stream) {
  const items = [];
  for await (const item of stream) items.push(item);
  return items;
}

// The rest of an iterator's items, until it ends.
async function rest(iterator) {
  const items = [];
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) items.push(next.value);
  return items;
}

test('a tournament is registered for, listed, cancelled and watched to its last event', async (t) => {
  const settings = await realServer(t);
  const contract = loadContract();
  const admin = connect(settings, settings.admin, contract);
  const [alice, bob] = ['alice', 'bob'].map((name) => connect(settings, settings.players[name], contract));
  t.after(() => [admin, alice, bob].forEach((c) => c.close()));
  for (const name of ['alice', 'bob']) await admin.mintChips(name, 1000, 'node tournament');
  // The server is shared with the other test files: alice may hold their chips too.
  const before = (await alice.getAccount()).balance;

  const stakes = { structure: 'STRUCTURE_NO_LIMIT', small_bet: 20, small_blind: 10, big_blind: 20 };
  const created = await admin.createTournament(
    { rules: { game: 'GAME_HOLDEM', stakes }, seats: 6 },
    'node sit-and-go',
    {
      levels: [{ stakes, hands: 2 }],
      buy_in: 100,
      fee: 10,
      stack: 300,
      payouts: [{ entrants: 3, shares: [10000] }],
      entrants: 3,
    },
  );
  const id = created.tournament_id;
  assert.equal(created.state, 'TOURNAMENT_STATE_REGISTERING');

  // The snapshot first: the entries after it come as events.
  const live = admin.watchTournament(id)[Symbol.asyncIterator]();
  const snapshot = (await live.next()).value;
  const seen = rest(live);
  await alice.registerTournament(id);
  const entered = await bob.registerTournament(id);
  assert.deepEqual(entered.player_ids, ['alice', 'bob']);
  assert.equal(entered.prize_pool, 200);
  assert.ok((await alice.listTournaments({ state: 'TOURNAMENT_STATE_REGISTERING' })).some((x) => x.tournament_id === id));
  const cancelled = await admin.cancelTournament(id, 'node test over');
  assert.equal((await bob.getTournament(id)).state, 'TOURNAMENT_STATE_CANCELLED');
  assert.equal(cancelled.cancel_reason, 'node test over');
  assert.equal((await alice.getAccount()).balance, before); // buy-in and fee back

  const after = await seen;
  assert.equal(snapshot.item, 'snapshot');
  assert.equal(snapshot.snapshot.tournament_id, id);
  assert.equal(snapshot.cursor, '2'); // its creation and the seed drawn (never sent)
  assert.deepEqual(
    after.map((m) => m.event.kind),
    ['registered', 'registered', 'cancelled', 'seed_revealed'],
  );
  assert.deepEqual(after.map((m) => m.event.registered?.player_id).slice(0, 2), ['alice', 'bob']);
  assert.deepEqual(
    after.map((m) => m.cursor),
    after.map((m) => String(m.event.sequence)),
  );
  const seed = after.at(-1).event.seed_revealed.seed;
  assert.equal(crypto.createHash('sha256').update(seed).digest('hex'), created.seed_commitment);

  // Resumed after the first registration: the rest, once each.
  const resumed = await watched(alice.watchTournament(id, after[0].cursor));
  assert.deepEqual(resumed.map((m) => m.cursor), after.slice(1).map((m) => m.cursor));
  // A cursor past its end is refused, not waited on.
  await assert.rejects(watched(alice.watchTournament(id, '999')), (e) => e.code === 3);
});
