import { FinishReason, OpaqueItem, ProviderMetadata } from '../../../src/types/events';
import { ProviderFormat } from '../../../src/dialects/writing/wire';
import { TestChoice, TestReply } from '../../../src/dialects/writing/TestReply';

/**
 * What each format is, written out here by hand from the formats' documentation (docs/dialects.md,
 * the reference notes, the writers' doc comments), not read from the kit or the library: what a
 * reply may hold in it (for the generators), and what a completion read from it says (for the
 * expectations).
 */
export interface FormatFacts {
  /** The completion's id when the reply gives none (`''`: the wire has none). */
  readonly id: string;
  /** The completion's model when the reply gives none (`null`: the wire names none). */
  readonly model: string | null;
  /** Whether a reply may give its own id and model. */
  readonly ownId: boolean;
  readonly ownModel: boolean;
  /** The most choices. */
  readonly choices: number;
  readonly reasoning: boolean;
  readonly calls: 'streamed' | 'whole' | 'none';
  readonly custom: boolean;
  readonly signatures: number;
  /** The raw finish value the completion keeps, per reason the format can say. */
  readonly raw: Partial<Record<FinishReason, string>>;
  /** `tool_calls` is said only by the calls (Gemini's `STOP`): never without them. */
  readonly toolCallsByCalls: boolean;
  /** Usage: any counts (`free`), a total that is the sum (`sum`), or none. */
  readonly usage: 'free' | 'sum' | 'none';
  readonly details: readonly ('cachedPromptTokens' | 'cacheWritePromptTokens' | 'reasoningTokens')[];
  /** The id the library gives a call the wire left without one (Gemini), else the kit's `call_<n>`. */
  readonly callId?: (replyId: string, choice: number, index: number) => string;
  /** AWS's binary event stream. */
  readonly binary: boolean;
  /** A phrase of the message of the error the provider sends mid-stream. */
  readonly errorSays: string;
  /**
   * What the format's envelope carries on every chunk that no field of a completion names, as the
   * kit writes it: the completion's `providerMetadata` (OpenAI's `created` and `system_fingerprint`,
   * Anthropic's `stop_sequence`); a function of the reply when what the kit writes depends on it
   * (Ollama's durations with usage, Bedrock's invocation metrics counting its usage).
   */
  readonly envelope?: ProviderMetadata | ((reply: TestReply) => ProviderMetadata | undefined);
  /**
   * The provider metadata of a choice's first call, when the kit sends the choice's first reasoning
   * signature on that call's part (Gemini's `thoughtSignature`, which the call must take back).
   */
  readonly firstCallSignature?: (signature: string) => ProviderMetadata;
  /**
   * The opaque items (`opaqueItems`) of a choice the kit wrote, each where the writer puts the
   * choice's reasoning signatures (none when the format writes none).
   */
  readonly opaqueItems?: (choice: TestChoice, replyId: string) => OpaqueItem[];
}

/** Where an item comes after all the choice's reasoning and text (UTF-16 lengths, as JavaScript counts). */
const afterText = (choice: TestChoice) => ({ reasoning: choice.reasoning?.length ?? 0, content: choice.text?.length ?? 0 });
/** Where an item comes after the reasoning, before any text. */
const afterReasoning = (choice: TestChoice) => ({ reasoning: choice.reasoning?.length ?? 0, content: 0 });

/** The kit's Anthropic thinking block (block 0): its signature_delta after its thinking. */
const anthropicItems = (choice: TestChoice): OpaqueItem[] =>
  (choice.reasoningSignatures ?? []).map((data) => ({
    provider: 'anthropic',
    kind: 'signature',
    type: 'signature_delta',
    part: 'reasoning',
    block: 0,
    data,
    at: afterReasoning(choice),
  }));

/** The `providerMetadata` of a completion the kit wrote in `format` for `reply`: its envelope, if any. */
export function envelopeOf(format: ProviderFormat, reply: TestReply): ProviderMetadata | undefined {
  const envelope = FORMATS[format].envelope;
  return typeof envelope === 'function' ? envelope(reply) : envelope;
}

/** OpenAI's chunks as the kit writes them: `created` 2026-01-01, and a fingerprint of the kit's own. */
const OPENAI_ENVELOPE: ProviderMetadata = { openai: { created: 1767225600, system_fingerprint: 'fp_test' } };

/**
 * Ollama's done line as the kit writes it: its durations, `prompt_eval_duration` only beside the
 * counts (`created_at`, a time per line, is not kept).
 */
const ollamaEnvelope = (reply: TestReply): ProviderMetadata => ({
  ollama: {
    total_duration: 2183477125,
    load_duration: 31250875,
    ...(reply.usage === undefined ? {} : { prompt_eval_duration: 142389000 }),
    eval_duration: 1952103000,
  },
});

/** llama.cpp's chunks as the kit writes them: the slot of the last chunk, and its other fields. */
const LLAMACPP_ENVELOPE: ProviderMetadata = {
  llamacpp: { id_slot: 0, prompt: '', has_new_line: false, truncated: false, stopping_word: '' },
};

/**
 * Anthropic's messages as the kit writes them: `stop_sequence` null at the start and in
 * `message_delta` (no stop sequence ended the reply).
 */
const ANTHROPIC_ENVELOPE: ProviderMetadata = { anthropic: { stop_sequence: null } };

/**
 * Bedrock's: Anthropic's, and with usage Bedrock's invocation metrics on `message_stop`, counting the
 * reply's prompt and completion, with latencies of the kit's own.
 */
function bedrockInvokeEnvelope(reply: TestReply): ProviderMetadata {
  const usage = reply.usage;
  if (usage === undefined) return ANTHROPIC_ENVELOPE;
  const metrics = {
    inputTokenCount: usage.promptTokens,
    outputTokenCount: usage.completionTokens,
    invocationLatency: 1204,
    firstByteLatency: 388,
  };
  return { anthropic: { stop_sequence: null, 'amazon-bedrock-invocationMetrics': metrics } };
}

/** OpenAI's response object as the kit writes it in every lifecycle event: `created_at` 2026-01-01. */
const RESPONSES_ENVELOPE: ProviderMetadata = { openai: { created_at: 1767225600 } };

const ANTHROPIC_RAW = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
  other: 'pause_turn',
} as const;
const EVERY_REASON = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  content_filter: 'content_filter',
  error: 'error',
  other: 'other',
} as const;
const ALL_DETAILS = ['cachedPromptTokens', 'cacheWritePromptTokens', 'reasoningTokens'] as const;

const base = {
  ownId: true,
  ownModel: true,
  choices: 1,
  reasoning: true,
  calls: 'streamed',
  custom: false,
  signatures: 0,
  toolCallsByCalls: false,
  binary: false,
} as const;

export const FORMATS: Readonly<Record<ProviderFormat, FormatFacts>> = {
  'openai-chat': {
    ...base,
    id: 'chatcmpl-test',
    model: 'test-model',
    choices: 2,
    custom: true,
    raw: { stop: 'stop', length: 'length', tool_calls: 'tool_calls', content_filter: 'content_filter', error: 'error' },
    usage: 'free',
    details: ALL_DETAILS,
    errorSays: 'The server had an error processing your request',
    envelope: OPENAI_ENVELOPE,
  },
  'openai-completions': {
    ...base,
    id: 'cmpl-test',
    model: 'test-model',
    choices: 2,
    reasoning: false,
    calls: 'none',
    raw: { stop: 'stop', length: 'length', content_filter: 'content_filter' },
    usage: 'free',
    details: ALL_DETAILS,
    errorSays: 'The server had an error processing your request',
    envelope: OPENAI_ENVELOPE,
  },
  'openai-responses': {
    ...base,
    id: 'resp_test',
    model: 'test-model',
    custom: true,
    signatures: 1,
    raw: { stop: 'completed', tool_calls: 'completed', length: 'max_output_tokens', content_filter: 'content_filter' },
    toolCallsByCalls: true,
    usage: 'free',
    details: ['cachedPromptTokens', 'reasoningTokens'],
    errorSays: 'The server had an error while processing your request',
    envelope: RESPONSES_ENVELOPE,
    // The kit's reasoning item (`rs_<the reply's id without resp_>`, output 0), whole, with its summary and encrypted_content.
    opaqueItems: (choice, replyId) =>
      (choice.reasoningSignatures ?? []).slice(0, 1).map((encrypted) => ({
        provider: 'openai',
        kind: 'encrypted-reasoning',
        type: 'reasoning',
        part: 'reasoning',
        block: 0,
        data: {
          id: `rs_${replyId.replace(/^resp_/, '')}`,
          type: 'reasoning',
          summary: choice.reasoning ? [{ type: 'summary_text', text: choice.reasoning }] : [],
          encrypted_content: encrypted,
        },
        at: afterReasoning(choice),
      })),
  },
  'openai-realtime': {
    ...base,
    id: 'resp_test',
    model: null,
    ownModel: false,
    reasoning: false,
    raw: { stop: 'completed', tool_calls: 'completed', length: 'max_output_tokens', content_filter: 'content_filter' },
    toolCallsByCalls: true,
    usage: 'free',
    details: ['cachedPromptTokens'],
    errorSays: 'The server had an error while processing your request',
    // The Realtime response object as the kit writes it: its conversation, text output, no token limit.
    envelope: { openai: { conversation_id: 'conv_test', output_modalities: ['text'], max_output_tokens: 'inf', metadata: null } },
  },
  anthropic: {
    ...base,
    id: 'msg_test',
    model: 'test-model',
    signatures: 1,
    raw: ANTHROPIC_RAW,
    usage: 'sum',
    details: ALL_DETAILS,
    errorSays: 'Overloaded',
    envelope: ANTHROPIC_ENVELOPE,
    opaqueItems: anthropicItems,
  },
  gemini: {
    ...base,
    id: 'test-response',
    model: 'test-model',
    choices: 2,
    calls: 'whole',
    signatures: 2,
    raw: {
      stop: 'STOP',
      tool_calls: 'STOP',
      length: 'MAX_TOKENS',
      content_filter: 'SAFETY',
      error: 'MALFORMED_FUNCTION_CALL',
      other: 'OTHER',
    },
    toolCallsByCalls: true,
    usage: 'free',
    details: ['cachedPromptTokens', 'reasoningTokens'],
    callId: (replyId, choice, index) => (choice === 0 ? `${replyId}-call-${index}` : `${replyId}-choice-${choice}-call-${index}`),
    firstCallSignature: (signature) => ({ google: { thoughtSignature: signature } }),
    // The first signature on the first call's part; the others (all, without calls) on empty text
    // parts after the text and the calls.
    opaqueItems: (choice) =>
      (choice.reasoningSignatures ?? []).map((data, k) => {
        const onCall = k === 0 && (choice.toolCalls ?? []).length > 0;
        return {
          provider: 'google',
          kind: 'signature',
          type: 'thoughtSignature',
          part: onCall ? 'tool-call' : 'content',
          ...(onCall ? { call: 0 } : {}),
          data,
          at: afterText(choice),
        };
      }),
    errorSays: 'The model is overloaded',
  },
  ollama: {
    ...base,
    id: '',
    model: 'test-model',
    ownId: false,
    calls: 'whole',
    raw: { stop: 'stop', tool_calls: 'stop', length: 'length' },
    toolCallsByCalls: true,
    usage: 'sum',
    details: [],
    errorSays: 'unexpected EOF',
    envelope: ollamaEnvelope,
  },
  'llamacpp-completion': {
    ...base,
    id: '',
    model: 'test-model',
    ownId: false,
    reasoning: false,
    calls: 'none',
    raw: { stop: 'eos', length: 'limit', other: 'none' },
    usage: 'sum',
    details: [],
    errorSays: 'the server failed to generate the reply',
    envelope: LLAMACPP_ENVELOPE,
  },
  'typed-events': {
    ...base,
    id: '',
    model: null,
    ownId: false,
    ownModel: false,
    reasoning: false,
    raw: { stop: 'stop', tool_calls: 'tool_calls' },
    toolCallsByCalls: true,
    usage: 'none',
    details: [],
    errorSays: 'the model failed while writing its reply',
  },
  'chat-events': {
    ...base,
    id: 'chatcmpl-test',
    model: 'test-model',
    choices: 2,
    custom: true,
    signatures: 2,
    raw: EVERY_REASON,
    usage: 'free',
    details: ALL_DETAILS,
    errorSays: 'Overloaded',
  },
  'ai-sdk-ui': {
    ...base,
    // The reader settles a step's calls at its end: a call arrives whole, with finish-step.
    calls: 'whole',
    id: 'msg-test',
    model: null,
    ownModel: false,
    custom: true,
    raw: { stop: 'stop', length: 'length', tool_calls: 'tool-calls', content_filter: 'content-filter', error: 'error', other: 'other' },
    usage: 'none',
    details: [],
    errorSays: 'the model failed while writing its reply',
  },
  'bedrock-converse': {
    ...base,
    id: '',
    model: null,
    ownId: false,
    ownModel: false,
    signatures: 1,
    raw: { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', content_filter: 'content_filtered' },
    usage: 'sum',
    details: ['cachedPromptTokens', 'cacheWritePromptTokens'],
    binary: true,
    errorSays: 'The model stream failed',
    // The `metadata` event, written only with usage, has the request's latency beside it.
    // `metadata` carries the usage, and beside it the latency of the kit's own.
    envelope: (reply) => (reply.usage === undefined ? undefined : { bedrock: { metrics: { latencyMs: 812 } } }),
    // The reasoning block (block 0): its signature after its text.
    opaqueItems: (choice) =>
      (choice.reasoningSignatures ?? []).map((data) => ({
        provider: 'bedrock',
        kind: 'signature',
        type: 'signature',
        part: 'reasoning',
        block: 0,
        data,
        at: afterReasoning(choice),
      })),
  },
  'bedrock-invoke': {
    ...base,
    id: 'msg_test',
    model: 'test-model',
    signatures: 1,
    raw: ANTHROPIC_RAW,
    usage: 'sum',
    details: ALL_DETAILS,
    binary: true,
    errorSays: 'The model stream failed',
    envelope: bedrockInvokeEnvelope,
    opaqueItems: anthropicItems,
  },
  // Cohere's v2 chat stream: the id at message-start, no model; the SDK's ChatFinishReason, of which
  // the kit writes COMPLETE, MAX_TOKENS, TOOL_CALL and ERROR (none is content_filter or other); usage
  // from `tokens`, whose total Cohere does not send (the sum), and `cached_tokens`; an error is a
  // message-end whose delta.error says why.
  cohere: {
    ...base,
    id: 'cohere-test',
    model: null,
    ownModel: false,
    raw: { stop: 'COMPLETE', length: 'MAX_TOKENS', tool_calls: 'TOOL_CALL', error: 'ERROR' },
    usage: 'sum',
    details: ['cachedPromptTokens'],
    errorSays: 'an internal error occurred while generating the reply',
  },
  // Mistral's Conversations stream: one choice, reasoning as thinking chunks, streamed calls; no model
  // in the kit's events; no finish reason on the wire (the end, conversation.response.done, is the raw
  // value, and calls make it tool_calls); usage the three counts as sent; an error is
  // conversation.response.error with its message and code.
  'mistral-conversations': {
    ...base,
    id: 'conv_test',
    model: null,
    ownModel: false,
    raw: { stop: 'conversation.response.done', tool_calls: 'conversation.response.done' },
    toolCallsByCalls: true,
    usage: 'free',
    details: [],
    errorSays: 'Service unavailable, please retry',
  },
  // Gemini's Interactions stream: one choice, a thought step's summary as reasoning and its one
  // signature as a thought_signature delta, a model_output step, function_call steps with streamed
  // arguments; the interaction's status as the raw finish; usage: input, output less thoughts,
  // thoughts and cache as given, the total as given; an error is an `error` event.
  'gemini-interactions': {
    ...base,
    id: 'v1_test',
    model: 'gemini-3-flash-preview',
    signatures: 1,
    raw: { stop: 'completed', tool_calls: 'requires_action', length: 'incomplete', error: 'failed', other: 'cancelled' },
    usage: 'free',
    details: ['cachedPromptTokens', 'reasoningTokens'],
    errorSays: 'An internal error has occurred. Please retry.',
    // The interaction's `object`, which no field of a completion names.
    envelope: { google: { object: 'interaction' } },
    // The thought step (step 0)'s signature, after its summary.
    opaqueItems: (choice) =>
      (choice.reasoningSignatures ?? []).map((data) => ({
        provider: 'google',
        kind: 'signature',
        type: 'thought_signature',
        part: 'reasoning',
        block: 0,
        data,
        at: afterReasoning(choice),
      })),
  },
};
