/**
 * Thrown by `providerStream` when the format asked for cannot carry part of the reply (reasoning in
 * llama.cpp's `/completion`, a second choice in Anthropic's stream, a custom tool call in Gemini's),
 * or when the options ask for what the reply does not have (a cut inside the arguments of a reply
 * without calls). Written that way, the stream would assemble to a different reply than the test
 * describes, so the kit refuses it instead of dropping the part silently.
 *
 * It is a mistake in a test, not a fault of a stream: it does not extend `LlmStreamError`.
 *
 * @example
 * ```ts
 * import { providerStream, UnsupportedReplyError } from 'rxjs-llm-stream/testing';
 *
 * try {
 *   providerStream({ choices: [{ reasoning: 'hmm', text: 'Hi' }] }, 'llamacpp-completion');
 * } catch (err) {
 *   if (err instanceof UnsupportedReplyError) console.log(err.format, err.part); // 'llamacpp-completion' 'choices[0].reasoning'
 * }
 * ```
 */
export class UnsupportedReplyError extends Error {
  override readonly name = 'UnsupportedReplyError';

  /**
   * @param format The format that was asked for.
   * @param part Where in the reply (or the options) the part sits: `choices[1]`, `usage.reasoningTokens`, `fault`.
   * @param why What the format does instead, said after "cannot write ...".
   */
  constructor(
    readonly format: string,
    readonly part: string,
    why: string,
  ) {
    super(`${format} cannot write ${part}: ${why}`);
  }
}
