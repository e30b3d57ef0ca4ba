import { SseFrame } from '../../frames/SseParser.js';
import { JsonObject, isJsonObject } from '../../internal/json.js';

/**
 * Helpers for a dialect's end test (`DialectFactory.isFinal`, which `resumeFrames` asks). They run
 * on every frame of a stream that may be resumed, so each first looks for its words in the text
 * and parses only a frame that could be final.
 */

/** The frame's payload when its data mentions `needle` and is a JSON object; else undefined. */
export function payloadMentioning(frame: SseFrame, needle: string): JsonObject | undefined {
  if (!frame.data.startsWith('{') || !frame.data.includes(needle)) return undefined;
  try {
    const payload: unknown = JSON.parse(frame.data);
    return isJsonObject(payload) ? payload : undefined;
  } catch {
    return undefined; // not this test's business: assembleChunks reports a malformed payload
  }
}

/**
 * An end test for formats that name their events: true for a frame whose `event:` or payload
 * `type` is one of `types` (a proxy that drops `event:` lines keeps the type).
 */
export function finalByType(types: ReadonlySet<string>): (frame: SseFrame) => boolean {
  // Quoted, as the payload must hold them: a quote inside a JSON string is escaped, so text that
  // merely mentions "message_stop" does not match.
  const quoted = [...types].map((type) => `"${type}"`);
  return (frame) => {
    if (types.has(frame.event)) return true;
    const named = quoted.find((type) => frame.data.includes(type));
    if (named === undefined) return false;
    const type = payloadMentioning(frame, named)?.['type'];
    return typeof type === 'string' && types.has(type);
  };
}

/**
 * True for a frame that reports an error, in any dialect: `event: error`, a payload of `type`
 * `error`, or one with a non-null top-level `error`. The stream ends there, whatever its format.
 */
export function isErrorFrame(frame: SseFrame): boolean {
  if (frame.event === 'error') return true;
  const payload = payloadMentioning(frame, '"error"');
  if (payload === undefined) return false;
  return payload['type'] === 'error' || (payload['error'] !== undefined && payload['error'] !== null);
}
