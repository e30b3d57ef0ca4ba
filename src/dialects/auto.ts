import { SseFrame } from '../frames/SseParser.js';
import { ProtocolError, StreamClosedEarlyError } from '../errors/errors.js';
import { ChatEvent } from '../types/events.js';
import { excerpt, isJsonObject } from '../internal/json.js';
import { DialectFactory, DialectOptions, DialectParser } from './Dialect.js';
import { DIALECTS, DIALECT_LIST } from './registry.js';
import { providerErrorFrom } from './base/providerError.js';

/**
 * Which dialect a payload belongs to, or `undefined` when it says nothing either way (a keep-alive,
 * a bare `[DONE]`). Each dialect of the registry says how it recognises a payload (its record's
 * `recognizes`), asked in the registry's order (docs/dialects.md has the rules with their reasons):
 * the two Bedrock replies by their event names (a ConverseStream event, a `chunk` with `bytes`),
 * then a `type` that Anthropic, OpenAI Responses, the typed events or Cohere use, Gemini's `candidates` or
 * `usageMetadata`, an OpenAI chat chunk, Ollama's `done`, llama.cpp's `stop`. A typed-events
 * `keepalive` names no dialect.
 */
export function detectDialect(payload: unknown, event?: string): string | undefined {
  if (!isJsonObject(payload) || payload['type'] === 'keepalive') return undefined;
  for (const dialect of DIALECT_LIST) if (dialect.recognizes?.(payload, event) === true) return dialect.name;
  return undefined;
}

/**
 * The `auto` dialect: waits for the first frame that says which format this is, then hands that frame
 * and every later one to the chosen dialect's parser, fixed for the rest of the stream. An error
 * payload before that is a `ProviderError`; a JSON object that matches no dialect is a
 * `ProtocolError` naming what it saw.
 */
export class AutoDialectParser implements DialectParser {
  #parser: DialectParser | undefined = undefined;
  #frameCount = 0;
  /** Frames that said nothing yet (a `[DONE]`, a keep-alive), replayed to the parser once chosen: made at the first. */
  #waiting: SseFrame[] | undefined = undefined;
  readonly #dialects: Readonly<Record<string, DialectFactory>>;
  readonly #emit: (event: ChatEvent) => void;
  readonly #options: DialectOptions;

  constructor(dialects: Readonly<Record<string, DialectFactory>>, emit: (event: ChatEvent) => void, options: DialectOptions) {
    this.#dialects = dialects;
    this.#emit = emit;
    this.#options = options;
  }

  push(frame: SseFrame): void {
    if (this.#parser !== undefined) {
      this.#parser.push(frame);
      return;
    }
    this.#frameCount++;
    let payload: unknown;
    try {
      payload = JSON.parse(frame.data);
    } catch (cause) {
      if (frame.data === '[DONE]') {
        (this.#waiting ??= []).push(frame);
        return;
      }
      throw new ProtocolError(`frame ${this.#frameCount}: data is not JSON: ${excerpt(frame.data)}`, {
        reason: 'invalid-json',
        cause,
        position: { event: this.#frameCount },
      });
    }
    const name = detectDialect(payload, frame.event);
    if (name === undefined) {
      if (frame.event === 'error' || (isJsonObject(payload) && payload['error'] !== undefined && payload['error'] !== null)) {
        throw providerErrorFrom(payload, `frame ${this.#frameCount}`, this.#frameCount);
      }
      if (isJsonObject(payload) && payload['type'] === 'keepalive') {
        (this.#waiting ??= []).push(frame);
        return;
      }
      throw new ProtocolError(`frame ${this.#frameCount} matches no dialect: ${describePayload(payload)}`, {
        reason: 'unknown-format',
        position: { event: this.#frameCount },
      });
    }
    const factory = this.#dialects[name];
    if (factory === undefined) {
      throw new ProtocolError(`frame ${this.#frameCount} looks like ${name}, which is not available`, { reason: 'unknown-format' });
    }
    this.#parser = factory(this.#emit, this.#options);
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting !== undefined) for (const held of waiting) this.#parser.push(held);
    // The deciding frame is already parsed: a dialect that can take the parse is spared a second one.
    this.#parser.usePreparsed?.(frame.data, payload);
    this.#parser.push(frame);
  }

  end(): void {
    if (this.#parser !== undefined) {
      this.#parser.end();
      return;
    }
    if (this.#waiting !== undefined) {
      throw new ProtocolError(
        `the stream ended after ${this.#frameCount} frame${this.#frameCount === 1 ? '' : 's'} ` +
          `that name${this.#frameCount === 1 ? 's' : ''} no dialect`,
        { reason: 'unknown-format' },
      );
    }
    throw new StreamClosedEarlyError('the stream ended before any frame arrived', { reason: 'no-end-signal' });
  }
}

function describePayload(payload: unknown): string {
  if (!isJsonObject(payload)) return `a JSON ${Array.isArray(payload) ? 'array' : typeof payload}`;
  const keys = Object.keys(payload).slice(0, 8);
  const type = typeof payload['type'] === 'string' ? ` (type ${excerpt(payload['type'] as string, 40)})` : '';
  return `an object with keys ${keys.join(', ') || '(none)'}${type}`;
}

/**
 * The `auto` dialect's factory: the format is decided from the first frame that names it (see
 * `detectDialect`), then fixed for the rest of the stream. It reaches every dialect of the registry,
 * so a bundle that uses it holds them all; an app that reads one provider names its dialect instead.
 *
 * @example
 * ```ts
 * import { autoDialect, assembleChunks } from 'rxjs-llm-stream';
 *
 * frames$.pipe(assembleChunks({ dialect: autoDialect })); // the same as assembleChunks()
 * ```
 */
export const autoDialect: DialectFactory = (emit, options) => new AutoDialectParser(DIALECTS, emit, options);
