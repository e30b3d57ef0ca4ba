// Builds dist/esm (ES modules) and dist/cjs (CommonJS), each with its .d.ts files and a package.json
// that tells Node which module system the folder holds.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';

const tsc = (...args) => execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json', ...args], { stdio: 'inherit' });

rmSync('dist', { recursive: true, force: true });
tsc('--outDir', 'dist/esm', '--declaration', '--module', 'esnext', '--moduleResolution', 'bundler');
tsc('--outDir', 'dist/cjs', '--declaration', '--module', 'commonjs', '--moduleResolution', 'node10', '--ignoreDeprecations', '6.0');
for (const [folder, type] of [['dist/esm', 'module'], ['dist/cjs', 'commonjs']]) {
  mkdirSync(folder, { recursive: true });
  writeFileSync(`${folder}/package.json`, JSON.stringify({ type }) + '\n');
}
console.log('built dist/esm and dist/cjs');
