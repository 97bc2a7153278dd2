/**
 * The weak-secret search's worker thread, as JavaScript source for `new Worker(src, { eval: true })`.
 *
 * Why a string: the scan runs from `src` under vitest (TypeScript that Node alone cannot load as a
 * worker file) and from `dist` built by plain `tsc` (which copies no `.js`/`.mjs` asset). Source
 * text inside a module works in both without a build step. Keep it plain CommonJS JavaScript with
 * no backticks or `${`.
 *
 * workerData: { digest, input (signing input bytes), signature (bytes), dictionary (UTF-8 text, one
 * candidate a line), spaces ([{ name, alphabet, length }], searched in order), budgetMs }.
 * Messages: { type: 'progress', tried } now and then, and one { type: 'done', secret?, phase?,
 * stopped: 'found' | 'exhausted' | 'budget', tried, phases: [{ name, tried, total }], elapsedMs }.
 */
export const SECRET_SEARCH_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const crypto = require('node:crypto');

const digest = workerData.digest;
const budgetMs = workerData.budgetMs;
const message = Buffer.from(workerData.input);
const expected = Buffer.from(workerData.signature);
const blockSize = digest === 'sha256' ? 64 : 128;
const digestSize = digest === 'sha256' ? 32 : digest === 'sha384' ? 48 : 64;
// One-shot hashing (Node >= 20.12) skips two object allocations per hash: about 1.4x faster.
const oneShot = typeof crypto.hash === 'function';
const CHECK_EVERY = 4096;
const PROGRESS_EVERY = 64 * CHECK_EVERY;

const started = performance.now();
const phases = [];
let tried = 0;
let secret;
let secretPhase;

const outOfTime = () => performance.now() - started > budgetMs;
const hmacMatches = (key) => crypto.createHmac(digest, key).update(message).digest().equals(expected);
const progress = () => parentPort.postMessage({ type: 'progress', tried: tried });

function searchDictionary() {
  const words = Buffer.from(workerData.dictionary).toString('utf8').split('\n').filter((w) => w.length > 0);
  const phase = { name: 'dictionary', tried: 0, total: words.length };
  phases.push(phase);
  for (let i = 0; i < words.length; i++) {
    if (i % CHECK_EVERY === 0 && outOfTime()) return 'budget';
    phase.tried++;
    tried++;
    if (hmacMatches(words[i])) {
      secret = words[i];
      secretPhase = phase.name;
      return 'found';
    }
  }
  return 'exhausted';
}

// Every key of one length over one alphabet, in odometer order. HMAC is computed by hand on
// reused buffers: H((K ^ opad) || H((K ^ ipad) || m)), K shorter than a block, zero-padded.
function searchSpace(space) {
  const alphabet = Buffer.from(space.alphabet, 'latin1');
  const length = space.length;
  const radix = alphabet.length;
  const total = Math.pow(radix, length);
  const phase = { name: space.name, tried: 0, total: total };
  phases.push(phase);
  const digits = new Uint8Array(length);
  const key = Buffer.alloc(length, alphabet[0]);
  const inner = Buffer.alloc(blockSize + message.length, 0x36);
  message.copy(inner, blockSize);
  const outer = Buffer.alloc(blockSize + digestSize, 0x5c);
  const setKeyByte = (j, byte) => {
    key[j] = byte;
    inner[j] = 0x36 ^ byte;
    outer[j] = 0x5c ^ byte;
  };
  for (let j = 0; j < length; j++) setKeyByte(j, alphabet[0]);
  for (let n = 0; n < total; n++) {
    if (n % CHECK_EVERY === 0) {
      if (outOfTime()) return 'budget';
      if (n % PROGRESS_EVERY === 0 && n > 0) progress();
    }
    let match;
    if (oneShot) {
      crypto.hash(digest, inner, 'buffer').copy(outer, blockSize);
      match = crypto.hash(digest, outer, 'buffer').equals(expected);
    } else {
      match = hmacMatches(key);
    }
    phase.tried++;
    tried++;
    if (match) {
      secret = key.toString('latin1');
      secretPhase = phase.name;
      return 'found';
    }
    for (let j = length - 1; j >= 0; j--) {
      const d = digits[j] + 1;
      if (d < radix) {
        digits[j] = d;
        setKeyByte(j, alphabet[d]);
        break;
      }
      digits[j] = 0;
      setKeyByte(j, alphabet[0]);
    }
  }
  return 'exhausted';
}

let stopped = searchDictionary();
for (const space of workerData.spaces) {
  if (stopped !== 'exhausted') break;
  stopped = searchSpace(space);
}
parentPort.postMessage({ type: 'done', secret: secret, phase: secretPhase, stopped: stopped, tried: tried, phases: phases, elapsedMs: performance.now() - started });
`;
