import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './build';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

const versionOf = (name: 'ai' | 'ai-current'): string =>
  (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * The `ai` package's lines the AI SDK specs judge by: 6 (CommonJS, imported by the specs
 * themselves) always, and on Node 22 or later its current major too (7, installed as the alias
 * `ai-current`), which ships only ES modules and so runs in a child process
 * (spec/support/aiCurrentClient.mjs, spec/support/aiCurrentServer.mjs).
 */
export const aiSdk = {
  /** The version of `ai` 6 in use. */
  version: versionOf('ai'),
  /** The version of `ai-current`, when the Node in use can run it, else `undefined`. */
  current: NODE_MAJOR >= 22 ? versionOf('ai-current') : undefined,
};

/** The judges, for the test names: "ai 6.0.x" on Node 20, "ai 6.0.x and 7.0.y" on Node 22 and later. */
export const aiJudges = `ai ${aiSdk.version}${aiSdk.current === undefined ? '' : ` and ${aiSdk.current}`}`;

/** What one of the `ai-current` scripts reports: the version it loaded and one result per case. */
export interface AiCurrentReport<Result> {
  readonly version: string;
  readonly results: Readonly<Record<string, Result>>;
}

/** Runs `spec/support/<script>` on the Node in use with `input` as JSON on stdin, and parses the JSON line it prints. */
export function runAiCurrent<Result>(
  script: 'aiCurrentClient.mjs' | 'aiCurrentServer.mjs',
  input: unknown,
): Promise<AiCurrentReport<Result>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'spec', 'support', script)], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${script} exited with ${code}:\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as AiCurrentReport<Result>);
    });
    child.stdin.end(JSON.stringify(input));
  });
}
