import { openaiChat } from '../../src/dialects/openai-chat/openaiChat';
import { StreamClosedEarlyError } from '../../src/errors/errors';
import { ChatEvent, Source } from '../../src/types/events';
import { Assembled, assembleAtEverySize, assembleText, dataEvents } from '../support/dialect';

/**
 * Sources (`delta.annotations`), audio (`delta.audio`), payloads the dialect does not know, and the
 * cache-write count of the usage, in the `openai-chat` dialect. Every stream is SSE text, each
 * payload written out as the object the server sends and serialized as compact JSON, read through
 * the real pipeline, in one piece and in pieces.
 */

/** Reads `text` whole and at every chunk size: each reading must be the whole one. */
const atEverySize = (text: string, options: Parameters<typeof assembleText>[2] = {}): Assembled =>
  assembleAtEverySize(text, openaiChat, options);

/** SSE text of `payloads`: a `data:` event each, its JSON compact as servers write it; `'[DONE]'` as it is. */
const sse = dataEvents;
/** A Chat chunk of one choice, in the envelope OpenAI writes around it. */
const chunk = (choice: object, model = 'gpt-4o-search-preview-2025-03-11'): string =>
  sse({ id: 'chatcmpl-Ws5Lq1Vn8Kc3Xb7Tz2Hd6Mf4Rj9Pa0Ge', object: 'chat.completion.chunk', created: 1767225600, model, choices: [choice] });
const DONE = sse('[DONE]');

describe('openai-chat dialect: sources, audio, unknown payloads', () => {
  describe('sources (delta.annotations)', () => {
    // Web search in Chat Completions: `url_citation` annotations {start_index, end_index, url, title}
    // (https://platform.openai.com/docs/guides/tools-web-search?api-mode=chat), streamed in
    // `delta.annotations`, as a chunk with only annotations after the text
    // (https://github.com/openai/openai-java/issues/297). Here the second annotation chunk repeats
    // the first citation with a new one, as a provider that sends its list cumulatively does.
    const OLYMPICS: Source = {
      kind: 'url',
      url: 'https://olympics.com/en/paris-2024',
      title: 'Paris 2024 Olympic Games',
      span: { start: 38, end: 90 },
    };
    const EIFFEL: Source = {
      kind: 'url',
      url: 'https://www.toureiffel.paris/en',
      title: 'The Eiffel Tower',
      span: { start: 123, end: 176 },
    };
    const citation = (start: number, end: number, title: string, url: string) => ({
      type: 'url_citation',
      url_citation: { end_index: end, start_index: start, title, url },
    });
    const olympics = citation(38, 90, 'Paris 2024 Olympic Games', 'https://olympics.com/en/paris-2024');
    const eiffel = citation(123, 176, 'The Eiffel Tower', 'https://www.toureiffel.paris/en');
    const stream =
      chunk({ index: 0, delta: { role: 'assistant', content: '', refusal: null }, finish_reason: null }) +
      chunk({ index: 0, delta: { content: 'Paris hosted the 2024 Summer Olympics ' }, finish_reason: null }) +
      chunk({ index: 0, delta: { content: '([olympics.com](https://olympics.com/en/paris-2024)).' }, finish_reason: null }) +
      chunk({ index: 0, delta: { annotations: [olympics] }, finish_reason: null }) +
      chunk({
        index: 0,
        delta: { content: ' The Eiffel Tower is 330 m tall ([toureiffel.paris](https://www.toureiffel.paris/en)).' },
        finish_reason: null,
      }) +
      chunk({ index: 0, delta: { annotations: [olympics, eiffel] }, finish_reason: null }) +
      chunk({ index: 0, delta: {}, finish_reason: 'stop' }) +
      DONE;

    it('emit one source event per new citation, a repeated one never again', () => {
      expect(assembleText(stream, openaiChat).events.filter((e) => e.type === 'source')).toEqual([
        { type: 'source', choice: 0, source: OLYMPICS },
        { type: 'source', choice: 0, source: EIFFEL },
      ]);
    });

    it('accumulate across chunks in the completion, the spans pointing into its content, at every chunk size', () => {
      const { completion } = atEverySize(stream);
      expect(completion?.sources).toEqual([OLYMPICS, EIFFEL]);
      expect(completion?.content?.slice(38, 90)).toBe('([olympics.com](https://olympics.com/en/paris-2024))');
      expect(completion?.content?.slice(123, 176)).toBe('([toureiffel.paris](https://www.toureiffel.paris/en))');
    });

    it('are kept per url and span: the same url citing another part of the text is another source', () => {
      const again = citation(0, 20, 'Paris 2024 Olympic Games', 'https://olympics.com/en/paris-2024');
      const text = chunk({ index: 0, delta: { content: 'x', annotations: [olympics, again, olympics] }, finish_reason: 'stop' }) + DONE;
      expect(atEverySize(text).completion?.sources).toEqual([OLYMPICS, { ...OLYMPICS, span: { start: 0, end: 20 } }]);
    });

    it('skip annotations of other types and citations without a url; a title or span that is missing stays absent', () => {
      const text =
        chunk({
          index: 0,
          delta: {
            content: 'x',
            annotations: [
              { type: 'file_citation', file_citation: { file_id: 'f' } },
              { type: 'url_citation', url_citation: { title: 'no url' } },
              { type: 'url_citation', url_citation: { url: 'https://example.com/a' } },
            ],
          },
          finish_reason: 'stop',
        }) + DONE;
      expect(atEverySize(text).completion?.sources).toEqual([{ kind: 'url', url: 'https://example.com/a' }]);
    });

    it('keep each chunk its own citations, though later payloads of one shape overwrite theirs', () => {
      const cite = (n: number) =>
        chunk({
          index: 0,
          delta: { content: String(n), annotations: [citation(n, n + 1, `t${n}`, `https://example.com/${n}`)] },
          finish_reason: null,
        });
      const text = cite(0) + cite(1) + cite(2) + cite(3) + chunk({ index: 0, delta: {}, finish_reason: 'stop' }) + DONE;
      expect(assembleText(text, openaiChat).completion?.sources?.map((s) => [s.url, s.title, s.span?.start])).toEqual([
        ['https://example.com/0', 't0', 0],
        ['https://example.com/1', 't1', 1],
        ['https://example.com/2', 't2', 2],
        ['https://example.com/3', 't3', 3],
      ]);
    });

    it('are a ProtocolError when annotations is not a list', () => {
      const text = chunk({ index: 0, delta: { content: 'x', annotations: { type: 'url_citation' } }, finish_reason: 'stop' }) + DONE;
      expect((assembleText(text, openaiChat).error as Error).message).toBe(
        'frame 1: choices[0].delta.annotations is an object, not a list',
      );
    });
  });

  describe('audio (delta.audio)', () => {
    // gpt-4o-audio-preview streams `delta.audio` pieces: the id, base64 `data` and `transcript` in
    // pieces, and last a piece with only `expires_at`, with no finish_reason at all
    // (https://github.com/openai/openai-node/issues/1206; https://platform.openai.com/docs/guides/audio).
    // openai-node's ChatCompletionStream joins the pieces and takes such a stream as finished with
    // `stop` when its audio has id, data, transcript and expiry (https://github.com/openai/openai-node/pull/1991).
    const AUDIO = 'gpt-4o-audio-preview-2024-10-01';
    const ID = 'audio_672960c3a3e48190aed70377a7d6c941';
    const pieces =
      chunk(
        {
          index: 0,
          delta: { role: 'assistant', content: null, refusal: null, audio: { id: ID, transcript: 'Hello' } },
          finish_reason: null,
        },
        AUDIO,
      ) +
      chunk({ index: 0, delta: { audio: { transcript: ' there!' } }, finish_reason: null }, AUDIO) +
      chunk({ index: 0, delta: { audio: { data: 'CAAIAAkACgAPABEAEQARABMAEAANAAgA' } }, finish_reason: null }, AUDIO) +
      chunk({ index: 0, delta: { audio: { data: 'AwD9//v/+f/3//L/8v/w//L/8' } }, finish_reason: null }, AUDIO);
    const expiry = chunk({ index: 0, delta: { audio: { expires_at: 1730768595 } }, finish_reason: null }, AUDIO);
    const WHOLE = {
      id: ID,
      data: 'CAAIAAkACgAPABEAEQARABMAEAANAAgAAwD9//v/+f/3//L/8v/w//L/8',
      transcript: 'Hello there!',
      expiresAt: 1730768595,
    };

    it('emits audio events with the parts each piece had', () => {
      expect(assembleText(pieces + expiry + DONE, openaiChat).events.filter((e) => e.type === 'audio')).toEqual([
        { type: 'audio', choice: 0, id: ID, transcript: 'Hello' },
        { type: 'audio', choice: 0, transcript: ' there!' },
        { type: 'audio', choice: 0, data: 'CAAIAAkACgAPABEAEQARABMAEAANAAgA' },
        { type: 'audio', choice: 0, data: 'AwD9//v/+f/3//L/8v/w//L/8' },
        { type: 'audio', choice: 0, expiresAt: 1730768595 },
      ]);
    });

    it('completes a stream whose last chunk carries only expires_at (finish stop at [DONE]), at every chunk size', () => {
      const { error, completion, events } = atEverySize(pieces + expiry + DONE);
      expect(error).toBeUndefined();
      expect(events.slice(-2)).toEqual([{ type: 'finish', choice: 0, reason: 'stop', raw: 'stop' }, { type: 'done' }]);
      expect(completion).toMatchObject({ content: null, finishReason: 'stop', rawFinishReason: 'stop', audio: WHOLE });
    });

    it('takes a finish reason the stream does send as it is', () => {
      const text = pieces + expiry + chunk({ index: 0, delta: {}, finish_reason: 'length' }, AUDIO) + DONE;
      const { completion, events } = atEverySize(text);
      expect(events.filter((e) => e.type === 'finish')).toEqual([{ type: 'finish', choice: 0, reason: 'length', raw: 'length' }]);
      expect(completion).toMatchObject({ finishReason: 'length', audio: WHOLE });
    });

    it('takes a finish reason that comes with the expiry itself, and adds none at [DONE]', () => {
      const text = pieces + chunk({ index: 0, delta: { audio: { expires_at: 1730768595 } }, finish_reason: 'stop' }, AUDIO) + DONE;
      const { completion, events } = atEverySize(text);
      expect(events.filter((e) => e.type === 'finish')).toEqual([{ type: 'finish', choice: 0, reason: 'stop', raw: 'stop' }]);
      expect(completion).toMatchObject({ finishReason: 'stop', audio: WHOLE });
    });

    // Under strict: without it, [DONE] finishes every choice that named no finish (spec/dialects/fidelity.openai-chat.spec.ts).
    it('does not finish a choice whose audio went on after its expiry (strict)', () => {
      const text = pieces + expiry + chunk({ index: 0, delta: { audio: { data: 'AAAA' } }, finish_reason: null }, AUDIO) + DONE;
      const { error } = atEverySize(text, { dialect: { strict: true } });
      expect(error).toBeInstanceOf(StreamClosedEarlyError);
      expect((error as Error).message).toBe('the stream ended before choice 0 finished');
    });

    it('does not finish a choice whose audio lacked a part (here the transcript) when its expiry came (strict)', () => {
      const noTranscript =
        chunk({ index: 0, delta: { role: 'assistant', audio: { id: ID, data: 'CAAI' } }, finish_reason: null }, AUDIO) + expiry + DONE;
      expect(atEverySize(noTranscript, { dialect: { strict: true } }).error).toBeInstanceOf(StreamClosedEarlyError);
    });

    it('does not take an expiry that came with other delta fields for the end (strict)', () => {
      const withText =
        pieces + chunk({ index: 0, delta: { content: 'x', audio: { expires_at: 1730768595 } }, finish_reason: null }, AUDIO) + DONE;
      expect(atEverySize(withText, { dialect: { strict: true } }).error).toBeInstanceOf(StreamClosedEarlyError);
    });

    it('is a ProtocolError when delta.audio is not an object', () => {
      const text = chunk({ index: 0, delta: { audio: 'UklGR' }, finish_reason: 'stop' }, AUDIO) + DONE;
      expect((assembleText(text, openaiChat).error as Error).message).toBe('frame 1: choices[0].delta.audio is "UklGR", not an object');
    });
  });

  describe('payloads of a kind the dialect does not know', () => {
    // A gateway's own event in the stream: its `object` names no chunk of this format and it holds
    // nothing the dialect reads. (OpenAI's chunks are `chat.completion.chunk`:
    // https://platform.openai.com/docs/api-reference/chat-streaming/streaming)
    const notice = (n: number) =>
      sse({ object: 'gateway.notice', id: `ntc_${n}`, message: `fallback ${n}`, detail: { attempt: n, models: [`a${n}`, `b${n}`] } });
    const text =
      chunk({ index: 0, delta: { content: 'Hi' }, finish_reason: null }) +
      notice(1) +
      notice(2) +
      notice(3) +
      chunk({ index: 0, delta: {}, finish_reason: 'stop' }) +
      DONE;
    const payload = (n: number) => ({
      object: 'gateway.notice',
      id: `ntc_${n}`,
      message: `fallback ${n}`,
      detail: { attempt: n, models: [`a${n}`, `b${n}`] },
    });

    it('are unknown events, each with its own payload copied, with unknownEvents', () => {
      const { events, completion } = atEverySize(text, { dialect: { unknownEvents: true } });
      expect(events.filter((e) => e.type === 'unknown')).toEqual([
        { type: 'unknown', payload: payload(1) },
        { type: 'unknown', payload: payload(2) },
        { type: 'unknown', payload: payload(3) },
      ]);
      expect(completion?.content).toBe('Hi');
    });

    it('are skipped without unknownEvents: the events are those of the stream without them', () => {
      const without =
        chunk({ index: 0, delta: { content: 'Hi' }, finish_reason: null }) + chunk({ index: 0, delta: {}, finish_reason: 'stop' }) + DONE;
      expect(atEverySize(text)).toEqual(assembleText(without, openaiChat));
    });

    it('do not include a chunk of another object name that carries choices (Perplexity\'s "chat.completion.done")', () => {
      const done =
        sse({
          id: 'p1',
          object: 'chat.completion.done',
          model: 'sonar',
          choices: [{ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }],
        }) + DONE;
      const { events } = assembleText(done, openaiChat, { dialect: { unknownEvents: true } });
      expect(events.map((e: ChatEvent) => e.type)).toEqual(['start', 'content', 'finish', 'done']);
    });
    it('do not include a chunk of another object name that carries usage', () => {
      const usage = sse({ id: 'u1', object: 'gateway.usage', usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } });
      const withUsage = chunk({ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }) + usage + DONE;
      const { events } = assembleText(withUsage, openaiChat, { dialect: { unknownEvents: true } });
      expect(events.filter((e) => e.type === 'unknown' || e.type === 'usage')).toEqual([
        { type: 'usage', usage: { promptTokens: 3, completionTokens: 1, totalTokens: 4 } },
      ]);
    });
  });

  describe('usage', () => {
    it('reads prompt_tokens_details.cache_write_tokens as cacheWritePromptTokens', () => {
      // openai-node's CompletionUsage.PromptTokensDetails: `cache_write_tokens`, "the unadjusted number
      // of prompt tokens written to cache" (src/resources/completions.ts).
      const text =
        chunk({ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }, 'gpt-4.1-mini-2025-04-14') +
        sse({
          id: 'chatcmpl-Ws5Lq1Vn8Kc3Xb7Tz2Hd6Mf4Rj9Pa0Ge',
          object: 'chat.completion.chunk',
          created: 1767225600,
          model: 'gpt-4.1-mini-2025-04-14',
          choices: [],
          usage: {
            prompt_tokens: 2400,
            completion_tokens: 12,
            total_tokens: 2412,
            prompt_tokens_details: { cached_tokens: 1920, cache_write_tokens: 448, audio_tokens: 0 },
            completion_tokens_details: { reasoning_tokens: 0 },
          },
        }) +
        DONE;
      expect(atEverySize(text).completion?.usage).toEqual({
        promptTokens: 2400,
        completionTokens: 12,
        totalTokens: 2412,
        cachedPromptTokens: 1920,
        cacheWritePromptTokens: 448,
        reasoningTokens: 0,
        // prompt_tokens_details.audio_tokens: 0, a count given.
        audioPromptTokens: 0,
      });
    });
  });
});
