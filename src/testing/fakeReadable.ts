import type { Readable } from 'node:stream';
import type { NodeReadableLike } from '../io/NodeReadableLike.js';
import { BodyWatch, ServedBody } from './bodyWatch.js';
import { headersOf } from './fakeResponse.js';
import type { ProviderStream } from './ProviderStream.js';

/**
 * A Node.js `Readable` serving a provider stream, shaped as the response of `http.get`
 * (`statusCode`, `headers`), that says what its consumer did with it. It is a real `Readable`; the
 * type names only what the kit promises, so that no Node.js types reach a browser project.
 */
export interface FakeReadable extends NodeReadableLike, ServedBody, AsyncIterable<Uint8Array> {
  readonly statusCode: number;
  /** The response's headers, lower-case: `content-type`, and any others the stream names. */
  readonly headers: { readonly [name: string]: string | undefined };
  readonly readableEnded: boolean;
}

/** Options of `fakeReadable`. */
export interface FakeReadableOptions {
  /** After the last chunk, the stream fails with this error instead of ending: a reset socket (Node's `Error('aborted')`). */
  readonly error?: Error;
}

/**
 * `node:stream`, found at call time rather than imported, so that the testing entry point loads in
 * a browser (where only this function cannot work).
 */
function nodeStreams(): typeof import('node:stream') {
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const streams = host?.getBuiltinModule?.('node:stream') as typeof import('node:stream') | undefined;
  if (streams === undefined) throw new TypeError('fakeReadable needs Node.js 20.16 or later (process.getBuiltinModule)');
  return streams;
}

/**
 * A real Node.js `Readable` that serves `stream`'s chunks one read at a time, with the stream's
 * status as `statusCode` and its content type in `headers`, as an `http.IncomingMessage` has them:
 * `fromReadableStream` checks them as it checks a response. A stream that stalls stays open and
 * silent after its last chunk. `bodyState` and `cancelled` say what the consumer did: `cancelled`
 * resolves `true` when it destroyed the stream before its end (`fromReadableStream` does on
 * unsubscribe), `false` when it read it to its end.
 *
 * Node.js only (20.16 or later).
 *
 * @example
 * ```ts
 * import { take } from 'rxjs';
 * import { fromReadableStream, decodeUtf8, sseFrames } from 'rxjs-llm-stream';
 * import { fakeReadable, providerStream } from 'rxjs-llm-stream/testing';
 *
 * const response = fakeReadable(providerStream({ choices: [{ text: 'Hello there' }] }, 'openai-chat'));
 * fromReadableStream(response).pipe(decodeUtf8(), sseFrames(), take(1)).subscribe();
 * await response.cancelled; // true: destroyed after the first frame
 * ```
 *
 * @param stream The chunks, status, content type and stall of a reply.
 * @param options `error`: a transport failure after the chunks.
 * @returns A fresh stream: each call serves the chunks anew, from copies.
 */
export function fakeReadable(stream: ProviderStream, options: FakeReadableOptions = {}): FakeReadable {
  const watch = new BodyWatch();
  let next = 0;
  const readable: Readable = new (nodeStreams().Readable)({
    read() {
      const chunk = stream.chunks[next];
      if (chunk !== undefined) {
        next++;
        this.push(chunk.slice());
      } else if (options.error !== undefined) {
        watch.settle('failed');
        this.destroy(options.error);
      } else if (!stream.stalls) {
        this.push(null);
      }
      // A stall pushes nothing: Node asks again only once something has been pushed, which is never.
    },
    destroy(error, callback) {
      // After `end` the stream destroys itself (autoDestroy): that is a body read to its end.
      watch.settle(this.readableEnded ? 'read' : 'cancelled');
      callback(error);
    },
  });
  readable.once('end', () => watch.settle('read'));
  const response = Object.assign(readable, { statusCode: stream.status, headers: headersOf(stream) });
  return watch.attach(response) as unknown as FakeReadable;
}
