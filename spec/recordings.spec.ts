import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { OperatorFunction, pipe } from 'rxjs';
import { assembleChunks } from '../src/assembleChunks';
import { SseFrame } from '../src/core/SseParser';
import { decodeUtf8 } from '../src/decodeUtf8';
import { DialectFactory } from '../src/dialects/Dialect';
import { DIALECTS, autoDialect } from '../src/dialects/registry';
import { Completion } from '../src/events';
import { finalizeCompletion } from '../src/finalizeCompletion';
import { groupToolCallsByIndex } from '../src/groupToolCallsByIndex';
import { ndjsonFrames } from '../src/ndjsonFrames';
import { sseFrames } from '../src/sseFrames';
import { chunksOf } from './support/chunking';
import { Outcome, runSync } from './support/collect';

/**
 * Every recording in marbles/ replayed through the whole pipeline, at every chunk size from 1 to 64,
 * against the result written beside it from an independent reading of the bytes (marbles/README.md).
 */

interface Expected {
  dialect: string;
  completion?: Completion;
  error?: string;
  partial?: Record<string, unknown>;
}

const NAMED: Readonly<Record<string, DialectFactory | undefined>> = DIALECTS;

const MARBLES = join(__dirname, '..', 'marbles');

function recordings(): { name: string; bytes: Uint8Array; framing: OperatorFunction<string, SseFrame>; expected: Expected }[] {
  const found = [];
  for (const folder of ['openai', 'real', 'dialects']) {
    for (const file of readdirSync(join(MARBLES, folder)).sort()) {
      const match = /^(.*)\.(sse|ndjson)$/.exec(file);
      if (!match) continue;
      const expected = JSON.parse(readFileSync(join(MARBLES, folder, `${match[1]}.expected.json`), 'utf8')) as Expected;
      found.push({
        name: `${folder}/${file}`,
        bytes: new Uint8Array(readFileSync(join(MARBLES, folder, file))),
        framing: match[2] === 'ndjson' ? ndjsonFrames() : sseFrames(),
        expected,
      });
    }
  }
  return found;
}

function replay(bytes: Uint8Array, size: number, framing: OperatorFunction<string, SseFrame>, dialect: DialectFactory): Outcome<Completion> {
  return runSync(chunksOf(bytes, size), pipe(decodeUtf8(), framing, assembleChunks({ dialect }), groupToolCallsByIndex(), finalizeCompletion()));
}

const all = recordings();

describe('recordings in marbles/', () => {
  it('holds the recordings the issues ask for', () => {
    const names = all.map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(['openai/text.sse', 'openai/truncated-mid-line.sse', 'real/openai-text.sse', 'dialects/anthropic-messages.sse']));
    expect(all.length).toBeGreaterThanOrEqual(41);
  });

  describe.each(all.map((r) => [r.name, r] as const))('%s', (_name, recording) => {
    const explicit = NAMED[recording.expected.dialect];

    it('names a dialect the library speaks', () => {
      expect(explicit).toBeDefined();
    });

    it.each([
      ['its own dialect', explicit!],
      ['auto', autoDialect],
    ])('assembles to the expected result with %s', (_how, dialect) => {
      const outcome = replay(recording.bytes, recording.bytes.length, recording.framing, dialect);
      if (recording.expected.completion !== undefined) {
        expect(outcome.error).toBeUndefined();
        expect(outcome.values).toEqual([recording.expected.completion]);
      } else {
        expect(outcome.values).toEqual([]);
        expect((outcome.error as Error).name).toBe(recording.expected.error);
        expect((outcome.error as { partial: unknown }).partial).toMatchObject(recording.expected.partial!);
      }
    });

    it.each([
      ['its own dialect', explicit!],
      ['auto', autoDialect],
    ])('gives the identical outcome at every chunk size from 1 to 64 with %s', (_how, dialect) => {
      const whole = replay(recording.bytes, recording.bytes.length, recording.framing, dialect);
      for (let size = 1; size <= 64; size++) {
        const outcome = replay(recording.bytes, size, recording.framing, dialect);
        expect(outcome.values).toEqual(whole.values);
        expect(outcome.error === undefined).toBe(whole.error === undefined);
        if (whole.error !== undefined) {
          expect((outcome.error as Error).message).toBe((whole.error as Error).message);
          expect((outcome.error as { partial: unknown }).partial).toEqual((whole.error as { partial: unknown }).partial);
        }
      }
    });
  });
});
