/**
 * The Responses events that carry nothing but the `response` object (read for the start, and its
 * other fields kept), and the heartbeat.
 */
export const LIFECYCLE_EVENTS: ReadonlySet<string> = new Set(['keepalive', 'response.created', 'response.queued', 'response.in_progress']);

/**
 * The Responses events that frame text the dialect reads in other events: the content and summary
 * parts, and the `.done` events that repeat a part's whole text (and the audio's end). What they carry beside is kept on
 * the choice. Any other event the dialect does not read (a built-in tool's progress, a type yet to
 * come) is passed on as `unknown` (with `unknownEvents`).
 */
export const PART_EVENTS: ReadonlySet<string> = new Set([
  'response.content_part.added',
  'response.content_part.done',
  'response.output_text.done',
  'response.refusal.done',
  'response.reasoning_summary_part.added',
  'response.reasoning_summary_part.done',
  'response.reasoning_summary_text.done',
  'response.reasoning_text.done',
  'response.audio.done',
  'response.audio.transcript.done',
]);

/** The events that stream a built-in tool's request or output, read whole in its finished item (see `MAPPED_TOOL_PROGRESS_EVENT`). */
export const TOOL_PROGRESS_EVENTS: ReadonlySet<string> = new Set([
  'response.shell_call_command.added',
  'response.shell_call_command.delta',
  'response.shell_call_command.done',
  'response.shell_call_output_content.delta',
  'response.shell_call_output_content.done',
]);
