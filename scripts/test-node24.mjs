// Runs the jest suite on Node 24, the active LTS, next to `npm test` on the Node in use. The npm
// registry's `node` package brings the binary (`npx node@24`), so this needs nothing but npm. Its
// folder goes first on PATH, so the suite's own child processes (npm, npx, the CLI) run on 24 too.
// It leaves out the engine specs (Redis Cluster, Sentinel, Valkey, the ACL user, the relay's HTTP
// contract per engine: ENGINE_SPECS in jest.config.ts), the browser specs (Chromium running the built
// bundles and Angular apps: BROWSER_SPECS) and the sweeps (every recording at several splits, every
// writer against every dialect, every docs block type-checked: SWEEP_SPECS), which `npm test` runs:
// they test the engines, the browser and pure code over data, not the Node version, and would take
// the suite's time twice. ENGINE_SPECS=run, BROWSER_SPECS=run and SWEEP_SPECS=run run them here too.
//
//   npm run test:node24 [-- jest arguments]
//   ENGINE_SPECS=run BROWSER_SPECS=run SWEEP_SPECS=run npm run test:node24
import { execFileSync, spawnSync } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const node24 = execFileSync(npx, ['-y', 'node@24', '-p', 'process.execPath'], { encoding: 'utf8' }).trim();
const version = execFileSync(node24, ['--version'], { encoding: 'utf8' }).trim();
if (!version.startsWith('v24.')) throw new Error(`expected a Node 24 binary, got ${version} at ${node24}`);
console.log(`jest on Node ${version} (${node24})`);

// jest's package exports no bin path; its file is where npm put it.
const jest = join(fileURLToPath(new URL('..', import.meta.url)), 'node_modules', 'jest', 'bin', 'jest.js');
const env = {
  ENGINE_SPECS: 'skip',
  BROWSER_SPECS: 'skip',
  SWEEP_SPECS: 'skip',
  ...process.env,
  PATH: `${dirname(node24)}${delimiter}${process.env.PATH ?? ''}`,
};
// Without type stripping: Node 24 would try jest.config.ts as an ES module first, and warn.
const result = spawnSync(node24, ['--no-experimental-strip-types', jest, ...process.argv.slice(2)], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
