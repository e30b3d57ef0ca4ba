import { existsSync, readFileSync, readdirSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';
import { root } from './support/build';

// The shape of src/ (docs/architecture.md): a folder per thing a user does, operators beside the
// pure cores they wrap, arrows one way. This spec reads every import of src/ and fails on a circle
// between files or between folders, on a core that reaches RxJS, and on server code, test-kit code
// or the CLI reachable from the main entry (which an Angular app bundles).

const SRC = join(root, 'src');

/** The entry points: they re-export operators without being operators themselves. */
const ENTRIES = new Set(['index.ts', 'core/index.ts', 'testing/index.ts', 'relay/index.ts']);

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

/** A source tree read as a graph: each file (relative to src/) with the files it imports and the packages it names. */
interface Tree {
  readonly files: ReadonlyMap<string, { readonly local: readonly string[]; readonly packages: readonly string[] }>;
}

function treeOf(texts: ReadonlyMap<string, string>): Tree {
  const files = new Map<string, { local: string[]; packages: string[] }>();
  for (const [file, text] of texts) {
    const local: string[] = [];
    const packages: string[] = [];
    for (const specifier of importsOf(text)) {
      if (!specifier.startsWith('.')) packages.push(specifier);
      else local.push(relative('/', resolve('/', dirname(file), specifier.replace(/\.js$/, '.ts'))));
    }
    files.set(file, { local, packages });
  }
  return { files };
}

function readTree(): Tree {
  const texts = new Map<string, string>();
  for (const file of sourceFiles(SRC)) texts.set(relative(SRC, file).split('\\').join('/'), readFileSync(file, 'utf8'));
  return treeOf(texts);
}

/** The circles of a directed graph (its strongly connected parts of more than one node, or a node on itself). */
function circlesOf(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  // Tarjan's algorithm, iterative over the nodes; a src/ tree is a few hundred files, so recursion depth is no concern.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of edges.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const part: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      part.push(member);
    } while (member !== node);
    if (part.length > 1 || edges.get(node)?.has(node) === true) circles.push(part.sort());
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return circles;
}

function fileEdges(tree: Tree): Map<string, Set<string>> {
  return new Map([...tree.files].map(([file, { local }]) => [file, new Set(local)]));
}

/** The feature folder of a file: its first folder under src/ (`dialects/openai-chat/x.ts` is `dialects`). */
function folderOf(file: string): string {
  return file.includes('/') ? file.slice(0, file.indexOf('/')) : file;
}

function folderEdges(tree: Tree): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const [file, { local }] of tree.files) {
    const from = folderOf(file);
    const targets = edges.get(from) ?? new Set<string>();
    edges.set(from, targets);
    for (const target of local) if (folderOf(target) !== from) targets.add(folderOf(target));
  }
  return edges;
}

const usesRxjs = (tree: Tree, file: string): boolean =>
  tree.files.get(file)?.packages.some((name) => name === 'rxjs' || name.startsWith('rxjs/')) ?? false;

/** A core (a file that does not use RxJS) that imports a file that does: the arrow runs the wrong way. */
function impureCores(tree: Tree): string[] {
  const found: string[] = [];
  for (const [file, { local }] of tree.files) {
    if (ENTRIES.has(file) || usesRxjs(tree, file)) continue;
    for (const target of local) if (usesRxjs(tree, target)) found.push(`${file} -> ${target}`);
  }
  return found;
}

/** A file of src/types/ that imports anything but another type module. */
function typesReachingOut(tree: Tree): string[] {
  const found: string[] = [];
  for (const [file, { local, packages }] of tree.files) {
    if (folderOf(file) !== 'types') continue;
    for (const target of local) if (folderOf(target) !== 'types') found.push(`${file} -> ${target}`);
    for (const name of packages) found.push(`${file} -> ${name}`);
  }
  return found;
}

/** What a browser must never bundle: the relay (Node servers), the test kit and its writers, the CLI, Node's modules. */
function isServerOrKit(file: string): boolean {
  return /^(relay|testing|cli)\//.test(file) || file.startsWith('dialects/writing/') || /Writer\.ts$/.test(file);
}

/** The files the main entry reaches, and any of them the rule above forbids (with a `node:` import as `file -> node:x`). */
function mainEntryReaches(tree: Tree): { reached: number; forbidden: string[] } {
  const seen = new Set<string>();
  const forbidden: string[] = [];
  const queue = ['index.ts'];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (isServerOrKit(file)) forbidden.push(file);
    const node = tree.files.get(file);
    if (node === undefined) continue;
    for (const name of node.packages) if (name.startsWith('node:')) forbidden.push(`${file} -> ${name}`);
    queue.push(...node.local);
  }
  return { reached: seen.size, forbidden: forbidden.sort() };
}

describe('the shape of src/', () => {
  const tree = readTree();

  it('has no import circle between files', () => {
    expect(circlesOf(fileEdges(tree))).toEqual([]);
  });

  it('has no import circle between its folders: arrows between features run one way', () => {
    expect(circlesOf(folderEdges(tree))).toEqual([]);
  });

  it('keeps every core pure: a file that does not use RxJS imports none that does', () => {
    expect(impureCores(tree)).toEqual([]);
  });

  it('keeps the types apart: src/types/ imports only src/types/', () => {
    expect(typesReachingOut(tree)).toEqual([]);
  });

  it('reaches no server code, test-kit writer, CLI or Node module from the main entry', () => {
    const { reached, forbidden } = mainEntryReaches(tree);
    expect(reached).toBeGreaterThan(100);
    expect(forbidden).toEqual([]);
  });

  it('has every import resolve to a file of src/', () => {
    const missing = [...tree.files].flatMap(([file, { local }]) =>
      local.filter((target) => target.startsWith('..') || !existsSync(join(SRC, target))).map((target) => `${file} -> ${target}`),
    );
    expect(missing).toEqual([]);
  });

  it('catches what it is for: circles of files and of folders, an impure core, types reaching out, a writer in the main entry', () => {
    const fake = treeOf(
      new Map([
        ['index.ts', "export { a } from './reply/a.js';"],
        ['reply/a.ts', "import { Observable } from 'rxjs';\nimport { b } from './b.js';"],
        ['reply/b.ts', "import { a } from './a.js';\nimport { c } from '../json/c.js';"],
        ['json/c.ts', "import { a } from '../reply/a.js';\nimport { w } from '../dialects/x/xWriter.js';"],
        ['dialects/x/xWriter.ts', "import { t } from '../../types/t.js';"],
        ['types/t.ts', "import { c } from '../json/c.js';"],
      ]),
    );
    expect(circlesOf(fileEdges(fake))).toEqual([['dialects/x/xWriter.ts', 'json/c.ts', 'reply/a.ts', 'reply/b.ts', 'types/t.ts']]);
    expect(circlesOf(folderEdges(fake))).toEqual([['dialects', 'json', 'reply', 'types']]);
    expect(impureCores(fake)).toEqual(['reply/b.ts -> reply/a.ts', 'json/c.ts -> reply/a.ts']);
    expect(typesReachingOut(fake)).toEqual(['types/t.ts -> json/c.ts']);
    expect(mainEntryReaches(fake).forbidden).toEqual(['dialects/x/xWriter.ts']);
  });
});

describe('the package entry point', () => {
  it('exports every type the event, completion and reply-part modules declare', () => {
    const declared = ['types/events.ts', 'types/completion.ts', 'types/replyParts.ts'].flatMap((file) =>
      [...readFileSync(join(SRC, file), 'utf8').matchAll(/^export (?:interface|type) (\w+)/gm)].map((match) => match[1]!),
    );
    const index = readFileSync(join(SRC, 'index.ts'), 'utf8');
    expect(declared.length).toBeGreaterThan(40);
    expect(declared.filter((name) => !new RegExp(`\\b${name}\\b`).test(index))).toEqual([]);
  });
});
