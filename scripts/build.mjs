// Builds dist/esm (ES modules) and dist/cjs (CommonJS), each with its .d.ts files and a package.json
// that tells Node which module system the folder holds and bundlers that its modules can be dropped.
//
// The CLI (src/cli) is built into dist/cjs only: the bin points there, and its code finds the
// package through `__dirname`, which an ES module does not have. Its .d.ts files are removed: no
// entry point of the package exports the CLI, so nothing could ever read them.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const tscBin = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = promisify(execFile);

/** Runs the compiler; on failure, its diagnostics (printed on stdout) become the error. */
async function tsc(project, ...args) {
  try {
    await run(process.execPath, [tscBin, '-p', project, ...args], { cwd: root });
  } catch (error) {
    throw new Error(`tsc -p ${project} ${args.join(' ')} failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`, { cause: error });
  }
}

/**
 * Both compilers, side by side (they do not share output). Answers the message of every failure,
 * not only the first.
 */
async function compile() {
  const results = await Promise.allSettled([
    tsc('tsconfig.build.json', '--outDir', 'dist/esm', '--declaration', '--module', 'esnext', '--moduleResolution', 'bundler'),
    tsc(
      'tsconfig.build.cjs.json',
      '--outDir',
      'dist/cjs',
      '--declaration',
      '--module',
      'commonjs',
      '--moduleResolution',
      'node10',
      '--ignoreDeprecations',
      '6.0',
    ),
  ]);
  return results.filter((result) => result.status === 'rejected').map((result) => result.reason.message);
}

rmSync(join(root, 'dist'), { recursive: true, force: true });
const failures = await compile();
if (failures.length > 0) {
  console.error(failures.join('\n'));
  process.exit(1);
}
for (const file of readdirSync(join(root, 'dist/cjs/cli'))) {
  if (file.endsWith('.d.ts')) rmSync(join(root, 'dist/cjs/cli', file));
}
for (const [folder, type] of [
  ['dist/esm', 'module'],
  ['dist/cjs', 'commonjs'],
]) {
  mkdirSync(join(root, folder), { recursive: true });
  // `sideEffects: false` too: a bundler reads the package.json nearest to each file, which is this one,
  // not the package's own; without it every module the entry re-exports stays in an app's bundle.
  writeFileSync(join(root, folder, 'package.json'), JSON.stringify({ type, sideEffects: false }) + '\n');
}
console.log('built dist/esm and dist/cjs');
