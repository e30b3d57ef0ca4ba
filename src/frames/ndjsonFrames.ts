import { Observable, OperatorFunction } from 'rxjs';
import { NdjsonParser, NdjsonParserOptions } from './NdjsonParser.js';
import { SseFrame } from './SseParser.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';

/**
 * Frames newline-delimited JSON (Ollama's native `/api/chat` and `/api/generate`) as `SseFrame`s, one
 * per line, so the same `assembleChunks` reads it. Lines end in LF, CRLF or CR, over any chunking;
 * blank lines are skipped; a last line with no line end errors with `StreamClosedEarlyError`; a line
 * longer than `maxLineLength` (16 MiB by default) is a `ProtocolError`.
 *
 * ```
 * text:   --'{"a":1}\n{"b"'--':2}\n'--|
 * frames: --{data:'{"a":1}'}--{data:'{"b":2}'}--|
 * ```
 *
 * @example
 * ```ts
 * import { decodeUtf8, ndjsonFrames, assembleChunks, finalizeCompletion } from 'rxjs-llm-stream';
 *
 * ollamaBody$.pipe(decodeUtf8(), ndjsonFrames(), assembleChunks({ dialect: 'ollama' }), finalizeCompletion());
 * ```
 *
 * @param options `maxLineLength`.
 * @returns An operator from text chunks to one `SseFrame` per JSON line.
 */
export function ndjsonFrames(options: NdjsonParserOptions = {}): OperatorFunction<string, SseFrame> {
  return (source) =>
    new Observable<SseFrame>((subscriber) => {
      const parser = new NdjsonParser((frame) => subscriber.next(frame), options);
      subscribeLinked(source, subscriber, {
        next: (text) => parser.push(text),
        complete() {
          parser.end();
          subscriber.complete();
        },
      });
    });
}
