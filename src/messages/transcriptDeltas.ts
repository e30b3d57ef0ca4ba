import { Observable, OperatorFunction } from 'rxjs';
import { TranscriptPublisher, Utf8TranscriptPublisher } from './TranscriptPublisher.js';
import { LlmStreamError, ProtocolError, StreamClosedEarlyError } from '../errors/errors.js';
import { parseErrorBody, providerErrorFromBody } from '../errors/errorBody.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';
import { describeFailure } from '../io/transportFailure.js';

/** Options of `transcriptDeltas`. */
export interface TranscriptDeltasOptions {
  /**
   * What to do when a transcript revises text already published.
   *
   * `'restart'` (the default): emit the next delta from the divergence, as `TranscriptPublisher`
   * does (a consumer that only appends then shows the old text followed by the new).
   * `'error'`: error with a `ProtocolError` naming the offset, for consumers that cannot retract.
   */
  readonly onRevision?: 'restart' | 'error';
}

/**
 * Turns a stream of running transcripts (each the whole text so far) into a stream of deltas (the
 * text new in each), over strings or over UTF-8 bytes.
 *
 * A delta never ends inside a character: a trailing high surrogate (strings) or incomplete UTF-8
 * sequence (bytes) is held back until a later transcript completes it; only non-empty deltas are
 * emitted. A transcript that revises published text restarts at the divergence, or errors under
 * `{ onRevision: 'error' }`. If the source completes while part of a character is held back, the
 * transcript ended mid-character and the result errors with `StreamClosedEarlyError` whose `partial`
 * is the text published. The kind of the first value (string or `Uint8Array`) fixes the stream's
 * kind; a value of the other kind is a `ProtocolError`.
 *
 * The source is a transport (an `HttpClient` request, a recognizer), so its failures end typed,
 * with what was published as `partial`: Angular's `HttpErrorResponse` with an error status is a
 * `ProviderError` carrying the status and the provider's error body; any other failure (status 0:
 * a reset connection, a network error) is a `StreamClosedEarlyError` whose `cause` is the source's
 * error. The trackers after `assembleChunks` (`finalizeCompletion`, `scanCompletion`) then put the
 * completion so far in the `partial`.
 *
 * Intuition: `pairwise` and `slice`, minus the half characters.
 *
 * ```
 * transcripts: --"He"--"Hello"--"Hello!"--|
 * deltas:      --"He"--"llo"----"!"-------|
 * ```
 *
 * @example
 * ```ts
 * import { filter, map } from 'rxjs';
 * import { sseFrames, transcriptDeltas } from 'rxjs-llm-stream';
 *
 * // Angular's HttpClient, with `reportProgress` and `responseType: 'text'`, reports the whole body
 * // so far as `partialText`: a running transcript.
 * http.request(req).pipe(
 *   filter((e): e is HttpDownloadProgressEvent => e.type === HttpEventType.DownloadProgress),
 *   map((e) => e.partialText ?? ''),
 *   transcriptDeltas(),
 *   sseFrames(),
 * );
 * ```
 *
 * @param options `onRevision`: `'restart'` (the default) or `'error'`.
 * @returns An operator from transcripts to deltas of the same kind (`string` or `Uint8Array`).
 */
export function transcriptDeltas<T extends string | Uint8Array>(
  options: TranscriptDeltasOptions = {},
): OperatorFunction<T, T extends string ? string : Uint8Array> {
  const restart = options.onRevision !== 'error';
  return (source) =>
    new Observable<T extends string ? string : Uint8Array>((subscriber) => {
      // Per subscription, so that a resubscribe starts with nothing published; created by the first
      // value, whose kind decides which publisher the stream needs.
      let textPublisher: TranscriptPublisher | undefined;
      let bytePublisher: Utf8TranscriptPublisher | undefined;

      const emit = (delta: string | Uint8Array): void => {
        // The kind of a delta is the kind of its transcript, which `T` describes.
        if (delta.length > 0) subscriber.next(delta as T extends string ? string : Uint8Array);
      };
      subscribeLinked(source, subscriber, {
        error(error) {
          subscriber.error(sourceFailure(error, textPublisher?.published ?? bytePublisher?.published));
        },
        next(transcript) {
          if (typeof transcript === 'string') {
            if (bytePublisher !== undefined) throw mixedKinds('a string', 'Uint8Array');
            textPublisher ??= new TranscriptPublisher();
            const before = textPublisher.published;
            const change = textPublisher.publishRevision(transcript);
            if (change.revisedFrom !== null && !restart) throw revisionError(change.revisedFrom, before);
            emit(change.delta);
          } else {
            if (textPublisher !== undefined) throw mixedKinds('a Uint8Array', 'string');
            bytePublisher ??= new Utf8TranscriptPublisher();
            // Only under 'error' is the text before a revision needed, and copying it costs as much as
            // the comparison the publisher makes anyway.
            const before = restart ? undefined : bytePublisher.published;
            const change = bytePublisher.publishRevision(transcript);
            if (change.revisedFrom !== null && before !== undefined) throw revisionError(change.revisedFrom, before);
            emit(change.delta);
          }
        },
        complete() {
          if (textPublisher !== undefined && textPublisher.heldBack > 0) {
            throw new StreamClosedEarlyError('the transcript ended mid-character: it ends in a high surrogate without its low half', {
              reason: 'mid-character',
              partial: textPublisher.published,
            });
          }
          if (bytePublisher !== undefined && bytePublisher.heldBack > 0) {
            const published = bytePublisher.published;
            throw new StreamClosedEarlyError(
              `the transcript ended mid-character: an incomplete UTF-8 sequence starts at byte offset ${published.length}`,
              { reason: 'mid-character', partial: published, position: { byteOffset: published.length } },
            );
          }
          subscriber.complete();
        },
      });
    });
}

/** The shape of Angular's `HttpErrorResponse`, read without importing Angular. */
interface HttpErrorResponseLike {
  readonly name: 'HttpErrorResponse';
  readonly status: number;
  /** The response body for an error status; the underlying error for status 0. */
  readonly error: unknown;
}

function isHttpErrorResponse(error: unknown): error is HttpErrorResponseLike {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { name?: unknown }).name === 'HttpErrorResponse' &&
    typeof (error as { status?: unknown }).status === 'number'
  );
}

/** The typed error for a failure of the source, with what had been published as `partial`. */
function sourceFailure(error: unknown, published: string | Uint8Array | undefined): unknown {
  if (error instanceof LlmStreamError) return error; // a library error upstream: already typed
  const length = published?.length ?? 0;
  const unit = typeof published === 'string' || published === undefined ? 'character' : 'byte';
  const after = length === 0 ? 'before any text arrived' : `after ${length} ${unit}${length === 1 ? '' : 's'}`;
  if (isHttpErrorResponse(error) && error.status !== 0) {
    const body = typeof error.error === 'string' ? parseErrorBody(error.error) : error.error;
    const failure = providerErrorFromBody(body, { status: error.status, cause: error });
    failure.partial = published;
    return failure;
  }
  // Status 0 carries the network's own error; its message says what happened (`terminated`).
  const underlying = isHttpErrorResponse(error) && error.error !== undefined && error.error !== null ? error.error : error;
  return new StreamClosedEarlyError(`the transcript's source failed ${after}: ${describeFailure(underlying)}`, {
    reason: 'transport',
    cause: error,
    partial: published,
  });
}

function mixedKinds(got: string, kind: string): ProtocolError {
  return new ProtocolError(`transcriptDeltas got ${got} in a stream of ${kind} transcripts: a stream keeps one kind`, {
    reason: 'invalid-transcript',
  });
}

/** The error of `onRevision: 'error'`; its `partial` is what had gone out before the revision. */
function revisionError(offset: number, published: string | Uint8Array): ProtocolError {
  if (typeof published === 'string') {
    return new ProtocolError(`the transcript revised text already published, from code unit offset ${offset}`, {
      reason: 'invalid-transcript',
      partial: published,
    });
  }
  return new ProtocolError(`the transcript revised text already published, from byte offset ${offset}`, {
    reason: 'invalid-transcript',
    partial: published,
    position: { byteOffset: offset },
  });
}
