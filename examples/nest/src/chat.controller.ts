import { BadRequestException, Controller, Inject, Logger, MessageEvent, Query, Sse } from '@nestjs/common';
import { Observable, tap } from 'rxjs';
import { fromFetch } from 'rxjs/fetch';
import { assembleChunks, decodeUtf8, fromResponse, sseFrames, toMessageEvents } from '../../../src/index';

/** The injection token of the upstream server's base URL (`http://127.0.0.1:8080`, no trailing path). */
export const UPSTREAM_URL = 'UPSTREAM_URL';

/**
 * A recording path under the upstream server: folders without dots, then a file name that ends in
 * `.sse`. No `..`, no scheme, no leading slash: resolved against the upstream URL, anything else
 * could send the request to another host or outside the recordings.
 */
const RECORDING = /^(?:[\w-]+\/)*[\w-]+(?:\.[\w-]+)*\.sse$/;

/** The replay server's knobs that the client may pass through (`?stall=300&delay=20`). */
const FORWARDED = ['chunk', 'delay', 'stall', 'truncate', 'drop', 'reset', 'status'] as const;

/**
 * `GET /chat?recording=openai/text.sse`: streams the upstream reply to the client as Server-Sent
 * Events, one per `ChatEvent` (`event:` its type, `id:` a running number, `data:` the event as JSON).
 *
 * The response is always `200 text/event-stream`. When the upstream fails (an error status, a body
 * cut off before its end signal, a malformed stream, a refused connection), `toMessageEvents` ends
 * the stream with one `event: error` whose data is the library's `StreamErrorData`, after whatever
 * events had arrived: a client reading with `assembleChunks({ dialect: 'chat-events' })` rebuilds it
 * as the same error class, with the completion so far. The failure itself is logged here.
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
      // toMessageEvents turns a failure into the client's last event; the server's log keeps the
      // whole error, whose cause (a refused connection) may name hosts the client must not see.
      tap({ error: (error: unknown) => this.logger.warn(`upstream failed: ${error instanceof Error ? error.message : String(error)}`) }),
      toMessageEvents(),
    );
  }
}
