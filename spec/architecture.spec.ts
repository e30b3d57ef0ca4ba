import { readFileSync, readdirSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';
import { root } from './support/build';

// The layers point one way (docs/architecture.md): operators -> io, dialects, cores -> internal ->
// types. This spec reads every import of src/ and checks it against the rules, and the size of
// every file against "one idea per file, readable at once".

const SRC = join(root, 'src');

/** What a file under src/ is, by where it sits. */
type Layer = 'types' | 'internal' | 'core' | 'dialects' | 'io' | 'operator' | 'fold' | 'cli' | 'testing' | 'relay' | 'index';

/** The type modules: what every layer may name. */
const TYPES = new Set([
  'errors.ts',
  'outputErrors.ts',
  'isLlmStreamError.ts',
  'events.ts',
  'replyParts.ts',
  'completion.ts',
  'structuredOutput.ts',
  'standardSchema.ts',
]);

function layerOf(file: string): Layer {
  const path = relative(SRC, file).split('\\').join('/');
  if (path === 'index.ts') return 'index';
  if (TYPES.has(path)) return 'types';
  // The one fold behind finalizeCompletion and scanCompletion: shared internals, as RxJS's scanInternals.
  if (path === 'foldCompletion.ts') return 'fold';
  const folder = path.includes('/') ? path.slice(0, path.indexOf('/')) : '';
  if (
    folder === 'internal' ||
    folder === 'core' ||
    folder === 'dialects' ||
    folder === 'io' ||
    folder === 'cli' ||
    folder === 'testing' ||
    folder === 'relay'
  )
    return folder;
  return 'operator';
}

/** What each layer may import from this package, and whether it may import rxjs. */
const ALLOWED: Readonly<Record<Layer, { readonly layers: ReadonlySet<Layer>; readonly rxjs: boolean }>> = {
  types: { layers: new Set(['types']), rxjs: false },
  internal: { layers: new Set(['internal', 'types']), rxjs: true },
  core: { layers: new Set(['core', 'internal', 'types']), rxjs: false },
  dialects: { layers: new Set(['dialects', 'core', 'internal', 'types']), rxjs: false },
  io: { layers: new Set(['io', 'core', 'internal', 'types']), rxjs: true },
  fold: { layers: new Set(['core', 'internal', 'types']), rxjs: true },
  // An operator never imports another operator's file for its logic.
  operator: { layers: new Set(['fold', 'io', 'dialects', 'core', 'internal', 'types']), rxjs: true },
  cli: { layers: new Set(['cli', 'operator', 'fold', 'io', 'dialects', 'core', 'internal', 'types']), rxjs: true },
  // The test kit (`rxjs-llm-stream/testing`): its own entry point, built on everything the package exports.
  testing: { layers: new Set(['testing', 'operator', 'fold', 'io', 'dialects', 'core', 'internal', 'types']), rxjs: true },
  // The relay (`rxjs-llm-stream/relay`): its own entry point for Node servers, over the operators, sources and cores; the
  // main entry never imports it, so none of it reaches a browser bundle.
  relay: { layers: new Set(['relay', 'operator', 'fold', 'io', 'dialects', 'core', 'internal', 'types']), rxjs: true },
  index: { layers: new Set(['operator', 'fold', 'io', 'dialects', 'core', 'internal', 'types']), rxjs: false },
};

/** The most lines a file under src/ may have: about 300, as the style asks, with room for a long doc comment. */
const MAX_LINES = 330;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The module specifiers a file imports or re-exports, type-only imports included. */
function importsOf(text: string): string[] {
  const specifiers: string[] = [];
  for (const match of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|^\s*import\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/gm)) {
    specifiers.push((match[1] ?? match[2] ?? match[3])!);
  }
  return specifiers;
}

/** Every import that breaks the rules, as `file -> target (why)`. */
function violations(files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const layer = layerOf(file);
    const rules = ALLOWED[layer];
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      const name = relative(SRC, file);
      if (!specifier.startsWith('.')) {
        if ((specifier === 'rxjs' || specifier.startsWith('rxjs/')) && !rules.rxjs)
          found.push(`${name} -> ${specifier} (${layer} is pure: no rxjs)`);
        continue;
      }
      const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      if (relative(SRC, target).startsWith('..')) {
        found.push(`${name} -> ${specifier} (outside src/)`);
        continue;
      }
      const targetLayer = layerOf(target);
      if (!rules.layers.has(targetLayer)) found.push(`${name} -> ${relative(SRC, target)} (${layer} may not import ${targetLayer})`);
    }
  }
  return found;
}

describe('the layers of src/', () => {
  const files = sourceFiles(SRC);

  it('has every import pointing the way the layers allow', () => {
    expect(violations(files)).toEqual([]);
  });

  it(`has no file over ${MAX_LINES} lines`, () => {
    const long = files
      .map((file) => ({ file: relative(SRC, file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it('catches what it is for: a core that imports rxjs, a dialect, an operator, and an operator that imports another', () => {
    const fake = (path: string, text: string): string => {
      const file = join(SRC, path);
      fakes.set(file, text);
      return file;
    };
    const fakes = new Map<string, string>();
    const read = (file: string): string => fakes.get(file) ?? readFileSync(file, 'utf8');
    const check = (file: string): string[] => {
      const layer = layerOf(file);
      return importsOf(read(file)).flatMap((specifier) => {
        if (!specifier.startsWith('.')) return specifier === 'rxjs' && !ALLOWED[layer].rxjs ? ['rxjs'] : [];
        const targetLayer = layerOf(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
        return ALLOWED[layer].layers.has(targetLayer) ? [] : [targetLayer];
      });
    };
    expect(check(fake('core/Fake.ts', "import { Observable } from 'rxjs';\nimport { x } from '../dialects/usage.js';"))).toEqual([
      'rxjs',
      'dialects',
    ]);
    expect(check(fake('internal/fake.ts', "import { CompletionTracker } from '../core/CompletionTracker.js';"))).toEqual(['core']);
    expect(check(fake('fakeOperator.ts', "import { estimateTokenUsage } from './finalizeCompletion.js';"))).toEqual(['operator']);
    expect(check(fake('dialects/fake.ts', "export { y } from '../io/fromResponse.js';"))).toEqual(['io']);
    expect(check(fake('index.ts', "export { StreamRelay } from './relay/StreamRelay.js';"))).toEqual(['relay']);
    expect(check(fake('core/Fake.ts', "import { sendSse } from '../relay/sendSse.js';"))).toEqual(['relay']);
  });
});

describe('the package entry point', () => {
  it('exports every type the event, completion and reply-part modules declare', () => {
    const declared = ['events.ts', 'completion.ts', 'replyParts.ts'].flatMap((file) =>
      [...readFileSync(join(SRC, file), 'utf8').matchAll(/^export (?:interface|type) (\w+)/gm)].map((match) => match[1]!),
    );
    const index = readFileSync(join(SRC, 'index.ts'), 'utf8');
    expect(declared.length).toBeGreaterThan(40);
    expect(declared.filter((name) => !new RegExp(`\\b${name}\\b`).test(index))).toEqual([]);
  });
});
