import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { promisify } from 'node:util';
import { Browser } from 'playwright-core';
import { providerStream } from '../../src/testing/writeProviderStream';
import { root } from '../support/build';
import { launchChromium, watchedPage } from '../support/chromium';

// The signal-based Angular recipe (spec/recipes/angular/reply.component.ts), built by Angular's own
// application builder and run in a real Chromium against a server on 127.0.0.1 that streams about a
// thousand deltas a second. The page counts its animation frames (a requestAnimationFrame loop) and
// the renders of the reply (each change of its text in the DOM, seen by a MutationObserver), once
// with `latestPerFrame()` and once without. The check is a comparison of counts, never of times: with
// the operator, no more renders than frames (and the one at the end); without it, more.

jest.setTimeout(120_000);

const RECIPE = join(root, 'spec', 'recipes', 'angular', 'reply.component.ts');
/** The reply: this many words, one delta each, streamed at one delta a millisecond. */
const WORDS = 2000;
const DELTAS_PER_MS = 1;
const TEXT = Array.from({ length: WORDS }, (_, i) => `${['sun', 'rain', 'wind', 'snow', 'fog'][i % 5]}${i}`).join(' ');

const MAIN = `import { provideZonelessChangeDetection } from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import { ReplyComponent } from './app/reply.component';

bootstrapApplication(ReplyComponent, { providers: [provideZonelessChangeDetection()] }).catch((error: unknown) => console.error(error));
`;
const INDEX = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>reply</title><base href="/" /><link rel="icon" href="data:," /></head>
  <body><app-reply></app-reply></body>
</html>
`;
const WORKSPACE = {
  version: 1,
  projects: {
    reply: {
      projectType: 'application',
      root: '',
      sourceRoot: 'src',
      cli: { cache: { enabled: false } },
      architect: {
        build: {
          builder: '@angular/build:application',
          options: { browser: 'src/main.ts', index: 'src/index.html', tsConfig: 'tsconfig.json', sourceMap: false, extractLicenses: false },
        },
      },
    },
  },
};
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'ES2022',
    moduleResolution: 'bundler',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: [],
    strict: true,
    skipLibCheck: true,
    isolatedModules: true,
  },
  angularCompilerOptions: { strictTemplates: true },
  files: ['src/main.ts'],
};

/**
 * The recipe in an Angular workspace of its own: its component, a main that bootstraps it zoneless,
 * and a node_modules of this repository's packages plus this package by name (its built dist).
 */
function stage(): string {
  const folder = mkdtempSync(join(tmpdir(), 'rxjs-llm-stream-screen-'));
  mkdirSync(join(folder, 'src', 'app'), { recursive: true });
  copyFileSync(RECIPE, join(folder, 'src', 'app', 'reply.component.ts'));
  writeFileSync(join(folder, 'src', 'main.ts'), MAIN);
  writeFileSync(join(folder, 'src', 'index.html'), INDEX);
  writeFileSync(join(folder, 'angular.json'), JSON.stringify(WORKSPACE, null, 2));
  writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  mkdirSync(join(folder, 'node_modules'));
  for (const name of readdirSync(join(root, 'node_modules'))) {
    symlinkSync(join(root, 'node_modules', name), join(folder, 'node_modules', name));
  }
  symlinkSync(root, join(folder, 'node_modules', 'rxjs-llm-stream'), 'dir');
  return folder;
}

/** Builds the workspace as `ng build` would (the architect runner the Angular CLI drives); returns the browser folder. */
async function build(workspace: string): Promise<string> {
  const runner = require.resolve('@angular-devkit/architect/bin/cli.js', { paths: [root] });
  const output = join(workspace, 'dist');
  const started = Date.now();
  try {
    await promisify(execFile)(process.execPath, [runner, 'reply:build', '--output-path', output], {
      cwd: workspace,
      env: { ...process.env, FORCE_COLOR: '0' },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`the Angular build failed:\n${stdout ?? ''}${stderr ?? ''}`, { cause: error });
  }
  console.info(`the Angular recipe built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return join(output, 'browser');
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

/** The built app, and `/api/chat`: the reply in OpenAI's chunks, one delta a millisecond, then the end. */
function serve(site: string): Promise<Server> {
  const chunks = providerStream({ choices: [{ text: TEXT }] }, 'openai-chat').chunks;
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (path === '/api/chat') {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      const started = performance.now();
      let sent = 0;
      // Bounded: it stops after the last chunk, or when the page goes.
      const timer = setInterval(() => {
        const due = Math.min(chunks.length, Math.floor((performance.now() - started) * DELTAS_PER_MS) + 1);
        while (sent < due) response.write(chunks[sent++]);
        if (sent === chunks.length) {
          clearInterval(timer);
          response.end();
        }
      }, 1);
      request.on('close', () => clearInterval(timer));
      return;
    }
    const file = normalize(join(site, path === '/' ? 'index.html' : path));
    if (!file.startsWith(site)) {
      response.writeHead(404).end();
      return;
    }
    try {
      const body = readFileSync(file);
      response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** What a run of the page measured. */
interface Run {
  /** The frame count at each render of the reply's text (from the first text on). */
  readonly renderFrames: number[];
  /** Milliseconds from the first render to the last. */
  readonly renderSpan: number;
  readonly text: string;
  readonly state: string | null;
  readonly problems: string[];
}

let workspace: string | undefined;
let server: Server | undefined;
let browser: Browser | undefined;

async function run(query: string): Promise<Run> {
  const { page, context, problems } = await watchedPage(browser!);
  try {
    await page.addInitScript(() => {
      const measure = { frames: 0, renderFrames: [] as number[], first: 0, last: 0, text: '' };
      (window as unknown as { measure: typeof measure }).measure = measure;
      const tick = (): void => {
        measure.frames++;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      document.addEventListener('DOMContentLoaded', () => {
        // One callback per task that changed the DOM: a render. Counted when the reply's text changed.
        new MutationObserver(() => {
          const text = document.getElementById('reply')?.textContent ?? '';
          if (text === measure.text) return;
          measure.text = text;
          const now = performance.now();
          if (measure.renderFrames.length === 0) measure.first = now;
          measure.last = now;
          measure.renderFrames.push(measure.frames);
        }).observe(document.body, { childList: true, characterData: true, subtree: true });
      });
    });
    const url = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
    await page.goto(`${url}/?stream=${encodeURIComponent(`${url}/api/chat`)}&${query}`);
    await page.waitForFunction(() => document.getElementById('reply')?.dataset['state'] !== 'streaming', undefined, { timeout: 60_000 });
    const measured = await page.evaluate(() => {
      const { renderFrames, first, last } = (window as unknown as { measure: { renderFrames: number[]; first: number; last: number } })
        .measure;
      const reply = document.getElementById('reply')!;
      return { renderFrames, renderSpan: last - first, text: reply.textContent ?? '', state: reply.getAttribute('data-state') };
    });
    // The pipeline ends at the reply's end signal, and fromFetch then aborts what is left of the body
    // (the server's last bytes): the browser reports that request as failed. Nothing else may go wrong.
    return { ...measured, problems: problems.filter((problem) => problem !== `request failed: ${url}/api/chat`) };
  } finally {
    await context.close();
  }
}

/** Frames from the first render to the last, both counted. */
const framesOf = (run: Run): number => run.renderFrames.at(-1)! - run.renderFrames[0]! + 1;
const perSecond = (count: number, ms: number): string => ((count * 1000) / ms).toFixed(0);

/** A run's figures, for the log (and docs/screen.md). */
function figures(label: string, run: Run): string {
  const renders = run.renderFrames.length;
  const span = run.renderSpan;
  return (
    `${label}: ${renders} renders in ${framesOf(run)} frames over ${span.toFixed(0)} ms ` +
    `(${perSecond(renders, span)} renders/s, ${perSecond(framesOf(run), span)} frames/s)`
  );
}

describe('the signal-based Angular recipe, measured in Chromium', () => {
  beforeAll(async () => {
    workspace = stage();
    const site = await build(workspace);
    server = await serve(site);
    browser = await launchChromium('the Angular screen recipe');
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
    if (workspace !== undefined) rmSync(workspace, { recursive: true, force: true });
  });

  let paced: Run;
  let everySnapshot: Run;

  it('with latestPerFrame(): the whole reply, rendered at most once an animation frame (and once more at the end)', async () => {
    paced = await run('perFrame=on');
    // The whole text (compared as a flag and a length: a failure should not print two thousand words).
    expect({ state: paced.state, whole: paced.text === TEXT, length: paced.text.length, problems: paced.problems }).toEqual({
      state: 'done',
      whole: true,
      length: TEXT.length,
      problems: [],
    });
    const renders = paced.renderFrames.length;
    console.info(figures('with latestPerFrame()', paced));
    expect(renders).toBeGreaterThan(1);
    expect(renders).toBeLessThanOrEqual(framesOf(paced) + 1);
  });

  it('without it, the same stream renders more often than there are frames: the count above can fail', async () => {
    everySnapshot = await run('perFrame=off');
    // The whole text (compared as a flag and a length: a failure should not print two thousand words).
    expect({
      state: everySnapshot.state,
      whole: everySnapshot.text === TEXT,
      length: everySnapshot.text.length,
      problems: everySnapshot.problems,
    }).toEqual({
      state: 'done',
      whole: true,
      length: TEXT.length,
      problems: [],
    });
    const renders = everySnapshot.renderFrames.length;
    console.info(figures('every snapshot', everySnapshot));
    expect(renders).toBeGreaterThan(framesOf(everySnapshot) + 1);
  });
});
