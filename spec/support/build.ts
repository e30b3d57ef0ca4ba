import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's root folder. */
export const root = join(__dirname, '..', '..');

/** The latest modification time of any file under `folder`. */
function newestChange(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Runs the build (scripts/build.mjs) unless `dist/` is newer than every source (a fresh clone has no
 * `dist/`). Called once, from Jest's global setup, before any spec runs: the specs that load the
 * built package (the browser example, the Angular client, the packed tarball) run in parallel
 * workers, and a build started by one of them would delete `dist/` under the others.
 */
export function buildIfStale(): void {
  const entries = ['esm', 'cjs'].map((format) => join(root, 'dist', format, 'index.js'));
  const sources = newestChange(join(root, 'src'));
  if (entries.every((entry) => existsSync(entry) && statSync(entry).mtimeMs >= sources)) return;
  try {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'pipe' });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`the build failed:\n${stdout?.toString() ?? ''}${stderr?.toString() ?? ''}`, { cause: error });
  }
}
