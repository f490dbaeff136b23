'use strict';
// A player's game recall and an admin's verification of the hand it
// played, through the Replay service of a real server: FELTLINE_TEST_SERVER
// names one (as for play.test.js), or, when it is not set, this test starts
// one with tests/client/real_server.py (the fake server has no replay).

const test = require('node:test');
const assert = require('node:assert/strict');
const grpc = require('@grpc/grpc-js');

const { loadContract, playHand } = require('../src/feltline.js');
const { connect, realServer } = require('./real-server.js');

test('a player recalls the hand it played, and an admin verifies it', async (t) => {
  const settings = await realServer(t);
  const contract = loadContract();
  const admin = connect(settings, settings.admin, contract);
  const alice = connect(settings, settings.players.alice, contract);
  const bob = connect(settings, settings.players.bob, contract);
  t.after(() => [admin, alice, bob].forEach((c) => c.close()));

  for (const player of ['alice', 'bob']) await admin.mintChips(player, 1000, 'node replay test');
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
    'node replay test',
  );
  const [a] = await Promise.all([
    playHand(alice, table.table_id, { seat: 1, buy_in: 400 }),
    playHand(bob, table.table_id, { seat: 2, buy_in: 400 }),
  ]);
  await admin.closeTable(table.table_id, 'test over');

  const handId = a.events[0].hand_id;
  const recalled = await alice.recall();
  const hand = recalled.find((h) => h.hand.hand_id === handId);
  assert.ok(hand, 'the hand alice just played is in her recall');
  assert.equal(hand.replay, true);
  assert.match(hand.title, /^REPLAY: hand 1 at node replay test, played \d{4}-\d\d-\d\d /);
  assert.equal(hand.seat, 1);
  assert.equal(hand.result.starting_stack, 400);
  const ended = a.events.find((e) => e.kind === 'hand_ended').hand_ended;
  const final = ended.stacks.find((s) => s.seat === 1).amount;
  assert.equal(hand.result.final_stack, final);
  assert.equal(hand.result.final_stack, 400 - hand.result.bet + hand.result.won);
  assert.ok(hand.choices.length >= a.moves.length, 'every move alice made, and her blind');
  assert.ok(hand.choices.every((e) => e[e.kind].seat === 1), 'only her own choices');
  const starts = recalled.map((h) => Number(h.hand.start_time.seconds));
  assert.deepEqual(starts, [...starts].sort((x, y) => x - y), 'oldest first');
  assert.ok(recalled.length <= 10);
  const theirs = hand.events.filter((e) => e.kind === 'card_dealt' && e.card_dealt.seat === 2);
  const shown = hand.events.some((e) => e.kind === 'shown' && e.shown.seat === 2);
  if (!shown) assert.ok(theirs.every((e) => e.card_dealt.card == null), "bob's unshown cards stay hidden");
  assert.ok(hand.events.at(-1).hand_ended.seed == null, 'no seed for a player');

  const report = await admin.verify(handId);
  assert.equal(report.ok, true, JSON.stringify(report.failures));
  assert.deepEqual(report.failures, []);
  assert.match(report.public_key, /^[0-9a-f]{64}$/);
  assert.equal(report.hand.hand_id, handId);

  await assert.rejects(alice.verify(handId), (e) => e.code === grpc.status.PERMISSION_DENIED);
  await assert.rejects(admin.verify('not a uuid'), (e) => e.code === grpc.status.INVALID_ARGUMENT);
  await assert.rejects(bob.recall('alice'), (e) => e.code === grpc.status.PERMISSION_DENIED);
});
