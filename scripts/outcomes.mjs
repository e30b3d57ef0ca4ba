// Prints what every stream under marbles/ assembles to through the README's pipeline, one JSON line
// per stream and chunk size: the completion, or the error's class, message, position and partial.
// Run it on two builds and diff the outputs to show that a change kept every result:
//
//   npm run build && node scripts/outcomes.mjs > after.jsonl
//   node scripts/outcomes.mjs path/to/other/dist/cjs > before.jsonl && diff before.jsonl after.jsonl
//
// The optional argument is the CommonJS build to load (default: this checkout's dist/cjs).
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const build = resolve(process.argv[2] ?? join(root, 'dist', 'cjs'));
const require = createRequire(import.meta.url);
const library = require(join(build, 'index.js'));
const { from, lastValueFrom, tap } = require('rxjs');

const FOLDERS = ['openai', 'real', 'dialects', 'hostile'];
const CHUNK_SIZES = [1, 7, 64, Infinity];

/** Runs one stream; resolves to its outcome as plain data. */
async function outcome(bytes, ndjson, size, fatal) {
  const chunks = [];
  const step = size === Infinity ? Math.max(1, bytes.length) : size;
  for (let start = 0; start < bytes.length; start += step) chunks.push(bytes.subarray(start, start + step));
  let events = 0;
  try {
    const completion = await lastValueFrom(
      from(chunks).pipe(
        library.decodeUtf8({ fatal }),
        ndjson ? library.ndjsonFrames() : library.sseFrames(),
        library.assembleChunks(),
        library.groupToolCallsByIndex(),
        tap(() => events++),
        library.finalizeCompletion(),
      ),
    );
    return { events, completion };
  } catch (error) {
    const { name, message, position, partial } = error;
    return { events, error: { name, message, position, partial } };
  }
}

for (const folder of FOLDERS) {
  for (const file of readdirSync(join(root, 'marbles', folder)).sort()) {
    const match = /^(.*)\.(sse|ndjson)$/.exec(file);
    if (match === null) continue;
    const bytes = new Uint8Array(readFileSync(join(root, 'marbles', folder, file)));
    // The expected result beside a stream says whether it is read under `fatal` (the hostile corpus).
    const expected = JSON.parse(readFileSync(join(root, 'marbles', folder, `${match[1]}.expected.json`), 'utf8'));
    const fatal = expected.options?.fatal === true;
    for (const size of CHUNK_SIZES) {
      const result = await outcome(bytes, match[2] === 'ndjson', size, fatal);
      process.stdout.write(`${JSON.stringify({ stream: `${folder}/${file}`, chunk: size === Infinity ? 'whole' : size, ...result })}\n`);
    }
  }
}
