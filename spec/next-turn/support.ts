import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttp2Server, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { StreamClosedEarlyError } from '../../src/errors/errors';
import type { DialectName } from '../../src/dialects/registry';
import type { Completion, CompletionSnapshot } from '../../src/types/completion';
import { type Framing, readReply } from '../support/pipeline';

// The "type-check" case of each spec in this folder assigns the built turn and results to the SDK's
// request types. Jest compiles specs with `isolatedModules` (no type check), so a type error there
// fails `npm run typecheck` (`tsc` over spec/), which `npm test` runs before Jest, not the Jest run.

/** A recorded stream of the repository, by its path under `marbles/`. */
export function marble(path: string): Buffer {
  return readFileSync(join(__dirname, '..', '..', 'marbles', path));
}

/** The `data:` payloads of an SSE text, parsed: read here, apart from the library, to know what the stream carried. */
export function ssePayloads(text: string): Record<string, unknown>[] {
  return text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:') && line.slice(5).trim() !== '[DONE]')
    .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>);
}

/** The completion a recorded stream assembles to through the README pipeline. */
export function completionOf(body: string | Uint8Array, dialect: DialectName, framing: Framing = 'sse'): Completion {
  const read = readReply(body, dialect, framing);
  if (read.error !== undefined) throw read.error;
  return read.completion!;
}

/** The `partial` of the error a stream cut short ends in. */
export function partialOf(body: string | Uint8Array, dialect: DialectName, framing: Framing = 'sse'): CompletionSnapshot {
  const read = readReply(body, dialect, framing);
  if (!(read.error instanceof StreamClosedEarlyError)) throw new Error(`expected a StreamClosedEarlyError, got ${String(read.error)}`);
  return read.error.partial as CompletionSnapshot;
}

/** A provider's stand-in on a free port of 127.0.0.1: it keeps every request body and answers each with `reply`. */
export interface CapturingServer {
  readonly url: string;
  readonly bodies: unknown[];
  readonly paths: string[];
  close(): Promise<void>;
}

/**
 * `http2`: a server that speaks HTTP/2 without TLS (the AWS SDK's Bedrock client speaks only HTTP/2 to
 * an `http:` endpoint).
 */
export async function capturingServer(
  reply: (request: IncomingMessage | Http2ServerRequest) => { type: string; body: Uint8Array | string },
  protocol: 'http1' | 'http2' = 'http1',
): Promise<CapturingServer> {
  const bodies: unknown[] = [];
  const paths: string[] = [];
  const handle = (request: IncomingMessage | Http2ServerRequest, response: ServerResponse | Http2ServerResponse): void => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      paths.push(request.url ?? '');
      const text = Buffer.concat(chunks).toString('utf8');
      bodies.push(text === '' ? undefined : JSON.parse(text));
      const answer = reply(request);
      response.writeHead(200, { 'content-type': answer.type });
      response.end(answer.body);
    });
  };
  const server = protocol === 'http2' ? createHttp2Server(handle) : createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    paths,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

/** Every `[key]` value found anywhere in `value`, depth first: what a captured body carries, wherever it sits. */
export function valuesOf(value: unknown, key: string): unknown[] {
  const found: unknown[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (typeof node === 'object' && node !== null) {
      for (const [name, child] of Object.entries(node)) {
        if (name === key) found.push(child);
        visit(child);
      }
    }
  };
  visit(value);
  return found;
}
