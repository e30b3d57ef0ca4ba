import { ProtocolError } from '../../src/errors/errors';
import { ofType, readAnthropic } from './anthropicStreams';

const MESSAGE_START = `event: message_start
data: {"type":"message_start","message":{"id":"msg_01Quirk","type":"message","role":"assistant","model":"claude-opus-4-6","content":[],\
"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":714,"output_tokens":9}}}

`;
const MESSAGE_END = `event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":30}}

event: message_stop
data: {"type":"message_stop"}

`;

// A gateway that moves the signature of an empty thinking block onto the next block: the thinking
// block starts with "" for thinking and signature and stops, and the signature_delta arrives in the
// text block after it (https://github.com/looplj/axonhub/issues/1105, whose capture has this order;
// a signature_delta belongs to a thinking block: https://platform.claude.com/docs/en/build-with-claude/extended-thinking).
const MISPLACED_SIGNATURE = `${MESSAGE_START}event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"EqQBCkYIBxgCKkDdN3v0mZ1x6Qp2Y8kLrT4s"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hello!"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

${MESSAGE_END}`;

// Payloads of types this library does not read. An event type of its own (the SDK skips unknown event
// names: https://platform.claude.com/docs/en/build-with-claude/streaming, "Other events": "new event
// types may be added"), sent once with its event: line and once data-only; a container_upload block
// (a content block type of the SDK's RawContentBlockStartEvent that carries no reply text:
// https://github.com/anthropics/anthropic-sdk-typescript/blob/main/src/resources/messages/messages.ts),
// with a delta and its stop; a delta type of its own inside a text block.
const NEW_EVENT = '{"type":"message_annotation","annotation":{"kind":"safety","level":0}}';
const DATA_ONLY_EVENT = '{"type":"message_progress","percent":50}';
const UPLOAD_START =
  '{"type":"content_block_start","index":0,"content_block":{"type":"container_upload","file_id":"file_011CNha8iCJcU1wXNR6q4V8w"}}';
const UPLOAD_DELTA = '{"type":"content_block_delta","index":0,"delta":{"type":"upload_progress_delta","bytes":2048}}';
const UPLOAD_STOP = '{"type":"content_block_stop","index":0}';
const TEXT_DELTA_OF_ITS_OWN = '{"type":"content_block_delta","index":1,"delta":{"type":"emphasis_delta","range":[0,5]}}';
const UNKNOWN_PARTS = `${MESSAGE_START}event: ping
data: {"type": "ping"}

event: message_annotation
data: ${NEW_EVENT}

data: ${DATA_ONLY_EVENT}

event: content_block_start
data: ${UPLOAD_START}

event: content_block_delta
data: ${UPLOAD_DELTA}

event: content_block_stop
data: ${UPLOAD_STOP}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Saved."}}

event: content_block_delta
data: ${TEXT_DELTA_OF_ITS_OWN}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

${MESSAGE_END}`;

describe('anthropic quirks', () => {
  describe('a signature_delta on a text block', () => {
    it('stays with its text block (an opaque item of the content, with the span it signs), never a reasoning signature', () => {
      // Sent back as thinking, it would be a thinking block the model never wrote (issue 30, E).
      const { completion, error } = readAnthropic(MISPLACED_SIGNATURE);
      expect(error).toBeUndefined();
      expect(completion).toMatchObject({ content: 'Hello!', reasoning: null });
      expect(completion!.reasoningSignatures).toBeUndefined();
      expect(completion!.opaqueItems).toEqual([
        {
          provider: 'anthropic',
          kind: 'signature',
          type: 'signature_delta',
          part: 'content',
          block: 1,
          span: { start: 0, end: 6 },
          data: 'EqQBCkYIBxgCKkDdN3v0mZ1x6Qp2Y8kLrT4s',
          at: { reasoning: 0, content: 6 },
        },
      ]);
    });

    it('is a ProtocolError under strict', () => {
      const { error } = readAnthropic(MISPLACED_SIGNATURE, { strict: true });
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error).toMatchObject({ reason: 'strict', message: 'frame 5: signature_delta in content block 1, a text block' });
    });

    it('is still a ProtocolError on a tool_use block, strict or not', () => {
      const onToolUse = MISPLACED_SIGNATURE.replace(
        '"content_block":{"type":"text","text":""}',
        '"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}',
      );
      for (const strict of [false, true]) {
        expect((readAnthropic(onToolUse, { strict }).error as Error).message).toBe(
          'frame 5: signature_delta in content block 1, a tool_use block',
        );
      }
    });
  });

  describe('payloads of types this library does not read', () => {
    it('are passed on with unknownEvents, each with its event name and a copy of its payload; ping is not one', () => {
      const { events, completion, error } = readAnthropic(UNKNOWN_PARTS, { unknownEvents: true });
      expect(error).toBeUndefined();
      expect(ofType(events, 'unknown')).toEqual([
        { type: 'unknown', event: 'message_annotation', payload: JSON.parse(NEW_EVENT) },
        { type: 'unknown', payload: JSON.parse(DATA_ONLY_EVENT) },
        { type: 'unknown', event: 'content_block_start', payload: JSON.parse(UPLOAD_START) },
        { type: 'unknown', event: 'content_block_delta', payload: JSON.parse(UPLOAD_DELTA) },
        { type: 'unknown', event: 'content_block_stop', payload: JSON.parse(UPLOAD_STOP) },
        { type: 'unknown', event: 'content_block_delta', payload: JSON.parse(TEXT_DELTA_OF_ITS_OWN) },
      ]);
      expect(completion?.content).toBe('Saved.');
    });

    it('are skipped without it, the reply the same', () => {
      const { events, completion, error } = readAnthropic(UNKNOWN_PARTS);
      expect(error).toBeUndefined();
      expect(events.some((event) => event.type === 'unknown')).toBe(false);
      expect(completion).toEqual(readAnthropic(UNKNOWN_PARTS, { unknownEvents: true }).completion);
    });
  });
});
