import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { root } from '../support/build';

// The Angular recipe (spec/recipes/angular/: a service and its TestBed test with
// HttpTestingController) run as it is written. Angular ships only ES modules, which this suite's
// CommonJS runtime cannot load, so the recipe is transpiled into a folder of its own and run there
// by Node's test runner, on the built package (imported by name) and Angular's own code, with
// `describe`, `it`, `beforeEach`, `afterEach` from `node:test` and Jest's `expect` as globals: the
// test reads as it would under Jest, Vitest or Jasmine. TestBed runs on the browser testing platform,
// without a page: a service test renders no component.

jest.setTimeout(60_000);

const RECIPES = join(root, 'spec', 'recipes');
/** The recipe's files. */
const SOURCES = ['angular/chat.service.ts', 'angular/chat.service.test.ts'];
const TEST = 'angular/chat.service.test.js';

/** What the test runner does before the recipe: the globals a test of Angular's expects, and TestBed's platform. */
const SETUP = `
import '@angular/compiler';
import { describe, it, beforeEach, afterEach } from 'node:test';
import { expect } from 'expect';
Object.assign(globalThis, { describe, it, beforeEach, afterEach, expect });
// After the globals: @angular/core/testing resets TestBed after each test through the global hooks.
const { NgModule } = await import('@angular/core');
const { TestBed, TestComponentRenderer } = await import('@angular/core/testing');
const { BrowserTestingModule, platformBrowserTesting } = await import('@angular/platform-browser/testing');
// A service test renders no component: TestBed's renderer, which needs a document, does nothing here.
class NoPage extends TestComponentRenderer {}
class ServiceTestingModule {}
NgModule({ exports: [BrowserTestingModule], providers: [{ provide: TestComponentRenderer, useClass: NoPage }] })(ServiceTestingModule);
TestBed.initTestEnvironment(ServiceTestingModule, platformBrowserTesting());
`;

/** What a run of the recipe left: the exit code and the TAP report. */
interface Ran {
  readonly code: number | null;
  readonly output: string;
}

let folder: string;
let ran: Ran;

/**
 * The recipe in a folder of its own: its files transpiled to ES modules beside a setup module, and
 * a node_modules that holds this package (its built dist, found by name through its exports map)
 * and the packages the recipe imports.
 */
function stage(): string {
  const staged = mkdtempSync(join(tmpdir(), 'rxjs-llm-stream-angular-recipe-'));
  for (const source of SOURCES) {
    const { outputText } = ts.transpileModule(readFileSync(join(RECIPES, source), 'utf8'), {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, experimentalDecorators: true },
      fileName: source,
    });
    const target = join(staged, source.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
  writeFileSync(join(staged, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(staged, 'setup.js'), SETUP);
  mkdirSync(join(staged, 'node_modules'));
  for (const name of ['@angular', 'rxjs', 'expect'])
    symlinkSync(join(root, 'node_modules', name), join(staged, 'node_modules', name), 'dir');
  symlinkSync(root, join(staged, 'node_modules', 'rxjs-llm-stream'), 'dir');
  return staged;
}

function runRecipe(cwd: string): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', './setup.js', '--test-reporter=tap', TEST],
      { cwd, timeout: 50_000, env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, output: stdout + stderr }),
    );
  });
}

/** A count from the TAP report's summary (`# pass 2`). */
function summary(name: string): number | undefined {
  const match = new RegExp(`^# ${name} (\\d+)$`, 'm').exec(ran.output);
  return match === null ? undefined : Number(match[1]);
}

beforeAll(async () => {
  folder = stage();
  ran = await runRecipe(folder);
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the Angular recipe (spec/recipes/angular/chat.service.test.ts)', () => {
  const written = readFileSync(join(RECIPES, 'angular', 'chat.service.test.ts'), 'utf8');
  const tests = [...written.matchAll(/^\s*it\('/gm)].length;

  it('has tests to run', () => {
    expect(tests).toBeGreaterThanOrEqual(2);
  });

  it('passes every one of its tests, none skipped, under Angular (TestBed, HttpTestingController) on the built package', () => {
    const report = { code: ran.code, tests: summary('tests'), pass: summary('pass'), fail: summary('fail'), skipped: summary('skipped') };
    // The whole report when it failed, so that the failure shows the recipe's own messages.
    expect({ ...report, output: ran.code === 0 ? '' : ran.output }).toEqual({
      output: '',
      code: 0,
      tests,
      pass: tests,
      fail: 0,
      skipped: 0,
    });
  });

  it('would report a failing assertion: the runner and its expect are real', async () => {
    const broken = join(folder, 'angular', 'broken.test.js');
    writeFileSync(broken, "describe('a broken recipe', () => { it('fails', () => { expect('cut off').toBe('done'); }); });\n");
    const failed = await new Promise<Ran>((resolve) =>
      execFile(
        process.execPath,
        ['--import', './setup.js', '--test-reporter=tap', 'angular/broken.test.js'],
        { cwd: folder },
        (error, stdout) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, output: stdout }),
      ),
    );
    expect(failed.code).toBe(1);
    expect(failed.output).toMatch(/^# fail 1$/m);
    expect(failed.output).toContain('Expected: "done"');
  });
});
