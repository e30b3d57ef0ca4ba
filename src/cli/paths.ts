import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The `marbles/` folder of this package, found upward from this file, so that the same code works
 * from `src/cli` (tests) and from `dist/cjs/cli` (the built command).
 */
export function marblesFolder(): string {
  for (let folder = __dirname; ; folder = dirname(folder)) {
    const candidate = join(folder, 'marbles');
    if (existsSync(candidate)) return candidate;
    if (dirname(folder) === folder) throw new Error(`no marbles/ folder above ${__dirname}`);
  }
}
