import { Body, Controller, Headers, HttpCode, Inject, Logger, NotFoundException, Param, Post, Get, Query, Res } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { fromFetch } from 'rxjs/fetch';
import { assembleChunks, decodeUtf8, fromResponse, groupToolCallsByIndex, sseFrames, type Demand } from 'rxjs-llm-stream';
import { SlowClientError, StreamRelay, type RelayFormatName } from 'rxjs-llm-stream/relay';

/** The injection tokens: the relay of this instance, and the upstream's chat completions URL. */
export const RELAY = 'RELAY';
export const UPSTREAM_URL = 'UPSTREAM_URL';

/** The format a client asks for: `?format=ui-message-stream` or `x-stream-format: ui-message-stream`. */
function formatOf(query: string | undefined, header: string | undefined): RelayFormatName {
  return (query ?? header) === 'ui-message-stream' ? 'ui-message-stream' : 'chat-events';
}

/**
 * The relay's HTTP contract:
 *
 * - `POST /chat` (a chat completions body): starts a reply from the upstream and answers it as SSE,
 *   an `id:` on every event, the stream's id in `x-stream-id`;
 * - `GET /chat/:streamId/stream` (with `Last-Event-ID`, or `?lastEventId=`): the rest of that reply,
 *   from whichever instance produces it, to its end; `204` when there is nothing to send;
 * - `POST /chat/:streamId/stop`: ends the generation wherever it runs (`202`; `404` when no live
 *   stream has that id).
 *
 * The handlers write to the response themselves (`@Res()`): `@Sse()` would queue every event without a
 * bound while a client is slow, and the relay's sink instead holds the upstream back.
 */
@Controller('chat')
export class ChatController {
  private readonly logger = new Logger(ChatController.name);

  constructor(
    @Inject(RELAY) private readonly relay: StreamRelay,
    @Inject(UPSTREAM_URL) private readonly upstreamUrl: string,
  ) {}

  @Post()
  chat(
    @Body() body: Record<string, unknown>,
    @Res() response: ServerResponse,
    @Query('format') format?: string,
    @Headers('x-stream-format') formatHeader?: string,
  ): void {
    // The upstream is read by demand: at this client's pace while it is attached, so that a slow
    // client holds the provider's socket back instead of this server's memory filling up.
    const reply = (demand: Demand) =>
      fromFetch(this.upstreamUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ ...body, stream: true }),
        selector: (upstream) => fromResponse(upstream, { demand }),
      }).pipe(decodeUtf8(), sseFrames(), assembleChunks(), groupToolCallsByIndex());
    this.relay
      .start(reply, response, { format: formatOf(format, formatHeader) })
      .subscribe({ error: (error: unknown) => this.warn(error) });
  }

  @Get(':streamId/stream')
  stream(
    @Param('streamId') streamId: string,
    @Res() response: ServerResponse,
    @Headers('last-event-id') lastEventId?: string,
    @Query('lastEventId') offset?: string,
    @Query('format') format?: string,
    @Headers('x-stream-format') formatHeader?: string,
  ): void {
    const after = lastEventId ?? offset;
    this.relay
      .serve(streamId, response, { format: formatOf(format, formatHeader), ...(after === undefined ? {} : { lastEventId: after }) })
      .subscribe({ error: (error: unknown) => this.warn(error) });
  }

  @Post(':streamId/stop')
  @HttpCode(202)
  async stop(@Param('streamId') streamId: string): Promise<{ stopped: string }> {
    if (!(await this.relay.stop(streamId))) throw new NotFoundException(`no live stream ${streamId}`);
    return { stopped: streamId };
  }

  /** A dropped client or a failed store, for the log (a client that left is not an error). */
  private warn(error: unknown): void {
    const what = error instanceof SlowClientError ? 'dropped a slow client' : 'relay failed';
    this.logger.warn(`${what}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
