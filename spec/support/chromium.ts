import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Browser, BrowserContext, Page, chromium } from 'playwright-core';

/** A Chromium to launch, and where it was found (for the test's log and its error messages). */
export interface ChromiumExecutable {
  readonly path: string;
  /** `CHROMIUM_PATH`, a browser found on `PATH`, or the devDependency's bundled binary. */
  readonly source: 'CHROMIUM_PATH' | 'PATH' | '@sparticuz/chromium';
}

/** The names a system Chromium goes by, most specific first. */
const SYSTEM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

// One decompression per process: a second call while the first is still writing the binary would
// otherwise find the half-written file and return it.
let bundled: Promise<string> | undefined;

function decompressBundled(): Promise<string> {
  bundled ??= import('@sparticuz/chromium')
    .then(({ default: Chromium }) => Chromium.executablePath())
    .catch((error: unknown) => {
      bundled = undefined; // so that a later call tries again rather than repeating this failure
      throw error;
    });
  return bundled;
}

/**
 * Finds the Chromium the browser tests launch, so that `npm ci && npm test` is enough on a machine
 * with only Node and npm. In order:
 *
 * 1. `CHROMIUM_PATH`, when set: an explicit choice wins, and one that names no executable file is an
 *    error rather than a silent fallback to another browser;
 * 2. `chromium`, `chromium-browser`, `google-chrome` or `google-chrome-stable` in a directory of
 *    `PATH` (each name through all of `PATH` before the next): a system browser is already unpacked
 *    and kept up to date by the system;
 * 3. the devDependency `@sparticuz/chromium`, whose binary is decompressed into the temporary
 *    directory on first use (a second or so) and reused from there afterwards.
 *
 * Safe to call more than once: the decompression runs at most once per process.
 */
export async function chromiumExecutable(): Promise<ChromiumExecutable> {
  const chosen = process.env['CHROMIUM_PATH'];
  if (chosen !== undefined && chosen !== '') {
    if (!isExecutableFile(chosen)) throw new Error(`CHROMIUM_PATH is set to "${chosen}", which is not an executable file`);
    return { path: chosen, source: 'CHROMIUM_PATH' };
  }
  const directories = (process.env['PATH'] ?? '').split(delimiter).filter((directory) => directory !== '');
  for (const name of SYSTEM_NAMES) {
    for (const directory of directories) {
      const path = join(directory, name);
      if (isExecutableFile(path)) return { path, source: 'PATH' };
    }
  }
  return { path: await decompressBundled(), source: '@sparticuz/chromium' };
}

/**
 * Launches the Chromium that `chromiumExecutable` finds, headless, as the example specs run it; a
 * failure names the browser and where it came from. `label` says in the test's log what runs in it.
 */
export async function launchChromium(label: string): Promise<Browser> {
  const { path, source } = await chromiumExecutable();
  console.info(`${label} runs in ${path} (from ${source})`);
  try {
    return await chromium.launch({
      executablePath: path,
      headless: true, // playwright passes `--headless` (and the switches that go with it) itself
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  } catch (error) {
    throw new Error(`could not launch Chromium at ${path} (from ${source})`, { cause: error });
  }
}

/** A page of its own context, and what went wrong inside it. */
export interface WatchedPage {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Anything that went wrong inside the page: uncaught errors, console errors, failed requests (by `describe`). */
  readonly problems: string[];
}

/**
 * A new page in a context of its own, with its uncaught errors, console errors and failed requests
 * gathered in `problems` (a failed request named by `describe`, its URL by default), so a spec can
 * say which problems it expects and refuse any other.
 */
export async function watchedPage(browser: Browser, describe: (url: string) => string = (url) => url): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 900, height: 720 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('requestfailed', (request) => problems.push(`request failed: ${describe(request.url())}`));
  return { page, context, problems };
}
