import { pipe } from 'rxjs';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { anthropic } from '../../src/dialects/anthropic/anthropic';
import { ProtocolError } from '../../src/errors/errors';
import { Completion } from '../../src/types/events';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { sseFrames } from '../../src/frames/sseFrames';
import { chunksOf, utf8 } from '../support/chunking';
import { runSync } from '../support/collect';
import { ofType, readAnthropic } from './anthropicStreams';

/**
 * A client tool call cut by the token limit: its `input_json_delta` pieces stop mid-JSON, the block
 * still stops, and the message ends with `max_tokens`. The call is kept apart as incomplete, the
 * calls before it whole.
 */

// The tool-use stream of the streaming docs (get_weather with a location), its second call cut where
// max_tokens stopped generation (https://platform.claude.com/docs/en/build-with-claude/streaming,
// "Streaming request with tool use"; https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons,
// "max_tokens": the response may be cut inside a tool_use block).
const cutReply = (stopReason: string) => `event: message_start
data: {"type":"message_start","message":{"id":"msg_014p7gG3wDgGV9EUtLvnow3U","type":"message","role":"assistant",\
"model":"claude-sonnet-4-5","stop_sequence":null,"usage":{"input_tokens":472,"output_tokens":2},"content":[],"stop_reason":null}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking both cities."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6",\
"name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"location\\": \\"Paris, France\\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01VgQ7rB2sLx9mKd4pNc8ZyE",\
"name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\\"location\\":"}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":" \\"San Fra"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"${stopReason}","stop_sequence":null},"usage":{"output_tokens":64}}

event: message_stop
data: {"type":"message_stop"}

`;

const PARIS = {
  index: 0,
  id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
  name: 'get_weather',
  arguments: '{"location": "Paris, France"}',
  args: { location: 'Paris, France' },
};
const CUT = { index: 1, id: 'toolu_01VgQ7rB2sLx9mKd4pNc8ZyE', name: 'get_weather', arguments: '{"location": "San Fra' };

describe('anthropic tool calls cut by the token limit', () => {
  it('finishes with length, the whole call kept and the cut one apart as incomplete', () => {
    const { completion, error } = readAnthropic(cutReply('max_tokens'));
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({
      content: 'Checking both cities.',
      finishReason: 'length',
      rawFinishReason: 'max_tokens',
      toolCalls: [PARIS],
      incompleteToolCalls: [CUT],
    });
    expect(completion?.choices[0]).toMatchObject({ toolCalls: [PARIS], incompleteToolCalls: [CUT] });
  });

  it('emits its normal events: both calls end at their block stop, then the finish', () => {
    const { events } = readAnthropic(cutReply('max_tokens'));
    expect(ofType(events, 'tool-call-end')).toEqual([
      { type: 'tool-call-end', choice: 0, index: 0 },
      { type: 'tool-call-end', choice: 0, index: 1 },
    ]);
    expect(ofType(events, 'finish')).toEqual([{ type: 'finish', choice: 0, reason: 'length', raw: 'max_tokens' }]);
  });

  it('gives the same through the operators, groupToolCallsByIndex in front, at several chunk sizes', () => {
    const bytes = utf8(cutReply('max_tokens'));
    for (const size of [1, 3, 16, bytes.length]) {
      const outcome = runSync(
        chunksOf(bytes, size),
        pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: anthropic }), groupToolCallsByIndex(), finalizeCompletion()),
      );
      expect({ size, error: outcome.error }).toEqual({ size, error: undefined });
      const completion: Completion = outcome.values[0]!;
      expect({ size, toolCalls: completion.toolCalls, incomplete: completion.incompleteToolCalls }).toEqual({
        size,
        toolCalls: [PARIS],
        incomplete: [CUT],
      });
    }
  });

  it('is a ProtocolError when the reply says it ended on its own (end_turn): the arguments are broken, not cut', () => {
    const { error } = readAnthropic(cutReply('end_turn'));
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ reason: 'invalid-tool-call' });
  });
});
