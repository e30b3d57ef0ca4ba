import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { OperatorFunction, pipe } from 'rxjs';
import { assembleChunks } from '../src/reply/assembleChunks';
import { awsEventStreamFrames } from '../src/frames/awsEventStreamFrames';
import { SseFrame } from '../src/frames/SseParser';
import { decodeUtf8 } from '../src/frames/decodeUtf8';
import { DialectFactory } from '../src/dialects/Dialect';
import { DIALECTS } from '../src/dialects/registry';
import { autoDialect } from '../src/dialects/auto';
import { Completion } from '../src/types/events';
import { finalizeCompletion } from '../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../src/reply/groupToolCallsByIndex';
import { ndjsonFrames } from '../src/frames/ndjsonFrames';
import { sseFrames } from '../src/frames/sseFrames';
import { Outcome, runSync } from './support/collect';

/**
 * The recorded corpus (marbles/corpus/, one folder per dialect, origins in marbles/corpus/SOURCES.md and marbles/README.md):
 * replies other projects recorded from live servers, each against the result written beside it by
 * marbles/tools/expected.py, a reading of the bytes that shares nothing with the library. Each runs
 * whole and in pieces of 1, 7 and 64 bytes, under its own dialect and under `auto`.
 */

interface Expected {
  dialect: string;
  completion?: Completion;
  error?: string;
  partial?: Record<string, unknown>;
}

interface Recording {
  name: string;
  bytes: Uint8Array;
  frames: () => OperatorFunction<Uint8Array, SseFrame>;
  expected: Expected;
}

const NAMED: Readonly<Record<string, DialectFactory | undefined>> = DIALECTS;

const CORPUS = join(__dirname, '..', 'marbles', 'corpus');

/** How each kind of body is framed: AWS's event stream is binary, framed from the bytes; the others are text. */
const FRAMING: Readonly<Record<string, (() => OperatorFunction<Uint8Array, SseFrame>) | undefined>> = {
  sse: () => pipe(decodeUtf8(), sseFrames()),
  ndjson: () => pipe(decodeUtf8(), ndjsonFrames()),
  eventstream: () => awsEventStreamFrames(),
};

function recordings(): Recording[] {
  const found: Recording[] = [];
  for (const dialect of readdirSync(CORPUS, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
    for (const file of readdirSync(join(CORPUS, dialect.name)).sort()) {
      const match = /^(.*)\.(sse|ndjson|eventstream)$/.exec(file);
      if (!match) continue;
      found.push({
        name: `${dialect.name}/${file}`,
        bytes: new Uint8Array(readFileSync(join(CORPUS, dialect.name, file))),
        frames: FRAMING[match[2]!]!,
        expected: JSON.parse(readFileSync(join(CORPUS, dialect.name, `${match[1]}.expected.json`), 'utf8')) as Expected,
      });
    }
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/** The body in pieces of `size` bytes, as views of it: a copy of each would cost more than the reading. */
function piecesOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += size) pieces.push(bytes.subarray(start, start + size));
  return pieces;
}

function replay(recording: Recording, size: number, dialect: DialectFactory): Outcome<Completion> {
  return runSync(
    piecesOf(recording.bytes, size),
    pipe(recording.frames(), assembleChunks({ dialect }), groupToolCallsByIndex(), finalizeCompletion()),
  );
}

const all = recordings();

describe('the recorded corpus in marbles/corpus/', () => {
  it('holds the replies of every dialect the issue names', () => {
    const dialects = new Set(all.map((recording) => recording.expected.dialect));
    expect([...dialects].sort()).toEqual([
      'anthropic',
      'bedrock-converse',
      'cohere',
      'gemini',
      'gemini-interactions',
      'ollama',
      'openai-chat',
      'openai-responses',
    ]);
    expect(all.length).toBeGreaterThanOrEqual(182);
  });

  describe.each(all.map((recording) => [recording.name, recording] as const))('%s', (_name, recording) => {
    const explicit = NAMED[recording.expected.dialect];

    it('sits in the folder of a dialect the library speaks', () => {
      expect(explicit).toBeDefined();
      expect(recording.name.split('/')[0]).toBe(recording.expected.dialect);
    });

    // `auto` chooses by the first frame, which the framing hands over whole at any chunking: the
    // one-byte pieces run with the dialect itself.
    it.each([
      ['whole and at 1, 7 and 64-byte pieces with its own dialect', explicit!, [recording.bytes.length, 1, 7, 64]],
      ['whole and at 7 and 64-byte pieces with auto', autoDialect, [recording.bytes.length, 7, 64]],
    ])('reads as expected %s', (_how, dialect, sizes) => {
      for (const size of sizes) {
        const outcome = replay(recording, size, dialect);
        if (recording.expected.completion !== undefined) {
          expect(outcome.error).toBeUndefined();
          expect(outcome.values).toEqual([recording.expected.completion]);
        } else {
          expect(outcome.values).toEqual([]);
          expect((outcome.error as Error).name).toBe(recording.expected.error);
          expect((outcome.error as { partial: unknown }).partial).toMatchObject(recording.expected.partial!);
        }
      }
    });
  });
});
