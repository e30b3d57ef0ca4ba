import { BadRequestException, Controller, Inject, Logger, MessageEvent, Query, Sse } from '@nestjs/common';
import { MonoTypeOperatorFunction, Observable, catchError, defer, of, tap } from 'rxjs';
import { fromFetch } from 'rxjs/fetch';
import {
  ProviderError,
  SseMessageEvent,
  assembleChunks,
  decodeUtf8,
  fromResponse,
  isLlmStreamError,
  sseFrames,
  toMessageEvents,
} from '../../../src/index';

/** The injection token of the upstream server's base URL (`http://127.0.0.1:8080`, no trailing path). */
export const UPSTREAM_URL = 'UPSTREAM_URL';

/**
 * A recording path under the upstream server: folders without dots, then a file name that ends in
 * `.sse`. No `..`, no scheme, no leading slash: resolved against the upstream URL, anything else
 * could send the request to another host or outside the recordings.
 */
const RECORDING = /^(?:[\w-]+\/)*[\w-]+(?:\.[\w-]+)*\.sse$/;

/** The replay server's knobs that the client may pass through (`?stall=300&delay=20`). */
const FORWARDED = ['chunk', 'delay', 'stall', 'truncate', 'drop', 'status'] as const;

/** The data of the final `error` event: what went wrong upstream, without the partial reply. */
export interface UpstreamErrorData {
  readonly name: string;
  readonly message: string;
  /** The upstream HTTP status, for a `ProviderError` that came with one. */
  readonly status?: number;
}

/**
 * `GET /chat?recording=openai/text.sse`: streams the upstream reply to the client as Server-Sent
 * Events, one per `ChatEvent` (`event:` its type, `id:` a running number, `data:` the event as JSON).
 *
 * The response is always `200 text/event-stream`. When the upstream fails (an error status, a body
 * cut off before its end signal, a malformed stream, a refused connection), the stream ends with one
 * `event: error` whose data is {@link UpstreamErrorData}, after whatever events had arrived.
 */
@Controller()
export class ChatController {
  private readonly logger = new Logger(ChatController.name);

  constructor(@Inject(UPSTREAM_URL) private readonly upstreamUrl: string) {}

  @Sse('chat')
  chat(@Query() query: Record<string, unknown>): Observable<MessageEvent> {
    const recording = query['recording'];
    if (typeof recording !== 'string' || !RECORDING.test(recording)) {
      throw new BadRequestException('recording must be a path like openai/text.sse');
    }
    const url = new URL(recording, this.upstreamUrl.endsWith('/') ? this.upstreamUrl : `${this.upstreamUrl}/`);
    for (const name of FORWARDED) {
      const value = query[name];
      if (typeof value === 'string') url.searchParams.set(name, value);
    }
    // fromFetch aborts the request when Nest unsubscribes (the client went away), and fromResponse
    // cancels the body reader: the upstream connection closes at once, however long it had to go.
    return fromFetch(url.href, { headers: { accept: 'text/event-stream' }, selector: (response) => fromResponse(response) }).pipe(
      decodeUtf8(),
      sseFrames(),
      assembleChunks(),
      toMessageEvents(),
      endWithErrorEvent(this.logger),
    );
  }
}

/**
 * Turns an error into one last `error` event, numbered after the events before it, and completes.
 *
 * Left to Nest, an error would be answered by an exception filter (a JSON 500) if it came before the
 * SSE headers were written, or by an `error` event saying only "Internal server error" (numbered 1,
 * as Nest counts only the events it numbered itself) if it came after: which one depends on timing.
 * Catching it here gives every client the same ending, with the reason.
 */
function endWithErrorEvent(logger: Logger): MonoTypeOperatorFunction<SseMessageEvent> {
  return (source) =>
    defer(() => {
      let lastId = 0;
      return source.pipe(
        tap((event) => (lastId = Number(event.id))),
        catchError((error: unknown) => {
          logger.warn(`upstream failed after ${lastId} event(s): ${error instanceof Error ? error.message : String(error)}`);
          return of<SseMessageEvent>({ type: 'error', id: String(lastId + 1), data: JSON.stringify(errorData(error)) });
        }),
      );
    });
}

function errorData(error: unknown): UpstreamErrorData {
  if (error instanceof ProviderError) {
    return { name: error.name, message: error.message, ...(error.status === undefined ? {} : { status: error.status }) };
  }
  if (isLlmStreamError(error)) return { name: error.name, message: error.message };
  // A transport failure (connection refused, reset): its message may name internal hosts.
  return { name: 'UpstreamUnavailable', message: 'the upstream request failed' };
}
