import { execFileSync } from 'child_process';
import fc from 'fast-check';
import { join } from 'path';
import { detached } from '../../src/internal/detach';
import { root } from '../support/build';

/**
 * The heap kept by what `keep` returns, in a process of its own with a garbage collector to call,
 * against the build: `keep(parent)` is given a string of 8 MB (16 MB two-byte) that nothing else
 * holds once `keep` has returned. (Inside a function: a temporary of the top-level script would stay
 * in its frame's registers while the script runs, and keep the parent alive by itself.)
 */
function heapKept(keep: string, filler: 'x' | '中' = 'x'): number {
  const program = `
    const { detached } = require(${JSON.stringify(join(root, 'dist', 'cjs', 'internal', 'detach.js'))});
    const heap = () => (gc(), gc(), process.memoryUsage().heapUsed);
    const keep = ${keep};
    const before = heap();
    const kept = (() => keep('a piece of the parent, longer than 13' + ${JSON.stringify(filler)}.repeat(8e6)))();
    console.log(JSON.stringify({ kept: heap() - before, piece: kept }));
  `;
  const { kept, piece } = JSON.parse(execFileSync(process.execPath, ['--expose-gc', '-e', program], { encoding: 'utf8' })) as {
    kept: number;
    piece: string;
  };
  expect(piece).toBe('a piece of the parent, longer than 13'.slice(0, 30));
  return kept;
}

describe('detached', () => {
  it('is equal to the text, whatever its characters and length', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.nat(50), (text, cut) => {
        const from = cut % (text.length + 1);
        const piece = (text + text).slice(from, from + text.length);
        expect(detached(piece)).toBe(piece);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps nothing of the string a piece was cut from, one-byte or two-byte', () => {
    for (const filler of ['x', '中'] as const)
      expect(heapKept('(parent) => detached(parent.slice(0, 30))', filler)).toBeLessThan(1_000_000);
  });

  it('where the piece itself keeps all of it (the measure can tell)', () => {
    expect(heapKept('(parent) => parent.slice(0, 30)')).toBeGreaterThan(7_000_000);
  });
});
