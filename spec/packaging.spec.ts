import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

// The package as a user gets it: built and packed, linted as a published package, installed from
// the tarball into an empty project, and run there: the demo, the help of every command, a replay
// into a pipe that closes early, require() and import().
//
// The build and the pack run in a copy of the work tree, so that the work tree's own dist/ (which
// other specs, the benchmarks and people at work read) is never removed under them.

jest.setTimeout(120_000);

const root = join(__dirname, '..');
const bin = (name: string): string => join(root, 'node_modules', '.bin', name);

/** What a finished process left. `code` is null when it did not exit by itself (a time-out, a signal). */
interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Colour and notices off, so that outputs can be read as text. */
const ENV: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', npm_config_update_notifier: 'false' };

/** Runs a program to its end; never rejects, so that a failure shows what the program printed. */
function run(file: string, args: readonly string[], cwd: string, timeoutMs = 90_000): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env: ENV, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ code, stdout, stderr: code === null ? `${stderr}${error?.message ?? ''}` : stderr });
    });
  });
}

/** Runs a program and fails with its output unless it exits 0. */
async function mustRun(file: string, args: readonly string[], cwd: string): Promise<Ran> {
  const ran = await run(file, args, cwd);
  if (ran.code !== 0) throw new Error(`${file} ${args.join(' ')} exited ${String(ran.code)}:\n${ran.stdout}\n${ran.stderr}`);
  return ran;
}

/** Top-level entries of the work tree that are outputs or machinery, not the package's sources. */
const NOT_COPIED = new Set(['node_modules', 'dist', 'coverage', '.git']);

/** A copy of the work tree, as `npm pack` there would see it, sharing its node_modules. */
function stageWorkTree(stage: string): string {
  cpSync(root, stage, {
    recursive: true,
    filter: (source) => {
      const path = relative(root, source);
      return !NOT_COPIED.has(path.split(/[\\/]/)[0]!) && !path.endsWith('.tgz');
    },
  });
  symlinkSync(join(root, 'node_modules'), join(stage, 'node_modules'), 'dir');
  return stage;
}

/** Packs `stage` (its prepack script builds it) and answers the tarball's path. */
async function pack(stage: string, destination: string): Promise<string> {
  mkdirSync(destination);
  await mustRun('npm', ['pack', '--pack-destination', destination], stage);
  const tarballs = readdirSync(destination).filter((name) => name.endsWith('.tgz'));
  expect(tarballs).toHaveLength(1);
  return join(destination, tarballs[0]!);
}

/** An empty project with the tarball installed (rxjs, the peer, comes from npm's cache). */
async function installInto(project: string, tarball: string): Promise<string> {
  mkdirSync(project);
  await mustRun('npm', ['init', '-y'], project);
  await mustRun('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], project);
  return project;
}

/** Every file under `folder`, as paths relative to it. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)));
}

/** A reply in the demo's first file's place, which the demo must never show. */
const DECOY =
  'data: {"id":"decoy","object":"chat.completion.chunk","choices":[{"index":0,' +
  '"delta":{"content":"DECOY REPLY"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';

let work: string;
let stage: string;
let tarball: string;
let plain: string;
let decoyed: string;
let demos: Promise<[Ran, Ran]> | undefined;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rxjs-llm-stream-packaging-'));
  stage = stageWorkTree(join(work, 'stage'));
  tarball = await pack(stage, join(work, 'packed'));
  [plain, decoyed] = await Promise.all([installInto(join(work, 'plain'), tarball), installInto(join(work, 'decoyed'), tarball)]);
  const decoy = join(decoyed, 'marbles', 'dialects', 'llamacpp-chat.sse');
  mkdirSync(dirname(decoy), { recursive: true });
  writeFileSync(decoy, DECOY);
  // The demo paces its replies for a person to watch (about ten seconds); both runs go on while
  // the other checks do, and the last tests wait for them.
  const demo = (project: string): Promise<Ran> => run('npx', ['--no', 'rxjs-llm-stream', 'demo'], project);
  demos = Promise.all([demo(plain), demo(decoyed)]);
}, 240_000);

afterAll(async () => {
  await demos;
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('holds the builds, the two recordings the demo streams and the documents, nothing else', async () => {
    const listed = (await mustRun('tar', ['-tzf', tarball], work)).stdout.trim().split('\n');
    const files = listed.map((entry) => entry.replace(/^package\//, ''));
    expect(files.filter((file) => !file.startsWith('dist/')).sort()).toEqual([
      'CHANGELOG.md',
      'LICENSE',
      'README.md',
      // The cores', the relay's and the test kit's entries for resolvers that read no exports map (TypeScript's node10, old bundlers).
      'core/package.json',
      'marbles/dialects/llamacpp-chat.sse',
      'marbles/openai/truncated-in-arguments.sse',
      'package.json',
      'relay/package.json',
      'testing/package.json',
    ]);
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/cjs/index.js',
        'dist/cjs/index.d.ts',
        'dist/esm/index.js',
        'dist/esm/index.d.ts',
        'dist/cjs/cli/main.js',
        'dist/cjs/testing/index.js',
        'dist/cjs/testing/index.d.ts',
        'dist/esm/testing/index.js',
        'dist/esm/testing/index.d.ts',
        'dist/cjs/relay/index.js',
        'dist/cjs/relay/index.d.ts',
        'dist/esm/relay/index.js',
        'dist/esm/relay/index.d.ts',
        'dist/cjs/core/index.js',
        'dist/cjs/core/index.d.ts',
        'dist/esm/core/index.js',
        'dist/esm/core/index.d.ts',
      ]),
    );
    // The CLI runs as CommonJS only, and no entry point exports it: no ES build, no type files.
    expect(files.filter((file) => file.startsWith('dist/esm/cli/'))).toEqual([]);
    expect(files.filter((file) => file.startsWith('dist/cjs/cli/') && file.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
  });

  it('has a package.json that npm publishes as written (npm pkg fix changes nothing)', async () => {
    const manifest = join(stage, 'package.json');
    const before = readFileSync(manifest, 'utf8');
    await mustRun('npm', ['pkg', 'fix'], stage);
    expect(readFileSync(manifest, 'utf8')).toBe(before);
  });

  it('passes publint --strict with nothing to say', async () => {
    const linted = await run(bin('publint'), ['--strict', tarball], work);
    expect(linted.stderr).toBe('');
    expect(linted.stdout).toContain('All good!');
    expect(linted.stdout).not.toMatch(/Errors|Warnings|Suggestions/);
    expect(linted.code).toBe(0);
  });

  it('has types that resolve for node10, node16 (CommonJS and ESM) and bundlers', async () => {
    const checked = await run(bin('attw'), [tarball, '--format', 'json'], work);
    expect(checked.stderr).toBe('');
    const report = JSON.parse(checked.stdout) as {
      problems: Record<string, unknown> | unknown[];
      analysis: { entrypoints: Record<string, { resolutions: Record<string, { resolution?: { fileName: string } }> }> };
    };
    expect(Object.keys(report.problems)).toEqual([]);
    // The main entry, the cores', the test kit's and the relay's, each to its own build's types.
    for (const [entry, folder] of [
      ['.', 'dist'],
      ['./core', 'dist/core'],
      ['./testing', 'dist/testing'],
      ['./relay', 'dist/relay'],
    ] as const) {
      const resolved = (kind: string): string | undefined => report.analysis.entrypoints[entry]?.resolutions[kind]?.resolution?.fileName;
      const [cjs, esm] = ['cjs', 'esm'].map((format) => new RegExp(`/${folder.replace('dist', `dist/${format}`)}/index\\.d\\.ts$`));
      expect({ entry, node10: resolved('node10') }).toEqual({ entry, node10: expect.stringMatching(cjs!) });
      expect({ entry, node16cjs: resolved('node16-cjs') }).toEqual({ entry, node16cjs: expect.stringMatching(cjs!) });
      expect({ entry, node16esm: resolved('node16-esm') }).toEqual({ entry, node16esm: expect.stringMatching(esm!) });
      expect({ entry, bundler: resolved('bundler') }).toEqual({ entry, bundler: expect.stringMatching(esm!) });
    }
    expect(checked.code).toBe(0);
  });
});

describe('the installed package', () => {
  const installed = (): string => join(plain, 'node_modules', 'rxjs-llm-stream');
  const command = (): string => join(plain, 'node_modules', '.bin', 'rxjs-llm-stream');

  it('has source maps that carry their sources', () => {
    const maps = filesUnder(installed()).filter((file) => file.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    const incomplete = maps.filter((file) => {
      const map = JSON.parse(readFileSync(join(installed(), file), 'utf8')) as { sources: string[]; sourcesContent?: unknown[] };
      return map.sourcesContent?.length !== map.sources.length || !map.sourcesContent.every((text) => typeof text === 'string');
    });
    expect(incomplete).toEqual([]);
  });

  const helpForms: ReadonlyArray<readonly [string, readonly string[]]> = [
    ['the tool', ['--help']],
    ['the tool', ['-h']],
    ['the tool', ['help']],
    ['replay', ['replay', '--help']],
    ['replay', ['replay', '-h']],
    ['replay', ['help', 'replay']],
    ['record', ['record', '--help']],
    ['record', ['record', '-h']],
    ['record', ['help', 'record']],
    ['demo', ['demo', '--help']],
    ['demo', ['demo', '-h']],
    ['demo', ['help', 'demo']],
  ];

  it('prints help for the tool and for each command on stdout, exit 0', async () => {
    const runs = await Promise.all(helpForms.map(([, args]) => run(command(), args, plain)));
    runs.forEach((ran, i) => {
      const [topic, args] = helpForms[i]!;
      const heading = { form: args.join(' '), code: ran.code, stderr: ran.stderr };
      expect(heading).toEqual({ form: args.join(' '), code: 0, stderr: '' });
      expect(ran.stdout.startsWith('usage:\n')).toBe(true);
      const commands = [...ran.stdout.matchAll(/^ {2}rxjs-llm-stream (\w+)/gm)].map((match) => match[1]);
      expect(commands).toEqual(topic === 'the tool' ? ['replay', 'record', 'demo', 'help'] : [topic]);
    });
  });

  it('exits 2 with the usage on stderr for an unknown command or argument', async () => {
    for (const args of [['nope'], ['replay', '--bogus']]) {
      const ran = await run(command(), args, plain);
      expect({ code: ran.code, stdout: ran.stdout }).toEqual({ code: 2, stdout: '' });
      expect(ran.stderr).toContain('usage:\n');
    }
  });

  it('replays into a pipe that closes after one line without a word on stderr', async () => {
    const recording = join(installed(), 'marbles', 'dialects', 'llamacpp-chat.sse');
    const status = join(work, 'replay-status');
    // Paced, so that the replay is still writing when head has read its line and gone.
    const script = '("$0" replay "$1" --chunk 5 --delay 3; echo $? > "$2") | head -1';
    const ran = await run('sh', ['-c', script, command(), recording, status], plain);
    expect(ran.stderr).toBe('');
    expect(ran.stdout.split('\n')).toEqual([expect.stringContaining('[thinking]'), '']);
    expect(readFileSync(status, 'utf8').trim()).toBe('0');
  });

  it('loads through require() and import(), each its own build, with rxjs as the peer', async () => {
    // Decodes a character split across two chunks, so the operator and rxjs both really run.
    const decode =
      `lastValueFrom(from([Uint8Array.of(0x68, 0xc3), Uint8Array.of(0xa9)]).pipe(m.decodeUtf8(),` +
      ` toArray())).then((t) => console.log(JSON.stringify({ text: t.join(''), file })))`;
    const required = await run(
      process.execPath,
      [
        '-e',
        `const m = require('rxjs-llm-stream'); const { from, lastValueFrom, toArray } ` +
          `= require('rxjs'); const file = require.resolve('rxjs-llm-stream'); ${decode}`,
      ],
      plain,
    );
    const imported = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import('rxjs-llm-stream'); const { from, lastValueFrom, toArray } = ` +
          `await import('rxjs'); const file = import.meta.resolve('rxjs-llm-stream'); ${decode}`,
      ],
      plain,
    );
    for (const ran of [required, imported]) expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(required.stdout)).toEqual({
      text: 'hé',
      file: expect.stringMatching(/node_modules\/rxjs-llm-stream\/dist\/cjs\/index\.js$/),
    });
    expect(JSON.parse(imported.stdout)).toEqual({
      text: 'hé',
      file: expect.stringMatching(/node_modules\/rxjs-llm-stream\/dist\/esm\/index\.js$/),
    });
  });

  it('loads rxjs-llm-stream/testing through require() and import(), each its own build; the main entry loads none of it', async () => {
    // The kit serves a body through a fake Response, read back by the package's own fromResponse.
    const serve =
      `lastValueFrom(m.fromResponse(kit.fakeResponse(kit.bodyStream(['data: [DO', 'NE]\\n\\n']))).pipe(m.decodeUtf8(), toArray()))` +
      `.then((t) => console.log(JSON.stringify({ text: t.join(''), file, kitLoadedByMain })))`;
    const required = await run(
      process.execPath,
      [
        '-e',
        `const m = require('rxjs-llm-stream'); const kitLoadedByMain = Object.keys(require.cache).some((f) => f.includes('testing'));` +
          ` const kit = require('rxjs-llm-stream/testing'); const { lastValueFrom, toArray } = require('rxjs');` +
          ` const file = require.resolve('rxjs-llm-stream/testing'); ${serve}`,
      ],
      plain,
    );
    const imported = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import('rxjs-llm-stream'); const kit = await import('rxjs-llm-stream/testing');` +
          ` const { lastValueFrom, toArray } = await import('rxjs'); const kitLoadedByMain = false;` +
          ` const file = import.meta.resolve('rxjs-llm-stream/testing'); ${serve}`,
      ],
      plain,
    );
    for (const ran of [required, imported]) expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(required.stdout)).toEqual({
      text: 'data: [DONE]\n\n',
      file: expect.stringMatching(/node_modules\/rxjs-llm-stream\/dist\/cjs\/testing\/index\.js$/),
      kitLoadedByMain: false,
    });
    expect(JSON.parse(imported.stdout)).toEqual({
      text: 'data: [DONE]\n\n',
      file: expect.stringMatching(/node_modules\/rxjs-llm-stream\/dist\/esm\/testing\/index\.js$/),
      kitLoadedByMain: false,
    });
  });

  it.each(['bundler', 'node16'])(
    'has test kit types that check under strict with moduleResolution %s, in a project without Node.js types',
    async (resolution) => {
      const folder = join(plain, `types-${resolution}`);
      mkdirSync(folder);
      writeFileSync(
        join(folder, 'kit.mts'),
        [
          "import { lastValueFrom } from 'rxjs';",
          "import { assembleChunks, decodeUtf8, finalizeCompletion, fromResponse, sseFrames, type Completion } from 'rxjs-llm-stream';",
          "import { bodyStream, coldBytes, expectCompletion, fakeFetch } from 'rxjs-llm-stream/testing';",
          "import type { FakeResponse, TestReply } from 'rxjs-llm-stream/testing';",
          "const reply: TestReply = { choices: [{ text: 'Hi' }] };",
          "const fetch = fakeFetch(bodyStream('data: [DONE]\\n\\n'));",
          "const response = (await fetch('https://example.com')) as FakeResponse;",
          'const cancelled: boolean = await response.cancelled;',
          'const completion: Completion = await lastValueFrom(',
          '  fromResponse(response).pipe(decodeUtf8(), sseFrames(), assembleChunks(), finalizeCompletion()),',
          ');',
          'expectCompletion(completion, reply);',
          "coldBytes(bodyStream(['a', 'b']), '-a-b|').subscribe();",
          'export { cancelled };',
        ].join('\n'),
      );
      const module = resolution === 'node16' ? 'node16' : 'esnext';
      const compilerOptions = {
        strict: true,
        noEmit: true,
        target: 'es2022',
        lib: ['es2022', 'dom'],
        types: [],
        module,
        moduleResolution: resolution,
      };
      writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['kit.mts'] }));
      const checked = await run(bin('tsc'), ['-p', folder], plain);
      expect({ code: checked.code, output: checked.stdout + checked.stderr }).toEqual({ code: 0, output: '' });
    },
  );

  it('loads rxjs-llm-stream/relay through require() and import(), each its own build', async () => {
    const use =
      `console.log(JSON.stringify({ position: m.parseStreamPosition('12:3'),` + ` store: typeof new m.MemoryStreamStore().read, file }))`;
    const required = await run(
      process.execPath,
      ['-e', `const m = require('rxjs-llm-stream/relay'); const file = require.resolve('rxjs-llm-stream/relay'); ${use}`],
      plain,
    );
    const imported = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import('rxjs-llm-stream/relay'); const file = import.meta.resolve('rxjs-llm-stream/relay'); ${use}`,
      ],
      plain,
    );
    for (const ran of [required, imported]) expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(required.stdout)).toEqual({
      position: { entry: 12, chunk: 3 },
      store: 'function',
      file: expect.stringMatching(/node_modules\/rxjs-llm-stream\/dist\/cjs\/relay\/index\.js$/),
    });
    expect(JSON.parse(imported.stdout).file).toMatch(/node_modules\/rxjs-llm-stream\/dist\/esm\/relay\/index\.js$/);
  });

  it('has a main entry whose modules include none of the relay and import no node: module (browser bundles stay clean)', () => {
    const esm = join(installed(), 'dist', 'esm');
    const seen = new Set<string>();
    const outside: string[] = [];
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const match of readFileSync(file, 'utf8').matchAll(
        /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|import\('([^']+)'\)/g,
      )) {
        const specifier = (match[1] ?? match[2])!;
        if (specifier.startsWith('.')) visit(join(dirname(file), specifier));
        else if (specifier !== 'rxjs' && !specifier.startsWith('rxjs/')) outside.push(specifier);
      }
    };
    visit(join(esm, 'index.js'));
    expect(seen.size).toBeGreaterThan(20);
    expect([...seen].filter((file) => relative(esm, file).startsWith('relay'))).toEqual([]);
    expect(outside).toEqual([]);
  });

  /** What the demo must print: the first reply's completion, then the second reply's error. */
  function expectDemo(ran: Ran): void {
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
    const completion = ran.stdout.indexOf('completion:\n{\n  "id": "chatcmpl-Xr7Qm2Tz9LkWp4Nb8Vc1Hs6Jd3Fg5Ya0"');
    const error = ran.stdout.indexOf('StreamClosedEarlyError');
    expect(completion).toBeGreaterThan(0);
    expect(error).toBeGreaterThan(completion);
  }

  it('runs the demo: `npx rxjs-llm-stream demo` streams the shipped recordings', async () => {
    expectDemo((await demos!)[0]);
  });

  it("runs the demo from the package's own recordings, not from a marbles/ folder of the project", async () => {
    expect(existsSync(join(decoyed, 'marbles', 'dialects', 'llamacpp-chat.sse'))).toBe(true);
    const ran = (await demos!)[1];
    expectDemo(ran);
    expect(ran.stdout).not.toContain('DECOY');
  });
});
