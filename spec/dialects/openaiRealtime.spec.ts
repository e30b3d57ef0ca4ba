import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { from, pipe } from 'rxjs';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { ndjsonFrames } from '../../src/frames/ndjsonFrames';
import { SseFrame } from '../../src/frames/SseParser';
import { DialectFactory } from '../../src/dialects/Dialect';
import { autoDialect, detectDialect } from '../../src/dialects/auto';
import { openaiRealtime } from '../../src/dialects/openai-realtime/openaiRealtime';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { Completion } from '../../src/types/events';
import { Outcome, runSync } from '../support/collect';

// One reply of an OpenAI Realtime session: the streams of marbles/dialects/openai-realtime/ (built
// from the openai SDK's RealtimeServerEvent types by build.ts there), each against the result
// marbles/tools/expected.py wrote from its bytes.

interface Expected {
  readonly completion?: Completion;
  readonly error?: string;
  readonly partial?: Record<string, unknown>;
}

const FOLDER = join(__dirname, '..', '..', 'marbles', 'dialects', 'openai-realtime');
const STREAMS = readdirSync(FOLDER)
  .filter((file) => file.endsWith('.ndjson'))
  .sort()
  .map((file) => ({
    name: file,
    bytes: new Uint8Array(readFileSync(join(FOLDER, file))),
    expected: JSON.parse(readFileSync(join(FOLDER, file.replace(/\.ndjson$/, '.expected.json')), 'utf8')) as Expected,
  }));

function piecesOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += size) pieces.push(bytes.subarray(start, start + size));
  return pieces;
}

function read(bytes: Uint8Array, size: number, dialect: DialectFactory): Outcome<Completion> {
  return runSync(
    piecesOf(bytes, size),
    pipe(decodeUtf8(), ndjsonFrames(), assembleChunks({ dialect }), groupToolCallsByIndex(), finalizeCompletion()),
  );
}

/** Each event as the frame a socket's message becomes. */
const frames = (...events: object[]): SseFrame[] => events.map((event) => ({ event: 'message', data: JSON.stringify(event), id: '' }));

function readFrames(input: SseFrame[], dialect: DialectFactory = openaiRealtime): Outcome<Completion> {
  return runSync(input, pipe(assembleChunks({ dialect }), groupToolCallsByIndex(), finalizeCompletion()));
}

describe('openai-realtime: the streams built from the SDK types', () => {
  it('are the six of the folder', () => {
    expect(STREAMS.map((stream) => stream.name)).toEqual([
      'audio.ndjson',
      'cancelled-by-turn.ndjson',
      'failed.ndjson',
      'function-calls.ndjson',
      'max-output-tokens.ndjson',
      'text.ndjson',
    ]);
  });

  describe.each(STREAMS.map((stream) => [stream.name, stream] as const))('%s', (_name, stream) => {
    it.each([
      ['openai-realtime', openaiRealtime as DialectFactory],
      ['auto', autoDialect],
    ])('reads as expected whole and at 1, 7 and 64-byte pieces with %s', (_how, dialect) => {
      for (const size of [stream.bytes.length, 1, 7, 64]) {
        const outcome = read(stream.bytes, size, dialect);
        if (stream.expected.completion !== undefined) {
          expect({ size, error: outcome.error, values: outcome.values }).toEqual({
            size,
            error: undefined,
            values: [stream.expected.completion],
          });
        } else {
          expect(outcome.values).toEqual([]);
          expect({ size, name: (outcome.error as Error).name }).toEqual({ size, name: stream.expected.error });
          expect((outcome.error as { partial: unknown }).partial).toMatchObject(stream.expected.partial!);
        }
      }
    });
  });

  it('keeps what a cancelled reply had said: the transcript cut where the user spoke, as the partial of an unfinished stream', () => {
    const stream = STREAMS.find((candidate) => candidate.name === 'cancelled-by-turn.ndjson')!;
    const { error } = read(stream.bytes, 7, openaiRealtime);
    expect(error).toMatchObject({ name: 'StreamClosedEarlyError', reason: 'unfinished' });
    expect((error as Error).message).toContain('turn_detected');
    expect((error as { partial: { audio: unknown } }).partial.audio).toEqual({
      id: 'item_CWx5msg',
      data: 'AAABAAIAAwAEAA==BQAGAAcACAAJAA==',
      transcript: 'Sure, the',
      expiresAt: null,
    });
  });
});

describe('openai-realtime: telling it apart under auto', () => {
  const realtime = { type: 'response.output_text.delta', event_id: 'event_1', response_id: 'resp_1', item_id: 'item_1', delta: 'Hi' };
  const responses = {
    type: 'response.output_text.delta',
    sequence_number: 3,
    item_id: 'msg_1',
    output_index: 0,
    content_index: 0,
    delta: 'Hi',
  };

  it.each([
    ['a Realtime text delta (event_id)', 'openai-realtime', realtime],
    ['the Responses event of the same name (sequence_number, no event_id)', 'openai-responses', responses],
    ['a Realtime session event', 'openai-realtime', { type: 'session.created', event_id: 'event_0', session: {} }],
    [
      'a Responses response.created',
      'openai-responses',
      { type: 'response.created', sequence_number: 0, response: { id: 'resp_1', object: 'response' } },
    ],
  ])('%s is %s', (_what, dialect, payload) => {
    expect(detectDialect(payload)).toBe(dialect);
  });
});

describe('openai-realtime: errors and the session around the reply', () => {
  const created = {
    type: 'response.created',
    event_id: 'event_1',
    response: { object: 'realtime.response', id: 'resp_1', status: 'in_progress' },
  };
  const delta = {
    type: 'response.output_text.delta',
    event_id: 'event_2',
    response_id: 'resp_1',
    item_id: 'item_1',
    output_index: 0,
    content_index: 0,
    delta: 'Hel',
  };
  const done = {
    type: 'response.done',
    event_id: 'event_9',
    response: { object: 'realtime.response', id: 'resp_1', status: 'completed', output: [] },
  };

  it('makes an error event a ProviderError with its type, code and message', () => {
    const error = {
      type: 'error',
      event_id: 'event_3',
      error: { type: 'invalid_request_error', code: 'invalid_value', message: 'Bad voice', param: 'voice' },
    };
    const { error: caught } = readFrames(frames(created, delta, error));
    expect(caught).toMatchObject({ name: 'ProviderError', type: 'invalid_request_error', code: 'invalid_value' });
    expect((caught as Error).message).toContain('Bad voice');
    expect((caught as { partial: { content: string } }).partial.content).toBe('Hel');
  });

  it("skips the session's own events, even one that carries an error of its own (a user's audio that failed to transcribe)", () => {
    const failed = {
      type: 'conversation.item.input_audio_transcription.failed',
      event_id: 'event_4',
      item_id: 'item_0',
      content_index: 0,
      error: { type: 'transcription_error', code: 'audio_unintelligible', message: 'no speech', param: null },
    };
    const limits = { type: 'rate_limits.updated', event_id: 'event_5', rate_limits: [] };
    const { values, error } = readFrames(frames(created, failed, delta, limits, done));
    expect(error).toBeUndefined();
    expect(values.map((completion) => [completion.id, completion.content, completion.finishReason])).toEqual([['resp_1', 'Hel', 'stop']]);
  });

  it('makes a failed response a ProviderError from its status_details.error', () => {
    const failed = {
      ...done,
      response: {
        ...done.response,
        status: 'failed',
        status_details: { type: 'failed', error: { type: 'server_error', code: 'overloaded', message: 'Try again' } },
      },
    };
    const { error } = readFrames(frames(created, delta, failed));
    expect(error).toMatchObject({ name: 'ProviderError', type: 'server_error', code: 'overloaded' });
  });

  it('refuses the arguments of a call no item announced', () => {
    const stray = {
      type: 'response.function_call_arguments.delta',
      event_id: 'event_3',
      response_id: 'resp_1',
      item_id: 'item_x',
      call_id: 'call_x',
      delta: '{',
    };
    expect(readFrames(frames(created, stray, done)).error).toMatchObject({ name: 'ProtocolError', reason: 'invalid-tool-call' });
  });

  it('ignores what comes after response.done: the session goes on, the reply is over', async () => {
    const next = { ...created, event_id: 'event_10', response: { ...created.response, id: 'resp_2' } };
    const completions = await new Promise<Completion[]>((resolve, reject) => {
      const seen: Completion[] = [];
      from(frames(created, delta, done, next))
        .pipe(assembleChunks({ dialect: openaiRealtime }), groupToolCallsByIndex(), finalizeCompletion())
        .subscribe({ next: (completion) => seen.push(completion), error: reject, complete: () => resolve(seen) });
    });
    expect(completions.map((completion) => completion.id)).toEqual(['resp_1']);
  });
});
