import type { MetadataPlace } from '../base/JsonDialectParser.js';

/*
 * The fields `openai-responses` reads at each level of a Responses event, or knows to carry nothing.
 * Every other field is kept as `providerMetadata.openai` where it arrived: on the reply (a lifecycle
 * event and its `response`), on the choice (text events, content parts, the items that are not
 * calls) or on the call (a call item and its fragments). Known to carry nothing, at every level
 * where they appear:
 *
 * - `type`: the event's (or item's, part's) discriminator, read to dispatch;
 * - `sequence_number`: counts the events, different in every one (read only by `strict`);
 * - `item_id`, `output_index`, `content_index`, `summary_index`, `annotation_index`: where in the
 *   output an event belongs, different from item to item and part to part; they match events to
 *   their item and part, and an item's own `id` is the name its events use;
 * - `obfuscation`: random padding that hides the length of a delta;
 * - `text`, `refusal`, `arguments`, `input` of the `.done` events and of a finished part: the whole
 *   text again, which the deltas gave;
 * - `status`: where an item or the response is in its life (`in_progress`, then `completed`); the
 *   finish reason says how the reply ended, and a call item's `incomplete` is read.
 */

/**
 * A lifecycle event (`response.created`, `.queued`, `.in_progress`, `.completed`, `.incomplete`) and
 * the heartbeat: its `response` is read, and llama.cpp's `timings` beside it. Kept on the reply.
 */
export const MAPPED_LIFECYCLE_EVENT: ReadonlySet<string> = new Set(['type', 'sequence_number', 'response', 'timings']);

/**
 * The `response` object that every lifecycle event repeats: its id, model, status (the finish),
 * `incomplete_details`, `error` and usage are read, and llama.cpp's `timings`; `object` names it;
 * `output` repeats the items their own events gave. The rest (`created_at`, `service_tier`,
 * `temperature`, `tools`, `metadata`, ...) is kept on the reply, the last value of each: the
 * terminal event's says how the reply was made (`service_tier` `auto` becomes the tier used).
 */
export const MAPPED_RESPONSE: ReadonlySet<string> = new Set([
  'id',
  'object',
  'model',
  'status',
  'incomplete_details',
  'error',
  'output',
  'usage',
  'timings',
]);

/** `response.output_item.added` and `.done`: the item (read by its kind) and where it is. Kept where the item is. */
export const MAPPED_ITEM_EVENT: ReadonlySet<string> = new Set(['type', 'sequence_number', 'output_index', 'item']);

/**
 * The events of text and its parts, kept on the choice: the deltas of content, refusal and reasoning
 * (with their `logprobs`), an annotation, the content and summary parts opened and finished, and the
 * `.done` events that repeat a part's text.
 */
export const MAPPED_TEXT_EVENT: ReadonlySet<string> = new Set([
  'type',
  'sequence_number',
  'item_id',
  'output_index',
  'content_index',
  'summary_index',
  'annotation_index',
  'delta',
  'logprobs',
  'obfuscation',
  'annotation',
  'part',
  'text',
  'refusal',
]);

/**
 * A content part (`output_text`, `refusal`) or reasoning part (`summary_text`, `reasoning_text`) as
 * `content_part` and `reasoning_summary_part` events frame it: its text streams in deltas, its
 * annotations in their own events, its log probabilities with the deltas. Kept on the choice.
 */
export const MAPPED_PART: ReadonlySet<string> = new Set(['type', 'text', 'refusal', 'annotations', 'logprobs']);

/**
 * The fragments of a call (`response.function_call_arguments.delta` / `.done`,
 * `response.custom_tool_call_input.delta` / `.done`): the piece of text, the name `.done` may give.
 * Kept on the call.
 */
export const MAPPED_CALL_EVENT: ReadonlySet<string> = new Set([
  'type',
  'sequence_number',
  'item_id',
  'output_index',
  'delta',
  'obfuscation',
  'arguments',
  'input',
  'name',
]);

/**
 * A `function_call` or `custom_tool_call` item: its call id, name, `namespace` and text are read. Kept on the call.
 */
export const MAPPED_CALL_ITEM: ReadonlySet<string> = new Set([
  'id',
  'type',
  'status',
  'call_id',
  'name',
  'namespace',
  'arguments',
  'input',
]);

/**
 * The events that stream a built-in tool's request as it is written (a shell call's commands,
 * `response.shell_call_command.added` / `.delta` / `.done`) or its hosted run's output
 * (`response.shell_call_output_content.delta` / `.done`): the finished item says it all again, and is
 * read. What they carry beside is kept on the choice.
 */
export const MAPPED_TOOL_PROGRESS_EVENT: ReadonlySet<string> = new Set([
  'type',
  'sequence_number',
  'item_id',
  'output_index',
  'command_index',
  'delta',
  'obfuscation',
  'command',
  'output',
]);

/** A `message` item: its text streams in its parts' events, its `role` is always the assistant's. Kept on the choice. */
export const MAPPED_MESSAGE_ITEM: ReadonlySet<string> = new Set(['id', 'type', 'status', 'role', 'content']);

/**
 * A `reasoning` item: its `summary` and `content` stream in their parts' events, its
 * `encrypted_content` is the reasoning signature. Kept on the choice.
 */
export const MAPPED_REASONING_ITEM: ReadonlySet<string> = new Set(['id', 'type', 'status', 'summary', 'content', 'encrypted_content']);

/** Where the fields of text events, parts and items that are not calls are kept: the one choice. */
export const CHOICE: MetadataPlace = { choice: 0 };
