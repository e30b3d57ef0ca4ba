import { StreamEntry } from './streamEntries.js';
import { StreamClosedEarlyError } from '../errors/errors.js';

/**
 * A Redis client of the user's, as the store needs it: `ioredis` (its `call`) or `redis` v4 and v5
 * (its `sendCommand`). The store sends plain commands, so neither package is a dependency of this one.
 *
 * @example
 * ```ts
 * import type { RedisClientLike } from 'rxjs-llm-stream/relay';
 *
 * const client: RedisClientLike = { call: async (command: string, ...args: string[]) => [command, ...args] };
 * ```
 */
export type RedisClientLike =
  { call(command: string, ...args: string[]): Promise<unknown> } | { sendCommand(args: string[]): Promise<unknown> };

/** Sends one command, failing typed when the client fails or does not answer within `timeoutMs`. */
export type RedisSend = (args: readonly string[], timeoutMs: number) => Promise<unknown>;

/** The client as a function that sends a command. */
export function redisSender(client: RedisClientLike, what: string): RedisSend {
  const raw: (args: string[]) => Promise<unknown> =
    'call' in client && typeof client.call === 'function'
      ? (args) => client.call(args[0]!, ...args.slice(1))
      : 'sendCommand' in client && typeof client.sendCommand === 'function'
        ? (args) => client.sendCommand(args)
        : () =>
            Promise.reject(new TypeError(`RedisStreamStore: the ${what} client has neither call() (ioredis) nor sendCommand() (redis)`));
  return (args, timeoutMs) =>
    new Promise((resolve, reject) => {
      // A client that lost its server queues commands until it reconnects: the store must not wait that long.
      const timer = setTimeout(
        () => reject(new StreamClosedEarlyError(`the stream store did not answer ${args[0]} within ${timeoutMs} ms`, { reason: 'store' })),
        timeoutMs,
      );
      raw([...args]).then(
        (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        (error: unknown) => {
          clearTimeout(timer);
          const message = error instanceof Error ? error.message : String(error);
          reject(new StreamClosedEarlyError(`the stream store failed (${args[0]}): ${message}`, { reason: 'store', cause: error }));
        },
      );
    });
}

/** A reply's text: clients answer strings, or Buffers when asked to. */
export function text(reply: unknown): string {
  if (typeof reply === 'string') return reply;
  if (reply instanceof Uint8Array) return new TextDecoder().decode(reply);
  return String(reply);
}

/** `XRANGE`'s reply (`[[id, [field, value, ...]], ...]`) as entries; the stream's opening marker is left out. */
export function entriesOf(reply: unknown): StreamEntry[] {
  if (!Array.isArray(reply)) return [];
  const entries: StreamEntry[] = [];
  for (const item of reply as unknown[]) {
    if (!Array.isArray(item)) continue;
    const [rawId, rawFields] = item as [unknown, unknown];
    const fields = fieldsOf(rawFields);
    const kind = fields.get('k');
    if (kind !== 'event' && kind !== 'error' && kind !== 'end') continue;
    entries.push({ id: Number(text(rawId).split('-')[0]), kind, type: fields.get('t') ?? '', data: fields.get('d') ?? '' });
  }
  return entries;
}

/** An entry's fields, as a flat list (RESP2) or a map (RESP3). */
function fieldsOf(raw: unknown): Map<string, string> {
  const fields = new Map<string, string>();
  if (Array.isArray(raw)) {
    for (let i = 0; i + 1 < raw.length; i += 2) fields.set(text(raw[i]), text(raw[i + 1]));
  } else if (raw instanceof Map) {
    for (const [key, value] of raw) fields.set(text(key), text(value));
  } else if (typeof raw === 'object' && raw !== null) {
    for (const [key, value] of Object.entries(raw)) fields.set(key, text(value));
  }
  return fields;
}

/** `XREAD`'s reply as `[key, entries]` pairs: `[[key, entries], ...]` (RESP2), or a map of key to entries (RESP3). */
export function streamsOf(reply: unknown): Array<readonly [string, unknown]> {
  if (reply === null || reply === undefined) return [];
  if (Array.isArray(reply)) {
    return reply.flatMap((item: unknown) => (Array.isArray(item) ? [[text(item[0]), item[1]] as const] : []));
  }
  if (reply instanceof Map) return [...reply.entries()].map(([key, value]: [unknown, unknown]) => [text(key), value] as const);
  if (typeof reply === 'object') return Object.entries(reply);
  return [];
}
