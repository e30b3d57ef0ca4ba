import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE_ENTRIES, BundleSize, measureBundles } from '../scripts/measure-bundles.cjs';
import { root } from './support/build';

// What the package costs a browser app, measured as a new user would: a few lines importing from
// 'rxjs-llm-stream', bundled and minified by esbuild for the browser (rxjs included), gzipped. The
// budgets are in scripts/measure-bundles.cjs; `node scripts/bundle-size.mjs --inputs` shows where
// the bytes of a bundle that grew went. The build is the one Jest's global setup made.

jest.setTimeout(60_000);

/** A folder per dialect under src/dialects/, but the code they share (`base`) and the test kit's writers (`writing`). */
const DIALECT_FOLDERS = readdirSync(join(root, 'src', 'dialects'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'base' && entry.name !== 'writing')
  .map((entry) => entry.name)
  .sort();

/** The dialect folders (`dist/esm/dialects/<name>/`) a bundle holds code of, but the shared `base`. */
function dialectsIn(bundle: BundleSize): string[] {
  const folders = new Set<string>();
  for (const { path } of bundle.inputs) {
    const match = /^dist\/esm\/dialects\/([^/]+)\//.exec(path);
    if (match !== null && match[1] !== 'base') folders.add(match[1]!);
  }
  return [...folders].sort();
}

describe('the browser bundle', () => {
  let measured: ReadonlyMap<string, BundleSize>;
  beforeAll(async () => {
    measured = new Map((await measureBundles()).map((bundle) => [bundle.entry.name, bundle]));
  });

  it.each(BUNDLE_ENTRIES.map((entry) => [entry.title, entry.name, entry.budget] as const))(
    '%s stays within its budget, gzipped',
    (_title, name, budget) => {
      const bundle = measured.get(name)!;
      expect(bundle.gzipped).toBeGreaterThan(0);
      expect(bundle.gzipped).toBeLessThanOrEqual(budget);
    },
  );

  it('tells bundlers that any module of the build may be dropped, in the package.json nearest to it', () => {
    for (const format of ['esm', 'cjs']) {
      expect(JSON.parse(readFileSync(join(root, 'dist', format, 'package.json'), 'utf8'))).toMatchObject({ sideEffects: false });
    }
  });

  it('holds of the dialects only the one assembleChunksWith is given', () => {
    expect(dialectsIn(measured.get('openai-chat')!)).toEqual(['openai-chat']);
  });

  it('holds every dialect with assembleChunks() (auto), which may meet any of them', () => {
    expect(dialectsIn(measured.get('auto')!)).toEqual(DIALECT_FOLDERS);
  });

  it('holds no preview reader unless toolCallPreviews is imported: the README pipeline shows none', () => {
    for (const name of ['openai-chat', 'auto']) {
      const paths = measured.get(name)!.inputs.map((input) => input.path);
      expect(paths).toContain('dist/esm/reply/groupToolCallsByIndex.js');
      expect(paths.filter((path) => /\/(PartialJson|PartialJsonTree|toolCallPreviews)\.js$/.test(path))).toEqual([]);
    }
  });

  it('holds no dialect, no completion and no JSON reader for the frames alone', () => {
    const paths = measured.get('frames')!.inputs.map((input) => input.path);
    expect(paths.filter((path) => /^dist\/esm\/(dialects|reply|json|structured)\//.test(path))).toEqual([]);
  });
});
