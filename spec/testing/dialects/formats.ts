import { FinishReason, ProviderMetadata } from '../../../src/types/events';
import { ProviderFormat } from '../../../src/dialects/writing/wire';

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
   * kit writes it: the completion's `providerMetadata` (OpenAI's `created` and `system_fingerprint`).
   */
  readonly envelope?: ProviderMetadata;
  /**
   * What the event that carries the usage has beside it that no field names, as the kit writes it
   * when the reply has usage: more of the completion's `providerMetadata` (Bedrock's `metrics`).
   */
  readonly usageEnvelope?: ProviderMetadata;
  /**
   * The provider metadata of a choice's first call, when the kit sends the choice's first reasoning
   * signature on that call's part (Gemini's `thoughtSignature`, which the call must take back).
   */
  readonly firstCallSignature?: (signature: string) => ProviderMetadata;
}

/** OpenAI's chunks as the kit writes them: `created` 2026-01-01, and a fingerprint of the kit's own. */
const OPENAI_ENVELOPE: ProviderMetadata = { openai: { created: 1767225600, system_fingerprint: 'fp_test' } };

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
    usageEnvelope: { bedrock: { metrics: { latencyMs: 812 } } },
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
};
