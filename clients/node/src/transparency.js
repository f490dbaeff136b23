'use strict';
// The transparency log's checks, written from docs/transparency.md alone:
// RFC 6962 hashing, C2SP signed notes, checkpoints and cosignatures, and
// whether a log's hands are those a checkpoint committed to.

const crypto = require('node:crypto');

const sha256 = (...parts) => {
  const hash = crypto.createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

/** A leaf's hash: SHA-256(0x00 || leaf). */
const leafHash = (leaf) => sha256(Buffer.from([0]), leaf);

/** An interior node's hash: SHA-256(0x01 || left || right). */
const nodeHash = (left, right) => sha256(Buffer.from([1]), left, right);

/** RFC 6962's Merkle tree hash of leaf hashes (k: the largest power of two below n). */
function treeHash(hashes) {
  if (hashes.length === 0) return sha256(Buffer.alloc(0));
  if (hashes.length === 1) return hashes[0];
  let k = 1;
  while (k * 2 < hashes.length) k *= 2;
  return nodeHash(treeHash(hashes.slice(0, k)), treeHash(hashes.slice(k)));
}

/**
 * The root that a leaf hash at `index` and its audit path imply for a tree of
 * `size` leaves (RFC 9162, 2.1.3.2); throws on a proof of the wrong length.
 */
function rootFromInclusion(index, size, hashed, proof) {
  if (!(index >= 0 && index < size)) throw new Error(`no leaf ${index} in a tree of ${size} leaves`);
  let [fn, sn, r] = [BigInt(index), BigInt(size - 1), hashed];
  for (const p of proof) {
    if (sn === 0n) throw new Error('the inclusion proof is too long');
    if ((fn & 1n) || fn === sn) {
      r = nodeHash(p, r);
      while (!(fn & 1n) && fn) [fn, sn] = [fn >> 1n, sn >> 1n];
    } else {
      r = nodeHash(r, p);
    }
    [fn, sn] = [fn >> 1n, sn >> 1n];
  }
  if (sn !== 0n) throw new Error('the inclusion proof is too short');
  return r;
}

/** Throws unless the leaf hash is leaf `index` of the tree of `size` leaves with `root`. */
function verifyInclusion(index, size, hashed, proof, root) {
  if (!rootFromInclusion(index, size, hashed, proof).equals(root)) {
    throw new Error(`leaf ${index} is not in the tree of ${size} leaves with that root`);
  }
}

/**
 * Throws unless the tree of `first` leaves with `firstRoot` is a prefix of the
 * one of `second` leaves with `secondRoot`, by the consistency proof (RFC 9162, 2.1.4.2).
 */
function verifyConsistency(first, second, firstRoot, secondRoot, proof) {
  if ([...proof, firstRoot, secondRoot].some((h) => h.length !== 32)) throw new Error('a hash is not 32 bytes');
  if (!(first >= 0 && first <= second)) throw new Error(`a tree of ${second} leaves cannot extend one of ${first}`);
  if (first === second) {
    if (proof.length || !firstRoot.equals(secondRoot)) throw new Error(`two trees of ${first} leaves with different roots`);
    return;
  }
  if (first === 0) {
    if (proof.length) throw new Error('a proof from the empty tree must be empty');
    return;
  }
  if (!proof.length) throw new Error('the consistency proof is empty');
  const path = (first & (first - 1)) === 0 ? [firstRoot, ...proof] : [...proof];
  let [fn, sn] = [BigInt(first - 1), BigInt(second - 1)];
  while (fn & 1n) [fn, sn] = [fn >> 1n, sn >> 1n];
  let [fr, sr] = [path[0], path[0]];
  for (const c of path.slice(1)) {
    if (sn === 0n) throw new Error('the consistency proof is too long');
    if ((fn & 1n) || fn === sn) {
      [fr, sr] = [nodeHash(c, fr), nodeHash(c, sr)];
      while (!(fn & 1n) && fn) [fn, sn] = [fn >> 1n, sn >> 1n];
    } else {
      sr = nodeHash(sr, c);
    }
    [fn, sn] = [fn >> 1n, sn >> 1n];
  }
  if (sn !== 0n) throw new Error('the consistency proof is too short');
  if (!fr.equals(firstRoot)) throw new Error(`the proof does not lead to the tree of ${first} leaves`);
  if (!sr.equals(secondRoot)) throw new Error(`the proof does not lead to the tree of ${second} leaves`);
}

/** A hand's leaf: canonical {"hand": id, "link": its seal's link} (both ASCII, keys in order). */
const handLeaf = (hand, link) => Buffer.from(JSON.stringify({ hand, link }), 'ascii');

/** A key id: SHA-256(name || "\n" || type || public key)[:4]. */
const keyId = (name, type, publicKey) => sha256(Buffer.from(`${name}\n`), Buffer.from([type]), publicKey).subarray(0, 4);

/** The verifier key text `name+hex id+base64(type || key)` of a 32-byte Ed25519 public key. */
const verifierKey = (name, type, publicKey) => `${name}+${keyId(name, type, publicKey).toString('hex')}`
  + `+${Buffer.concat([Buffer.from([type]), publicKey]).toString('base64')}`;

/** A verifier key `name+hex id+base64(type || key)`: its name, type and key, checked. */
function parseVerifierKey(vkey) {
  const [name, id, material] = [vkey.split('+')[0], vkey.split('+')[1], vkey.split('+').slice(2).join('+')];
  const raw = Buffer.from(material || '', 'base64');
  if (!name || raw.length !== 33) throw new Error(`not an Ed25519 verifier key: ${vkey}`);
  const key = { name, type: raw[0], publicKey: raw.subarray(1) };
  if (keyId(name, key.type, key.publicKey).toString('hex') !== id) throw new Error(`the key id of ${vkey} is not its key's`);
  return key;
}

/** A signed note: its text (through the last newline before the blank line) and its signature lines. */
function parseNote(note) {
  const at = note.lastIndexOf('\n\n');
  if (at < 0 || !note.endsWith('\n')) throw new Error('not a signed note');
  const signatures = note.slice(at + 2, -1).split('\n').map((line) => {
    if (!line.startsWith('\u2014 ')) throw new Error(`not a signature line: ${line}`);
    const [name, blob] = line.slice(2).split(' ');
    return { name, blob: Buffer.from(blob || '', 'base64') };
  });
  return { text: note.slice(0, at + 1), signatures };
}

/** A signed note's text again: its text, a blank line and a line per signature. */
const renderNote = (note) => `${note.text}\n${note.signatures
  .map((s) => `\u2014 ${s.name} ${s.blob.toString('base64')}\n`).join('')}`;

/** A checkpoint's origin, size and root. */
function parseCheckpoint(text) {
  const lines = text.split('\n');
  if (lines.length < 4 || !/^(0|[1-9][0-9]*)$/.test(lines[1])) throw new Error('not a checkpoint');
  const root = Buffer.from(lines[2], 'base64');
  if (root.length !== 32) throw new Error('a checkpoint root is 32 bytes');
  return { origin: lines[0], size: Number(lines[1]), root };
}

function ed25519(publicKey, message, signature) {
  try {
    const key = crypto.createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: publicKey.toString('base64url') }, format: 'jwk',
    });
    return crypto.verify(null, message, key, signature);
  } catch {
    return false;
  }
}

/** The signatures under a key's name and id, less the id. */
const signedBy = (note, key) => note.signatures
  .filter((s) => s.name === key.name && s.blob.length > 4 && s.blob.subarray(0, 4).equals(keyId(key.name, key.type, key.publicKey)))
  .map((s) => s.blob.subarray(4));

/** Whether the note is signed (type 0x01) by the key. */
const noteSigned = (note, key) => signedBy(note, key).some((s) => ed25519(key.publicKey, Buffer.from(note.text), s));

/** The message a tlog-cosignature v1 signs: the header, the time and the checkpoint. */
const cosignedText = (text, time) => Buffer.from(`cosignature/v1\ntime ${time}\n${text}`);

/** The time (UNIX seconds) of a valid cosignature (tlog-cosignature v1, type 0x04) by the key, or null. */
function cosigned(note, key) {
  const blob = signedBy(note, key).find((b) => b.length === 72 && b.readBigUInt64BE(0) < 2n ** 63n
    && ed25519(key.publicKey, cosignedText(note.text, b.readBigUInt64BE(0)), b.subarray(8)));
  return blob ? Number(blob.readBigUInt64BE(0)) : null;
}

const ROTATED = 'feltline-witness-rotation/v1'; // a witness's rotation statement's first line

/**
 * A witness's rotation statement (docs/transparency.md, Rotating a witness's key), checked:
 * its form, and that the old key and the new one both signed it. { old, new, time, held }.
 */
function parseRotation(statement) {
  const note = parseNote(statement);
  const lines = note.text.split('\n');
  if (lines.length < 5 || lines[0] !== ROTATED) throw new Error(`a rotation statement begins ${ROTATED}, then old, new and time`);
  const field = (line, name) => {
    if (!line.startsWith(`${name} `)) throw new Error(`a rotation statement's line ${line} is not its ${name}`);
    return line.slice(name.length + 1);
  };
  const [oldText, newText, time] = [field(lines[1], 'old'), field(lines[2], 'new'), field(lines[3], 'time')];
  const [old, fresh] = [parseVerifierKey(oldText), parseVerifierKey(newText)];
  if (!/^[0-9]+$/.test(time)) throw new Error(`a rotation's time is whole seconds, not ${time}`);
  for (const [key, text] of [[old, oldText], [fresh, newText]]) {
    if (key.type !== 0x04) throw new Error(`${text} is not a witness's cosigner key`);
    if (!noteSigned(note, key)) throw new Error(`the rotation to ${newText} is not signed by ${text}`);
  }
  const rest = lines.slice(4).join('\n');
  return { old, new: fresh, oldText, newText, time: Number(time), held: rest ? parseCheckpoint(rest) : null };
}

/** The statements of a witness's `rotations` file, each from its first line. */
function splitRotations(text) {
  const lines = text.split('\n');
  const starts = lines.flatMap((line, i) => (line === ROTATED ? [i] : []));
  return starts.map((a, i) => `${lines.slice(a, starts[i + 1] ?? lines.length).join('\n').replace(/\n+$/, '')}\n`);
}

const sameKey = (a, b) => a.name === b.name && a.type === b.type && a.publicKey.equals(b.publicKey);

/**
 * The witnesses of verifier keys `vkeys`, each followed through the rotation `statements`
 * (oldest first) its current key signed: { first, keys: [{ key, until }] }, `until` the time a
 * retired key was retired (null for the current one). Throws for a statement no trusted key signed.
 */
function followWitnesses(vkeys, statements = []) {
  const witnesses = vkeys.map((vkey) => {
    const first = parseVerifierKey(vkey);
    return { first, keys: [{ key: first, until: null }] };
  });
  for (const statement of statements) {
    const rotation = parseRotation(statement);
    const witness = witnesses.find((w) => sameKey(w.keys.at(-1).key, rotation.old));
    if (!witness) throw new Error(`the rotation from ${rotation.oldText} follows no witness key trusted`);
    witness.keys.at(-1).until = rotation.time;
    witness.keys.push({ key: rotation.new, until: null });
  }
  return witnesses;
}

/** Whether a witness cosigned the note: by its current key, or a retired one by its retirement. */
const witnessCosigned = (note, witness) => witness.keys.some(({ key, until }) => {
  const at = cosigned(note, key);
  return at !== null && (until === null || at <= until);
});

/**
 * The note with the witness's tlog-cosignature v1 (type 0x04) at `time` (whole
 * seconds since the epoch) by `privateKey` (a node KeyObject) under `name`,
 * in place of any signature of that key.
 */
function cosign(note, name, privateKey, time) {
  const publicKey = Buffer.from(crypto.createPublicKey(privateKey).export({ format: 'jwk' }).x, 'base64url');
  const id = keyId(name, 0x04, publicKey);
  const stamp = Buffer.alloc(8);
  stamp.writeBigUInt64BE(BigInt(time));
  const signature = crypto.sign(null, cosignedText(note.text, time), privateKey);
  const kept = note.signatures.filter((s) => !(s.name === name && s.blob.subarray(0, 4).equals(id)));
  return { text: note.text, signatures: [...kept, { name, blob: Buffer.concat([id, stamp, signature]) }] };
}

/**
 * Whether the hands of a log (`seals`: hand id -> its seal's link; `leaves`: the log stream's
 * [hand, seal] in order) are those the checkpoint committed to (docs/transparency.md,
 * Verifying a log against a checkpoint), cosigned by each of `witnesses` (followWitnesses'); the
 * failures, each one line.
 */
function checkLog({ seals, leaves }, noteText, logKey, witnesses = [], whole = false) {
  const failures = [];
  const note = parseNote(noteText);
  const checkpoint = parseCheckpoint(note.text);
  if (!noteSigned(note, logKey)) failures.push('checkpoint: not signed by the log\'s key');
  for (const witness of witnesses) {
    if (!witnessCosigned(note, witness)) failures.push(`checkpoint: not cosigned by the witness ${witness.first.name}`);
  }
  const { size } = checkpoint;
  if (leaves.length < size) {
    failures.push(`log: ${leaves.length} leaves, fewer than the checkpoint's ${size}`);
    return { checkpoint, failures };
  }
  const hashes = leaves.slice(0, size).map(([hand, seal]) => leafHash(handLeaf(hand, seal)));
  if (!treeHash(hashes).equals(checkpoint.root)) {
    failures.push(`log: its first ${size} leaves do not give the checkpoint's root`);
    return { checkpoint, failures };
  }
  const where = new Map(leaves.map(([hand], i) => [hand, i]));
  for (const [hand, link] of seals) {
    const index = where.get(hand);
    if (index === undefined) failures.push(`hand ${hand}: not a leaf of the transparency log`);
    else if (leaves[index][1] !== link) failures.push(`hand ${hand}: its seal is not the one logged at leaf ${index}`);
  }
  if (whole) {
    for (const [hand] of leaves.slice(0, size)) {
      if (!seals.has(hand)) failures.push(`hand ${hand}: logged at leaf ${where.get(hand)}, missing from the log`);
    }
  }
  return { checkpoint, failures };
}

/**
 * A player's receipt for a hand (GetHand's or a recalled hand's `inclusion`, docs/transparency.md,
 * Receipts), checked offline: its leaf names the hand, its checkpoint is signed by `logKey` (the
 * log's verifier key as the player knows it, not as the receipt names it) and cosigned by each of
 * `witnesses` (followWitnesses'), and its audit path takes the leaf to the checkpoint's root.
 * The failures, each one line; empty when the receipt holds.
 */
function checkReceipt(handId, inclusion, logKey, witnesses = []) {
  if (!inclusion || !inclusion.checkpoint) return [`hand ${handId}: no receipt: the hand is not logged`];
  const failures = [];
  let leaf;
  try {
    leaf = JSON.parse(inclusion.leaf);
  } catch {
    leaf = {};
  }
  if (leaf.hand !== handId || !handLeaf(leaf.hand, leaf.link).equals(Buffer.from(inclusion.leaf, 'utf8'))) {
    failures.push(`hand ${handId}: the receipt's leaf is not this hand's: ${inclusion.leaf}`);
  }
  const note = parseNote(inclusion.checkpoint.note);
  const checkpoint = parseCheckpoint(note.text);
  const key = parseVerifierKey(logKey);
  if (!noteSigned(note, key)) failures.push(`hand ${handId}: the receipt's checkpoint is not signed by ${logKey}`);
  for (const witness of witnesses) {
    if (!witnessCosigned(note, witness)) failures.push(`hand ${handId}: the receipt's checkpoint is not cosigned by the witness ${witness.first.name}`);
  }
  if (checkpoint.size !== inclusion.tree_size) {
    failures.push(`hand ${handId}: the proof is for ${inclusion.tree_size} leaves, the checkpoint has ${checkpoint.size}`);
    return failures;
  }
  try {
    verifyInclusion(inclusion.leaf_index, inclusion.tree_size, leafHash(Buffer.from(inclusion.leaf, 'utf8')),
      inclusion.hashes.map((x) => Buffer.from(x)), checkpoint.root);
  } catch (e) {
    failures.push(`hand ${handId}: ${e.message}`);
  }
  return failures;
}

module.exports = {
  checkReceipt,
  leafHash, nodeHash, treeHash, rootFromInclusion, verifyInclusion, verifyConsistency, handLeaf, keyId,
  verifierKey, parseVerifierKey, parseNote, renderNote, parseCheckpoint, noteSigned, cosigned, cosign, checkLog,
  ROTATED, parseRotation, splitRotations, followWitnesses, witnessCosigned,
};
