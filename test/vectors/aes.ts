/**
 * AES and AES-CMAC test vectors with provenance, all published (none derived). Each names its
 * document, section and example. Retrieved 2026-12 from the published documents named:
 * - FIPS 197 (Advanced Encryption Standard, NIST, November 2001; updated May 2023),
 *   Appendix B (cipher example) and Appendix C.1-C.3 (example vectors);
 * - NIST SP 800-38A (Recommendation for Block Cipher Modes of Operation, December 2001),
 *   Appendix F.1.1 (ECB-AES128.Encrypt) and F.1.5 (ECB-AES256.Encrypt): ECB is the block
 *   cipher applied to each block alone, so each block is a single-block vector;
 * - RFC 4493 (The AES-CMAC Algorithm, June 2006), section 4, Examples 1-3.
 * All values are hex as printed in those documents (spaces removed).
 */

export interface AesVector {
  readonly source: string;
  readonly key: string;
  readonly plaintext: string;
  readonly ciphertext: string;
}

const SP_128 = '2b7e151628aed2a6abf7158809cf4f3c';
const SP_256 = '603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4';
const SP_BLOCKS = [
  '6bc1bee22e409f96e93d7e117393172a',
  'ae2d8a571e03ac9c9eb76fac45af8e51',
  '30c81c46a35ce411e5fbc1191a0a52ef',
  'f69f2445df4f9b17ad2b417be66c3710',
] as const;

export const aesVectors: readonly AesVector[] = [
  {
    source: 'FIPS 197 Appendix B, Cipher Example (input, cipher key, output)',
    key: '2b7e151628aed2a6abf7158809cf4f3c',
    plaintext: '3243f6a8885a308d313198a2e0370734',
    ciphertext: '3925841d02dc09fbdc118597196a0b32',
  },
  {
    source: 'FIPS 197 Appendix C.1, AES-128 (Nk=4, Nr=10)',
    key: '000102030405060708090a0b0c0d0e0f',
    plaintext: '00112233445566778899aabbccddeeff',
    ciphertext: '69c4e0d86a7b0430d8cdb78070b4c55a',
  },
  {
    source: 'FIPS 197 Appendix C.2, AES-192 (Nk=6, Nr=12)',
    key: '000102030405060708090a0b0c0d0e0f1011121314151617',
    plaintext: '00112233445566778899aabbccddeeff',
    ciphertext: 'dda97ca4864cdfe06eaf70a0ec0d7191',
  },
  {
    source: 'FIPS 197 Appendix C.3, AES-256 (Nk=8, Nr=14)',
    key: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
    plaintext: '00112233445566778899aabbccddeeff',
    ciphertext: '8ea2b7ca516745bfeafc49904b496089',
  },
  ...(
    [
      '3ad77bb40d7a3660a89ecaf32466ef97',
      'f5d3d58503b9699de785895a96fdbaaf',
      '43b1cd7f598ece23881b00e3ed030688',
      '7b0c785e27e8ad3f8223207104725dd4',
    ] as const
  ).map((ciphertext, i) => ({
    source: `SP 800-38A F.1.1 ECB-AES128.Encrypt, Block #${i + 1}`,
    key: SP_128,
    plaintext: SP_BLOCKS[i]!,
    ciphertext,
  })),
  ...(
    [
      'f3eed1bdb5d2a03c064b5a7e3db181f8',
      '591ccb10d410ed26dc5ba74a31362870',
      'b6ed21b99ca6f4f9f153e7b1beafed1d',
      '23304b7a39f9f3ff067d8d8f9e24ecc7',
    ] as const
  ).map((ciphertext, i) => ({
    source: `SP 800-38A F.1.5 ECB-AES256.Encrypt, Block #${i + 1}`,
    key: SP_256,
    plaintext: SP_BLOCKS[i]!,
    ciphertext,
  })),
];

export interface CmacVector {
  readonly source: string;
  readonly key: string;
  readonly message: string;
  readonly tag: string;
}

export const cmacVectors: readonly CmacVector[] = [
  {
    source: 'RFC 4493 section 4, Example 1 (len = 0)',
    key: SP_128,
    message: '',
    tag: 'bb1d6929e95937287fa37d129b756746',
  },
  {
    source: 'RFC 4493 section 4, Example 2 (len = 16)',
    key: SP_128,
    message: SP_BLOCKS[0],
    tag: '070a16b46b4d4144f79bdd9dd04a287c',
  },
  {
    source: 'RFC 4493 section 4, Example 3 (len = 40)',
    key: SP_128,
    message: `${SP_BLOCKS[0]}${SP_BLOCKS[1]}30c81c46a35ce411`,
    tag: 'dfa66747de9ae63030ca32611497c827',
  },
];
