import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The `name` in this package's package.json. */
const PACKAGE_NAME = 'rxjs-llm-stream';

/** The `name` field of `folder/package.json`, or undefined when there is none or it is not JSON. */
function packageNameIn(folder: string): string | undefined {
  const manifest = join(folder, 'package.json');
  if (!existsSync(manifest)) return undefined;
  try {
    const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown };
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The root folder of this package: the nearest folder at or above `start` whose package.json is
 * named `rxjs-llm-stream`. Nameless package.json files on the way (`dist/cjs` has one that only gives
 * the module type) and other packages are passed by, so the answer is the same from `src/cli`, from
 * `dist/cjs/cli` and from an installed copy under `node_modules`. Throws when there is none.
 *
 * @example
 * ```ts
 * packageFolder('/app/node_modules/rxjs-llm-stream/dist/cjs/cli'); // '/app/node_modules/rxjs-llm-stream'
 * ```
 */
export function packageFolder(start: string = __dirname): string {
  for (let folder = start; ; folder = dirname(folder)) {
    if (packageNameIn(folder) === PACKAGE_NAME) return folder;
    if (dirname(folder) === folder) throw new Error(`no package.json named ${PACKAGE_NAME} at or above ${start}`);
  }
}

/**
 * The `marbles/` folder of this package (the recordings the demo and the replay server stream).
 * It is looked up from the package's own root, never by searching for any `marbles/` folder: a
 * folder of that name in the project that installed the package must not be replayed instead.
 */
export function marblesFolder(): string {
  return join(packageFolder(), 'marbles');
}
