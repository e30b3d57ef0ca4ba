import { JsonTemplateParser } from '../core/JsonTemplateParser.js';
import { SseFrame } from '../core/SseParser.js';
import { ProtocolError } from '../errors.js';
import { JsonObject, excerpt, isJsonObject } from '../internal/json.js';
import { ChatEvent } from '../events.js';
import { DialectOptions, DialectParser } from './Dialect.js';

/**
 * What the dialects share: they count frames, parse each payload as JSON, and name the frame in
 * every `ProtocolError` (`frame 7: choices[0].delta is not an object`, with `position.event`).
 */
export abstract class JsonDialectParser implements DialectParser {
  /** Frames read so far: while one is being read, its 1-based number. */
  protected frameCount = 0;
  /** Apply the format exactly instead of absorbing quirks that lose nothing. */
  protected readonly strict: boolean;

  constructor(
    protected readonly emit: (event: ChatEvent) => void,
    options: DialectOptions = {},
  ) {
    this.strict = options.strict === true;
  }

  abstract push(frame: SseFrame): void;
  abstract end(): void;

  /**
   * Reads each payload: chunks repeat their envelope, so after two of one shape only the values that
   * vary are parsed (see `JsonTemplateParser`). With `reuse`, a payload read through a template is
   * overwritten by the next one: dialects take the strings and numbers they need out of each payload
   * while reading it and keep no object of it (the recordings spec checks this).
   */
  private readonly json = new JsonTemplateParser({ reuse: true });

  /** A parse offered by `adoptParsed`, waiting for the push of its data. */
  private adopted: { readonly data: string; readonly value: unknown } | undefined = undefined;

  adoptParsed(data: string, value: unknown): void {
    this.adopted = { data, value };
  }

  /** The payload parsed as JSON; `what` names it in the error (`data`, `line`). */
  protected parseJson(data: string, what = 'data'): unknown {
    const adopted = this.adopted;
    if (adopted !== undefined) {
      this.adopted = undefined;
      if (adopted.data === data) return adopted.value;
    }
    try {
      return this.json.parse(data);
    } catch (cause) {
      throw new ProtocolError(`frame ${this.frameCount}: ${what} is not JSON: ${excerpt(data)}`, {
        cause,
        position: { event: this.frameCount },
      });
    }
  }

  /** The payload parsed as a JSON object; anything else is a `ProtocolError`. */
  protected parseObject(data: string, what = 'data'): JsonObject {
    const payload = this.parseJson(data, what);
    if (!isJsonObject(payload)) throw this.protocolError(`expected a JSON object, got ${excerpt(data)}`);
    return payload;
  }

  /** A text field: a string, or undefined when null or absent; another type is a `ProtocolError`. */
  protected readString(value: unknown, where: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    throw this.protocolError(`${where} is ${describeValue(value)}, not text`);
  }

  /**
   * A JSON value from a payload written back as text (arguments sent as an object). `JSON.parse`
   * reads nesting of any depth, but `JSON.stringify` recurses: a value nested 100,000 deep would
   * escape as a `RangeError` (stack overflow). It is a `ProtocolError` naming `where` instead.
   */
  protected serialize(value: unknown, where: string): string {
    try {
      return JSON.stringify(value);
    } catch (cause) {
      if (!(cause instanceof RangeError)) throw cause;
      throw new ProtocolError(`frame ${this.frameCount}: ${where} is nested too deeply to serialize`, {
        cause,
        position: { event: this.frameCount },
      });
    }
  }

  protected protocolError(what: string): ProtocolError {
    return new ProtocolError(`frame ${this.frameCount}: ${what}`, { position: { event: this.frameCount } });
  }
}

/** A short description of a value of the wrong type, for error messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return excerpt(value, 20);
  if (typeof value === 'number') return String(value);
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** True for an index a server may send: a non-negative safe integer. */
export function isIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
