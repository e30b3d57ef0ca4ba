import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { Completion, CompletionChoice, ProviderMetadata, ToolCall } from '../../src/types/events';
import { TestReply, TestToolCall } from '../../src/dialects/writing/TestReply';
import { providerStream } from '../../src/testing/writeProviderStream';
import { ProviderFormat } from '../../src/dialects/writing/wire';
import { FORMATS, envelopeOf } from './dialects/formats';
import { callMetadataOf } from './dialects/expected';
import { assemble } from './dialects/pipeline';

/**
 * The kit against the real recordings in marbles/: for each recording whose result is a completion
 * (its expected file, written from an independent reading of the bytes: marbles/README.md), that
 * completion is turned into a `TestReply`, written with the kit in the recording's dialect,
 * assembled through the README's pipeline, and compared with the completion. The same reply rebuilt
 * from a recording's completion must assemble to that completion.
 *
 * A completion can hold parts a `TestReply` has no field for (a refusal, log probabilities,
 * sources, llama.cpp's timings and reasoning tokens, the tools a provider ran): those are left out
 * of the comparison, and the recordings that had them are listed below, so that the list is a
 * decision, not an accident. Its provider metadata (what no field names) is the recording's own: the
 * kit writes its format's envelope in its place.
 */

interface Expected {
  readonly dialect: string;
  readonly completion?: Completion;
}

const MARBLES = join(__dirname, '..', '..', 'marbles');

const recordings = ['openai', 'real', 'dialects'].flatMap((folder) =>
  readdirSync(join(MARBLES, folder))
    .filter((file) => file.endsWith('.expected.json'))
    .sort()
    .map((file) => ({
      name: `${folder}/${file.replace('.expected.json', '')}`,
      expected: JSON.parse(readFileSync(join(MARBLES, folder, file), 'utf8')) as Expected,
    })),
);

/** The parts of a completion (and of each choice) that a `TestReply` cannot say. */
const UNSAID = ['logprobs', 'sources', 'audio', 'providerToolCalls', 'incompleteToolCalls'] as const;

/** Which of those `completion` has (a refusal, timings and reasoning tokens counted too). */
function unsaid(completion: Completion): string[] {
  const found = new Set<string>();
  for (const choice of completion.choices) {
    for (const part of UNSAID) if (choice[part] !== undefined) found.add(part);
    if (choice.refusal !== null) found.add('refusal');
  }
  if (completion.timings !== null) found.add('timings');
  if (completion.reasoningTokens !== 0) found.add('reasoningTokens');
  return [...found].sort();
}

/**
 * `completion` without what a `TestReply` cannot say. Its provider metadata is the recording's own
 * envelope and extras: the kit writes the format's envelope instead (`envelopeOf`), and on a call
 * only what it writes there (`callMetadataOf`: Gemini's first signature on the first call); its
 * opaque items, only those of the signatures, where the kit writes them.
 */
function sayable(completion: Completion, format: ProviderFormat): Completion {
  const reply = replyOf(completion, format);
  const envelope = envelopeOf(format, reply);
  const strip = <C extends Completion | CompletionChoice>(part: C, choice: number): C => {
    const copy: Record<string, unknown> = { ...part, refusal: null };
    for (const key of UNSAID) delete copy[key];
    delete copy['providerMetadata'];
    // The opaque items are those the kit writes for the choice's signatures, not the recording's.
    delete copy['opaqueItems'];
    const written = FORMATS[format].opaqueItems?.(reply.choices[choice]!, reply.id ?? FORMATS[format].id) ?? [];
    if (written.length > 0) copy['opaqueItems'] = written;
    const signatures = part.reasoningSignatures ?? [];
    if (Array.isArray(copy['toolCalls'])) {
      copy['toolCalls'] = (copy['toolCalls'] as ToolCall[]).map((call) => asWritten(call, callMetadataOf(format, call.index, signatures)));
    }
    return copy as C;
  };
  return {
    ...strip(completion, 0),
    timings: null,
    reasoningTokens: 0,
    choices: completion.choices.map((choice, position) => strip(choice, position)),
    ...(envelope === undefined ? {} : { providerMetadata: envelope }),
  };
}

/** A call with the provider metadata the kit writes for it in place of what it came with. */
function asWritten(call: ToolCall, metadata: ProviderMetadata | undefined): ToolCall {
  const copy: Record<string, unknown> = { ...call };
  delete copy['providerMetadata'];
  if (metadata !== undefined) copy['providerMetadata'] = metadata;
  return copy as unknown as ToolCall;
}

/** The reply a completion says, as a test would write it for `format`. */
function replyOf(completion: Completion, format: ProviderFormat): TestReply {
  const facts = FORMATS[format];
  const call = (toolCall: ToolCall, choice: number): TestToolCall => {
    // An id the library made up for a wire without one is left for it to make again.
    const madeUp = facts.callId?.(completion.id, choice, toolCall.index) === toolCall.id;
    const id = madeUp ? {} : { id: toolCall.id };
    if (toolCall.kind === 'custom') return { ...id, name: toolCall.name, kind: 'custom', arguments: { raw: toolCall.arguments } };
    // Formats that send calls whole take the arguments as a value; the others, as the text the model wrote.
    return { ...id, name: toolCall.name, arguments: facts.calls === 'whole' ? toolCall.args : { raw: toolCall.arguments } };
  };
  return {
    choices: completion.choices.map((choice) => ({
      ...(choice.reasoning === null ? {} : { reasoning: choice.reasoning }),
      ...(choice.content === null ? {} : { text: choice.content }),
      ...(choice.toolCalls.length === 0 ? {} : { toolCalls: choice.toolCalls.map((toolCall) => call(toolCall, choice.index)) }),
      finishReason: choice.finishReason,
      ...(facts.raw[choice.finishReason] === choice.rawFinishReason ? {} : { rawFinishReason: choice.rawFinishReason }),
      ...(choice.reasoningSignatures === undefined ? {} : { reasoningSignatures: choice.reasoningSignatures }),
    })),
    ...(completion.usage === null ? {} : { usage: completion.usage }),
    ...(completion.id === '' || completion.id === facts.id ? {} : { id: completion.id }),
    ...(completion.model === null ? {} : { model: completion.model }),
  };
}

const completed = recordings.filter((recording) => recording.expected.completion !== undefined);

describe('the kit against the recordings in marbles/', () => {
  it('covers every recording that completes, in every dialect they use', () => {
    expect(completed.length).toBeGreaterThanOrEqual(38);
    expect(new Set(completed.map((recording) => recording.expected.dialect))).toEqual(
      new Set(['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'ollama', 'llamacpp-completion', 'typed-events']),
    );
  });

  it('leaves out of the comparison only the parts a TestReply has no field for, in these recordings', () => {
    const partly = completed
      .map((recording) => [recording.name, unsaid(recording.expected.completion!)] as const)
      .filter(([, parts]) => parts.length > 0);
    expect(Object.fromEntries(partly)).toEqual({
      'dialects/llamacpp-chat': ['timings'],
      'dialects/llamacpp-completion': ['timings'],
      'openai/extra-fields': ['logprobs'],
      'openai/reasoning': ['reasoningTokens', 'timings'],
      'openai/refusal': ['refusal'],
      'real/openai-code-interpreter-tool.1': ['providerToolCalls', 'sources'],
      'real/openai-file-search-tool.1': ['providerToolCalls', 'sources'],
      'real/openai-image-generation-tool.1': ['providerToolCalls'],
      'real/openai-web-search-tool.1': ['providerToolCalls', 'sources'],
      'real/perplexity-text': ['sources'],
    });
  });

  describe.each(completed.map((recording) => [recording.name, recording] as const))('%s', (_name, recording) => {
    const completion = recording.expected.completion!;
    const format = recording.expected.dialect as ProviderFormat;

    it.each(['events', { random: 11 }] as const)(
      'rebuilt from its completion, the kit writes a stream that assembles to it (%j)',
      (chunking) => {
        const outcome = assemble(providerStream(replyOf(completion, format), format, { chunking }));
        expect(outcome.error).toBeUndefined();
        expect(outcome.values).toEqual([sayable(completion, format)]);
      },
    );
  });
});
