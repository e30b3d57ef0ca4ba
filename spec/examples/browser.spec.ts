import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, Page } from 'playwright-core';
import { ReplayServer, startReplayServer } from '../../src/cli/replayServer';
import { WatchedPage, launchChromium, watchedPage } from '../support/chromium';
import { StaticServer, startStaticServer } from '../support/staticServer';
import { root } from '../support/build';

// The example page (examples/browser/) in a real Chromium: the library's ESM build and rxjs's,
// loaded through an import map, streaming recordings from the replay server.

jest.setTimeout(30_000);

const screenshots = join(root, 'coverage', 'browser-example');

let replay: ReplayServer | undefined;
let site: StaticServer | undefined;
let browser: Browser | undefined;

/** What both describes need: the page's server in front of the replay server (the build is Jest's global setup). */
async function startSite(): Promise<void> {
  replay = await startReplayServer();
  site = await startStaticServer({ root, replayUrl: replay.url });
}

async function stopSite(): Promise<void> {
  await site?.close();
  await replay?.close();
  site = undefined;
  replay = undefined;
}

/** What the page shows, read from its DOM. */
interface Shown {
  state: string | undefined;
  renders: number;
  reasoning: string | null;
  content: string;
  toolCalls: { name: string; arguments: string; complete: string | undefined; mark: string }[];
  status: string;
}

type Opened = WatchedPage;

/** Opens the example for `query`, with a watcher that records each text `#content` showed. */
async function open(query: string): Promise<Opened> {
  const { page, context, problems } = await watchedPage(browser!);
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { contentSeen: string[] }).contentSeen = seen;
    document.addEventListener('DOMContentLoaded', () => {
      const content = document.getElementById('content')!;
      new MutationObserver(() => {
        if (seen[seen.length - 1] !== content.textContent) seen.push(content.textContent ?? '');
      }).observe(content, { childList: true, characterData: true, subtree: true });
    });
  });
  await page.goto(`${site!.url}/examples/browser/?${query}`);
  // Waits for the stream to end, either way; a page that never gets there says why.
  try {
    await page.waitForFunction(() => document.getElementById('app')?.dataset['state'] !== 'streaming', undefined, { timeout: 15_000 });
  } catch (error) {
    const status = await page.locator('#status').textContent();
    await context.close();
    throw new Error(`the page did not finish (status: ${status}); ${problems.join('; ') || 'no errors'}`, { cause: error });
  }
  return { page, context, problems };
}

function read(page: Page): Promise<Shown> {
  return page.evaluate(() => {
    const app = document.getElementById('app')!;
    const reasoning = document.getElementById('reasoning-section')!;
    return {
      state: app.dataset['state'],
      renders: Number(app.dataset['renders']),
      reasoning: reasoning.hidden ? null : document.getElementById('reasoning')!.textContent,
      content: document.getElementById('content')!.textContent ?? '',
      toolCalls: [...document.querySelectorAll<HTMLElement>('#tool-calls li')].map((item) => ({
        name: item.querySelector('.name')!.textContent ?? '',
        arguments: item.querySelector('.arguments')!.textContent ?? '',
        complete: item.dataset['complete'],
        mark: item.querySelector('.mark')!.textContent ?? '',
      })),
      status: document.getElementById('status')!.textContent ?? '',
    };
  });
}

/** Takes a full-page screenshot and checks that a PNG was written. */
async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshots, { recursive: true });
  const path = join(screenshots, name);
  await page.screenshot({ path, fullPage: true });
  expect(existsSync(path)).toBe(true);
  expect([...readFileSync(path).subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
}

describe('the browser example', () => {
  // Generous: the first run may decompress the bundled Chromium, and the build may run.
  beforeAll(async () => {
    await startSite();
    browser = await launchChromium('the browser example');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    browser = undefined;
    await stopSite();
  });

  it('renders a reply with reasoning and two tool calls as it streams, then its status', async () => {
    const { page, context, problems } = await open('recording=/dialects/llamacpp-chat.sse&chunk=24&delay=4');
    try {
      const shown = await read(page);
      // Written from marbles/dialects/llamacpp-chat.expected.json.
      expect(shown).toEqual({
        state: 'finished',
        renders: expect.any(Number),
        reasoning: "The user wants the current weather in Paris and Tokyo. I'll call get_weather once per city.",
        content: 'Let me check both cities.',
        toolCalls: [
          { name: 'get_weather', arguments: '{"city": "Paris", "unit": "celsius"}', complete: 'true', mark: '✓ complete' },
          { name: 'get_weather', arguments: '{"city": "Tokyo", "unit": "celsius"}', complete: 'true', mark: '✓ complete' },
        ],
        status: 'finished · finish reason: tool_calls · usage: 187 prompt + 96 completion = 283 tokens',
      });
      expect(await page.evaluate(() => document.getElementById('app')!.dataset['finishReason'])).toBe('tool_calls');

      // Progressively: one render per event, and the answer was seen growing (usually in its three
      // pieces, "Let me", " check both", " cities.": more than one state, each a prefix of the next).
      expect(shown.renders).toBeGreaterThan(1);
      const contentSeen = (await page.evaluate(() => (window as unknown as { contentSeen: string[] }).contentSeen)).filter(
        (text) => text !== '',
      );
      expect(contentSeen.length).toBeGreaterThan(1);
      for (let i = 1; i < contentSeen.length; i++) {
        expect(contentSeen[i]!.slice(0, contentSeen[i - 1]!.length)).toBe(contentSeen[i - 1]);
      }
      expect(contentSeen[contentSeen.length - 1]).toBe(shown.content);

      // Reasoning is set apart from the answer.
      const [reasoningColor, contentColor] = await page.evaluate(() =>
        ['reasoning', 'content'].map((id) => getComputedStyle(document.getElementById(id)!).color),
      );
      expect(reasoningColor).not.toBe(contentColor);

      await screenshot(page, 'llamacpp-chat.png');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows a StreamClosedEarlyError and what arrived when the reply is cut off in a tool call', async () => {
    const { page, context, problems } = await open('recording=/openai/truncated-in-arguments.sse&chunk=16&delay=2');
    try {
      const shown = await read(page);
      // Written from marbles/openai/truncated-in-arguments.expected.json.
      expect(shown).toMatchObject({
        state: 'error',
        reasoning: null,
        content: 'Checking both.',
        toolCalls: [
          { name: 'get_weather', arguments: '{"city":"Oslo"}', complete: 'false', mark: '✗ incomplete' },
          { name: 'get_weather', arguments: '{"city":"Bergen","un', complete: 'false', mark: '✗ incomplete' },
        ],
      });
      expect(shown.status).toMatch(/^StreamClosedEarlyError: /);
      await screenshot(page, 'truncated-in-arguments.png');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

// No browser here: this runs (and fails on its own) whether or not a Chromium can be launched.
describe("the browser example's static server", () => {
  beforeAll(startSite, 120_000);
  afterAll(stopSite);

  it("the static server serves the example's folders and nothing else of the repository", async () => {
    const status = async (path: string): Promise<number> => (await fetch(`${site!.url}${path}`)).status;
    expect(await status('/examples/browser/app.js')).toBe(200);
    expect(await status('/dist/esm/index.js')).toBe(200);
    expect(await status('/node_modules/rxjs/dist/esm/index.js')).toBe(200);
    for (const path of [
      '/package.json',
      '/src/index.ts',
      '/node_modules/jest/package.json',
      '/examples/%2e%2e/package.json',
      '/dist/../package.json',
    ]) {
      expect([path, await status(path)]).toEqual([path, 404]);
    }
  });
});
