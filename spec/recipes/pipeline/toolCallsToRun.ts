import { Observable, mergeMap } from 'rxjs';
import { assembleChunks, decodeUtf8, finalizeCompletion, idleTimeout, sseFrames, type ToolCall } from 'rxjs-llm-stream';

/**
 * The tool calls an agent runs from a streamed reply: only once the reply has ended whole, each with
 * its arguments parsed. A reply cut off fails with a StreamClosedEarlyError, one silent for 30 s
 * with a StreamIdleError: no call of a broken reply is ever run.
 */
export function toolCallsToRun(bytes$: Observable<Uint8Array>): Observable<ToolCall> {
  return bytes$.pipe(
    decodeUtf8(),
    idleTimeout(30_000),
    sseFrames(),
    assembleChunks(),
    finalizeCompletion(),
    mergeMap((completion) => completion.toolCalls),
  );
}
