import { DialectOptions } from '../../src/dialects/Dialect';
import { openaiResponses } from '../../src/dialects/openai-responses/openaiResponses';
import { ChatEvent } from '../../src/types/events';
import { Assembled, assembleAtEverySize as atEverySize, typedEvent } from '../support/dialect';

/** What the Responses specs share: SSE events as the wire has them, the stream's first and last, and a reading at every chunk size. */

export const ev = typedEvent;

/** The stream read whole; every chunking must give the same events and the same completion or error. */
export const assembleAtEverySize = (text: string, dialect: DialectOptions = {}): Assembled =>
  atEverySize(text, openaiResponses, { dialect });

export const types = (events: ChatEvent[]): ChatEvent['type'][] => events.map((e) => e.type);

export const CREATED = ev(
  '{"type":"response.created","response":{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-5","output":[],' +
    '"usage":null}}',
);
export const COMPLETED = ev('{"type":"response.completed","response":{"id":"resp_1","status":"completed","model":"gpt-5","output":[]}}');
