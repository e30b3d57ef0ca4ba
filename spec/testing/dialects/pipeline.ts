import { Observable, OperatorFunction, concat, from, NEVER, pipe } from 'rxjs';
import { assembleChunks } from '../../../src/reply/assembleChunks';
import { awsEventStreamFrames } from '../../../src/frames/awsEventStreamFrames';
import { SseFrame } from '../../../src/frames/SseParser';
import { decodeUtf8 } from '../../../src/frames/decodeUtf8';
import { Completion } from '../../../src/types/events';
import { finalizeCompletion } from '../../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../../src/reply/groupToolCallsByIndex';
import { ndjsonFrames } from '../../../src/frames/ndjsonFrames';
import { sseFrames } from '../../../src/frames/sseFrames';
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
