'use strict';
// A small Node client for Feltline's gRPC API (feltline.v1). It loads the
// contract straight from protos/ with proto-loader, so it never lags the
// .proto files; docs/api.md is the contract as integrators see it.

const crypto = require('node:crypto');
const path = require('node:path');
const { Readable } = require('node:stream');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTOS = path.resolve(__dirname, '..', '..', '..', 'protos');
const VENDOR = path.join(PROTOS, 'vendor');
const FILES = ['tables', 'play', 'watch', 'accounts', 'replay', 'matches', 'tournaments'].map((n) => `feltline/v1/${n}.proto`);

// Watch errors that re-opening cannot mend: the request itself is refused,
// or the caller cancelled. After any other (UNAVAILABLE when the connection
// drops), a watch is re-opened from the last cursor received.
const FINAL = new Set([
  grpc.status.CANCELLED,
  grpc.status.INVALID_ARGUMENT,
  grpc.status.NOT_FOUND,
  grpc.status.PERMISSION_DENIED,
  grpc.status.UNAUTHENTICATED,
  grpc.status.FAILED_PRECONDITION,
  grpc.status.UNIMPLEMENTED,
]);

// The contract as grpc-js service constructors, from protos/ alone: its
// buf/validate import is vendored in protos/vendor, and proto-loader knows
// the well-known types. `depsDir` overrides where that import is found.
function loadContract(depsDir = process.env.FELTLINE_PROTO_DEPS || VENDOR) {
  const definition = protoLoader.loadSync(FILES, {
    includeDirs: [PROTOS, depsDir],
    keepCase: true, // field names as in the protos and docs: table_id, hand_number
    longs: Number, // chips and sequences stay far below 2^53
    enums: String,
    defaults: true,
    oneofs: true, // item / kind / action name the oneof case that is set
  });
  return grpc.loadPackageDefinition(definition).feltline.v1;
}

// Channel credentials for a server over TLS: `ca`, the certificate
// authorities (PEM) that signed the server's certificate (omitted: Node's
// own), and for a server that requires client certificates, the client's
// `cert` chain and `key` (PEM). Each is a string, a Buffer or omitted.
function tlsCredentials({ ca, cert, key } = {}) {
  if (!cert !== !key) throw new Error('a client certificate needs its key, and a key its certificate');
  const pem = (value) => (value == null ? null : Buffer.from(value));
  return grpc.credentials.createSsl(pem(ca), pem(key), pem(cert));
}

// One connection, acting with one bearer token. The token rides in each
// call's metadata rather than in call credentials, which grpc-js refuses on
// the insecure channels used locally; pass `credentials` (tlsCredentials())
// for TLS.
// A server that stops answering without closing the connection (frozen, a
// stalled VM) is found by a ping unanswered within 10 s, so that a call fails
// UNAVAILABLE and a watch ends instead of waiting (docs/api.md, "A cluster").
const CHANNEL_OPTIONS = {
  'grpc.keepalive_time_ms': 10_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
};

class FeltlineClient {
  constructor(target, token, { contract = loadContract(), credentials } = {}) {
    const creds = credentials || grpc.credentials.createInsecure();
    this.token = token;
    this.tables = new contract.TableService(target, creds, CHANNEL_OPTIONS);
    this.play = new contract.PlayService(target, creds, { channelOverride: this.tables.getChannel() });
    this.watcher = new contract.WatchService(target, creds, { channelOverride: this.tables.getChannel() });
    this.accounts = new contract.AccountService(target, creds, { channelOverride: this.tables.getChannel() });
    this.replay = new contract.ReplayService(target, creds, { channelOverride: this.tables.getChannel() });
    this.matches = new contract.MatchService(target, creds, { channelOverride: this.tables.getChannel() });
    this.tournaments = new contract.TournamentService(target, creds, {
      channelOverride: this.tables.getChannel(),
    });
  }

  metadata() {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${this.token}`);
    return metadata;
  }

  unary(stub, method, request) {
    return new Promise((resolve, reject) => {
      stub[method](request, this.metadata(), { deadline: Date.now() + 10_000 }, (error, reply) =>
        error ? reject(error) : resolve(reply),
      );
    });
  }

  // Changes carry a fresh request id, so a retry is never applied twice.
  getTable(table_id) {
    return this.unary(this.tables, 'GetTable', { table_id }).then((r) => r.table);
  }
  createTable(config, display_name) {
    const request = { config, display_name, request_id: crypto.randomUUID() };
    return this.unary(this.tables, 'CreateTable', request).then((r) => r.table);
  }
  closeTable(table_id, reason = '') {
    const request = { table_id, reason, request_id: crypto.randomUUID() };
    return this.unary(this.tables, 'CloseTable', request).then((r) => r.table);
  }
  sitDown(table_id, seat, buy_in) {
    const request = { table_id, seat, buy_in, request_id: crypto.randomUUID() };
    return this.unary(this.tables, 'SitDown', request).then((r) => r.table);
  }
  standUp(table_id) {
    return this.unary(this.tables, 'StandUp', { table_id, request_id: crypto.randomUUID() });
  }
  mintChips(player_id, amount, note = '') {
    const request = { player_id, amount, note, request_id: crypto.randomUUID() };
    return this.unary(this.accounts, 'MintChips', request).then((r) => r.account);
  }
  getAccount(player_id = '') {
    return this.unary(this.accounts, 'GetAccount', { player_id }).then((r) => r.account);
  }

  // The server's verifier's report on one finished hand (auditor or admin):
  // { ok, hand, failures: [{ check, kind, stream_id, position, expected, found }], public_key }.
  verify(hand_id) {
    return this.unary(this.replay, 'VerifyHand', { hand_id });
  }
  // A player's game recall: its last ten finished hands, oldest first, each
  // { replay: true, title, hand, seat, result, choices, events }; by default
  // the caller's own (an auditor or admin names the player).
  recall(player_id = '') {
    return this.unary(this.replay, 'RecallHands', { player_id }).then((r) => r.hands);
  }
  // The transparency log (docs/transparency.md), any role: the newest signed
  // checkpoint { note, origin, size, root_hash, verifier_key }; the RFC 6962
  // proof (hashes) that the tree of `second` leaves extends the tree of `first`;
  // and a witness's cosigned note handed back, answered with the checkpoint as
  // the server now serves it.
  getCheckpoint() {
    return this.unary(this.replay, 'GetCheckpoint', {}).then((r) => r.checkpoint);
  }
  consistencyProof(first_size, second_size) {
    return this.unary(this.replay, 'GetConsistencyProof', { first_size, second_size }).then((r) => r.hashes);
  }
  addCosignature(note, witness_key) {
    return this.unary(this.replay, 'AddCosignature', { note, witness_key }).then((r) => r.checkpoint);
  }
  // Duplicate matches: an admin creates one (`options`: tables, deals,
  // stack, ahead), a player takes a seat at one of its tables for the
  // whole match and plays its deals there like any hand.
  createMatch(config, display_name, { tables, deals, stack, ahead = 0 }) {
    const request = { config, display_name, tables, deals, stack, ahead, request_id: crypto.randomUUID() };
    return this.unary(this.matches, 'CreateMatch', request).then((r) => r.match);
  }
  joinMatch(match_id, table, seat) {
    const request = { match_id, table, seat, request_id: crypto.randomUUID() };
    return this.unary(this.matches, 'JoinMatch', request).then((r) => r.match);
  }
  getMatch(match_id) {
    return this.unary(this.matches, 'GetMatch', { match_id }).then((r) => r.match);
  }

  // One decision: `action` is e.g. {call: {}}, {draw: {discards: []}} or
  // {declare: {declaration: 'DECLARATION_HIGH'}}; `seen` the hand and the
  // sequence of its latest event the decision was made on.
  act(table_id, seen, action) {
    const request = {
      table_id,
      request_id: crypto.randomUUID(),
      hand_number: seen.hand_number,
      sequence: seen.sequence,
      ...action,
    };
    return this.unary(this.play, 'Act', request);
  }

  // feltline-deck-v2: this seat's commitment to `bytes` (32 of them) for the
  // hand's deck, then, once the reveals open, the bytes themselves. Each
  // resolves with the server's signed receipt (ContributionReceipt).
  commit(table_id, hand_number, bytes) {
    const commitment = crypto.createHash('sha256').update(bytes).digest('hex');
    return this.contribute(table_id, hand_number, { commitment });
  }
  reveal(table_id, hand_number, bytes) {
    return this.contribute(table_id, hand_number, { contribution: bytes });
  }
  contribute(table_id, hand_number, step) {
    const request = { table_id, request_id: crypto.randomUUID(), hand_number, ...step };
    return this.unary(this.play, 'Contribute', request).then((r) => r.receipt);
  }

  // The table's stream: a TableWatch of WatchTableResponse, a snapshot
  // first (unless resuming `after` a cursor), then every event. It reads
  // WatchTableBatches (a message per change, cheaper than one per event)
  // and hands out the messages one by one. A dropped connection is resumed
  // from the last cursor; cancel it with .cancel().
  watch(table_id, after = '', { retries = 3, backoff = 200 } = {}) {
    const open = (cursor) =>
      this.watcher.WatchTableBatches({ table_id, after: cursor }, this.metadata());
    return new TableWatch(open, after, { retries, backoff });
  }

  // Tournaments (docs/api.md, "Tournaments"): an admin creates one
  // (`setup`: levels, buy_in, fee, stack, payouts, entrants, and for a
  // scheduled one start_time and minimum); players register themselves;
  // anyone reads and watches them.
  createTournament(config, display_name, setup) {
    const start = setup.start_time ? 'TOURNAMENT_START_SCHEDULED' : 'TOURNAMENT_START_SIT_AND_GO';
    const request = { config, display_name, start, ...setup, request_id: crypto.randomUUID() };
    return this.unary(this.tournaments, 'CreateTournament', request).then((r) => r.tournament);
  }
  registerTournament(tournament_id) {
    const request = { tournament_id, request_id: crypto.randomUUID() };
    return this.unary(this.tournaments, 'RegisterForTournament', request).then((r) => r.tournament);
  }
  unregisterTournament(tournament_id) {
    const request = { tournament_id, request_id: crypto.randomUUID() };
    return this.unary(this.tournaments, 'UnregisterFromTournament', request).then((r) => r.tournament);
  }
  getTournament(tournament_id) {
    return this.unary(this.tournaments, 'GetTournament', { tournament_id }).then((r) => r.tournament);
  }
  cancelTournament(tournament_id, reason) {
    const request = { tournament_id, reason, request_id: crypto.randomUUID() };
    return this.unary(this.tournaments, 'CancelTournament', request).then((r) => r.tournament);
  }
  // Every tournament, newest first (only those in `state`, a
  // TournamentState name, if given), read a page at a time.
  async listTournaments({ state = 'TOURNAMENT_STATE_UNSPECIFIED', page_size = 0 } = {}) {
    const found = [];
    let page_token = '';
    do {
      const page = await this.unary(this.tournaments, 'ListTournaments', { state, page_size, page_token });
      found.push(...page.tournaments);
      page_token = page.next_page_token;
    } while (page_token);
    return found;
  }

  // A tournament's stream: a TableWatch of WatchTournamentResponse, a
  // snapshot first (unless resuming `after` a cursor; '0' replays it from
  // its creation), then every event; it ends after the tournament's last
  // (seed_revealed). A dropped connection is resumed from the last cursor.
  watchTournament(tournament_id, after = '', { retries = 3, backoff = 200 } = {}) {
    const open = (cursor) =>
      this.tournaments.WatchTournament({ tournament_id, after: cursor }, this.metadata());
    return new TableWatch(open, after, { retries, backoff, unpack: (item) => [item] });
  }

  close() {
    this.tables.close();
  }
}

// A table's watch that outlives dropped connections: an object-mode
// Readable of WatchTableResponse (of a tournament's watch, given `unpack`:
// the messages in each reply, every one with its cursor). It keeps the
// cursor of the last item and,
// when the call fails with an error other than those in FINAL, re-opens
// the watch `after` it, so nothing is missed or repeated; it waits
// `backoff` ms, doubling, and gives up with the error after `retries`
// failures in a row (an item received resets the count). It ends when the
// server ends the stream; cancel() (or destroy()) stops it quietly.
class TableWatch extends Readable {
  constructor(open, after, { retries, backoff, unpack = (batch) => batch.messages }) {
    super({ objectMode: true, read() {} });
    this.open = open;
    this.unpack = unpack;
    this.cursor = after;
    this.retries = retries;
    this.backoff = backoff;
    this.failures = 0;
    this.call = null;
    this.timer = null;
    this.follow();
  }

  follow() {
    const call = this.open(this.cursor);
    this.call = call;
    call.on('data', (batch) => {
      if (this.call !== call) return;
      this.failures = 0;
      for (const item of this.unpack(batch)) {
        this.cursor = item.cursor;
        this.push(item);
      }
    });
    call.on('error', (error) => {
      if (this.call !== call) return; // cancelled by us
      this.call = null;
      if (FINAL.has(error.code) || this.failures >= this.retries) {
        this.destroy(error);
        return;
      }
      const delay = this.backoff * 2 ** this.failures;
      this.failures += 1;
      this.timer = setTimeout(() => this.follow(), delay);
    });
    call.on('end', () => {
      if (this.call !== call) return;
      this.call = null;
      this.push(null);
    });
  }

  cancel() {
    this.destroy();
  }

  _destroy(error, callback) {
    clearTimeout(this.timer);
    const call = this.call;
    this.call = null;
    if (call) call.cancel();
    callback(error);
  }
}

// The simplest legal choice from the server's LegalActions: check, else
// call, else bring in; draw nothing; declare high.
function passiveMove(options) {
  if (options.draw) return { draw: { discards: [] } };
  if (options.declare) return { declare: { declaration: 'DECLARATION_HIGH' } };
  for (const [kind, action] of [
    ['ACTION_KIND_CHECK', { check: {} }],
    ['ACTION_KIND_CALL', { call: {} }],
    ['ACTION_KIND_BRING_IN', { bring_in: {} }],
  ]) {
    if (options.actions.includes(kind)) return action;
  }
  return { fold: {} };
}

// Sit down, watch, and play the first hand dealt to this seat to its end,
// choosing with `choose` (passiveMove by default); then stand up. At a table
// whose seats contribute to the deck (feltline-deck-v2) it commits to 32
// random bytes when invited and reveals them when the reveals open. Resolves
// with what was seen: the hand's events, this seat's cards, the moves, and
// its contribution and the server's receipts for it.
function playHand(client, table_id, { seat, buy_in, choose = passiveMove }) {
  return new Promise((resolve, reject) => {
    const seen = { hand_number: 0, sequence: 0 };
    const result = {
      seat, hand_number: 0, events: [], cards: [], moves: [], contribution: null, receipts: [],
    };
    const contribute = (step) =>
      step.then((receipt) => result.receipts.push(receipt)).catch(finish);
    let stream;
    let finished = false;
    const finish = (error) => {
      if (finished) return;
      finished = true;
      stream.cancel();
      if (error) reject(error);
      else client.standUp(table_id).then(() => resolve(result), reject);
    };
    const onTurn = (turn) => {
      if (!turn || !turn.options || turn.seat !== seat) return; // options come only for our seat
      const action = choose(turn.options);
      result.moves.push(action);
      client.act(table_id, { ...seen }, action).catch((error) => {
        // The moment passed (clock, stale state): the next turn will come.
        if (error.code !== grpc.status.FAILED_PRECONDITION) finish(error);
      });
    };
    const onEvent = (event) => {
      if (!event.hand_number) return;
      seen.hand_number = event.hand_number;
      seen.sequence = event.sequence;
      if (event.kind === 'hand_started' && !result.hand_number) {
        if (event.hand_started.seats.some((s) => s.seat === seat)) {
          result.hand_number = event.hand_number;
        }
      }
      if (event.hand_number !== result.hand_number) return;
      result.events.push(event);
      if (event.kind === 'card_dealt' && event.card_dealt.seat === seat) {
        result.cards.push(event.card_dealt.card);
      }
      if (event.kind === 'contributions_opened' && event.contributions_opened.seats.includes(seat)) {
        result.contribution = crypto.randomBytes(32);
        contribute(client.commit(table_id, event.hand_number, result.contribution));
      }
      if (event.kind === 'reveals_opened' && event.reveals_opened.seats.includes(seat)) {
        contribute(client.reveal(table_id, event.hand_number, result.contribution));
      }
      if (event.kind === 'hand_ended') finish();
    };
    // Watch first and sit down once the snapshot is in, so that no event
    // of the first hand dealt to this seat comes before the stream starts.
    stream = client.watch(table_id);
    stream.on('data', (item) => {
      if (item.item === 'snapshot') {
        client.sitDown(table_id, seat, buy_in).catch(finish);
      } else if (item.item === 'event') {
        onEvent(item.event);
      } else if (item.item === 'turn') {
        onTurn(item.turn);
      }
    });
    stream.on('error', (error) => {
      if (error.code !== grpc.status.CANCELLED) finish(error);
    });
    stream.on('end', () => finish(new Error('the table closed before the hand ended')));
  });
}

// Play `deals` hands of a match at this seat's table (the match seats the
// player for every deal), choosing with `choose`. Resolves with the hands
// played: for each, its number, this seat's cards and the moves.
function playMatch(client, table_id, { seat, deals, choose = passiveMove }) {
  return new Promise((resolve, reject) => {
    const seen = { hand_number: 0, sequence: 0 };
    const hands = new Map();
    let done = false;
    const stream = client.watch(table_id);
    const finish = (error) => {
      if (done) return;
      done = true;
      stream.cancel();
      if (error) reject(error);
      else resolve([...hands.values()]);
    };
    const hand = (number) => {
      if (!hands.has(number)) hands.set(number, { hand_number: number, cards: [], moves: [], ended: false });
      return hands.get(number);
    };
    stream.on('data', (item) => {
      if (item.item === 'turn') {
        const turn = item.turn;
        if (!turn || !turn.options || turn.seat !== seat) return;
        const action = choose(turn.options);
        hand(seen.hand_number).moves.push(action);
        client.act(table_id, { ...seen }, action).catch((error) => {
          if (error.code !== grpc.status.FAILED_PRECONDITION) finish(error);
        });
        return;
      }
      if (item.item !== 'event' || !item.event.hand_number) return;
      const event = item.event;
      seen.hand_number = event.hand_number;
      seen.sequence = event.sequence;
      if (event.kind === 'card_dealt' && event.card_dealt.seat === seat) {
        hand(event.hand_number).cards.push(event.card_dealt.card);
      }
      if (event.kind === 'hand_ended') {
        hand(event.hand_number).ended = true;
        if ([...hands.values()].filter((h) => h.ended).length >= deals) finish();
      }
    });
    stream.on('error', (error) => {
      if (error.code !== grpc.status.CANCELLED) finish(error);
    });
    stream.on('end', () => finish(new Error('the table closed before the match ended')));
  });
}

// After a hand, whether a seat's own 32 bytes went into its deck, from the hand's
// events as the seat sees them (GetHand, recall()): what contradicts it, one line
// each, empty when nothing does. A player never sees the server's seed, so it
// checks what the derivation takes from it (docs/deck.md): a feltline-deck-v2
// hand, the seats invited after the server's commitment, the seat's commitment
// to exactly these bytes, its reveal of them, before the deck was shuffled. The
// verifiers derive the deck from every reveal in the signed stream; a hand
// lacking the seat's commitment or reveal while the seat holds the server's
// receipts (playHand's `receipts`) is one the server's key contradicts: each
// receipt is named, for an auditor.
function checkContribution(contribution, seat, events, receipts = []) {
  const hand = events.length ? events[0].hand_number : 0;
  const where = `hand ${hand}`;
  const first = new Map();
  let committed = null;
  let revealed = null;
  for (const event of events) {
    if (!first.has(event.kind)) first.set(event.kind, event);
    if (event.kind === 'contribution_committed' && event.contribution_committed.seat === seat) committed = event;
    if (event.kind === 'contribution_revealed' && event.contribution_revealed.seat === seat) revealed = event;
  }
  const started = first.get('hand_started');
  if (!started) return [`${where}: no HandStarted among its events: not a whole hand`];
  if (started.hand_started.algorithm !== 'feltline-deck-v2') {
    return [`${where}: dealt by ${started.hand_started.algorithm}, which takes no seat's bytes`];
  }
  const failures = [];
  const opened = first.get('contributions_opened');
  if (!opened || opened.sequence < started.sequence) failures.push(`${where}: the seats were not invited after the server's commitment`);
  const digest = crypto.createHash('sha256').update(contribution).digest('hex');
  if (!committed) failures.push(`${where}: seat ${seat}'s commitment is not in the hand`);
  else if (committed.contribution_committed.commitment !== digest) {
    failures.push(`${where}: seat ${seat}'s commitment is ${committed.contribution_committed.commitment}, not ${digest}, its bytes' SHA-256`);
  }
  if (!revealed) failures.push(`${where}: seat ${seat}'s reveal is not in the hand: its deck left it out`);
  else if (!Buffer.from(revealed.contribution_revealed.contribution).equals(Buffer.from(contribution))) {
    failures.push(`${where}: seat ${seat}'s reveal is not the bytes it committed to`);
  } else if (committed && revealed.sequence < committed.sequence) {
    failures.push(`${where}: seat ${seat}'s reveal comes before its commitment`);
  } else {
    const shuffled = first.get('deck_shuffled');
    if (!shuffled || shuffled.sequence < revealed.sequence) failures.push(`${where}: the deck was shuffled before seat ${seat}'s reveal`);
  }
  if (!revealed || !committed) {
    for (const r of receipts.filter((x) => x.hand_id === events[0].hand_id)) {
      failures.push(`${where}: the server signed the chain at position ${r.position} (link ${r.link}, signature `
        + `${r.signature}, key ${r.public_key}) on taking a step of seat ${seat}'s: evidence for an auditor`);
    }
  }
  return failures;
}

module.exports = {
  checkContribution,
  FeltlineClient,
  playMatch,
  TableWatch,
  loadContract,
  passiveMove,
  playHand,
  tlsCredentials,
  PROTOS,
};
