import { openaiResponses } from '../../src/dialects/openai-responses/openaiResponses';
import { COMPLETED, CREATED, assembleAtEverySize, ev, types } from './responsesStreams';
import { ProtocolError } from '../../src/errors/errors';
import { assembleText, eventsOfType } from '../support/dialect';

/**
 * The parts of a Responses reply beside its text and calls: log probabilities, sources
 * (annotations), the tools the provider runs itself, and the events the dialect does not read.
 * Every stream is SSE text as the wire has it, run through the whole pipeline at several chunk sizes.
 */

const only = eventsOfType;
/** A message item whose one text part is `text`, in deltas of a few characters. */
const text = (itemId: string, outputIndex: number, pieces: string[]) =>
  pieces
    .map((piece) =>
      ev(
        `{"type":"response.output_text.delta","item_id":"${itemId}","output_index":${outputIndex},"content_index":0,` +
          `"delta":${JSON.stringify(piece)},"logprobs":[]}`,
      ),
    )
    .join('');

describe('openai-responses dialect: reply parts', () => {
  describe('log probabilities', () => {
    // output_text.delta carries `logprobs` when the request includes "message.output_text.logprobs":
    // https://platform.openai.com/docs/api-reference/responses/create (include) and
    // https://platform.openai.com/docs/api-reference/responses-streaming/response/output_text/delta ({token, logprob,
    // top_logprobs}; `bytes` as the output_text part has them, https://github.com/openai/openai-node/blob/master/src/resources/responses/responses.ts)
    const delta = (piece: string, logprobs: string) =>
      ev(
        `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"${piece}",` +
          `"logprobs":${logprobs}}`,
      );
    const STREAM =
      CREATED +
      delta(
        'Hello',
        '[{"token":"Hello","logprob":-0.01,"top_logprobs":[{"token":"Hello","logprob":-0.01},{"token":"Hi","logprob":-4.6}]}]',
      ) +
      delta(' world', '[{"token":" world","logprob":-0.2,"bytes":[32,119,111,114,108,100],"top_logprobs":[]}]') +
      delta('!', '[{"token":"!","logprob":-1.5,"top_logprobs":[{"token":"!","logprob":-1.5,"bytes":[33]}]}]') +
      delta('!', '[{"token":"!","logprob":-0.7}]') +
      COMPLETED;

    it('emits them per delta and joins them on the completion, bytes null where absent', () => {
      const { events, completion, error } = assembleAtEverySize(STREAM);
      expect(error).toBeUndefined();
      expect(only(events, 'logprobs')).toHaveLength(4);
      expect(completion?.content).toBe('Hello world!!');
      expect(completion?.logprobs).toEqual({
        content: [
          {
            token: 'Hello',
            logprob: -0.01,
            bytes: null,
            top_logprobs: [
              { token: 'Hello', logprob: -0.01, bytes: null },
              { token: 'Hi', logprob: -4.6, bytes: null },
            ],
          },
          { token: ' world', logprob: -0.2, bytes: [32, 119, 111, 114, 108, 100], top_logprobs: [] },
          { token: '!', logprob: -1.5, bytes: null, top_logprobs: [{ token: '!', logprob: -1.5, bytes: [33] }] },
          { token: '!', logprob: -0.7, bytes: null, top_logprobs: [] },
        ],
        refusal: null,
      });
    });

    it('skips an entry that is not a token with a logprob, and refuses it under strict', () => {
      // Numbered, as OpenAI sends them, so that strict reads the stream as far as the logprobs.
      const stream =
        ev('{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress","model":"gpt-5"}}') +
        ev(
          '{"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi",' +
            '"logprobs":[{"token":"Hi"},{"token":"Hi","logprob":-0.1}]}',
        ) +
        ev('{"type":"response.completed","sequence_number":2,"response":{"id":"resp_1","status":"completed","model":"gpt-5"}}');
      expect(assembleAtEverySize(stream).completion?.logprobs?.content).toEqual([
        { token: 'Hi', logprob: -0.1, bytes: null, top_logprobs: [] },
      ]);
      const strict = assembleText(stream, openaiResponses, { dialect: { strict: true } });
      expect(strict.error).toBeInstanceOf(ProtocolError);
      expect((strict.error as Error).message).toBe("frame 2: logprobs has 1 entries that are not a token's log probability");
    });

    it('ignores logprobs that are not a list, and refuses them under strict', () => {
      const stream =
        ev('{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress","model":"gpt-5"}}') +
        ev(
          '{"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi",' +
            '"logprobs":"none"}',
        ) +
        ev('{"type":"response.completed","sequence_number":2,"response":{"id":"resp_1","status":"completed","model":"gpt-5"}}');
      const { events, completion } = assembleAtEverySize(stream);
      expect(only(events, 'logprobs')).toEqual([]);
      expect(completion?.content).toBe('Hi');
      const strict = assembleText(stream, openaiResponses, { dialect: { strict: true } });
      expect((strict.error as Error).message).toBe('frame 2: logprobs is "none", not a list');
    });

    it('keeps each token its own bytes when deltas of one shape follow each other', () => {
      // Payloads of one shape are read through a template that reuses their objects: each token must be a copy.
      const letters = ['a', 'b', 'c', 'd'];
      const stream =
        CREATED +
        letters.map((l) => delta(l, `[{"token":"${l}","logprob":-0.5,"bytes":[${l.charCodeAt(0)}],"top_logprobs":[]}]`)).join('') +
        COMPLETED;
      expect(assembleAtEverySize(stream).completion?.logprobs?.content).toEqual(
        letters.map((l) => ({ token: l, logprob: -0.5, bytes: [l.charCodeAt(0)], top_logprobs: [] })),
      );
    });

    it('makes no event for the empty list OpenAI sends when they were not asked for', () => {
      const { events, completion } = assembleAtEverySize(CREATED + text('msg_1', 0, ['Hi', ' there']) + COMPLETED);
      expect(only(events, 'logprobs')).toEqual([]);
      expect(completion).not.toHaveProperty('logprobs');
    });
  });

  describe('sources', () => {
    // Web search answers cite pages as url_citation annotations, with start_index/end_index into the
    // text part: https://platform.openai.com/docs/guides/tools-web-search and
    // https://platform.openai.com/docs/api-reference/responses-streaming/response/output_text/annotation/added.
    // The annotations come again in content_part.done, output_item.done and response.completed.
    const ANSWER = 'Paris is the capital of France ([example.org](https://example.org/paris)).';
    const CITATION = '{"type":"url_citation","url":"https://example.org/paris","title":"Paris","start_index":31,"end_index":73}';
    const CITED =
      CREATED +
      ev(
        '{"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","content":[]}}',
      ) +
      text('msg_1', 0, ['Paris is the capital', ' of France ', '([example.org](https://example.org/paris)).']) +
      ev(
        '{"type":"response.output_text.annotation.added","item_id":"msg_1","output_index":0,"content_index":0,"annotation_index":0,' +
          `"annotation":${CITATION}}`,
      ) +
      ev(`{"type":"response.output_text.done","item_id":"msg_1","output_index":0,"content_index":0,"text":"${ANSWER}","logprobs":[]}`) +
      ev(
        '{"type":"response.content_part.done","item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text",' +
          `"annotations":[${CITATION}],"logprobs":[],"text":"${ANSWER}"}}`,
      ) +
      ev(
        '{"type":"response.output_item.done","output_index":0,"item":{"id":"msg_1","type":"message","status":"completed",' +
          `"content":[{"type":"output_text","annotations":[${CITATION}],"text":"${ANSWER}"}]}}`,
      ) +
      ev(
        '{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[{"id":"msg_1","type":"message",' +
          `"content":[{"type":"output_text","annotations":[${CITATION}],"text":"${ANSWER}"}]}]}}`,
      );

    it('emits each annotation once, as a url source whose span is in the content', () => {
      const { events, completion } = assembleAtEverySize(CITED);
      const source = { kind: 'url', url: 'https://example.org/paris', title: 'Paris', span: { start: 31, end: 73 } };
      expect(only(events, 'source')).toEqual([{ type: 'source', choice: 0, source }]);
      expect(completion).toMatchObject({ content: ANSWER, sources: [source] });
      expect(ANSWER.slice(31, 73)).toBe('([example.org](https://example.org/paris))');
    });

    it('moves the span of an annotation in a later message item by the text before it', () => {
      // Newer models send a commentary message, then the final answer (`phase`): one content, two parts.
      const stream =
        CREATED +
        text('msg_c', 0, ['Looking ', 'it up. ']) +
        text('msg_f', 1, ['See ', '[doc](https://d.example).']) +
        ev(
          '{"type":"response.output_text.annotation.added","item_id":"msg_f","output_index":1,"content_index":0,"annotation_index":0,' +
            '"annotation":{"type":"url_citation","url":"https://d.example","title":"D","start_index":4,"end_index":28}}',
        ) +
        COMPLETED;
      const { completion } = assembleAtEverySize(stream);
      expect(completion?.content).toBe('Looking it up. See [doc](https://d.example).');
      expect(completion?.sources).toEqual([{ kind: 'url', url: 'https://d.example', title: 'D', span: { start: 19, end: 43 } }]);
      expect(completion?.content?.slice(19, 43)).toBe('[doc](https://d.example)');
    });

    it('reads file citations, container file citations and file paths as documents', () => {
      // file_citation (https://platform.openai.com/docs/guides/tools-file-search), container_file_citation
      // (https://platform.openai.com/docs/guides/tools-code-interpreter) and file_path, as the SDK types give them.
      const annotation = (index: number, body: string) =>
        ev(
          '{"type":"response.output_text.annotation.added","item_id":"msg_1","output_index":0,"content_index":0,' +
            `"annotation_index":${index},"annotation":${body}}`,
        );
      const stream =
        CREATED +
        text('msg_1', 0, ['An embedding is a vector. ', 'Saved as sandbox:/mnt/data/out.csv.']) +
        annotation(0, '{"type":"file_citation","file_id":"file-Ab12","filename":"ai.pdf","index":25}') +
        annotation(
          1,
          '{"type":"container_file_citation","container_id":"cntr_1","file_id":"cfile_9","filename":"out.csv","start_index":35,' +
            '"end_index":60}',
        ) +
        annotation(2, '{"type":"file_path","file_id":"file-Cd34","index":60}') +
        COMPLETED;
      expect(assembleAtEverySize(stream).completion?.sources).toEqual([
        { kind: 'document', documentId: 'file-Ab12', title: 'ai.pdf' },
        { kind: 'document', documentId: 'cfile_9', title: 'out.csv', span: { start: 35, end: 60 } },
        { kind: 'document', documentId: 'file-Cd34' },
      ]);
    });

    it('skips an annotation.added repeated for the same part and index', () => {
      const added = ev(
        '{"type":"response.output_text.annotation.added","item_id":"msg_1","output_index":0,"content_index":0,"annotation_index":0,' +
          '"annotation":{"type":"url_citation","url":"https://a.example","start_index":0,"end_index":2}}',
      );
      const { completion } = assembleAtEverySize(CREATED + text('msg_1', 0, ['Hi']) + added + added + COMPLETED);
      expect(completion?.sources).toEqual([{ kind: 'url', url: 'https://a.example', span: { start: 0, end: 2 } }]);
    });

    it('makes nothing of a null annotation (the SDK types allow one)', () => {
      const empty = ev(
        '{"type":"response.output_text.annotation.added","item_id":"msg_1","output_index":0,"content_index":0,"annotation_index":0,' +
          '"annotation":null}',
      );
      const { events } = assembleAtEverySize(CREATED + text('msg_1', 0, ['Hi']) + empty + COMPLETED, { unknownEvents: true });
      expect(types(events)).toEqual(['start', 'content', 'finish', 'done']);
    });

    it('passes an annotation of a type it does not know on as unknown, never as a source', () => {
      const odd = ev(
        '{"type":"response.output_text.annotation.added","item_id":"msg_1","output_index":0,"content_index":0,"annotation_index":0,' +
          '"annotation":{"type":"hologram","beam":7}}',
      );
      const stream = CREATED + text('msg_1', 0, ['Hi']) + odd + COMPLETED;
      expect(only(assembleAtEverySize(stream).events, 'source')).toEqual([]);
      expect(only(assembleAtEverySize(stream, { unknownEvents: true }).events, 'unknown')).toEqual([
        {
          type: 'unknown',
          event: 'response.output_text.annotation.added',
          payload: {
            type: 'response.output_text.annotation.added',
            item_id: 'msg_1',
            output_index: 0,
            content_index: 0,
            annotation_index: 0,
            annotation: { type: 'hologram', beam: 7 },
          },
        },
      ]);
    });
  });
});
