import { existsSync, readFileSync, readdirSync } from 'fs';
import { join, relative } from 'path';
import ts from 'typescript';
import { root } from './support/build';

// Every `ts` block of the README and of the pages under docs/ type-checks under `strict`, as a
// reader who copies it would compile it: each block is a module of its own, importing the package
// by its name. A block may use only what its own imports give it and the few names below, which
// stand for what a reader brings (their data, their UI), each with the type it must have.

/** What a reader supplies around a block: declared here, never defined, with honest types. */
const READER = `
type Observable<T> = import('rxjs').Observable<T>;
/** The body of a streamed reply, from wherever the reader gets it. */
declare const bytes$: Observable<Uint8Array>;
/** Events of a reply, from assembleChunks(). */
declare const events$: Observable<import('rxjs-llm-stream').ChatEvent>;
/** The request the reader sends. */
declare const url: string;
declare const upstreamUrl: string;
declare const apiKey: string;
declare const model: string;
declare const messages: ReadonlyArray<{ readonly role: string; readonly content: string }>;
/** Lines of repeated JSON the reader has. */
declare const lines: readonly string[];
/** The reader's own code: a tool runner and a UI. */
declare function runTool(name: string, args: unknown): void;
declare function handle(value: unknown): void;
declare function render(snapshot: import('rxjs-llm-stream').CompletionSnapshot): void;
declare function showDraft(index: number, name: string | null, preview: unknown): void;
declare function showError(message: string, soFar: string | null): void;
declare function askModelToRetry(call: import('rxjs-llm-stream').ToolCall, issues: ReadonlyArray<{ readonly message: string }>): void;
declare const stopButton: HTMLButtonElement;
/** The reader's test runner (Jest, Vitest), in the examples of the test kit. */
declare const expect: { (actual: unknown): { toEqual(expected: unknown): void }; objectContaining(sample: object): unknown };
`;

interface Block {
  /** `README.md:42`: where the block's first line of code is. */
  readonly where: string;
  readonly code: string;
}

/** The Markdown files whose blocks are checked: the README and every page under docs/. */
function markdownFiles(): string[] {
  const pages: string[] = [];
  const walk = (folder: string): void => {
    if (!existsSync(folder)) return;
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) pages.push(path);
    }
  };
  walk(join(root, 'docs'));
  return [join(root, 'README.md'), ...pages.sort()];
}

/** The `ts` (and `typescript`) fenced blocks of a Markdown file. */
function blocksOf(file: string): Block[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i]!)) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !lines[end]!.startsWith('```')) end++;
    blocks.push({ where: `${relative(root, file)}:${start + 1}`, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}

const blocks = markdownFiles().flatMap(blocksOf);

/** Type-checks every block in one program; answers each block's diagnostics as text. */
function typeCheck(all: readonly Block[]): Map<string, string[]> {
  const folder = join(root, '.docs-blocks'); // never written: the host serves these files from memory
  const virtual = new Map<string, string>();
  const fileOf = new Map<string, string>();
  all.forEach((block, i) => {
    const path = join(folder, `block${i}.ts`);
    virtual.set(path, block.code);
    fileOf.set(path, block.where);
  });
  const readerPath = join(folder, 'reader.d.ts');
  virtual.set(readerPath, READER);
  const options: ts.CompilerOptions = {
    strict: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    moduleDetection: ts.ModuleDetectionKind.Force, // every block a module, as a file of its own is
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: ['node'],
    typeRoots: [join(root, 'node_modules', '@types')],
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    skipLibCheck: true,
    noEmit: true,
    paths: {
      'rxjs-llm-stream': [join(root, 'src', 'index.ts')],
      'rxjs-llm-stream/testing': [join(root, 'src', 'testing', 'index.ts')],
      'rxjs-llm-stream/core': [join(root, 'src', 'core', 'index.ts')],
      'rxjs-llm-stream/relay': [join(root, 'src', 'relay', 'index.ts')],
    },
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (path) => virtual.get(path) ?? readFile(path);
  host.fileExists = (path) => virtual.has(path) || fileExists(path);
  host.getSourceFile = (path, language, onError, shouldCreate) => {
    const text = virtual.get(path);
    return text === undefined ? getSourceFile(path, language, onError, shouldCreate) : ts.createSourceFile(path, text, language);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  const found = new Map<string, string[]>(all.map((block) => [block.where, []]));
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const path = diagnostic.file?.fileName;
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const where = path === undefined ? undefined : fileOf.get(path);
    if (where === undefined) {
      // In the reader's declarations or the library itself: a fault of this spec, shown under every block.
      for (const list of found.values()) list.push(`${path ?? 'options'}: ${message}`);
      continue;
    }
    const line = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line;
    found.get(where)!.push(`line ${line + 1} of the block: ${message}`);
  }
  return found;
}

describe('the code in the README and docs/', () => {
  const results = typeCheck(blocks);

  it('has blocks to check', () => {
    expect(blocks.length).toBeGreaterThan(5);
  });

  it.each(blocks.map((block) => [block.where]))('%s type-checks under strict', (where) => {
    expect(results.get(where)).toEqual([]);
  });

  it('catches what a reader would hit: an implicit any, an undeclared name', () => {
    const faulty = typeCheck([
      {
        where: 'implicit-any',
        code:
          "import { validateToolCalls } from 'rxjs-llm-stream';\nconst tools " +
          '= { get_time: (args) => args !== null };\nvalidateToolCalls(tools);',
      },
      { where: 'undeclared', code: 'console.log(lastId + 1);' },
    ]);
    expect(faulty.get('implicit-any')!.join('\n')).toContain("Parameter 'args' implicitly has an 'any' type");
    expect(faulty.get('undeclared')!.join('\n')).toContain("Cannot find name 'lastId'");
  });
});

// A recipe in the docs is a spec of this repository: its block, fenced as ```ts <path>, is that
// file word for word (the spec runs; the block is what it runs), and every file under spec/recipes/
// is shown, but the runner that runs the Angular recipe in a process of its own. A block may show a
// file of examples/ too, run by the example's spec.

/** A block fenced with the path of the file it shows. */
interface RecipeBlock extends Block {
  readonly file: string;
}

const RECIPES = join(root, 'spec', 'recipes');
const RECIPE_RUNNERS = new Set(['angular.spec.ts']);

function recipeBlocksOf(file: string): RecipeBlock[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const found: RecipeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```ts (\S+)\s*$/.exec(lines[i]!);
    if (fence === null) continue;
    let end = i + 1;
    while (end < lines.length && !lines[end]!.startsWith('```')) end++;
    found.push({ where: `${relative(root, file)}:${i + 2}`, file: fence[1]!, code: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return found;
}

/** Where a block and its file part: the first line that differs, or `undefined` when they are the same. */
function recipeDifference(block: RecipeBlock): string | undefined {
  const path = join(root, block.file);
  if (!existsSync(path)) return `${block.file} does not exist`;
  const shown = block.code.split('\n');
  const written = readFileSync(path, 'utf8').replace(/\n$/, '').split('\n');
  const line = shown.findIndex((text, i) => text !== written[i]);
  if (line >= 0) return `line ${line + 1}: the block has ${JSON.stringify(shown[line])}, the file ${JSON.stringify(written[line] ?? null)}`;
  return shown.length === written.length ? undefined : `the file goes on after line ${shown.length}`;
}

describe('the recipes in docs/', () => {
  const recipeBlocks = markdownFiles().flatMap(recipeBlocksOf);
  const recipeFiles = readdirSync(RECIPES, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !RECIPE_RUNNERS.has(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));

  it('shows the three recipes, their code and their tests', () => {
    expect(recipeFiles.length).toBeGreaterThanOrEqual(6);
    // A block may also show a file of examples/ (the Angular example's tool loop service), which its own spec runs.
    const shown = recipeBlocks.map((block) => block.file).filter((file) => !file.startsWith('examples/'));
    expect(shown.sort()).toEqual([...recipeFiles].sort());
  });

  it.each(recipeBlocks.map((block) => [block.where, block.file, block] as const))('%s is %s, word for word', (_where, _file, block) => {
    expect(recipeDifference(block)).toBeUndefined();
  });

  it('catches a block that is not its file: a changed line, a missing end, a file that is not there', () => {
    const file = 'spec/recipes/pipeline/toolCallsToRun.ts';
    const whole = readFileSync(join(root, file), 'utf8').replace(/\n$/, '');
    const lines = whole.split('\n');
    expect(recipeDifference({ where: 'test', file, code: whole })).toBeUndefined();
    expect(recipeDifference({ where: 'test', file, code: whole.replace('30_000', '3_000') })).toMatch(/^line \d+: the block has ".*3_000/);
    expect(recipeDifference({ where: 'test', file, code: lines.slice(0, -1).join('\n') })).toBe(
      `the file goes on after line ${lines.length - 1}`,
    );
    expect(recipeDifference({ where: 'test', file: 'spec/recipes/gone.ts', code: '' })).toBe('spec/recipes/gone.ts does not exist');
  });
});
