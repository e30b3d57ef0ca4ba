import { converseStream } from '../support/awsEventStream';
import { readReply, sseOf } from '../support/pipeline';

// What a provider says of the safety of a reply, where no field of the Completion names it: kept as it
// came in the open reply (`providerMetadata`), where docs/dialects.md ("Typed, or in the open reply")
// says, never dropped, and never in the way of the reply itself. Each stream is written from the
// provider's types and read through the README pipeline at 1, 7 and 64-byte chunks and whole; the
// expected values are written here from those types and the documented places.

describe('safety results are kept in the open reply (issue 30, F)', () => {
  it("keeps OpenAI's moderation chunk on the reply", () => {
    // ChatCompletionChunk.moderation (openai 6.49, resources/chat/completions): {input, output}, each
    // ModerationResults {model, results: [{categories, category_applied_input_types, category_scores,
    // flagged, model, type: 'moderation_result'}], type: 'moderation_results'} or Error {code, message,
    // type: 'error'}; "present on the moderation chunk when moderated completions are requested".
    const moderation = {
      input: {
        type: 'moderation_results',
        model: 'omni-moderation-latest',
        results: [
          {
            type: 'moderation_result',
            model: 'omni-moderation-latest',
            flagged: false,
            categories: { violence: false },
            category_scores: { violence: 0.0004 },
            category_applied_input_types: { violence: ['text'] },
          },
        ],
      },
      output: { type: 'error', code: 'moderation_unavailable', message: 'The output could not be moderated.' },
    };
    const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-5' };
    const { completion, error } = readReply(
      sseOf([
        { ...head, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }] },
        { ...head, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
        { ...head, choices: [], moderation },
        '[DONE]',
      ]),
      'openai-chat',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'Hello', finishReason: 'stop' });
    expect(completion!.providerMetadata).toEqual({ openai: { created: 1, moderation } });
  });

  it("keeps Azure's prompt filter results on the reply and a choice's content filter results on the choice", () => {
    // Azure OpenAI's chunks: a first chunk with `choices: []` and `prompt_filter_results: [{prompt_index,
    // content_filter_results}]`, and `content_filter_results` {hate, self_harm, sexual, violence: {filtered,
    // severity}} on each choice (Azure OpenAI reference, "Content filtering").
    const promptFilter = [
      {
        prompt_index: 0,
        content_filter_results: { hate: { filtered: false, severity: 'safe' }, jailbreak: { filtered: false, detected: false } },
      },
    ];
    const choiceFilter = { hate: { filtered: false, severity: 'safe' }, violence: { filtered: false, severity: 'low' } };
    const head = { id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 2, model: 'gpt-4o' };
    const { completion, error } = readReply(
      sseOf([
        { id: '', object: '', created: 0, model: '', choices: [], prompt_filter_results: promptFilter },
        { ...head, choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null, content_filter_results: choiceFilter }] },
        { ...head, choices: [{ index: 0, delta: {}, finish_reason: 'stop', content_filter_results: {} }] },
        '[DONE]',
      ]),
      'openai-chat',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ id: 'chatcmpl-2', content: 'Hi', finishReason: 'stop' });
    expect(completion!.providerMetadata!['openai']).toMatchObject({ prompt_filter_results: promptFilter });
    // The last value of a field is what a choice keeps: the finishing chunk's empty results.
    expect(completion!.choices[0]!.providerMetadata).toEqual({ openai: { content_filter_results: {} } });
  });

  it("keeps Bedrock's guardrail trace on the reply", () => {
    // ConverseStreamMetadataEvent {usage, metrics, trace?: ConverseStreamTrace {guardrail?:
    // GuardrailTraceAssessment {modelOutput?, inputAssessment?, outputAssessments?, actionReason?}}}
    // (Amazon Bedrock API reference, ConverseStream).
    const trace = {
      guardrail: {
        actionReason: 'No action.',
        inputAssessment: { gr1: { contentPolicy: { filters: [{ type: 'VIOLENCE', confidence: 'NONE', action: 'NONE' }] } } },
      },
    };
    const { completion, error } = readReply(
      converseStream([
        ['messageStart', { role: 'assistant' }],
        ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Safe answer.' } }],
        ['contentBlockStop', { contentBlockIndex: 0 }],
        ['messageStop', { stopReason: 'end_turn' }],
        ['metadata', { usage: { inputTokens: 4, outputTokens: 3, totalTokens: 7 }, metrics: { latencyMs: 90 }, trace }],
      ]),
      'bedrock-converse',
      'aws',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'Safe answer.', finishReason: 'stop' });
    expect(completion!.providerMetadata).toEqual({ bedrock: { metrics: { latencyMs: 90 }, trace } });
  });
});
