'use strict';
// A second verifier of Feltline hands, written from docs/audit.md,
// docs/deck.md and docs/replay.md alone, with nothing but node's crypto: it
// reads a `feltline-log` (feltline-replay export) and checks every stream's
// hash chain and signatures, each hand's seal, its seed against its
// commitment, under feltline-deck-v2 each seat's contribution against its
// own commitment (listing the seats that committed and did not reveal), its
// deck against the derivation and every dealt card against that deck or its
// reshuffled stub. It does not check the betting
// rules: `feltline-replay verify` re-runs those. A log's key history (the
// server's keys stream) says which keys it trusts after the first. Account
// streams are chained and signed like a table's.
//
// With --checkpoint FILE (docs/transparency.md), the log's hands are
// checked against a signed checkpoint of the transparency log, cosigned
// by each --witness VKEY (or the key it rotated to, by the statements of
// each --witness-rotations FILE).
//
//   node src/verify.js LOG [--public-key HEX] [--json]
//        [--checkpoint FILE [--witness VKEY]... [--witness-rotations FILE]...]

const crypto = require('node:crypto');
const fs = require('node:fs');
const readline = require('node:readline');

const transparency = require('./transparency');

const CHAIN = 'feltline-chain-v1';
const DECK = 'feltline-deck-v1';
const CONTRIBUTED = 'feltline-deck-v2';
const RANKS = '23456789TJQKA';
const SUITS = 'cdhs';

/** The canonical bytes of a JSON value (audit.md, Canonical form). */
function canonical(value) {
  return Buffer.from(canonicalText(value), 'ascii');
}

function canonicalText(value) {
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
    return String(value);
  }
  if (typeof value === 'string') {
    return JSON.stringify(value).replace(/[\u0080-\uffff]/g,
      (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
  }
  if (Array.isArray(value)) return '[' + value.map(canonicalText).join(',') + ']';
  const keys = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return '{' + keys.map((k) => canonicalText(k) + ':' + canonicalText(value[k])).join(',') + '}';
}

/** link_n = SHA-256(link_{n-1} || canonical(record_n)) (audit.md, The hash chain);
 * a `timed` record's time is chained with it. */
function link(previous, kind, stream, position, record) {
  const chained = { data: record.data, position, type: record.type, version: record.version };
  chained[kind] = stream;
  if (record.timed) chained.at = record.at;
  return crypto.createHash('sha256').update(previous).update(canonical(chained)).digest();
}

/** Whether `signatureHex` is Ed25519 by the 32-byte key `keyHex` over `message`. */
function verifies(keyHex, message, signatureHex) {
  try {
    const raw = Buffer.from(keyHex, 'hex');
    const signature = Buffer.from(signatureHex, 'hex');
    if (raw.length !== 32 || signature.length !== 64) return false;
    const key = crypto.createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk',
    });
    return crypto.verify(null, message, key, signature);
  } catch {
    return false;
  }
}

/** The fresh deck in index order (deck.md, Cards). */
function freshDeck(joker) {
  const cards = [];
  for (const r of RANKS) for (const s of SUITS) cards.push(r + s);
  if (joker) cards.push('Jk');
  return cards;
}

/** The seed's shuffle of `cards` for `purpose` (deck.md, The shuffle). */
function shuffle(seed, purpose, cards) {
  const out = cards.slice();
  const prefix = Buffer.from(`${DECK}/${purpose}`, 'utf8');
  let block = 0;
  let buffer = Buffer.alloc(0);
  let offset = 0;
  const word = () => {
    if (offset + 4 > buffer.length) {
      const counter = Buffer.alloc(8);
      counter.writeBigUInt64BE(BigInt(block++));
      const next = crypto.createHmac('sha256', seed).update(prefix).update(counter).digest();
      buffer = Buffer.concat([buffer.subarray(offset), next]);
      offset = 0;
    }
    const w = buffer.readUInt32BE(offset);
    offset += 4;
    return w;
  };
  for (let i = out.length - 1; i >= 1; i--) {
    const m = i + 1;
    const limit = Math.floor(2 ** 32 / m) * m;
    let w = word();
    while (w >= limit) w = word();
    const j = w % m;
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * The seed a feltline-deck-v2 deck is shuffled from (deck.md, The deck seed): HMAC-SHA256 keyed
 * by the server's seed over the tag and each revealed [seat, 32 bytes], in seat order.
 */
function deckSeed(serverSeed, contributions) {
  const hmac = crypto.createHmac('sha256', serverSeed).update(CONTRIBUTED, 'utf8');
  for (const [seat, bytes] of contributions.slice().sort((a, b) => a[0] - b[0])) {
    const number = Buffer.alloc(4);
    number.writeUInt32BE(seat);
    hmac.update(number).update(bytes);
  }
  return hmac.digest();
}

class Verifier {
  constructor(trusted) {
    this.trusted = trusted || null;
    this.keyring = new Set(); // the keys the log's key history trusts from this.trusted
    this.revoked = new Map(); // a revoked key -> the first notification it is not trusted for
    this.failures = [];
    this.warnings = [];
    this.withheld = []; // v2 hands' seats that committed and did not reveal: {id, seats}
    this.hands = 0;
    this.tables = 0;
    this.accounts = 0;
  }

  fail(check, kind, id, position, expected, found) {
    this.failures.push({ check, kind, id, position, expected: String(expected), found: String(found) });
  }

  trust(key, kind, id, position, notification) {
    if (this.trusted === null) {
      this.trusted = key;
      this.warnings.push(`no public key given: trusting ${key}, which signed ${kind} ${id}`);
    } else if (key !== this.trusted && !this.keyring.has(key)) {
      const expected = this.keyring.size
        ? `signed by a key the store's key history trusts from ${this.trusted}`
        : `signed by ${this.trusted}`;
      this.fail('key', kind, id, position, expected, key);
    } else if (this.revoked.has(key)) {
      const since = this.revoked.get(key);
      if (!Number.isInteger(notification) || notification >= since) {
        const at = Number.isInteger(notification) ? `notification ${notification}` : 'no notification';
        this.fail('revoked', kind, id, position, `signed by key ${key} before notification ${since}, its revocation`, at);
      }
    }
  }

  /** The server's keys stream (audit.md, The server's keys): its chain and
   * every signature; then the keys it lets us trust from the trusted key. */
  keys(records) {
    const id = records[0].id;
    let previous = Buffer.alloc(32);
    let waiting = [];
    const history = []; // [position, type, key, the key whose signature vouches for it, since]
    records.forEach((record, index) => {
      const position = index + 1;
      if (record.position !== position) this.fail('order', 'server', id, position, position, record.position);
      let computed;
      try {
        computed = link(previous, 'server', id, position, record);
      } catch (e) {
        this.fail('record', 'server', id, position, 'a key record', e.message);
        return;
      }
      if (computed.toString('hex') !== record.link) {
        this.fail('chain', 'server', id, position, computed.toString('hex'), record.link);
      }
      previous = /^[0-9a-f]{64}$/.test(record.link || '') ? Buffer.from(record.link, 'hex') : computed;
      waiting.push([position, record.type, record.data.public_key, '', record.data.since || 0]);
      if (record.signature) {
        if (verifies(record.signed_by, computed, record.signature)) {
          for (const w of waiting) history.push([w[0], w[1], w[2], record.signed_by, w[4]]);
          waiting = [];
        } else {
          this.fail('signature', 'server', id, position, 'a valid signature', record.signature);
        }
      }
    });
    for (const w of waiting) history.push(w);
    if (!records[records.length - 1].signature) {
      this.fail('signature', 'server', id, records.length, 'the last record signed', 'unsigned');
    }
    if (!history.length) return;
    if (this.trusted === null) {
      this.trusted = history[0][2];
      this.warnings.push(`no public key given: trusting ${this.trusted}, the first key of the store's key history`);
    }
    // Each key adopted at or before the last record a trusted key signed
    // (that signature covers every link before it), until none is added.
    // The revocations those signatures cover say from which notification on
    // a key is not trusted.
    // A key's signature after its revocation in this stream vouches for nothing.
    const revokedAt = new Map();
    for (const [position, type, key] of history) {
      if (type === 'KeyRevoked' && !revokedAt.has(key)) revokedAt.set(key, position);
    }
    const trusted = new Set([this.trusted]);
    let covered;
    for (;;) {
      const vouched = history.filter((h) => trusted.has(h[3]) && (revokedAt.get(h[3]) ?? h[0]) >= h[0]);
      const last = Math.max(0, ...vouched.map((h) => h[0]));
      covered = history.filter((h) => h[0] <= last);
      const more = covered.filter((h) => h[1] === 'KeyAdopted' && !trusted.has(h[2]));
      if (!more.length) break;
      for (const h of more) trusted.add(h[2]);
    }
    this.keyring = trusted;
    for (const [, type, key, , since] of covered) {
      if (type === 'KeyRevoked') this.revoked.set(key, Math.min(since, this.revoked.get(key) ?? since));
    }
  }

  /** Positions, links and signatures of one stream's records. */
  chain(kind, records) {
    const id = records[0].id;
    const running = !records.some((r) => r.type === 'SeedRevealed');
    let previous = Buffer.alloc(32);
    records.forEach((record, index) => {
      const position = index + 1;
      if (record.position !== position) this.fail('order', kind, id, position, position, record.position);
      if (record.damaged !== undefined) { // a record the store could not read (replay.md)
        this.fail('record', kind, id, position, 'a stored record the store can read', record.damaged);
        previous = null;
        return;
      }
      if (record.withheld) { // a running tournament's seed (replay.md): chained on from its link
        if (!(kind === 'tournament' && record.type === 'SeedDrawn' && running)) {
          this.fail('record', kind, id, position, "every record but a running tournament's seed", 'withheld');
        }
        previous = /^[0-9a-f]{64}$/.test(record.link || '') ? Buffer.from(record.link, 'hex') : null;
        if (!previous) this.fail('record', kind, id, position, 'a chained record', record.link);
        if (record.signature) {
          this.trust(record.signed_by, kind, id, position, record.notification);
          if (!previous || !verifies(record.signed_by, previous, record.signature)) {
            this.fail('signature', kind, id, position, 'a valid signature', record.signature);
          }
        }
        return;
      }
      let computed;
      try {
        computed = link(previous || Buffer.alloc(32), kind, id, position, record);
      } catch (e) {
        this.fail('record', kind, id, position, 'a chained record', e.message);
        return;
      }
      if (previous === null) computed = Buffer.from(record.link || '', 'hex'); // nothing to compare with
      if (computed.toString('hex') !== record.link) {
        this.fail('chain', kind, id, position, computed.toString('hex'), record.link);
      }
      previous = /^[0-9a-f]{64}$/.test(record.link || '') ? Buffer.from(record.link, 'hex') : computed;
      if (record.signature) {
        this.trust(record.signed_by, kind, id, position, record.notification);
        if (!verifies(record.signed_by, computed, record.signature)) {
          this.fail('signature', kind, id, position, 'a valid signature', record.signature);
        }
      }
    });
  }

  /** A table's or an account's stream: its chain, its last record signed. */
  signedStream(kind, records) {
    this.chain(kind, records);
    const last = records[records.length - 1];
    if (!last.signature && last.damaged === undefined) this.fail('signature', kind, last.id, records.length, 'the last record signed', 'unsigned');
  }

  table(records) {
    this.tables += 1;
    this.signedStream('table', records);
  }

  account(records) {
    this.accounts += 1;
    this.signedStream('account', records);
  }

  hand(records) {
    this.hands += 1;
    const id = records[0].id;
    const sealed = records[records.length - 1].kind === 'seal';
    const body = sealed ? records.slice(0, -1) : records;
    this.chain('hand', body);
    if (!sealed) {
      this.fail('seal', 'hand', id, records.length, 'a seal', 'none');
    } else {
      const seal = records[records.length - 1];
      const last = body.length ? body[body.length - 1].link : null;
      if (seal.algorithm !== CHAIN || seal.link !== last) {
        this.fail('seal', 'hand', id, body.length + 1, `${CHAIN} over ${last}`, seal.link);
      }
      this.trust(seal.public_key, 'hand', id, body.length + 1, seal.notification);
      if (!verifies(seal.public_key, Buffer.from(seal.link || '', 'hex'), seal.signature || '')) {
        this.fail('seal signature', 'hand', id, body.length + 1, 'a valid signature', seal.signature);
      }
    }
    this.deal(id, body);
  }

  /** The seed, the deck and every card (audit.md, The deal). */
  deal(id, body) {
    const started = body.find((r) => r.type === 'HandStarted');
    const ended = body.find((r) => r.type === 'HandEnded');
    if (!started || !ended) {
      this.fail('deal', 'hand', id, null, 'HandStarted and HandEnded', 'not both');
      return;
    }
    const seedHex = ended.data.seed || '';
    const seed = Buffer.from(seedHex, 'hex');
    const committed = crypto.createHash('sha256').update(seed).digest('hex');
    if (seed.length !== 32 || committed !== started.data.commitment) {
      this.fail('commitment', 'hand', id, ended.position, started.data.commitment, `${seedHex} hashing to ${committed}`);
    }
    const algorithm = started.data.algorithm === undefined ? DECK : started.data.algorithm;
    if (algorithm !== DECK && algorithm !== CONTRIBUTED) {
      this.fail('deck', 'hand', id, started.position, `${DECK} or ${CONTRIBUTED}`, algorithm);
    }
    const mixed = algorithm === CONTRIBUTED ? this.contributed(id, body, seed) : seed;
    const deck = shuffle(mixed, 'deck', freshDeck(started.data.rules.joker));
    const stubs = [];
    for (const record of body) {
      const data = record.data;
      if (record.type === 'DeckShuffled') {
        if (data.purpose !== 'deck' || data.seed !== mixed.toString('hex') || data.cards.join(' ') !== deck.join(' ')) {
          this.fail('deck', 'hand', id, record.position, deck.join(' '), (data.cards || []).join(' '));
        }
      } else if (record.type === 'StubReshuffled') {
        const k = stubs.length + 1;
        if (data.purpose !== `reshuffle/${k}`) this.fail('deck', 'hand', id, record.position, `reshuffle/${k}`, data.purpose);
        stubs.push(data.cards || []);
      } else if (record.type === 'CardDealt' || record.type === 'BoardDealt') {
        const order = (data.stub || 0) === 0 ? deck : stubs[data.stub - 1] || [];
        const wanted = record.type === 'CardDealt'
          ? [order[data.position]]
          : data.positions.map((p) => order[p]);
        const found = record.type === 'CardDealt' ? [data.card] : data.cards;
        if (wanted.join(' ') !== found.join(' ')) {
          this.fail('card', 'hand', id, record.position, wanted.join(' '), found.join(' '));
        }
      }
    }
  }
}

/**
 * The seed a v2 hand's deck comes from (deck.md, Seats contribute): each seat's commitment made
 * before the reveals open, each reveal after them and before the deck, hashing to its seat's
 * commitment; the server's seed mixed with the reveals. The seats that committed and did not
 * reveal are listed.
 */
Verifier.prototype.contributed = function contributed(id, body, seed) {
  const committed = new Map();
  const revealed = new Map();
  let revealing = null;
  let dealt = false;
  for (const record of body) {
    const data = record.data;
    if (record.type === 'ContributionCommitted') {
      if (revealing !== null) this.fail('order', 'hand', id, record.position, 'a commitment before the reveals open', 'after');
      committed.set(data.seat, data.commitment);
    } else if (record.type === 'RevealsOpened') {
      revealing = data.seats;
    } else if (record.type === 'ContributionRevealed') {
      if (revealing === null || dealt) this.fail('order', 'hand', id, record.position, 'a reveal after the commitments and before the deck', 'not');
      const bytes = Buffer.from(data.contribution, 'hex');
      const digest = crypto.createHash('sha256').update(bytes).digest('hex');
      if (bytes.length !== 32 || digest !== committed.get(data.seat)) {
        this.fail('contribution', 'hand', id, record.position, `seat ${data.seat}'s 32 bytes hashing to ${committed.get(data.seat)}`, data.contribution);
      }
      revealed.set(data.seat, bytes);
    } else if (record.type === 'DeckShuffled') {
      dealt = true;
    }
  }
  const withheld = (revealing || []).filter((s) => committed.has(s) && !revealed.has(s));
  if (withheld.length) this.withheld.push({ id, seats: withheld });
  if (seed.length !== 32) return seed; // the commitment has failed: nothing to mix
  return deckSeed(seed, [...revealed].filter(([, bytes]) => bytes.length === 32));
};

/** The streams whose chain and signatures are all this verifier checks of them: the transparency
 * log's (docs/transparency.md), a duplicate match's and a tournament's (their seeds and decisions
 * are `feltline-replay match` and `feltline-replay tournament`'s to check). */
const SIGNED = ['log', 'match', 'tournament'];

/**
 * Which stream a record belongs to: a table's, the server's keys, an account's, one of SIGNED, or a
 * hand's (with its seal).
 */
const streamKind = (r) => (['table', 'server', 'account', ...SIGNED].includes(r.kind) ? r.kind : 'hand');

/**
 * Verify the records of a log given as an async iterable of lines; with `checkpoint` (a signed
 * note's text), `witnesses` (verifier keys) and `rotations` (their rotation statements), its
 * hands against the transparency log too.
 */
async function verifyLines(lines, trusted, checkpoint = null, witnesses = [], rotations = []) {
  let header = null;
  let group = [];
  let verifier = null;
  const seals = new Map();
  const leaves = [];
  const flush = () => {
    if (!group.length) return;
    if (group[0].kind === 'table') verifier.table(group);
    else if (group[0].kind === 'server') verifier.keys(group);
    else if (group[0].kind === 'account') verifier.account(group);
    else if (SIGNED.includes(group[0].kind)) verifier.signedStream(group[0].kind, group);
    else verifier.hand(group);
    group = [];
  };
  for await (const text of lines) {
    if (!text.trim()) continue;
    const record = JSON.parse(text);
    if (header === null) {
      if (record.format !== 'feltline-log' || record.version !== 1) throw new Error('not a feltline-log version 1');
      header = record;
      verifier = new Verifier(trusted || null);
      if (!trusted && header.public_key) {
        verifier.trusted = header.public_key;
        verifier.warnings.push(`trusting the key the log names (${header.public_key}): give --public-key to know it is your server's`);
      }
      continue;
    }
    if (record.kind === 'seal') seals.set(record.id, record.link);
    if (record.kind === 'log' && record.type === 'HandLogged') leaves.push([record.data.hand, record.data.seal]);
    const head = group[0];
    if (head && (streamKind(head) !== streamKind(record) || head.id !== record.id
        || group[group.length - 1].kind === 'seal')) flush();
    group.push(record);
  }
  if (verifier === null) throw new Error('an empty log');
  flush();
  if (checkpoint !== null) {
    const origin = transparency.parseCheckpoint(transparency.parseNote(checkpoint).text).origin;
    const logKey = { name: origin, type: 1, publicKey: Buffer.from(verifier.trusted || '', 'hex') };
    const whole = Boolean(header.complete && header.accounts);
    const trustedWitnesses = transparency.followWitnesses(witnesses, rotations);
    for (const line of transparency.checkLog({ seals, leaves }, checkpoint, logKey, trustedWitnesses, whole).failures) {
      verifier.fail('checkpoint', 'log', origin, null, 'the history it committed to', line);
    }
  }
  return {
    ok: verifier.failures.length === 0,
    tables: verifier.tables,
    hands: verifier.hands,
    accounts: verifier.accounts,
    failures: verifier.failures,
    warnings: verifier.warnings,
    withheld: verifier.withheld,
  };
}

async function verifyFile(path, trusted, checkpoint = null, witnesses = [], rotations = []) {
  const lines = readline.createInterface({ input: fs.createReadStream(path), crlfDelay: Infinity });
  return verifyLines(lines, trusted, checkpoint, witnesses, rotations);
}

async function main(argv) {
  const args = argv.slice();
  const json = args.includes('--json');
  const valued = new Set();  // the positions of options' values
  const option = (name) => {
    const at = args.indexOf(name);
    if (at < 0) return null;
    valued.add(at + 1);
    return args[at + 1];
  };
  const trusted = option('--public-key');
  const checkpointFile = option('--checkpoint');
  const repeated = (name) => args.flatMap((a, i) => {
    if (a !== name) return [];
    valued.add(i + 1);
    return [args[i + 1]];
  });
  const witnesses = repeated('--witness');
  const rotations = repeated('--witness-rotations').flatMap((file) => transparency.splitRotations(fs.readFileSync(file, 'utf8')));
  const path = args.find((a, i) => !a.startsWith('--') && !valued.has(i));
  if (!path) {
    process.stderr.write('usage: node src/verify.js LOG [--public-key HEX] [--json] [--checkpoint FILE [--witness VKEY]... [--witness-rotations FILE]...]\n');
    return 2;
  }
  const checkpoint = checkpointFile === null ? null : fs.readFileSync(checkpointFile, 'utf8');
  const report = await verifyFile(path, trusted, checkpoint, witnesses, rotations);
  if (json) {
    process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  } else {
    for (const w of report.warnings) process.stderr.write(`warning: ${w}\n`);
    for (const f of report.failures) {
      process.stdout.write(`FAIL ${f.kind} ${f.id} at position ${f.position}: ${f.check}: expected ${f.expected}, found ${f.found}\n`);
    }
    for (const w of report.withheld) {
      process.stdout.write(`withheld: hand ${w.id}: seats ${w.seats.join(', ')} committed and did not reveal\n`);
    }
    process.stdout.write(`${report.tables} tables, ${report.hands} hands: ${report.ok ? 'ok' : `${report.failures.length} failures`}\n`);
  }
  return report.ok ? 0 : 1;
}

module.exports = { canonical, link, verifies, freshDeck, shuffle, deckSeed, verifyLines, verifyFile };

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e) => {
    process.stderr.write(`verify: ${e.message}\n`);
    process.exitCode = 2;
  });
}
