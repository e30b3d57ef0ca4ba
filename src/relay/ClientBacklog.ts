import { RelayFrame } from './RelayFormat.js';
import { SseEncoder } from '../ui/SseEncoder.js';

/** A frame waiting, with the texts of the frames merged into it. */
interface Waiting {
  frame: RelayFrame;
  id: string;
  texts: string[];
  bytes: number;
  /** Its bytes as pushed, before anything merged into it. */
  readonly ownBytes: number;
}

/** The bytes of a text in UTF-8, counted without encoding it. */
function byteLength(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 2; // a surrogate pair: 4 bytes for its 2 units
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/**
 * What waits for one client of a relay, counted in bytes: the pure core of `sendSse`. Frames are
 * pushed as the source gives them and taken as one text when the client can take more; while they
 * wait, consecutive frames that may merge (text deltas of one part) become one, so that a slow
 * client gets the same text in fewer, larger events, and nothing is lost. The sink drops the client
 * when `bytesBeyondNext` passes its cap: the next frame, however large (a 700 KB tool call), is
 * written as soon as the socket has room, so its own size never counts against the client.
 *
 * Every frame is written with its own `id:` line, so that whatever the client last saw is a
 * position the relay can resume from.
 *
 * @example
 * ```ts
 * import { ClientBacklog } from 'rxjs-llm-stream/relay';
 *
 * const backlog = new ClientBacklog();
 * backlog.push({ event: 'message', id: '1', data: 'a' });
 * backlog.bytes; // 21
 * backlog.bytesBeyondNext; // 0: the next frame is written whole when the socket has room
 * socket.write(backlog.take()); // 'id: 1\ndata: a\n\n'
 * ```
 */
export class ClientBacklog {
  private waiting: Waiting[] = [];
  private waitingBytes = 0;
  private merged = 0;
  private lastTaken: string | undefined = undefined;

  /** The bytes waiting, as they will be written. */
  get bytes(): number {
    return this.waitingBytes;
  }

  /**
   * The bytes waiting beyond the next frame to be written: all of them but that frame's own bytes as it
   * was pushed (what merged into it since counts). A single event larger than a client's cap is sent
   * whole when the socket has room; what piles up behind it is what the cap bounds.
   */
  get bytesBeyondNext(): number {
    const next = this.waiting[0];
    return next === undefined ? 0 : this.waitingBytes - next.ownBytes;
  }

  /** How many frames wait (after merging). */
  get length(): number {
    return this.waiting.length;
  }

  /** How many frames were merged into the one before them, in all. */
  get mergedCount(): number {
    return this.merged;
  }

  /** The id of the last frame taken: what the client holds once the text is written. */
  get lastTakenId(): string | undefined {
    return this.lastTaken;
  }

  /** The id of the last frame pushed, taken or not. */
  get lastId(): string | undefined {
    return this.waiting.length > 0 ? this.waiting[this.waiting.length - 1]!.id : this.lastTaken;
  }

  /** Adds a frame, merging it into the one waiting before it when both say they may merge. */
  push(frame: RelayFrame): void {
    const last = this.waiting[this.waiting.length - 1];
    if (last !== undefined && frame.merge !== undefined && last.frame.merge?.key === frame.merge.key) {
      // JSON escapes each character on its own, so the merged data grows by the escaped text alone.
      const grown = byteLength(JSON.stringify(frame.merge.text)) - 2 + (byteLength(frame.id) - byteLength(last.id));
      last.texts.push(frame.merge.text);
      last.id = frame.id;
      last.bytes += grown;
      this.waitingBytes += grown;
      this.merged++;
      return;
    }
    const bytes = byteLength(encode(frame, frame.id, frame.data));
    this.waiting.push({ frame, id: frame.id, texts: frame.merge === undefined ? [] : [frame.merge.text], bytes, ownBytes: bytes });
    this.waitingBytes += bytes;
  }

  /** Everything waiting, as event-stream text (`''` when nothing waits), and the backlog emptied. */
  take(): string {
    let text = '';
    for (const { frame, id, texts } of this.waiting) {
      const data = frame.merge === undefined || texts.length === 1 ? frame.data : frame.merge.render(texts.join(''));
      text += encode(frame, id, data);
      this.lastTaken = id;
    }
    this.waiting = [];
    this.waitingBytes = 0;
    return text;
  }
}

/** One frame's text, with its id line always written (a fresh encoder writes any id that is not empty). */
function encode(frame: RelayFrame, id: string, data: string): string {
  return new SseEncoder().encode({ event: frame.event, id, data });
}
