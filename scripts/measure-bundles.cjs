// The browser bundles of the package as a new user makes them: a module of a few lines that imports
// from 'rxjs-llm-stream', bundled and minified by esbuild for the browser (rxjs included), then
// gzipped at zlib's default level. Shared by scripts/bundle-size.mjs, which prints the table, and
// spec/bundleSize.spec.ts, which holds each bundle to its budget. Measures the built dist/ of this
// checkout (`npm run build` first).
//
// CommonJS, so that both can load it: the script is an ES module, and Jest runs the specs as
// CommonJS, where a dynamic `import()` of an ES module is refused.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS module, for the reason above */

const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { gzipSync } = require('node:zlib');
const esbuild = require('esbuild');

const root = join(__dirname, '..');

const KIB = 1024;

/** The bytes of a stream, as an app gets them from `fetch`: a plain `Observable` of rxjs, nothing heavier. */
const SOURCE = `import { Observable } from 'rxjs';

const bytes$ = new Observable<Uint8Array>((subscriber) => {
  subscriber.next(new TextEncoder().encode('data: {}\\n\\n'));
  subscriber.complete();
});
`;

/**
 * The bundles measured, each the module a user would write. `budget` is what the spec allows;
 * `goal` is where the bundle should be (README.md, "Bundle size"): where the two differ, the budget
 * is today's size with a little room, so that growth fails the spec while the goal is out of reach.
 */
const BUNDLE_ENTRIES = [
  {
    name: 'frames',
    title: 'decodeUtf8 + sseFrames',
    budget: 8 * KIB,
    goal: 8 * KIB,
    code: `${SOURCE}import { decodeUtf8, sseFrames } from 'rxjs-llm-stream';

bytes$.pipe(decodeUtf8(), sseFrames()).subscribe((frame) => console.log(frame.data));
`,
  },
  {
    name: 'openai-chat',
    title: 'README pipeline, assembleChunksWith(openaiChat)',
    // 22 before the private members of the cores became #private fields, which a minifier renames; 21.5 before
    // openai-chat listed the fields it reads at each level, to keep every other one; 22.5 before the rule for
    // OpenAI-compatible replies without [DONE] and a JSON error body in place of a stream (0.7 KB); 23 before
    // what the next turn sends back (opaque items), finish details, usage details and Groq's executed tools (1.2 KB); 24.5
    // before openai-chat declared where it keeps unnamed fields (a chunk of a settled shape makes no keeping call: the
    // bench's text rows), Groq's document citations and Mistral's reference chunks (0.7 KB); 24.75 before the errors
    // carried rate limits and the attempts of a retried request, and StreamIdleError its timeout reasons (25 B); 25
    // before each operator's state became one object of handlers and the tables were made at first need, which
    // took the heap an open reply holds from 9.6 to 5.2 kB (0.2 KB); 25.5 before tool-call previews became a function
    // to import (toolCallPreviews), which took their partial-JSON reader out (1.8 KB)
    budget: 24 * KIB,
    goal: 15 * KIB,
    code: `${SOURCE}import {
  decodeUtf8,
  sseFrames,
  assembleChunksWith,
  openaiChat,
  groupToolCallsByIndex,
  finalizeCompletion,
} from 'rxjs-llm-stream';

bytes$
  .pipe(decodeUtf8(), sseFrames(), assembleChunksWith(openaiChat), groupToolCallsByIndex(), finalizeCompletion())
  .subscribe((completion) => console.log(completion.content));
`,
  },
  {
    name: 'auto',
    title: 'README pipeline, assembleChunks() (auto)',
    // 40 before Cohere's dialect (2.9 KB) and the open reply joined every bundle that holds them all; 42 before the
    // private members of the cores became #private fields, which a minifier renames; 41.5 before every dialect
    // listed the fields it reads at each level, to keep every other one (3.3 KB); 44.5 before the replies of 2026
    // (tool requests, server-run tools, audio-only replies, auto for the AI SDK's stream: 2.5 KB); 48.5 before the
    // opaque items, finish details, the sources of Bedrock and Perplexity, Gemini's logprobs and server-run MCP
    // calls, AI SDK UI's reset-step (4.8 KB); 52.5 before Mistral's Conversations stream and Gemini's
    // Interactions stream (1.3 KB and 2.4 KB); 56 before the OpenAI Realtime dialect (57.0 KiB with it); 57.5
    // before the operators' state became one object of handlers and the tables were made at first need (0.2 KB); 58
    // before tool-call previews became a function to import (1.8 KB)
    budget: 56.5 * KIB,
    goal: 30 * KIB,
    code: `${SOURCE}import { decodeUtf8, sseFrames, assembleChunks, groupToolCallsByIndex, finalizeCompletion } from 'rxjs-llm-stream';

bytes$
  .pipe(decodeUtf8(), sseFrames(), assembleChunks(), groupToolCallsByIndex(), finalizeCompletion())
  .subscribe((completion) => console.log(completion.content));
`,
  },
];

/**
 * A path of the metafile (relative to the checkout, with `/` on every system), short:
 * `dist/esm/frames/SseParser.js`, `rxjs/dist/esm5/internal/Observable.js`.
 */
function shortPath(path) {
  const inPackages = path.lastIndexOf('node_modules/');
  return inPackages === -1 ? path : path.slice(inPackages + 'node_modules/'.length);
}

/**
 * Bundles one entry and measures it: the minified and gzipped bytes, and the minified bytes each
 * input file left in the bundle (esbuild's metafile), largest first.
 */
async function measureBundle(entry) {
  if (!existsSync(join(root, 'dist', 'esm', 'index.js'))) throw new Error('dist/ is not built: run `npm run build` first');
  const result = await esbuild.build({
    stdin: { contents: entry.code, loader: 'ts', resolveDir: root, sourcefile: `${entry.name}.ts` },
    absWorkingDir: root,
    bundle: true,
    minify: true,
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent',
    // The entry sits in this checkout, so 'rxjs-llm-stream' resolves to the package itself through
    // its "exports" (a self-reference: the same files an installed copy's map leads to). Without
    // this, esbuild would read the checkout's tsconfig.json, whose `paths` send the name to src/.
    tsconfigRaw: '{}',
  });
  const code = result.outputFiles[0].contents;
  const output = Object.values(result.metafile.outputs)[0];
  const inputs = Object.entries(output.inputs)
    .map(([path, input]) => ({ path: shortPath(path), bytes: input.bytesInOutput }))
    .filter((input) => input.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes || a.path.localeCompare(b.path));
  return { entry, minified: code.length, gzipped: gzipSync(code).length, inputs };
}

/** Every entry of `BUNDLE_ENTRIES`, measured one after the other (the sizes do not depend on the order). */
async function measureBundles() {
  const measured = [];
  for (const entry of BUNDLE_ENTRIES) measured.push(await measureBundle(entry));
  return measured;
}

module.exports = { BUNDLE_ENTRIES, measureBundle, measureBundles };
