/**
 * The Responses events that carry nothing the dialect has not read elsewhere: the lifecycle events
 * (their `response` is read for the start), the content parts that frame the text, the `.done`
 * events that repeat a part's whole text, and the heartbeat. Any other event the dialect does not
 * read (a built-in tool's progress, a type yet to come) is passed on as `unknown` (with
 * `unknownEvents`).
 */
export const FRAMING_EVENTS: ReadonlySet<string> = new Set([
  'keepalive',
  'response.created',
  'response.queued',
  'response.in_progress',
  'response.content_part.added',
  'response.content_part.done',
  'response.output_text.done',
  'response.refusal.done',
  'response.reasoning_summary_part.added',
  'response.reasoning_summary_part.done',
  'response.reasoning_summary_text.done',
  'response.reasoning_text.done',
]);
