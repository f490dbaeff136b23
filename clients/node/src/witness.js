'use strict';
// A witness of Feltline's transparency log, written from docs/transparency.md
// alone, with nothing but node's crypto: it keeps the last checkpoint it
// accepted and cosigns a newer one (C2SP tlog-cosignature v1) only if the
// log's key signed it and its consistency proof shows it extends the one
// held; it refuses a truncation (a smaller tree) and a fork (another root
// for a size it has seen, or a tree that does not extend it). Its state
// directory is laid out as `feltline-replay witness` lays out its own
// (witness.pem, log.vkey, checkpoint), so either witness can carry on from
// the other's state. With --rotate-key it replaces its key as the Python
// witness does (docs/transparency.md, Rotating a witness's key).
//
//   node src/witness.js --server HOST:PORT --state DIR [--log-key VKEY] [--name NAME]
//        [--token TOKEN] [--checkpoint FILE] [--output FILE] [--keep]
//        [--tls] [--tls-ca PEM] [--tls-cert PEM --tls-key PEM]
//   node src/witness.js --state DIR [--name NAME] --rotate-key [--output FILE]
//
// Exit status 0 when it cosigned (printing `cosigned <origin> at <size> leaves
// as <its verifier key>`), 3 when it refused (one line on standard error),
// 2 when it could not ask the server.

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');

const { tlsCredentials } = require('./feltline');
const transparency = require('./transparency');

const STATE = 'checkpoint'; // the last checkpoint accepted, with its cosignature
const KEY = 'witness.pem'; // the witness's own Ed25519 key (PKCS #8 PEM)
const LOG_KEY = 'log.vkey'; // the log's verifier key, as first trusted
const ROTATIONS = 'rotations'; // the witness's key rotations, each a signed statement, oldest first
const SIGNED = 0x01; // a note key's signature type: Ed25519
const COSIGNER = 0x04; // a cosigner key's: tlog-cosignature v1

/** A checkpoint the witness does not cosign; `kind` is fork, truncation, signature or origin. */
class Refused extends Error {
  constructor(kind, why) {
    super(`${kind}: ${why}`);
    this.kind = kind;
  }
}

/** A new Ed25519 key written to `file` (PKCS #8 PEM), which must not exist yet. */
function newKey(file) {
  const { privateKey } = crypto.generateKeyPairSync('ed25519');
  fs.writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  return privateKey;
}

/** The cosigner verifier key of a private key under a witness's name. */
function cosignerKey(name, privateKey) {
  const raw = Buffer.from(crypto.createPublicKey(privateKey).export({ format: 'jwk' }).x, 'base64url');
  return transparency.verifierKey(name, COSIGNER, raw);
}

/** Replace a file whole: a witness stopped mid-write keeps its last state, not half a new one. */
function write(file, text) {
  const fresh = `${file}.new`;
  const fd = fs.openSync(fresh, 'w', 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(fresh, file);
}

/**
 * A witness's state in a directory: its key (made on first use), the log's
 * verifier key (given on first use, then fixed) and the last checkpoint it
 * cosigned; `name` is the witness's key name, `clock` the time in seconds.
 */
class Witness {
  constructor(state, name, clock = () => Date.now() / 1000) {
    Object.assign(this, { state, name, clock });
    fs.mkdirSync(state, { recursive: true });
    const file = path.join(state, KEY);
    if (!fs.existsSync(file)) newKey(file);
    this.privateKey = crypto.createPrivateKey(fs.readFileSync(file));
    if (this.privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`${file} does not hold an Ed25519 private key`);
  }

  /** The witness's cosigner verifier key, for auditors to trust. */
  get key() {
    return cosignerKey(this.name, this.privateKey);
  }

  /**
   * Replace the witness's key, keeping its history: the old key and the new one sign a
   * statement naming both, the time and the checkpoint held; it is added to `rotations`; the
   * new key replaces the old in `witness.pem` and cosigns the held checkpoint too, so it carries
   * on from exactly where the old one stopped. Returns the statement's text.
   */
  rotate() {
    const fresh = path.join(this.state, `${KEY}.new`);
    fs.rmSync(fresh, { force: true }); // a rotation stopped before it was stated
    const privateKey = newKey(fresh);
    const held = this.last();
    const now = Math.floor(this.clock());
    const [oldKey, newKeyText] = [this.key, cosignerKey(this.name, privateKey)];
    const text = `${transparency.ROTATED}\nold ${oldKey}\nnew ${newKeyText}\ntime ${now}\n${held ? held.text : ''}`;
    const line = (vkey, key) => ({
      name: this.name,
      blob: Buffer.concat([transparency.keyId(this.name, COSIGNER, transparency.parseVerifierKey(vkey).publicKey),
        crypto.sign(null, Buffer.from(text), key)]),
    });
    const statement = transparency.renderNote({ text, signatures: [line(oldKey, this.privateKey), line(newKeyText, privateKey)] });
    const file = path.join(this.state, ROTATIONS);
    write(file, (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '') + statement);
    fs.renameSync(fresh, path.join(this.state, KEY));
    this.privateKey = privateKey;
    if (held) write(path.join(this.state, STATE), transparency.renderNote(transparency.cosign(held, this.name, privateKey, now)));
    return statement;
  }

  /** The log's verifier key: the one stored; else `given`, stored. */
  logKey(given) {
    const file = path.join(this.state, LOG_KEY);
    if (fs.existsSync(file)) {
      const stored = fs.readFileSync(file, 'utf8').trim();
      if (given && given !== stored) throw new Refused('signature', `this witness follows the log key ${stored}`);
      return transparency.parseVerifierKey(stored);
    }
    if (!given) throw new Refused('signature', "give the log's verifier key (--log-key) on first use");
    const key = transparency.parseVerifierKey(given);
    if (key.type !== SIGNED) throw new Refused('signature', `${given} is not a note signer's key`);
    write(file, `${given}\n`);
    return key;
  }

  /** The last checkpoint accepted, as a parsed note, or null. */
  last() {
    const file = path.join(this.state, STATE);
    return fs.existsSync(file) ? transparency.parseNote(fs.readFileSync(file, 'utf8')) : null;
  }

  /**
   * Cosign `noteText` if `logKey` signed it and `proof` (Buffers) shows it
   * extends the last checkpoint accepted; keep it and return it cosigned, as
   * text. Throws Refused otherwise, and keeps nothing.
   */
  witness(noteText, logKey, proof) {
    const note = transparency.parseNote(noteText);
    if (!transparency.noteSigned(note, logKey)) throw new Refused('signature', 'the checkpoint is not signed by the log\'s key');
    const fresh = transparency.parseCheckpoint(note.text);
    if (fresh.origin !== logKey.name) throw new Refused('origin', `the checkpoint is of ${fresh.origin}, not ${logKey.name}`);
    const last = this.last();
    if (last) {
      const old = transparency.parseCheckpoint(last.text);
      if (fresh.size < old.size) {
        throw new Refused('truncation', `the log shows ${fresh.size} leaves after it showed ${old.size}`);
      }
      if (fresh.size === old.size && !fresh.root.equals(old.root)) {
        throw new Refused('fork', `another root for the tree of ${fresh.size} leaves`);
      }
      try {
        transparency.verifyConsistency(old.size, fresh.size, old.root, fresh.root, proof);
      } catch (e) {
        throw new Refused('fork', `the tree of ${fresh.size} leaves does not extend the one of ${old.size} accepted before (${e.message})`);
      }
    }
    const signed = transparency.renderNote(transparency.cosign(note, this.name, this.privateKey, Math.floor(this.clock())));
    write(path.join(this.state, STATE), signed);
    return signed;
  }
}

const USAGE = 'usage: node src/witness.js --server HOST:PORT --state DIR [--log-key VKEY] [--name NAME] '
  + '[--token TOKEN] [--checkpoint FILE] [--output FILE] [--keep] [--tls] [--tls-ca PEM] [--tls-cert PEM --tls-key PEM]\n'
  + '       node src/witness.js --state DIR [--name NAME] --rotate-key [--output FILE]\n';

// `out` takes what the command says (standard output; a test's own list:
// under `node --test` standard output carries the runner's reports).
async function main(argv, connect, out = process.stdout) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        server: { type: 'string' }, state: { type: 'string' }, 'log-key': { type: 'string' },
        name: { type: 'string', default: 'witness' }, token: { type: 'string', default: process.env.FELTLINE_TOKEN || '' },
        checkpoint: { type: 'string' }, output: { type: 'string' }, keep: { type: 'boolean', default: false },
        tls: { type: 'boolean', default: false }, 'tls-ca': { type: 'string' }, 'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' }, 'rotate-key': { type: 'boolean', default: false },
      },
    }));
  } catch (e) {
    process.stderr.write(`witness: ${e.message}\n${USAGE}`);
    return 2;
  }
  if (!values.state || !(values.server || values['rotate-key'])) {
    process.stderr.write(USAGE);
    return 2;
  }
  if (values['rotate-key']) {
    const witness = new Witness(values.state, values.name);
    const old = witness.key;
    const statement = witness.rotate();
    if (values.output) fs.writeFileSync(values.output, statement);
    out.write(`rotated ${values.name} from ${old} to ${witness.key}\n`);
    return 0;
  }
  const read = (file) => (file ? fs.readFileSync(file) : undefined);
  const tls = values.tls || values['tls-ca'] || values['tls-cert']
    ? tlsCredentials({ ca: read(values['tls-ca']), cert: read(values['tls-cert']), key: read(values['tls-key']) })
    : undefined;
  const witness = new Witness(values.state, values.name);
  const client = connect(values.server, values.token, tls);
  try {
    const logKey = witness.logKey(values['log-key']);
    const noteText = values.checkpoint
      ? fs.readFileSync(values.checkpoint, 'utf8')
      : (await client.getCheckpoint()).note;
    const fresh = transparency.parseCheckpoint(transparency.parseNote(noteText).text);
    const last = witness.last();
    const held = last && transparency.parseCheckpoint(last.text).size;
    const proof = last && held < fresh.size ? await client.consistencyProof(held, fresh.size) : [];
    let signed;
    try {
      signed = witness.witness(noteText, logKey, proof);
    } catch (e) {
      if (!(e instanceof Refused)) throw e;
      process.stderr.write(`witness: refused: ${e.message}\n`);
      return 3;
    }
    if (values.output) fs.writeFileSync(values.output, signed);
    out.write(`cosigned ${fresh.origin} at ${fresh.size} leaves as ${witness.key}\n`);
    // A checkpoint from elsewhere is not the server's to serve.
    if (!values.keep && !values.checkpoint) await client.addCosignature(signed, witness.key);
    return 0;
  } catch (e) {
    if (e instanceof Refused) {
      process.stderr.write(`witness: refused: ${e.message}\n`);
      return 3;
    }
    process.stderr.write(`witness: ${e.details || e.message}\n`);
    return 2;
  } finally {
    client.close();
  }
}

module.exports = { Witness, Refused, main };

if (require.main === module) {
  const { FeltlineClient } = require('./feltline');
  const connect = (target, token, credentials) => new FeltlineClient(target, token, { credentials });
  main(process.argv.slice(2), connect).then((code) => {
    process.exitCode = code;
  });
}
