'use strict';
// Four Node clients play a two-table duplicate hold'em match: each seat
// holds the same cards at both tables, the scores are zero-sum, and the
// revealed seed hashes to the commitment stored before the first deal.
// Matches need the real server: FELTLINE_TEST_SERVER names one (as in CI),
// else tests/client/real_server.py is started here.

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');

const { loadContract, playMatch } = require('../src/feltline.js');
const { connect, realServer } = require('./real-server.js');

test('four clients join a duplicate match and get the same cards in the same seats', async (t) => {
  const settings = await realServer(t);
  const contract = loadContract();
  const admin = connect(settings, settings.admin, contract);
  const names = ['alice', 'bob', 'carol', 'dave'];
  const players = names.map((name) => connect(settings, settings.players[name], contract));
  t.after(() => [admin, ...players].forEach((c) => c.close()));

  const match = await admin.createMatch(
    {
      rules: {
        game: 'GAME_HOLDEM',
        stakes: { structure: 'STRUCTURE_NO_LIMIT', small_bet: 10, small_blind: 5, big_blind: 10 },
      },
      seats: 2,
    },
    'node duplicate match',
    { tables: 2, deals: 2, stack: 300 },
  );
  assert.equal(match.state, 'MATCH_STATE_SEATING');
  assert.equal(match.seed_commitments.length, 2);
  const places = [
    [0, 1],
    [0, 2],
    [1, 1],
    [1, 2],
  ];
  // Watch first, then join: the first deal is dealt as the last seat is taken.
  const playing = places.map(([table, seat], i) =>
    playMatch(players[i], match.table_ids[table], { seat, deals: 2 }),
  );
  for (const [i, [table, seat]] of places.entries()) await players[i].joinMatch(match.match_id, table, seat);
  const played = await Promise.all(playing);

  for (const seat of [0, 1]) {
    const [here, there] = [played[seat], played[seat + 2]]; // the same seat at tables 0 and 1
    for (const deal of [0, 1]) {
      assert.equal(here[deal].cards.length, 2, 'two hole cards');
      assert.deepEqual(here[deal].cards, there[deal].cards, `seat ${seat + 1}, deal ${deal + 1}`);
    }
  }
  let ended = await admin.getMatch(match.match_id);
  for (let i = 0; i < 50 && ended.state !== 'MATCH_STATE_ENDED'; i += 1) {
    await new Promise((r) => setTimeout(r, 100));
    ended = await admin.getMatch(match.match_id);
  }
  assert.equal(ended.state, 'MATCH_STATE_ENDED');
  assert.equal(ended.standings.reduce((sum, s) => sum + s.score, 0), 0, 'zero-sum');
  ended.revealed.forEach((deal, k) => {
    const hashed = crypto.createHash('sha256').update(deal.seed).digest('hex');
    assert.equal(hashed, ended.seed_commitments[k], `deal ${k + 1}'s seed is the committed one`);
  });
});
