import { StreamEntry } from './streamEntries.js';
import { StreamClosedEarlyError } from '../errors/errors.js';

/**
 * A Redis client of the user's, as the store needs it: `ioredis` (`Redis` or `Cluster`: its `call`)
 * or `redis` v4 and v5 (`createClient`'s `sendCommand`, or `createCluster`'s, or v5 `createSentinel`'s).
 * The store sends plain commands, so neither package is a dependency of this one.
 *
 * @example
 * ```ts
 * import type { RedisClientLike } from 'rxjs-llm-stream/relay';
 *
 * const client: RedisClientLike = { call: async (command: string, ...args: string[]) => [command, ...args] };
 * ```
 */
export type RedisClientLike =
  | { call(command: string, ...args: string[]): Promise<unknown> }
  | { sendCommand(args: string[]): Promise<unknown> }
  | {
      sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
      readonly masters: unknown;
    }
  | NodeRedisSentinelLike;

/** Sends one command, failing typed when the client fails or does not answer within `timeoutMs`. */
export type RedisSend = (args: readonly string[], timeoutMs: number) => Promise<unknown>;

/** Sends commands as one transaction (all or none applied), answering each one's reply. */
export type RedisTransaction = (commands: ReadonlyArray<readonly string[]>, timeoutMs: number) => Promise<unknown[]>;

/** The user's client as the store uses it. */
export interface RedisConnection {
  readonly send: RedisSend;
  readonly transaction: RedisTransaction;
  /** Whether the client is a Redis Cluster client (keys of several slots may not meet in one command). */
  readonly cluster: boolean;
}

/** The key a command is routed by in a cluster: the first after `STREAMS` for `XREAD`, else its first argument. */
function routingKey(args: readonly string[]): string | undefined {
  const streams = args.indexOf('STREAMS');
  return args[0] === 'XREAD' && streams >= 0 ? args[streams + 1] : args[1];
}

interface IoredisLike {
  call(command: string, ...args: string[]): Promise<unknown>;
  multi?: (commands: string[][]) => { exec(): Promise<Array<[Error | null, unknown]> | null> };
  isCluster?: boolean;
}
/** node-redis v5 `createSentinel()`: commands go to the primary it finds through the sentinels. */
interface NodeRedisSentinelLike {
  sendCommand(isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  /** Runs `fn` on one connection of its pool, leased for it alone (a transaction's commands must meet on one). */
  use<T>(fn: (lease: { sendCommand(isReadonly: boolean | undefined, args: string[]): Promise<unknown> }) => Promise<T>): Promise<T>;
  getSentinelNode(): unknown;
}
interface NodeRedisClusterLike {
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  masters: unknown;
}

/** A command that failed, or did not answer in time, as the typed error. */
function typed<T>(what: string, sent: () => Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    // A client that lost its server queues commands until it reconnects: the store must not wait that long.
    const timer = setTimeout(
      () => reject(new StreamClosedEarlyError(`the stream store did not answer ${what} within ${timeoutMs} ms`, { reason: 'store' })),
      timeoutMs,
    );
    sent().then(
      (reply) => {
        clearTimeout(timer);
        resolve(reply);
      },
      (error: unknown) => {
        clearTimeout(timer);
        const message = error instanceof Error ? error.message : String(error);
        reject(new StreamClosedEarlyError(`the stream store failed (${what}): ${message}`, { reason: 'store', cause: error }));
      },
    );
  });
}

/**
 * The client as the store uses it: `ioredis` (`Redis` or `Cluster`: its `call`, and `multi` for a
 * transaction), `redis` v4/v5 (`createClient`: its `sendCommand`), a `redis` cluster
 * (`createCluster`: its `sendCommand(firstKey, isReadonly, args)`) or a `redis` v5 sentinel client
 * (`createSentinel`: its `sendCommand(isReadonly, args)`, and a transaction on one leased connection).
 *
 * @example
 * ```ts
 * const { send, transaction } = redisConnection(new Redis(url), 'command');
 * await transaction([['XADD', key, '0-1', 'e', 'o'], ['PEXPIRE', key, '60000']], 5000);
 * ```
 */
export function redisConnection(client: RedisClientLike, what: string): RedisConnection {
  const io = 'call' in client && typeof client.call === 'function' ? (client as IoredisLike) : undefined;
  const nodeCluster =
    io === undefined && 'masters' in client && 'sendCommand' in client ? (client as unknown as NodeRedisClusterLike) : undefined;
  const sentinel =
    io === undefined && 'getSentinelNode' in client && typeof client.use === 'function' ? (client as NodeRedisSentinelLike) : undefined;
  const raw: (args: string[], key: string | undefined) => Promise<unknown> =
    io !== undefined
      ? (args) => io.call(args[0]!, ...args.slice(1))
      : nodeCluster !== undefined
        ? (args, key) => nodeCluster.sendCommand(key, false, args)
        : sentinel !== undefined
          ? (args) => sentinel.sendCommand(false, args)
          : 'sendCommand' in client && typeof client.sendCommand === 'function'
            ? (args) => (client as { sendCommand(args: string[]): Promise<unknown> }).sendCommand(args)
            : () =>
                Promise.reject(
                  new TypeError(`RedisStreamStore: the ${what} client has neither call() (ioredis) nor sendCommand() (redis)`),
                );
  const send: RedisSend = (args, timeoutMs) => typed(args[0]!, () => raw([...args], routingKey(args)), timeoutMs);
  const names = (commands: ReadonlyArray<readonly string[]>): string => `MULTI ${commands.map((command) => command[0]).join(' ')}`;
  const transaction: RedisTransaction =
    io?.multi !== undefined
      ? // ioredis sends MULTI to the node of the commands' slot (a raw MULTI has no key to route by).
        (commands, timeoutMs) =>
          typed(
            names(commands),
            async () => {
              const results = await io.multi!(commands.map(([name, ...args]) => [name!.toLowerCase(), ...args])).exec();
              return (results ?? []).map(([error, result]) => error ?? result);
            },
            timeoutMs,
          ).then((results) => checked(commands, results))
      : sentinel !== undefined
        ? // A sentinel client spreads commands over a pool of connections: the transaction leases one.
          (commands, timeoutMs) =>
            typed(
              names(commands),
              () =>
                sentinel.use(async (lease) => {
                  const sent = [['MULTI'], ...commands, ['EXEC']].map((args) => lease.sendCommand(false, [...args]));
                  return (await Promise.all(sent))[sent.length - 1];
                }),
              timeoutMs,
            ).then((results) => checked(commands, results))
        : (commands, timeoutMs) => {
            const key = routingKey(commands[0]!);
            const one = (args: readonly string[]): Promise<unknown> => typed(args[0]!, () => raw([...args], key), timeoutMs);
            // Written in one synchronous run, nothing of another caller's comes between MULTI and EXEC.
            const sent = [one(['MULTI']), ...commands.map(one), one(['EXEC'])];
            return Promise.all(sent).then((replies) => checked(commands, replies[replies.length - 1]));
          };
  return { send, transaction, cluster: io?.isCluster === true || nodeCluster !== undefined };
}

/** `EXEC`'s reply, each command's result; a discarded transaction, or a command that failed in it, fails typed. */
function checked(commands: ReadonlyArray<readonly string[]>, results: unknown): unknown[] {
  if (!Array.isArray(results) || results.length !== commands.length) {
    throw new StreamClosedEarlyError(`the stream store discarded the transaction of ${commands.map((command) => command[0]).join(', ')}`, {
      reason: 'store',
    });
  }
  const failed = (results as unknown[]).findIndex((result) => result instanceof Error);
  if (failed >= 0) {
    const error = results[failed] as Error;
    throw new StreamClosedEarlyError(`the stream store failed (${commands[failed]![0]}): ${error.message}`, {
      reason: 'store',
      cause: error,
    });
  }
  return results as unknown[];
}

/** A reply's text: clients answer strings, or Buffers when asked to. */
export function text(reply: unknown): string {
  if (typeof reply === 'string') return reply;
  if (reply instanceof Uint8Array) return new TextDecoder().decode(reply);
  return String(reply);
}

/**
 * The `ChatEvent` types, each kept as one letter in Redis (see `encodeEntry`). Stored data depends
 * on this order: a new type is added at the end, and none is ever removed or moved.
 */
const TYPE_CODES = 'ABCDEFGHIJKLMNPQRSTUW';
const KNOWN_TYPES = [
  'content',
  'reasoning',
  'tool-call-delta',
  'tool-call-end',
  'tool-call',
  'finish',
  'usage',
  'start',
  'progress',
  'reasoning-signature',
  'refusal',
  'tool-call-incomplete',
  'logprobs',
  'source',
  'audio',
  'provider-tool-call',
  'provider-tool-result',
  'unknown',
  'provider-metadata',
  'timings',
  'done',
] as const;
const codeOfType = new Map<string, string>(KNOWN_TYPES.map((type, i) => [type, TYPE_CODES[i]!]));
const typeOfCode = new Map<string, string>(KNOWN_TYPES.map((type, i) => [TYPE_CODES[i]!, type]));

/** The type a frequent start names. */
const typeOf = (start: string): string => (JSON.parse(`${start}0}`) as { type: string }).type;

/**
 * The starts of the most frequent events' JSON (a text delta of the first choice), each kept as one
 * digit. Stored data depends on this order too: append only.
 */
const FREQUENT_STARTS = ['{"type":"content","choice":0,"text":', '{"type":"reasoning","choice":0,"text":'] as const;

/** What starts an event's JSON that names its own type first, as every `ChatEvent` the relay writes does. */
const typePrefix = (type: string): string => `{"type":${JSON.stringify(type)},`;

/**
 * An entry as the one field (`e`) of its Redis stream entry, small because a stream keeps every
 * entry of a reply (a text delta is a few words; its JSON's frame would be most of what is kept).
 * A text delta of the first choice is kept as a digit and its text (`0"Hi"}`); another event of
 * a `ChatEvent` type whose JSON starts with that type as the type's letter and the rest of its
 * JSON (`A"choice":1,"text":"Hi"}`); any other event as `v<type>\n<data>`;
 * an error as `x<data>`; the end as `z`. A type that holds a line break is kept whole, as JSON
 * (`j["event","<type>","<data>"]`).
 *
 * @example
 * ```ts
 * encodeEntry({ id: 1, kind: 'event', type: 'content', data: '{"type":"content","choice":0,"text":"Hi"}' }); // '0"Hi"}'
 * ```
 */
export function encodeEntry(entry: StreamEntry): string {
  if (entry.kind === 'end') return 'z';
  if (entry.kind === 'error') return `x${entry.data}`;
  const frequent = FREQUENT_STARTS.findIndex((start) => entry.data.startsWith(start));
  if (frequent >= 0 && entry.type === typeOf(FREQUENT_STARTS[frequent]!))
    return `${frequent}${entry.data.slice(FREQUENT_STARTS[frequent]!.length)}`;
  const code = codeOfType.get(entry.type);
  const prefix = typePrefix(entry.type);
  if (code !== undefined && entry.data.startsWith(prefix)) return `${code}${entry.data.slice(prefix.length)}`;
  if (entry.type.includes('\n')) return `j${JSON.stringify([entry.kind, entry.type, entry.data])}`;
  return `v${entry.type}\n${entry.data}`;
}

/** The entry `encodeEntry` kept as `value`; undefined for what is no entry (the stream's opening marker). */
function decodeEntry(id: number, value: string): StreamEntry | undefined {
  const tag = value[0] ?? '';
  if (tag === 'z') return { id, kind: 'end', type: '', data: '' };
  if (tag === 'x') return { id, kind: 'error', type: '', data: value.slice(1) };
  if (tag === 'j') {
    const [kind, type, data] = JSON.parse(value.slice(1)) as [StreamEntry['kind'], string, string];
    return { id, kind, type, data };
  }
  if (tag === 'v') {
    const split = value.indexOf('\n');
    return { id, kind: 'event', type: value.slice(1, split), data: value.slice(split + 1) };
  }
  const frequent = FREQUENT_STARTS[Number(tag)];
  if (tag >= '0' && tag <= '9' && frequent !== undefined) {
    return { id, kind: 'event', type: typeOf(frequent), data: `${frequent}${value.slice(1)}` };
  }
  const type = typeOfCode.get(tag);
  return type === undefined ? undefined : { id, kind: 'event', type, data: `${typePrefix(type)}${value.slice(1)}` };
}

/** `XRANGE`'s reply (`[[id, [field, value, ...]], ...]`) as entries; the stream's opening marker is left out. */
export function entriesOf(reply: unknown): StreamEntry[] {
  if (!Array.isArray(reply)) return [];
  const entries: StreamEntry[] = [];
  for (const item of reply as unknown[]) {
    if (!Array.isArray(item)) continue;
    const [rawId, rawFields] = item as [unknown, unknown];
    const id = Number(text(rawId).split('-')[0]);
    const fields = fieldsOf(rawFields);
    const value = fields.get('e');
    const entry = value !== undefined ? decodeEntry(id, value) : undefined;
    if (entry !== undefined) entries.push(entry);
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

/**
 * `XREAD`'s reply as `[key, entries]` pairs: `[[key, entries], ...]` (RESP2), or a map of key to entries (RESP3).
 *
 * @example
 * ```ts
 * streamsOf([['k', [['1-0', ['e', 'z']]]]]); // [['k', [['1-0', ['e', 'z']]]]]
 * ```
 */
export function streamsOf(reply: unknown): Array<readonly [string, unknown]> {
  if (reply === null || reply === undefined) return [];
  if (Array.isArray(reply)) {
    return reply.flatMap((item: unknown) => (Array.isArray(item) ? [[text(item[0]), item[1]] as const] : []));
  }
  if (reply instanceof Map) return [...reply.entries()].map(([key, value]: [unknown, unknown]) => [text(key), value] as const);
  if (typeof reply === 'object') return Object.entries(reply);
  return [];
}
