// The assertions a README example module calls for its `// =>` and `// throws` comments
// (see exampleModule in readme.ts). `at` is the file and line of the comment.
import assert from 'node:assert/strict';

export function expectValue(actual: unknown, expected: unknown, at: string): void {
  assert.deepStrictEqual(actual, expected, `${at}: the value differs from its "// =>" comment`);
}

export function expectThrows(f: () => unknown, name: string, at: string): void {
  try {
    f();
  } catch (e) {
    const got = e as Error | undefined;
    if (got?.name === name) return;
    assert.fail(`${at}: expected ${name}, got ${got?.name}: ${got?.message}`);
  }
  assert.fail(`${at}: expected ${name}, nothing was thrown`);
}
