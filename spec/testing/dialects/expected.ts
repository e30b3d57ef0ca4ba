import { Completion, CompletionChoice, JsonValue, ProviderMetadata, ToolCall } from '../../../src/types/events';
import { TestChoice, TestReply, TestToolCall } from '../../../src/dialects/writing/TestReply';
import { ProviderFormat } from '../../../src/dialects/writing/wire';
import { FORMATS, envelopeOf } from './formats';

/**
 * The completion a reply must assemble to once written in `format`: read off the reply itself and
 * the format's facts (`formats.ts`), never from running the library or asking the kit. Text a
 * choice never had is `null`; the finish is the reply's, or `stop` (`tool_calls` after calls); the
 * usage is the reply's, exactly.
 */
export function expectedCompletion(reply: TestReply, format: ProviderFormat): Completion {
  const facts = FORMATS[format];
  const envelope = envelopeOf(format, reply);
  const id = reply.id ?? facts.id;
  const choices = reply.choices.map((choice, index) => expectedChoice(choice, index, id, format));
  const first = choices[0]!;
  return {
    id,
    model: reply.model ?? facts.model,
    content: first.content,
    reasoning: first.reasoning,
    refusal: null,
    toolCalls: first.toolCalls,
    finishReason: first.finishReason,
    rawFinishReason: first.rawFinishReason,
    usage: reply.usage ?? null,
    timings: null,
    reasoningTokens: 0,
    ...(first.reasoningSignatures === undefined ? {} : { reasoningSignatures: first.reasoningSignatures }),
    ...(first.opaqueItems === undefined ? {} : { opaqueItems: first.opaqueItems }),
    choices,
    ...(envelope === undefined ? {} : { providerMetadata: envelope }),
  };
}

/** The provider metadata the kit writes on call `index` of a choice with these signatures (Gemini's first signature). */
export function callMetadataOf(format: ProviderFormat, index: number, signatures: readonly string[]): ProviderMetadata | undefined {
  const withSignature = FORMATS[format].firstCallSignature;
  return index === 0 && signatures.length > 0 && withSignature !== undefined ? withSignature(signatures[0]!) : undefined;
}

function expectedChoice(choice: TestChoice, index: number, replyId: string, format: ProviderFormat): CompletionChoice {
  const facts = FORMATS[format];
  const signatures = choice.reasoningSignatures ?? [];
  const toolCalls = (choice.toolCalls ?? []).map((call, k) => {
    const expected = expectedCall(call, k, index, replyId, format);
    const metadata = callMetadataOf(format, k, signatures);
    return metadata === undefined ? expected : { ...expected, providerMetadata: metadata };
  });
  const finishReason = choice.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');
  const opaqueItems = facts.opaqueItems?.(choice, replyId) ?? [];
  return {
    index,
    content: choice.text || null,
    reasoning: choice.reasoning || null,
    refusal: null,
    toolCalls,
    finishReason,
    rawFinishReason: choice.rawFinishReason ?? facts.raw[finishReason]!,
    ...(signatures.length === 0 ? {} : { reasoningSignatures: signatures }),
    ...(opaqueItems.length === 0 ? {} : { opaqueItems }),
  };
}

function expectedCall(call: TestToolCall, index: number, choice: number, replyId: string, format: ProviderFormat): ToolCall {
  const callId = FORMATS[format].callId;
  const id = call.id ?? (callId === undefined ? `call_${index}` : callId(replyId, choice, index));
  const text = argumentsText(call);
  if (call.kind === 'custom') return { kind: 'custom', index, id, name: call.name, arguments: text, args: text };
  return { index, id, name: call.name, arguments: text, args: text.trim() === '' ? {} : (JSON.parse(text) as JsonValue) };
}

/** A call's argument text: its raw text, or its value as `JSON.stringify` writes it. */
export function argumentsText(call: TestToolCall): string {
  const value = call.arguments;
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 1 && 'raw' in value) {
    return (value as { raw: string }).raw;
  }
  return JSON.stringify(value);
}
