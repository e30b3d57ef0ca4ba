import { ProtocolError } from '../../errors/errors.js';
import { JsonObject, isJsonObject } from '../../internal/json.js';
import { describeValue, isIndex } from '../base/payloadValues.js';

/**
 * Reads the fields of one of this library's own events as `toMessageEvents` wrote them, each of the
 * type it must have; a field of another type is a `ProtocolError` naming its path (`call.id`).
 */
export class EventFields {
  constructor(
    /** The error for a field of the wrong type, with `what` said of it. */
    readonly fail: (what: string) => ProtocolError,
  ) {}

  field(payload: JsonObject, path: string): unknown {
    return payload[path.slice(path.lastIndexOf('.') + 1)];
  }

  textField(payload: JsonObject, path: string): string {
    const value = this.field(payload, path);
    if (typeof value !== 'string') throw this.fail(`${path} is ${describeValue(value)}, not text`);
    return value;
  }

  textOrNullField(payload: JsonObject, path: string): string | null {
    return this.field(payload, path) === null ? null : this.textField(payload, path);
  }

  numberField(payload: JsonObject, path: string): number {
    const value = this.field(payload, path);
    if (typeof value !== 'number' || !Number.isFinite(value)) throw this.fail(`${path} is ${describeValue(value)}, not a number`);
    return value;
  }

  countField(payload: JsonObject, path: string): number | null {
    return this.field(payload, path) === null ? null : this.numberField(payload, path);
  }

  indexField(payload: JsonObject, path: string): number {
    const value = this.field(payload, path);
    if (!isIndex(value)) throw this.fail(`${path} is ${describeValue(value)}, not an index`);
    return value;
  }

  objectField(payload: JsonObject, path: string): JsonObject {
    const value = this.field(payload, path);
    if (!isJsonObject(value)) throw this.fail(`${path} is ${describeValue(value)}, not an object`);
    return value;
  }

  /** An optional field: absent stays absent, present is read by `read`. */
  optional<K extends string, V>(payload: JsonObject, path: K, read: (payload: JsonObject, path: string) => V): { [P in K]?: V } {
    return (this.field(payload, path) === undefined ? {} : { [path.slice(path.lastIndexOf('.') + 1)]: read.call(this, payload, path) }) as {
      [P in K]?: V;
    };
  }
}
