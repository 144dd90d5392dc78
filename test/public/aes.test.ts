// AES as idforge/public calls it (AesBlock over noble's key schedules and word functions) and
// AES-CMAC (the prefix tweaks) against their published vectors, and AesBlock against
// node:crypto on random keys and blocks both ways.
import assert from 'node:assert/strict';
import { createCipheriv } from 'node:crypto';
import { test } from 'node:test';
import { cmac } from '@noble/ciphers/aes.js';
import fc from 'fast-check';
import { AesBlock, loadWord, storeWord, swapWord } from '../../packages/idforge/src/public/aes.js';
import { aesVectors, cmacVectors } from '../vectors/aes.js';

const fromHex = (h: string) => Uint8Array.from(h.match(/../g) ?? [], (x) => Number.parseInt(x, 16));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

test('AesBlock encrypts and decrypts every FIPS 197 and SP 800-38A vector', () => {
  for (const v of aesVectors) {
    const aes = new AesBlock(fromHex(v.key));
    const out = new Uint8Array(20);
    aes.encryptBlock(fromHex(v.plaintext), 0, out, 2);
    assert.equal(hex(out.subarray(2, 18)), v.ciphertext, v.source);
    const back = new Uint8Array(16);
    aes.decryptBlock(out, 2, back, 0);
    assert.equal(hex(back), v.plaintext, `${v.source} (inverse)`);
  }
});

test('the word path (encrypt/decrypt on words) gives the same blocks as the byte path', () => {
  for (const v of aesVectors) {
    const aes = new AesBlock(fromHex(v.key));
    const p = fromHex(v.plaintext);
    const o = aes.encrypt(loadWord(p, 0), loadWord(p, 4), loadWord(p, 8), loadWord(p, 12));
    const c = new Uint8Array(16);
    storeWord(c, 0, o.s0);
    storeWord(c, 4, o.s1);
    storeWord(c, 8, o.s2);
    storeWord(c, 12, o.s3);
    assert.equal(hex(c), v.ciphertext, v.source);
  }
});

test('AES-CMAC, as used for the prefix tweaks, matches RFC 4493', () => {
  for (const v of cmacVectors) {
    assert.equal(hex(cmac(fromHex(v.message), fromHex(v.key))), v.tag, v.source);
  }
});

test('AesBlock equals node:crypto AES-ECB on random 16- and 32-byte keys', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
      ),
      fc.uint8Array({ minLength: 16, maxLength: 16 }),
      (key, block) => {
        const e = createCipheriv(`aes-${key.length * 8}-ecb`, key, null);
        e.setAutoPadding(false);
        const out = new Uint8Array(16);
        new AesBlock(key).encryptBlock(block, 0, out, 0);
        assert.equal(hex(out), hex(e.update(block)));
      },
    ),
    { seed: 12, numRuns: 300 },
  );
});

test('swapWord reverses the bytes of a word', () => {
  assert.equal(swapWord(0x01020304), 0x04030201);
  assert.equal(swapWord(0xff000000), 0xff);
  assert.equal(swapWord(swapWord(0xdeadbeef)), 0xdeadbeef);
});
