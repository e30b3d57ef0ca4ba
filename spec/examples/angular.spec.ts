import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Browser, Page } from 'playwright-core';
import { ReplayServer, startReplayServer } from '../../src/cli/replayServer';
import type { TestReply } from '../../src/dialects/writing/TestReply';
import { providerStream } from '../../src/testing/writeProviderStream';
import { root } from '../support/build';
import { WatchedPage, launchChromium, watchedPage } from '../support/chromium';
import { StaticServer, startStaticServer } from '../support/staticServer';

// The Angular example (examples/angular/), built by Angular's own application builder (esbuild)
// into a temporary folder, served beside the replay server and run in a real Chromium: HttpClient
// with withFetch(), rxResource over the library's pipeline (its ESM build, by package name).

jest.setTimeout(30_000);

const app = join(root, 'examples', 'angular');
const MOUNT = '/angular/';

let output: string | undefined;
let provider: ToolProvider | undefined;
let replay: ReplayServer | undefined;
let site: StaticServer | undefined;
let browser: Browser | undefined;

/**
 * Builds the example as `ng build` would: the architect runner that the Angular CLI drives, on the
 * example's angular.json, with the output (and nothing else: the build cache is off) in `folder`.
 */
async function buildApp(folder: string): Promise<string> {
  const runner = require.resolve('@angular-devkit/architect/bin/cli.js', { paths: [root] });
  const started = Date.now();
  try {
    await promisify(execFile)(process.execPath, [runner, 'chat:build', '--output-path', folder, '--base-href', MOUNT], {
      cwd: app,
      env: { ...process.env, FORCE_COLOR: '0' },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`the Angular build failed:\n${stdout ?? ''}${stderr ?? ''}`, { cause: error });
  }
  console.info(`the Angular example built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return join(folder, 'browser');
}

/** A model server on 127.0.0.1 for the tool loop's page: it keeps each request body and answers from the conversation. */
interface ToolProvider {
  readonly url: string;
  readonly bodies: unknown[];
  close(): Promise<void>;
}

/**
 * Answers a conversation without a tool result with a call of `local_time`, and one with a result
 * with the text `The local time is <result>.`, streamed as Chat Completions cut at random places.
 */
async function startToolProvider(): Promise<ToolProvider> {
  const bodies: unknown[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: { role: string; content?: unknown }[] };
      bodies.push(body);
      const result = body.messages.find((message) => message.role === 'tool');
      const reply: TestReply =
        result === undefined
          ? { choices: [{ toolCalls: [{ id: 'call_time', name: 'local_time', arguments: {} }] }] }
          : { choices: [{ text: `The local time is ${String(result.content)}.` }] };
      const stream = providerStream(reply, 'openai-chat', { chunking: { random: bodies.length } });
      response.writeHead(200, { 'content-type': stream.contentType });
      for (const chunk of stream.chunks) response.write(chunk);
      response.end();
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () => new Promise<void>((closed) => server.close(() => closed())),
  };
}

/** What the page shows, read from its DOM. */
interface Shown {
  state: string | null;
  reasoning: string | null;
  content: string;
  toolCalls: { name: string; arguments: string; complete: string | null; mark: string }[];
  status: string;
}

type Opened = WatchedPage;

/** Opens the app for `query` with a watcher that records the texts it showed, and waits for the stream to end. */
async function open(query: string): Promise<Opened> {
  const { page, context, problems } = await watchedPage(browser!, (url) => new URL(url).pathname);
  await page.addInitScript(() => {
    // Angular renders after the document has loaded: watch the whole body, and keep each text that
    // #reasoning, #content and #status showed, in order.
    const seen: Record<string, string[]> = { reasoning: [], content: [], status: [] };
    (window as unknown as { seen: Record<string, string[]> }).seen = seen;
    document.addEventListener('DOMContentLoaded', () => {
      new MutationObserver(() => {
        for (const [id, texts] of Object.entries(seen)) {
          const text = document.getElementById(id)?.textContent;
          if (text !== undefined && text !== null && text !== '' && texts[texts.length - 1] !== text) texts.push(text);
        }
      }).observe(document.body, { childList: true, characterData: true, subtree: true });
    });
  });
  await page.goto(`${site!.url}${MOUNT}?${query}`);
  try {
    await page.waitForFunction(
      () => {
        const state = document.getElementById('app')?.dataset['state'];
        return state !== undefined && state !== 'streaming';
      },
      undefined,
      { timeout: 15_000 },
    );
  } catch (error) {
    const status = await page
      .locator('#status')
      .textContent({ timeout: 1_000 })
      .catch(() => null);
    await context.close();
    throw new Error(`the app did not finish (status: ${status}); ${problems.join('; ') || 'no errors'}`, { cause: error });
  }
  return { page, context, problems };
}

function read(page: Page): Promise<Shown> {
  return page.evaluate(() => ({
    state: document.getElementById('app')!.getAttribute('data-state'),
    reasoning: document.getElementById('reasoning')?.textContent ?? null,
    content: document.getElementById('content')!.textContent ?? '',
    toolCalls: [...document.querySelectorAll<HTMLElement>('#tool-calls li')].map((item) => ({
      name: item.querySelector('.name')!.textContent ?? '',
      arguments: item.querySelector('.arguments')!.textContent ?? '',
      complete: item.getAttribute('data-complete'),
      mark: item.querySelector('.mark')!.textContent ?? '',
    })),
    status: document.getElementById('status')!.textContent ?? '',
  }));
}

/** The recording's expected result, as marbles/ has it. */
function expected(recording: string): {
  completion?: { content: string; reasoning: string | null; finishReason: string; toolCalls: { name: string; arguments: string }[] };
  error?: string;
  partial?: { content: string; reasoning: string | null; toolCalls: { name: string; arguments: string }[] };
} {
  return JSON.parse(readFileSync(join(root, 'marbles', recording.replace(/\.sse$/, '.expected.json')), 'utf8'));
}

describe('the Angular example', () => {
  // Generous: the build takes seconds, and the first run may decompress the bundled Chromium.
  beforeAll(async () => {
    output = mkdtempSync(join(tmpdir(), 'angular-example-'));
    const built = await buildApp(output);
    replay = await startReplayServer();
    provider = await startToolProvider();
    site = await startStaticServer({ root, replayUrl: replay.url, providerUrl: provider.url, mounts: { [MOUNT]: built } });
    browser = await launchChromium('the Angular example');
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await replay?.close();
    await provider?.close();
    if (output !== undefined) rmSync(output, { recursive: true, force: true });
  });

  it("the builder's output is the app, with the library bundled from its ESM build", () => {
    const main = readFileSync(join(output!, 'browser', 'main.js'), 'utf8');
    expect(readFileSync(join(output!, 'browser', 'index.html'), 'utf8')).toContain(`<base href="${MOUNT}"`);
    expect(main).toContain('dist/esm/messages/transcriptDeltas.js');
    expect(main).toContain('dist/esm/reply/scanCompletion.js');
    expect(existsSync(join(app, '.angular'))).toBe(false); // no build cache beside the sources
  });

  it('renders the reasoning, the answer and two tool calls as they stream, then the finish', async () => {
    const { page, context, problems } = await open('recording=/dialects/llamacpp-chat.sse&chunk=24&delay=4');
    try {
      const { completion } = expected('dialects/llamacpp-chat.sse');
      const shown = await read(page);
      expect(shown).toEqual({
        state: 'finished',
        reasoning: completion!.reasoning,
        content: completion!.content,
        toolCalls: completion!.toolCalls.map((call) => ({
          name: call.name,
          arguments: call.arguments,
          complete: 'true',
          mark: '✓ complete',
        })),
        status: `finished · finish reason: ${completion!.finishReason}`,
      });
      // Written from the recording, as a check on the file read above.
      expect(shown.content).toBe('Let me check both cities.');
      expect(shown.toolCalls.map((call) => call.name)).toEqual(['get_weather', 'get_weather']);
      expect(await page.getAttribute('#app', 'data-finish-reason')).toBe('tool_calls');

      // Progressively: the reasoning, then the answer, were seen growing, each text a prefix of the
      // next, and the status said "thinking…" while the reasoning streamed.
      const seen = await page.evaluate(() => (window as unknown as { seen: Record<string, string[]> }).seen);
      for (const id of ['reasoning', 'content'] as const) {
        const texts = seen[id]!;
        expect([id, texts.length > 1]).toEqual([id, true]);
        for (let i = 1; i < texts.length; i++) expect(texts[i]!.slice(0, texts[i - 1]!.length)).toBe(texts[i - 1]);
        expect(texts[texts.length - 1]).toBe(shown[id]);
      }
      const statuses = seen['status']!;
      expect(statuses.indexOf('thinking…')).toBeGreaterThanOrEqual(0);
      expect(statuses.lastIndexOf('streaming…')).toBeGreaterThan(statuses.indexOf('thinking…'));
      expect(statuses[statuses.length - 1]).toBe(shown.status);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows the StreamClosedEarlyError and what arrived when the recording stops inside a tool call', async () => {
    const { page, context, problems } = await open('recording=/openai/truncated-in-arguments.sse&chunk=16&delay=2');
    try {
      const { error, partial } = expected('openai/truncated-in-arguments.sse');
      const shown = await read(page);
      expect(shown).toMatchObject({
        state: 'error',
        reasoning: partial!.reasoning,
        content: partial!.content,
        toolCalls: partial!.toolCalls.map((call) => ({
          name: call.name,
          arguments: call.arguments,
          complete: 'false',
          mark: '✗ incomplete',
        })),
      });
      expect(shown.toolCalls.map((call) => call.arguments)).toEqual(['{"city":"Oslo"}', '{"city":"Bergen","un']);
      expect(shown.status).toMatch(new RegExp(`^${error}: .*\\(what arrived is shown above\\)$`));
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("runs the tool loop service: the model's call runs in the page, its result goes back, the answer is made of it", async () => {
    provider!.bodies.length = 0;
    const { page, context, problems } = await open(`question=${encodeURIComponent('What time is it?')}`);
    try {
      const shown = await page.evaluate(() => ({
        state: document.getElementById('app')!.getAttribute('data-state'),
        steps: document.getElementById('steps')!.textContent,
        results: [...document.querySelectorAll('#results li')].map((item) => item.textContent?.trim()),
        content: document.getElementById('content')!.textContent,
      }));
      // Two requests: the question, then the question, the assistant's call and the page's result.
      const [first, second] = provider!.bodies as { messages: Record<string, unknown>[] }[];
      expect(provider!.bodies).toHaveLength(2);
      expect(first!.messages).toEqual([{ role: 'user', content: 'What time is it?' }]);
      expect(second!.messages.map((message) => message['role'])).toEqual(['user', 'assistant', 'tool']);
      expect(second!.messages[1]).toMatchObject({ tool_calls: [{ id: 'call_time', function: { name: 'local_time' } }] });
      const result = second!.messages[2]!;
      expect(result['tool_call_id']).toBe('call_time');
      // What the page's tool gave (the browser's clock, as text), as the provider received it.
      const time = result['content'] as string;
      expect(new Date(time).getTime()).not.toBeNaN();
      expect(shown).toEqual({
        state: 'finished',
        steps: '2',
        results: [`local_time: ${JSON.stringify(time)}`],
        content: `The local time is ${time}.`,
      });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows the error and the partial text when the connection is reset mid-answer', async () => {
    // reset=2000: the connection goes down inside the event that adds " cities." (it starts at byte
    // 1995), after the whole reasoning and "Let me", " check both".
    const recording = '/dialects/llamacpp-chat.sse';
    const { page, context, problems } = await open(`recording=${recording}&chunk=40&delay=2&reset=2000`);
    try {
      const shown = await read(page);
      expect(shown).toEqual({
        state: 'error',
        reasoning: expected('dialects/llamacpp-chat.sse').completion!.reasoning,
        content: 'Let me check both',
        toolCalls: [],
        status: expect.stringMatching(
          /^StreamClosedEarlyError: the transcript's source failed after \d+ characters: .*\(what arrived is shown above\)$/,
        ),
      });
      // The browser saw the request fail (and logged it as the cut body it was); nothing else went wrong.
      expect(problems).toEqual([
        `request failed: /marbles${recording}`,
        'console: Failed to load resource: net::ERR_INCOMPLETE_CHUNKED_ENCODING',
      ]);
      console.info(`after the reset the app says: ${shown.status}`);
    } finally {
      await context.close();
    }
  });
});

// No build and no browser here: the mount that serves a build from outside the repository.
describe("the static server's mounts", () => {
  let folder: string | undefined;
  let server: StaticServer | undefined;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'angular-mount-'));
    mkdirSync(join(folder, 'app'));
    mkdirSync(join(folder, 'app-beside'));
    writeFileSync(join(folder, 'app', 'index.html'), '<p>the app</p>');
    writeFileSync(join(folder, 'app-beside', 'secret.txt'), 'not served');
    server = await startStaticServer({ root, replayUrl: 'http://127.0.0.1:9', mounts: { [MOUNT]: join(folder, 'app') } });
  });

  afterAll(async () => {
    await server?.close();
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
  });

  it('serves the mounted folder under its prefix and nothing beside it', async () => {
    const get = async (path: string): Promise<[string, number, string]> => {
      const response = await fetch(`${server!.url}${path}`);
      return [path, response.status, response.ok ? await response.text() : ''];
    };
    expect(await get(MOUNT)).toEqual([MOUNT, 200, '<p>the app</p>']);
    expect(await get(`${MOUNT}index.html`)).toEqual([`${MOUNT}index.html`, 200, '<p>the app</p>']);
    // A folder whose name starts with the mounted one's is outside it.
    for (const path of [`${MOUNT}%2e%2e/app-beside/secret.txt`, `${MOUNT}..%2fapp-beside/secret.txt`, '/package.json']) {
      expect(await get(path)).toEqual([path, 404, '']);
    }
    expect((await get('/examples/browser/app.js'))[1]).toBe(200);
  });
});
