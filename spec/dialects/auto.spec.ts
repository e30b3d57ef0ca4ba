import { TestScheduler } from 'rxjs/testing';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { SseFrame } from '../../src/frames/SseParser';
import { detectDialect } from '../../src/dialects/auto';
import { autoDialect } from '../../src/dialects/auto';
import { ProtocolError, ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import { assembleText } from '../support/dialect';
import { frame } from '../support/frames';

describe('auto-detection', () => {
  it.each([
    [{ type: 'message_start', message: {} }, 'anthropic'],
    [{ type: 'ping' }, 'anthropic'],
    [{ type: 'content_block_delta' }, 'anthropic'],
    [{ type: 'response.created', response: {} }, 'openai-responses'],
    [{ type: 'response.output_text.delta' }, 'openai-responses'],
    [{ type: 'text', delta: 'x' }, 'typed-events'],
    [{ type: 'tool_call_start', index: 0 }, 'typed-events'],
    [{ candidates: [] }, 'gemini'],
    [{ usageMetadata: {} }, 'gemini'],
    [{ object: 'chat.completion.chunk', choices: [] }, 'openai-chat'],
    [{ id: 'x', choices: [], prompt_filter_results: [] }, 'openai-chat'], // Azure's first event
    [{ model: 'm', message: { content: '' }, done: false }, 'ollama'],
    [{ model: 'm', response: 'x', done: false }, 'ollama'],
    [{ content: 'x', stop: false }, 'llamacpp-completion'],
  ])('reads %j as %s', (payload, dialect) => {
    expect(detectDialect(payload)).toBe(dialect);
  });

  it.each([[{ type: 'keepalive' }], [{ hello: 1 }], [[1, 2]], ['text'], [null]])('says nothing for %j', (payload) => {
    expect(detectDialect(payload)).toBeUndefined();
  });

  it('decides on the first frame that says anything, and keeps that dialect', () => {
    const text =
      [
        'data: {"type":"keepalive","sequence_number":0}',
        'data: {"type":"response.created","response":{"id":"r1","model":"m"}}',
        'data: {"type":"response.output_text.delta","item_id":"i","delta":"Hi"}',
        // A later frame that would look like another dialect is read as this one (and ignored).
        'data: {"id":"x","choices":[{"index":0,"delta":{"content":"no"}}]}',
        'data: {"type":"response.completed","response":{"id":"r1","status":"completed"}}',
      ].join('\n\n') + '\n\n';
    const { completion, error } = assembleText(text, autoDialect);
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ id: 'r1', content: 'Hi', finishReason: 'stop' });
  });

  it('is a ProtocolError naming what it saw when a frame matches no dialect', () => {
    const { error } = assembleText('data: {"hello":1,"world":[2]}\n\n', autoDialect);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toBe('frame 1 matches no dialect: an object with keys hello, world');
  });

  it('is a ProtocolError for a first frame that is not JSON', () => {
    expect((assembleText('data: <html>\n\n', autoDialect).error as Error).message).toBe('frame 1: data is not JSON: "<html>"');
  });

  it('is a ProviderError for an error before any dialect is known', () => {
    const { error } = assembleText('data: {"error":{"message":"overloaded","type":"server_error"}}\n\n', autoDialect);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ type: 'server_error' });
    const anthropicStyle = assembleText(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      autoDialect,
    );
    expect(anthropicStyle.error).toMatchObject({ name: 'ProviderError', type: 'overloaded_error' });
  });

  it('is a StreamClosedEarlyError for a stream with no frames, and a ProtocolError for one that named no dialect', () => {
    expect(assembleText(': just a comment\n\n', autoDialect).error).toBeInstanceOf(StreamClosedEarlyError);
    expect(assembleText('data: [DONE]\n\n', autoDialect).error).toBeInstanceOf(ProtocolError);
  });

  it('passes a [DONE] seen before the dialect was known to the chosen dialect', () => {
    // Unusual, but it must not be lost: the OpenAI dialect stops reading at [DONE].
    const { completion, error } = assembleText('data: [DONE]\n\ndata: {"id":"x","choices":[]}\n\n', autoDialect);
    expect(completion).toBeUndefined();
    expect(error).toBeInstanceOf(ProtocolError); // [DONE] came first, so no chunk with an id was read
  });

  it('is the default of assembleChunks (marbles)', () => {
    const testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<SseFrame>('-a-b-c---|', {
        a: frame({ type: 'message_start', message: { id: 'msg_1', model: 'claude', usage: { input_tokens: 3, output_tokens: 0 } } }),
        b: frame({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
        c: frame({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
      });
      const error = new StreamClosedEarlyError('the stream ended without message_stop after 3 frames');
      expectObservable(source.pipe(assembleChunks())).toBe(
        '-(su)x---#',
        {
          s: { type: 'start', id: 'msg_1', model: 'claude' },
          u: { type: 'usage', usage: { promptTokens: 3, completionTokens: 0, totalTokens: 3 } },
          x: { type: 'content', choice: 0, text: 'Hi' },
        },
        error,
      );
      expectSubscriptions(source.subscriptions).toBe('^--------!');
    });
  });

  it('throws at once for an unknown dialect name', () => {
    expect(() => assembleChunks({ dialect: 'klingon' as never })).toThrow(TypeError);
  });

  it('parses the frame that decides the format once, not once to detect and again to read', () => {
    const deciding = JSON.stringify({
      id: 'x',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { content: 'y'.repeat(1000) } }],
    });
    const parse = jest.spyOn(JSON, 'parse');
    try {
      const { completion } = assembleText(
        `data: ${deciding}\n\ndata: {"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`,
        autoDialect,
      );
      expect(completion?.content).toHaveLength(1000);
      expect(parse.mock.calls.filter(([text]) => text === deciding)).toHaveLength(1);
    } finally {
      parse.mockRestore();
    }
  });
});
