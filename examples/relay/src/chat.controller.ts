import {
  BadRequestException,
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Inject,
  Logger,
  NotFoundException,
  Param,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fromFetch } from 'rxjs/fetch';
import { assembleChunks, decodeUtf8, fromResponse, groupToolCallsByIndex, sseFrames, type Demand } from 'rxjs-llm-stream';
import { SlowClientError, StreamRelay, randomStreamId, type RelayFormatName } from 'rxjs-llm-stream/relay';

/** The injection tokens: the relay of this instance, and the upstream it calls. */
export const RELAY = 'RELAY';
export const UPSTREAM = 'UPSTREAM';

/**
 * The upstream, as the server configures it: the browser chooses none of it. The key comes from the
 * server's environment and goes to this URL only, as `Authorization: Bearer`.
 */
export interface Upstream {
  /** An OpenAI-compatible chat completions endpoint. */
  readonly url: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set (`UPSTREAM_API_KEY`). */
  readonly apiKey: string | undefined;
  readonly model: string;
  readonly maxTokens: number;
}

/** The cookie that stands for the app's own authentication here: an unguessable id per browser. */
const SESSION_COOKIE = 'relay-session';

/** The session id a request carries, if any. */
export function sessionOf(request: IncomingMessage): string | undefined {
  for (const pair of (request.headers.cookie ?? '').split(';')) {
    const [name, value] = pair.trim().split('=');
    if (name === SESSION_COOKIE && value !== undefined && /^[A-Za-z0-9_-]{32}$/.test(value)) return value;
  }
  return undefined;
}

/** A message the browser may send: its own turns of the conversation, nothing else. */
interface ChatMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

/** The most messages, and characters of one, a browser may send. */
const MAX_MESSAGES = 100;
const MAX_CONTENT = 32_000;

/** The `messages` of a browser's body, checked: the one field passed on to the upstream. */
function messagesOf(body: unknown): ChatMessage[] {
  const messages = typeof body === 'object' && body !== null ? (body as { messages?: unknown }).messages : undefined;
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > MAX_MESSAGES) {
    throw new BadRequestException(`messages must be an array of 1 to ${MAX_MESSAGES} messages`);
  }
  return messages.map((message: unknown) => {
    const { role, content } = (typeof message === 'object' && message !== null ? message : {}) as Record<string, unknown>;
    if ((role !== 'user' && role !== 'assistant') || typeof content !== 'string' || content.length > MAX_CONTENT) {
      throw new BadRequestException(`each message needs a role (user or assistant) and a content of at most ${MAX_CONTENT} characters`);
    }
    return { role, content };
  });
}

/** The format a client asks for: `?format=ui-message-stream` or `x-stream-format: ui-message-stream`. */
function formatOf(query: unknown, header: string | undefined): RelayFormatName {
  return (query ?? header) === 'ui-message-stream' ? 'ui-message-stream' : 'chat-events';
}

/**
 * The relay's HTTP contract:
 *
 * - `POST /chat` (`{ messages }`): starts a reply from the upstream and answers it as SSE, an `id:`
 *   on every event, the stream's id in `x-stream-id`. Only the messages are passed on: the model, the
 *   token limit and the key are the server's;
 * - `GET /chat/:streamId/stream` (with `Last-Event-ID`, or `?lastEventId=`): the rest of that reply,
 *   from whichever instance produces it, to its end; `204` when there is nothing to send, `400` for a
 *   malformed `Last-Event-ID`, `403` for a stream another session started;
 * - `POST /chat/:streamId/stop`: ends the generation wherever it runs (`202`; `404` when no live
 *   stream of this session has that id).
 *
 * Who asks is told by a session cookie (`relay-session`, an unguessable id set at the first `POST`):
 * it stands for your app's own authentication. The relay keeps the starter's id with the stream and
 * `authorize` (in main.ts) compares it with the asker's.
 *
 * The handlers write to the response themselves (`@Res()`): `@Sse()` would queue every event without a
 * bound while a client is slow, and the relay's sink instead holds the upstream back.
 */
@Controller('chat')
export class ChatController {
  private readonly logger = new Logger(ChatController.name);

  constructor(
    @Inject(RELAY) private readonly relay: StreamRelay<string>,
    @Inject(UPSTREAM) private readonly upstream: Upstream,
  ) {}

  @Post()
  chat(
    @Body() body: unknown,
    @Req() request: IncomingMessage,
    @Res() response: ServerResponse,
    @Query('format') format?: unknown,
    @Headers('x-stream-format') formatHeader?: string,
  ): void {
    let messages: ChatMessage[];
    try {
      messages = messagesOf(body);
    } catch (error) {
      const { message } = error as BadRequestException;
      response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end(`${message}\n`);
      return;
    }
    let session = sessionOf(request);
    if (session === undefined) {
      session = randomStreamId();
      response.setHeader('set-cookie', `${SESSION_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/chat`);
    }
    const { url, apiKey, model, maxTokens } = this.upstream;
    // The upstream is read by demand: at this client's pace while it is attached, so that a slow
    // client holds the provider's socket back instead of this server's memory filling up.
    const reply = (demand: Demand) =>
      fromFetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
        },
        body: JSON.stringify({ model, max_tokens: maxTokens, messages, stream: true }),
        selector: (upstream) => fromResponse(upstream, { demand }),
      }).pipe(decodeUtf8(), sseFrames(), assembleChunks(), groupToolCallsByIndex());
    this.relay
      .start(reply, response, { format: formatOf(format, formatHeader), metadata: { userId: session } })
      .subscribe({ error: (error: unknown) => this.warn(error) });
  }

  @Get(':streamId/stream')
  stream(
    @Param('streamId') streamId: string,
    @Req() request: IncomingMessage,
    @Res() response: ServerResponse,
    @Headers('last-event-id') lastEventId?: string,
    @Query('lastEventId') offset?: unknown,
    @Query('format') format?: unknown,
    @Headers('x-stream-format') formatHeader?: string,
  ): void {
    // Passed as the request carried them: the relay answers 400 for a malformed one (an array, when
    // the query names it twice), rather than leave the request unanswered.
    this.relay
      .serve(streamId, response, {
        format: formatOf(format, formatHeader),
        lastEventId: lastEventId ?? offset,
        context: sessionOf(request),
      })
      .subscribe({ error: (error: unknown) => this.warn(error) });
  }

  @Post(':streamId/stop')
  @HttpCode(202)
  async stop(@Param('streamId') streamId: string, @Req() request: IncomingMessage): Promise<{ stopped: string }> {
    if (!(await this.relay.stop(streamId, { context: sessionOf(request) })))
      throw new NotFoundException('no live stream of yours has that id');
    return { stopped: streamId };
  }

  /** A dropped client or a failed store, for the log (a client that left is not an error). */
  private warn(error: unknown): void {
    const what = error instanceof SlowClientError ? 'dropped a slow client' : 'relay failed';
    this.logger.warn(`${what}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
