import { of, throwError, concat } from 'rxjs';
import {
  LlmStreamError,
  ProtocolError,
  ProviderError,
  StreamClosedEarlyError,
  StreamIdleError,
  ToolArgumentsError,
} from '../src/errors/errors';
import { isLlmStreamError } from '../src/errors/isLlmStreamError';
import { ChatEvent } from '../src/types/events';
import { finalizeCompletion } from '../src/reply/finalizeCompletion';
import { isCompletionSnapshot } from '../src/reply/isCompletionSnapshot';
import { errorFromStreamErrorData, streamErrorData } from '../src/errors/streamErrorData';
import { collectSync } from './support/collect';

describe('the partial of an error is typed honestly', () => {
  it('is unknown after instanceof, so reading a field the compiler cannot see does not compile', () => {
    const error: unknown = new StreamClosedEarlyError('cut', { partial: { content: 'so far' } });
    if (!(error instanceof StreamClosedEarlyError)) throw new Error('unreachable');
    // @ts-expect-error `partial` is `unknown`: it must be narrowed before use
    expect(() => error.partial.no.such.field).toThrow(TypeError);
  });

  it('isCompletionSnapshot narrows it to the completion so far the operators put there', () => {
    const events: ChatEvent[] = [
      { type: 'start', id: 'chatcmpl-1', model: 'm' },
      { type: 'content', choice: 0, text: 'so far' },
    ];
    const { error } = collectSync(
      concat(
        of(...events),
        throwError(() => new ProviderError('overloaded')),
      ).pipe(finalizeCompletion()),
    );
    if (!(error instanceof ProviderError) || !isCompletionSnapshot(error.partial))
      throw new Error('expected a ProviderError with a snapshot');
    const content: string | null = error.partial.content; // typed: this line is checked by the compiler
    expect(content).toBe('so far');
    expect(error.partial.id).toBe('chatcmpl-1');
  });

  it.each([
    ['undefined', undefined],
    ['the text partial of the frame layer', { data: 'a', incompleteLine: 'data: {"cho' }],
    ['a string', 'so far'],
    ['an object without choices', { content: 'x', toolCalls: [], finished: false, inReasoning: false, reasoningTokens: 0 }],
    [
      'a snapshot whose content is a number',
      { content: 1, reasoning: null, refusal: null, toolCalls: [], choices: [], finished: false, inReasoning: false, reasoningTokens: 0 },
    ],
  ])('isCompletionSnapshot is false for %s', (_name, value) => {
    expect(isCompletionSnapshot(value)).toBe(false);
  });

  it('isCompletionSnapshot accepts a snapshot that went through JSON', () => {
    const { error } = collectSync(of<ChatEvent>({ type: 'content', choice: 0, text: 'x' }).pipe(finalizeCompletion()));
    const partial = (error as StreamClosedEarlyError).partial;
    expect(isCompletionSnapshot(partial)).toBe(true);
    expect(isCompletionSnapshot(JSON.parse(JSON.stringify(partial)))).toBe(true);
  });
});

describe('streamErrorData and errorFromStreamErrorData', () => {
  const call = { index: 0, id: 'call_1', name: 'get_weather', arguments: '{"city":7}', args: { city: 7 } };
  const errors: ReadonlyArray<readonly [string, LlmStreamError]> = [
    [
      'StreamClosedEarlyError',
      new StreamClosedEarlyError('the stream ended without [DONE] after 4 frames', { position: { event: 4 }, partial: { big: 'x' } }),
    ],
    ['ProtocolError', new ProtocolError('frame 2: data is not JSON: "{"', { position: { event: 2 } })],
    ['StreamIdleError', new StreamIdleError('the body was silent for 300 ms after 687 bytes in 1 chunk')],
    [
      'ProviderError',
      new ProviderError('the provider answered HTTP 429: slow down', {
        status: 429,
        type: 'rate_limit',
        code: 'rate_limit_exceeded',
        retryable: true,
        body: { secret: 1 },
      }),
    ],
    [
      'ToolArgumentsError',
      new ToolArgumentsError('get_weather refused', {
        call,
        choice: 0,
        issues: [{ message: 'Expected string', path: ['city', { key: 0 }] }],
      }),
    ],
  ];

  it.each(errors)(
    'a %s comes back as the same class with the same message, position and fields, without partial or body',
    (name, error) => {
      const data = JSON.parse(JSON.stringify(streamErrorData(error))) as unknown;
      expect(JSON.stringify(data)).not.toContain('big'); // the partial stays on the server
      expect(JSON.stringify(data)).not.toContain('secret'); // and so does the provider's raw body
      const rebuilt = errorFromStreamErrorData(data);
      expect(rebuilt.name).toBe(name);
      expect(rebuilt.constructor).toBe(error.constructor);
      expect(rebuilt.message).toBe(error.message);
      expect(rebuilt.position).toEqual(error.position);
      expect(rebuilt.partial).toBeUndefined();
      if (error instanceof ProviderError) {
        expect(rebuilt).toMatchObject({ status: 429, type: 'rate_limit', code: 'rate_limit_exceeded', retryable: true });
      }
      if (error instanceof ToolArgumentsError)
        expect(rebuilt).toMatchObject({ call, choice: 0, issues: [{ message: 'Expected string', path: ['city', 0] }] });
    },
  );

  it("describes an error that is not the library's as a StreamClosedEarlyError that names nothing of it", () => {
    const data = streamErrorData(new TypeError('fetch failed: connect ECONNREFUSED 10.1.2.3:8080'));
    expect(data).toEqual({
      name: 'StreamClosedEarlyError',
      reason: 'transport',
      message: 'the stream failed on the server before its end',
    });
  });

  it('rebuilds a name it does not know as a StreamClosedEarlyError keeping it, and refuses data that is no error', () => {
    const unknown = errorFromStreamErrorData({ name: 'QuotaError', message: 'over quota' });
    expect(unknown).toBeInstanceOf(StreamClosedEarlyError);
    expect(unknown.message).toBe('QuotaError: over quota');
    for (const data of [null, 'oops', { name: 'ProviderError' }, { message: 'x' }]) {
      const refused = errorFromStreamErrorData(data);
      expect(refused).toBeInstanceOf(ProtocolError);
      expect(refused.message).toBe('the error event does not describe an error: it needs a string name and message');
    }
    expect(isLlmStreamError(errorFromStreamErrorData({ name: 'ToolArgumentsError', message: 'x' }))).toBe(true);
    expect(errorFromStreamErrorData({ name: 'ToolArgumentsError', message: 'x' })).toBeInstanceOf(ProtocolError);
  });
});

describe('isLlmStreamError across realms', () => {
  // An error of another copy of the package (an iframe, a second install) fails `instanceof`: the
  // check goes by its name and its `partial`, for every concrete class, the relay's included.
  const NAMES = [
    'StreamClosedEarlyError',
    'ProtocolError',
    'ProviderError',
    'StreamIdleError',
    'ToolArgumentsError',
    'StructuredOutputError',
    'IncompleteOutputError',
    'SlowClientError',
  ];

  it.each(NAMES)('knows a %s from elsewhere by its name and partial', (name) => {
    const foreign = Object.assign(new Error('from another realm'), { name, partial: undefined });
    expect(foreign instanceof LlmStreamError).toBe(false);
    expect(isLlmStreamError(foreign)).toBe(true);
  });

  it('refuses an error with another name, or without a partial', () => {
    expect(isLlmStreamError(Object.assign(new Error('x'), { name: 'TypeError', partial: undefined }))).toBe(false);
    expect(isLlmStreamError(Object.assign(new Error('x'), { name: 'SlowClientError' }))).toBe(false);
  });
});
