import { ProtocolError } from '../errors/errors.js';
import { SseFrame } from '../frames/SseParser.js';

/**
 * The pure core of `encodeSse`: writes frames back to the event-stream format, so that `SseParser`
 * reads back exactly the frames written. `id` and `retry` persist in the format, so each is written
 * only when it differs from what the reader already holds.
 *
 * @example
 * ```ts
 * import { SseEncoder } from 'rxjs-llm-stream/core';
 *
 * const encoder = new SseEncoder();
 * encoder.encode({ event: 'message', data: 'a\nb', id: '' }); // 'data: a\ndata: b\n\n'
 * ```
 */
export class SseEncoder {
  private lastId = '';
  private lastRetry: number | undefined = undefined;

  /** The text of one frame, ending with its blank line. */
  encode(frame: SseFrame): string {
    let text = '';
    if (frame.event !== 'message' && frame.event !== '') {
      if (/[\r\n]/.test(frame.event)) throw new ProtocolError(`an event name cannot hold a line end: ${JSON.stringify(frame.event)}`);
      text += `event: ${frame.event}\n`;
    }
    if (frame.id !== this.lastId) {
      if (/[\r\n\0]/.test(frame.id)) throw new ProtocolError(`an event id cannot hold a line end or NUL: ${JSON.stringify(frame.id)}`);
      text += frame.id === '' ? 'id\n' : `id: ${frame.id}\n`;
      this.lastId = frame.id;
    }
    if (frame.retry !== undefined && frame.retry !== this.lastRetry) {
      if (!Number.isSafeInteger(frame.retry) || frame.retry < 0)
        throw new ProtocolError(`retry must be a whole number of milliseconds, got ${frame.retry}`);
      text += `retry: ${frame.retry}\n`;
      this.lastRetry = frame.retry;
    }
    // Each line of the data is one `data:` line; the reader joins them with LF again. A CR or CRLF in
    // the data would end a line too, so it comes back as LF.
    for (const line of frame.data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
    return `${text}\n`;
  }
}
