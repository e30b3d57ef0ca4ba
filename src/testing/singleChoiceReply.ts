import type { TestChoice, TestReply } from '../dialects/writing/TestReply.js';

/**
 * A one-choice reply, the shape most tests need: the choice as its text alone, or whole, and the
 * reply's other parts (usage, model, id) beside it.
 *
 * @example
 * ```ts
 * import { providerStream, testReply } from 'rxjs-llm-stream/testing';
 *
 * providerStream(testReply('Hello!'), 'openai-chat');
 * const usage = { promptTokens: 9, completionTokens: 4, totalTokens: 13 };
 * const choice = { text: 'Checking.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] };
 * providerStream(testReply(choice, { usage }), 'anthropic');
 * ```
 *
 * @param choice The choice's text, or the whole choice.
 * @param rest The reply's usage, model and id.
 * @returns The reply.
 */
export function testReply(choice: string | TestChoice, rest: Omit<TestReply, 'choices'> = {}): TestReply {
  return { ...rest, choices: [typeof choice === 'string' ? { text: choice } : choice] };
}
