import { Observable, OperatorFunction, concat, from, NEVER, pipe } from 'rxjs';
import { assembleChunks } from '../../../src/assembleChunks';
import { awsEventStreamFrames } from '../../../src/awsEventStreamFrames';
import { SseFrame } from '../../../src/core/SseParser';
import { decodeUtf8 } from '../../../src/decodeUtf8';
import { Completion } from '../../../src/events';
import { finalizeCompletion } from '../../../src/finalizeCompletion';
import { groupToolCallsByIndex } from '../../../src/groupToolCallsByIndex';
import { ndjsonFrames } from '../../../src/ndjsonFrames';
import { sseFrames } from '../../../src/sseFrames';
import { ProviderStream } from '../../../src/testing/ProviderStream';
import { Outcome, collectSync } from '../../support/collect';

/** The framing the README's pipeline puts before `assembleChunks` for a body of this content type. */
export function framesFor(contentType: string): OperatorFunction<Uint8Array, SseFrame> {
  if (contentType.startsWith('application/x-ndjson')) return pipe(decodeUtf8(), ndjsonFrames());
  if (contentType.startsWith('application/vnd.amazon.eventstream')) return awsEventStreamFrames();
  return pipe(decodeUtf8(), sseFrames());
}

/** The README's whole pipeline for a stream of the kit, with the stream's own dialect. */
export function readmePipeline(stream: ProviderStream): OperatorFunction<Uint8Array, Completion> {
  return pipe(framesFor(stream.contentType), assembleChunks({ dialect: stream.dialect }), groupToolCallsByIndex(), finalizeCompletion());
}

/** The stream's chunks as a source: ending after the last, or, for a stall, staying open and silent. */
export function bodyOf(stream: ProviderStream): Observable<Uint8Array> {
  return stream.stalls ? concat(from(stream.chunks), NEVER) : from(stream.chunks);
}

/** A stream of the kit through the README's pipeline, synchronously: the completion, or the error. */
export function assemble(stream: ProviderStream): Outcome<Completion> {
  return collectSync(bodyOf(stream).pipe(readmePipeline(stream)));
}
