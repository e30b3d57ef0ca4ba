import { Usage } from '../../src/types/events';
import { ofType, readAnthropic } from './anthropicStreams';

/**
 * Anthropic's usage in OpenAI's meaning: `input_tokens` counts only the input that was neither read
 * from nor written to the cache, so `promptTokens` is the sum of the three input counts and the
 * cache counts are parts of it.
 */

/** A reply "Hi." whose message_start and message_delta carry the given usage objects. */
const reply = (startUsage: string, deltaUsage: string) => `event: message_start
data: {"type":"message_start","message":{"id":"msg_01Usage","type":"message","role":"assistant","model":"claude-sonnet-4-5",\
"content":[],"stop_reason":null,"stop_sequence":null,"usage":${startUsage}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":${deltaUsage}}

event: message_stop
data: {"type":"message_stop"}

`;

// The usage of message_start as the streaming docs show it, with a prompt mostly read from the cache
// and partly written to it (https://platform.claude.com/docs/en/build-with-claude/streaming; the
// three input counts: https://platform.claude.com/docs/en/build-with-claude/prompt-caching, "Tracking
// cache performance": total input = cache_read_input_tokens + cache_creation_input_tokens + input_tokens).
const START_USAGE =
  '{"input_tokens":12,"cache_creation_input_tokens":310,"cache_read_input_tokens":2048,' +
  '"cache_creation":{"ephemeral_5m_input_tokens":310,"ephemeral_1h_input_tokens":0},"output_tokens":1,"service_tier":"standard"}';

// message_delta with only the cumulative output, as the streaming docs' example has it
// (https://platform.claude.com/docs/en/build-with-claude/streaming: `"usage": {"output_tokens": 15}`).
const ONLY_OUTPUT = reply(START_USAGE, '{"output_tokens":95}');

// message_delta repeating every count, as newer API versions send it (MessageDeltaUsage in
// https://github.com/anthropics/anthropic-sdk-typescript/blob/main/src/resources/messages/messages.ts:
// input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens,
// output_tokens_details.thinking_tokens, server_tool_use).
const EVERYTHING = reply(
  START_USAGE,
  '{"input_tokens":12,"cache_creation_input_tokens":310,"cache_read_input_tokens":2048,"output_tokens":95,' +
    '"output_tokens_details":{"thinking_tokens":40},"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0}}',
);

// A gateway that sends input_tokens 0 at the start and the real counts only in message_delta
// (dialects.md, Anthropic quirks: vercel/ai PR #11611, 0xPlaygrounds/rig#2236).
const GATEWAY = reply('{"input_tokens":0,"output_tokens":0}', '{"input_tokens":25,"cache_read_input_tokens":40,"output_tokens":5}');

/** Every usage event of a stream, then the completion's usage. */
function usages(text: string): Usage[] {
  const { events, completion, error } = readAnthropic(text);
  expect(error).toBeUndefined();
  return [...ofType(events, 'usage').map((event) => event.usage), completion!.usage!];
}

describe('anthropic usage', () => {
  it('sums the three input counts into promptTokens, with the cache counts beside it, when message_delta reports only the output', () => {
    const { events, completion } = readAnthropic(ONLY_OUTPUT);
    expect(ofType(events, 'usage')).toEqual([
      {
        type: 'usage',
        usage: { promptTokens: 2370, completionTokens: 1, totalTokens: 2371, cachedPromptTokens: 2048, cacheWritePromptTokens: 310 },
      },
      { type: 'usage', usage: { promptTokens: null, completionTokens: 95, totalTokens: 2465 } },
    ]);
    expect(completion?.usage).toEqual({
      promptTokens: 2370,
      completionTokens: 95,
      totalTokens: 2465,
      cachedPromptTokens: 2048,
      cacheWritePromptTokens: 310,
    });
  });

  it('takes every count of a message_delta that repeats them, and thinking_tokens as reasoningTokens', () => {
    const { events, completion } = readAnthropic(EVERYTHING);
    expect(ofType(events, 'usage').at(-1)).toEqual({
      type: 'usage',
      usage: {
        promptTokens: 2370,
        completionTokens: 95,
        totalTokens: 2465,
        cachedPromptTokens: 2048,
        cacheWritePromptTokens: 310,
        reasoningTokens: 40,
      },
    });
    expect(completion?.usage).toEqual({
      promptTokens: 2370,
      completionTokens: 95,
      totalTokens: 2465,
      cachedPromptTokens: 2048,
      cacheWritePromptTokens: 310,
      reasoningTokens: 40,
    });
  });

  it("adds a gateway's late cache count to the input it reports at the end", () => {
    const { events, completion } = readAnthropic(GATEWAY);
    expect(ofType(events, 'usage')).toEqual([
      { type: 'usage', usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } },
      { type: 'usage', usage: { promptTokens: 65, completionTokens: 5, totalTokens: 70, cachedPromptTokens: 40 } },
    ]);
    expect(completion?.usage).toEqual({ promptTokens: 65, completionTokens: 5, totalTokens: 70, cachedPromptTokens: 40 });
  });

  it.each([
    ['only the output in message_delta', ONLY_OUTPUT],
    ['every count in message_delta', EVERYTHING],
    ['a gateway reporting at the end', GATEWAY],
  ])('never reports more cached or cache-written tokens than prompt tokens (%s), in any event or in the completion', (_name, text) => {
    let prompt: number | null = null;
    for (const usage of usages(text)) {
      // An event's null promptTokens leaves the earlier value standing (usage merges field by field).
      prompt = usage.promptTokens ?? prompt;
      const parts = (usage.cachedPromptTokens ?? 0) + (usage.cacheWritePromptTokens ?? 0);
      if (parts > 0) expect(prompt).toBeGreaterThanOrEqual(parts);
    }
  });
});
