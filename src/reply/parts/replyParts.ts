import { audioPart } from './audio.js';
import { finishDetailsPart } from './finishDetails.js';
import { logprobsPart } from './logprobs.js';
import { opaqueItemsPart } from './opaqueItems.js';
import { providerMetadataPart } from './providerMetadata.js';
import { providerToolCallsPart } from './providerToolCalls.js';
import type { ReplyPart, ReplyPartField } from './ReplyPart.js';

/** A declaration of any part, its state type forgotten: states are only ever given back to their own part. */
export type SomeReplyPart = ReplyPart<ReplyPartField, unknown>;
import { sourcesPart } from './sources.js';
import { toolRequestsPart } from './toolRequests.js';

/**
 * Every optional part of a choice beside its text, calls and finish, declared once each: a new part
 * is its declaration and one line here (and the event that carries it, and the dialect that reads it).
 *
 * @example
 * ```ts
 * REPLY_PARTS.map((part) => part.field);
 * // ['logprobs', 'sources', 'audio', 'finishDetails', 'providerToolCalls', 'toolRequests', 'opaqueItems', 'providerMetadata']
 * ```
 */
export const REPLY_PARTS: readonly SomeReplyPart[] = [
  logprobsPart,
  sourcesPart,
  audioPart,
  finishDetailsPart,
  providerToolCallsPart,
  toolRequestsPart,
  opaqueItemsPart,
  providerMetadataPart,
].map(
  // Each declaration is used only with the state it made itself: its state type can be forgotten here.
  (part) => part as unknown as SomeReplyPart,
);

/** The position in `REPLY_PARTS` of the part each event type carries. */
export const PART_OF_EVENT: ReadonlyMap<string, number> = new Map(
  REPLY_PARTS.flatMap((part, position) => part.events.map((type) => [type, position] as const)),
);

/**
 * The parts a completion or snapshot shows at its top level as choice 0's. `providerMetadata` is not
 * one: the top level has the reply's own.
 */
export const CHOICE_ZERO_PARTS: readonly ReplyPartField[] = REPLY_PARTS.map((part) => part.field).filter(
  (field) => field !== 'providerMetadata',
);
