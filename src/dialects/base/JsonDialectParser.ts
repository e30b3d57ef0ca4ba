import { JsonTemplateParser } from '../../json/JsonTemplateParser.js';
import { Template, mayChange } from '../../json/jsonTemplate.js';
import { SseFrame } from '../../frames/SseParser.js';
import { LlmStreamError, ProtocolError, ProtocolReason, StreamClosedEarlyError } from '../../errors/errors.js';
import { ChatEvent, JsonValue } from '../../types/events.js';
import type { FinishReasonTable } from '../../types/replyParts.js';
import { normalizeFinishReason } from '../../internal/finishReason.js';
import { JsonObject, copyJson, excerpt, findText, finiteNumber, isJsonObject, nonEmptyString } from '../../internal/json.js';
import { DialectOptions, DialectParser } from '../Dialect.js';
import { describeValue, hasError, isIndex, path } from './payloadValues.js';
import { providerErrorFrom } from './providerError.js';

/**
 * `judgedCalls` before the first shape is judged: frozen, as nothing is noted until `judgeShape` gives
 * a judged shape a list of its own, and a dialect that declares what it keeps never judges one.
 */
const NO_CALLS: unknown[] = Object.freeze([]) as unknown as unknown[];

/** The events that carry the reply itself: before the first, the base watches for text it did not read. */
const OUTPUT_EVENTS: ReadonlySet<ChatEvent['type']> = new Set<ChatEvent['type']>([
  'content',
  'reasoning',
  'reasoning-signature',
  'refusal',
  'tool-call-delta',
  'tool-call',
  'audio',
  'provider-tool-call',
  'provider-tool-result',
  'tool-request',
  'opaque-item',
  // Passed on only when asked for: the user then has the payload, and nothing of it is lost.
  'unknown',
]);

/** The default of `maxToolCalls`: more calls than any real reply makes, fewer than an attack needs. */
const DEFAULT_MAX_TOOL_CALLS = 1024;

/**
 * The default of `maxProviderMetadataChars`: 256 Ki characters of JSON text (a byte each for ASCII)
 * kept per stream of what no field names; a hostile stream cannot grow a reply past it.
 */
export const DEFAULT_MAX_PROVIDER_METADATA_CHARS = 256 * 1024;

/** The keys of an object that are not among the fields a dialect maps there. */
interface UnmappedKeys {
  readonly mapped: ReadonlySet<string>;
  readonly keys: readonly string[];
}

/** A place as the key of what was kept there: `''` the reply, `2` a choice, `2:0` a call. */
function placeKey(place: MetadataPlace): string {
  return place.choice === undefined ? '' : place.call === undefined ? `${place.choice}` : `${place.choice}:${place.call}`;
}

/**
 * A kept value as it is compared with the next one: scalars as they are, objects by their text (a
 * value nested deeper than the stack can write is a `RangeError`, which the caller handles).
 */
function keptForm(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : value;
}

function unmappedKeysOf(object: JsonObject, mapped: ReadonlySet<string>): UnmappedKeys {
  const keys: string[] = [];
  for (const key of Object.keys(object)) if (!mapped.has(key)) keys.push(key);
  return { mapped, keys };
}

/**
 * What the payloads of one shape keep, found by reading one of them: each `keepUnmapped` call's
 * object, fields and place (choice and call, -1 for none), four entries a call, in order; valid while
 * nothing kept has changed (`changes`).
 */
interface ShapeVerdict {
  readonly changes: number;
  readonly calls: readonly unknown[];
}

/** Where kept provider metadata belongs: the reply (nothing), a choice, or a tool call of a choice. */
export interface MetadataPlace {
  readonly choice?: number;
  readonly call?: number;
}

/**
 * Told by a dialect's `visitKept` of each object of a payload that it may pass to `keepUnmapped`:
 * the object, the fields it maps there (the same set it passes), and the place, `undefined` when the
 * place depends on what came before (a call's dense index). `indexFrom` is the object whose `index`
 * field the place was read from (a choice), when there is one.
 */
export type KeptVisitor = (
  object: JsonObject,
  mapped: ReadonlySet<string>,
  place: MetadataPlace | undefined,
  indexFrom?: JsonObject,
) => void;

/**
 * What the payloads of one shape keep, for a dialect that declares its kept objects: nothing new, as
 * long as nothing kept has changed since (`changes`, -1 when not found to); `tries` counts the looks
 * that found otherwise, and stops them.
 */
interface QuietShape {
  readonly changes: number;
  readonly tries: number;
}

/** Looks at a shape that keeps something new before it is taken as one that always may. */
const MAX_QUIET_TRIES = 3;

/** In a shape's verdict, a `keepUnmapped` call whose place does not matter (its object keeps nothing). */
const ANY_PLACE = -2;

/** The reply itself, as a place: one object, not one per call. */
const NOWHERE: MetadataPlace = {};

/**
 * The envelope every JSON dialect shares, so that a dialect is only its mapping from payloads to
 * events. The base counts frames, stops at the format's end and ignores what follows it (under
 * `strict`, a `ProtocolError`), handles `data: [DONE]` as the format says, parses each payload
 * (through `JsonTemplateParser`), turns an error payload into a `ProviderError`, numbers tool calls
 * densely per choice up to `maxToolCalls`, normalizes finish reasons (a choice that made calls and
 * says `stop` finished for its calls), and says in one wording what a stream that ended early
 * lacked: "the stream ended without [DONE] after 4 frames".
 *
 * A dialect declares its end signal (`endSignal`, and `endedBy` when the words differ), what `[DONE]`
 * is to it (`doneFrame`), implements `read(payload, frame)` and calls `endStream()` when the format
 * says the stream is over. Every `ProtocolError` names the frame (`frame 7: choices[0].delta is not
 * an object`, with `position.event`). docs/architecture.md shows a whole dialect.
 *
 * @example
 * ```ts
 * import { JsonDialectParser, dialectFactory } from 'rxjs-llm-stream';
 *
 * class LinesParser extends JsonDialectParser {
 *   protected readonly endSignal = 'an end event';
 *   protected read(payload: { readonly [key: string]: unknown }): void {
 *     const text = this.text(payload['text'], 'text');
 *     if (text) this.emit({ type: 'content', choice: 0, text });
 *     if (payload['end'] === true) {
 *       this.finish(0, 'stop');
 *       this.endStream();
 *     }
 *   }
 * }
 * export const lines = dialectFactory((emit, options) => new LinesParser(emit, options));
 * ```
 */
export abstract class JsonDialectParser implements DialectParser {
  /** Frames read so far: while one is being read, its 1-based number. */
  protected frameCount = 0;
  /** Apply the format exactly instead of absorbing quirks that lose nothing. */
  protected readonly strict: boolean;

  /** The end signal, as "the stream ended without ___" names it: `[DONE]`, `message_stop`. */
  protected abstract readonly endSignal: string;
  /** What ended the stream, as "a frame arrived after ___" names it (default: the end signal). */
  protected readonly endedBy: string | undefined = undefined;
  /**
   * The namespace of what this format sends that no field names (`providerMetadata.openai`): the
   * provider, as the AI SDK names it.
   */
  protected readonly provider: string = 'unknown';
  /** The format's own finish reasons (its record's `finishReasons`), looked up before the shared ones. */
  protected readonly finishReasons: FinishReasonTable | undefined = undefined;
  /** What a frame is called in messages: `line` for the newline-delimited formats. */
  protected readonly unit: 'frame' | 'line' = 'frame';
  /**
   * What `data: [DONE]` is in this format: its end (`end`), a gateway's habit that is skipped and
   * that `strict` refuses (`foreign`, with `formatName` in the message), or a payload like any other.
   */
  protected readonly doneFrame: 'end' | 'foreign' | 'payload' = 'payload';
  /** The format's name in "[DONE] is not part of the ___ stream". */
  protected readonly formatName: string = '';
  /**
   * Frames after the end: skipped, and refused under `strict` (`strict-error`), or always skipped
   * (`ignore`), as the official SDKs skip what follows OpenAI's `[DONE]` and terminal events.
   */
  protected readonly afterEnd: 'strict-error' | 'ignore' = 'strict-error';

  private ended = false;
  private readonly maxToolCalls: number;
  private readonly maxMetadataChars: number;
  /** Characters of provider metadata kept so far, and whether the cap stopped keeping more. */
  private metadataChars = 0;
  private metadataCapped = false;
  /**
   * The unmapped keys of each object seen, by identity, with the fields they were found against. With
   * `reuse`, every payload read through one template is the same objects: a shape's keys are looked
   * for once.
   */
  private unmappedKeys: WeakMap<object, UnmappedKeys> | undefined = undefined;
  /**
   * The last value kept of each unmapped field, per place (`''` the reply, `2` a choice, `2:0` a call):
   * a field every chunk repeats is kept once. Both made at the first use: most dialects keep nothing,
   * and a gateway holds thousands of streams open.
   */
  private lastKept: Map<string, Map<string, unknown>> | undefined = undefined;
  /** Counts the changes of what was kept: a shape's verdict holds while it is the same (see `judgeShape`). */
  private keptChanges = 0;
  /** The verdict on the shape of the payload being read, when it holds: its `keepUnmapped` calls, in order. */
  private settled: ShapeVerdict | undefined = undefined;
  /** The next call of `settled` to compare. */
  private settledCall = 0;
  /** The shape of the payload being read, while it is judged, and what its `keepUnmapped` calls were. */
  private judged: Template | undefined = undefined;
  private judgedCalls: unknown[] = NO_CALLS;
  /** A field the judged payload keeps can differ in the next payload of its shape: no verdict. */
  private judgedChanges = false;
  private readonly unknownEvents: boolean;
  /**
   * Where the first reply text sat that no event was read from (`choices[0].text`), looked for only
   * until the first output event: a stream that ends properly with text there and no output lost
   * its whole reply, and says so instead of passing for an empty answer.
   */
  private unreadText: string | undefined = undefined;
  /** Emits events; until the first output event, through a guard that notes it (then the sink itself). */
  protected emit: (event: ChatEvent) => void;
  /** Calls made so far in each choice: their count is the next dense index. Made at the first call. */
  private callCounts: Map<number, number> | undefined = undefined;

  /**
   * Reads each payload: chunks repeat their envelope, so after two of one shape only the values that
   * vary are parsed (see `JsonTemplateParser`). With `reuse`, a payload read through a template is
   * overwritten by the next one: dialects take the strings and numbers they need out of each payload
   * while reading it and keep no object of it (the recordings spec checks this).
   */
  private readonly json = new JsonTemplateParser({ reuse: true });
  /** A parse offered by `usePreparsed`, waiting for the push of its data. */
  private preparsed: { readonly data: string; readonly value: unknown } | undefined = undefined;

  constructor(
    private readonly sink: (event: ChatEvent) => void,
    options: DialectOptions = {},
  ) {
    this.strict = options.strict === true;
    this.maxToolCalls = options.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
    this.maxMetadataChars = options.maxProviderMetadataChars ?? DEFAULT_MAX_PROVIDER_METADATA_CHARS;
    this.unknownEvents = options.unknownEvents === true;
    // Replaced by the sink at the first output event: the guard costs nothing after it.
    this.emit = (event) => {
      // An output item of a kind the dialect does not know is output too: a reply of only such items is whole.
      if (OUTPUT_EVENTS.has(event.type) || (event.type === 'provider-metadata' && event.items !== undefined)) this.emit = sink;
      sink(event);
    };
  }

  /**
   * Whether the dialect declares, in `visitKept`, every object it passes to `keepUnmapped`, and guards
   * each of those calls with `keeping`. The payloads of a shape whose kept fields cannot change (none
   * at a hole of the template, and none at a place that can) then cost no call at all once they were
   * kept: the check is made once per shape, not once per object and payload.
   */
  protected readonly declaresKept: boolean = false;
  /**
   * False while the payload being read is of a shape that keeps nothing new (see `declaresKept`): its
   * `keepUnmapped` calls may be skipped. Always true for a dialect that does not declare them.
   */
  protected keeping = true;

  /** Maps one payload of the format to events. */
  protected abstract read(payload: JsonObject, frame: SseFrame): void;

  /**
   * Tells `visit` of every object of `payload` that `read` may pass to `keepUnmapped`, with the same
   * fields and place (a dialect with `declaresKept`). Visiting more than `read` keeps only makes the
   * check fail; visiting less would lose fields, which the dialect's differential spec guards.
   */
  protected visitKept(_payload: JsonObject, _visit: KeptVisitor): void {}

  push(frame: SseFrame): void {
    // Kept small, as `read` of each dialect is: the engine inlines only small functions, and this runs
    // for every frame. What few frames need is in methods of its own.
    this.frameCount++;
    if ((this.ended || frame.data === '[DONE]') && this.readOutOfBand(frame)) return;
    const payload = this.parsePayload(frame);
    const error = this.errorIn(frame, payload);
    if (error !== undefined) throw error;
    if (this.declaresKept) this.readDeclared(payload, frame);
    else this.readJudged(payload, frame);
    if (this.emit !== this.sink && this.unreadText === undefined) this.unreadText = findText(payload);
  }

  /** A frame after the end, or a `[DONE]`: true when it is taken care of here (it is no payload to read). */
  private readOutOfBand(frame: SseFrame): boolean {
    if (this.ended) {
      if (this.strict && this.afterEnd === 'strict-error') {
        throw this.protocolError(`a ${this.unit} arrived after ${this.endedBy ?? this.endSignal}`, 'strict');
      }
      return true;
    }
    if (this.doneFrame === 'payload') return false;
    if (this.doneFrame === 'end') this.readDone();
    else if (this.strict) throw this.protocolError(`[DONE] is not part of the ${this.formatName} stream`, 'strict');
    return true;
  }

  /** `read`, for a dialect that does not declare what it keeps: its shape judged by its keeping calls. */
  private readJudged(payload: JsonObject, frame: SseFrame): void {
    this.judgeShape(payload);
    this.read(payload, frame);
    const judged = this.judged;
    if (judged !== undefined) {
      this.judged = undefined;
      // Nothing it kept is at a hole: the next payloads of this shape keep the same values, now kept.
      if (!this.judgedChanges) judged.note = { changes: this.keptChanges, calls: this.judgedCalls } satisfies ShapeVerdict;
    }
  }

  /**
   * Whether what `payload` keeps is known already. A payload read through a template is the template's
   * own objects, whose values outside the holes are the same in every payload of that shape. Once one
   * payload of a shape was read with no kept field at a hole, the next ones keep the same values again,
   * which are kept, as long as nothing kept has changed since (another shape may have kept another
   * value in the same place) and they ask in the same places with the same fields: `keepUnmapped`
   * then compares its arguments with the verdict's and returns, and a chunk pays for its holes only,
   * as with no keeping at all.
   */
  private judgeShape(payload: JsonObject): void {
    const shape = this.json.lastTemplate;
    this.settled = undefined;
    this.judged = undefined;
    // A parse offered by `usePreparsed` or of another text (a dialect's own) is no template's value.
    if (shape === undefined || shape.root !== payload) return;
    const verdict = shape.note as ShapeVerdict | undefined;
    if (verdict !== undefined && verdict.changes === this.keptChanges) {
      this.settled = verdict;
      this.settledCall = 0;
    } else {
      this.judged = shape;
      this.judgedCalls = [];
      this.judgedChanges = false;
    }
  }

  /** `read`, for a dialect that declares what it keeps: without keeping when the shape keeps nothing new. */
  private readDeclared(payload: JsonObject, frame: SseFrame): void {
    const shape = this.json.lastTemplate;
    // A parse offered by `usePreparsed` or of another text (a dialect's own) is no template's value.
    if (shape === undefined || shape.root !== payload) return this.read(payload, frame);
    const note = shape.note as QuietShape | undefined;
    if (note !== undefined && note.changes === this.keptChanges) {
      this.keeping = false;
      this.read(payload, frame);
      this.keeping = true;
    } else {
      this.read(payload, frame);
      this.settleShape(shape, payload);
    }
  }

  /**
   * Notes on `shape` whether its payloads keep nothing new: every field the dialect would keep from
   * `payload` (its `visitKept`) is outside the template's holes, at a place that is too, and is the
   * value kept last at that place. A payload read through the template is the template's own objects:
   * the next ones of its shape hold the same values there, and keep nothing until something kept
   * changes (`keptChanges`).
   */
  private settleShape(shape: Template, payload: JsonObject): void {
    const note = shape.note as QuietShape | undefined;
    const tries = note?.tries ?? 0;
    if (tries >= MAX_QUIET_TRIES) return;
    let keepsNothingNew = true;
    let mayKeepMore = false;
    // Past the cap nothing is kept: every payload keeps nothing new.
    if (!this.metadataCapped) {
      try {
        this.visitKept(payload, (object, mapped, place, indexFrom) => {
          if (mayKeepMore) return;
          const keys = this.unmappedKeysOf(object, mapped);
          if (keys.length === 0) return;
          if (place === undefined || (indexFrom !== undefined && mayChange(shape, indexFrom, 'index'))) {
            mayKeepMore = true;
            return;
          }
          const last = this.lastKept?.get(placeKey(place));
          for (const key of keys) {
            if (mayChange(shape, object, key)) {
              mayKeepMore = true;
              return;
            }
            const value = object[key];
            if (value === undefined) continue;
            if (last === undefined || !last.has(key) || last.get(key) !== keptForm(value)) keepsNothingNew = false;
          }
        });
      } catch (cause) {
        // A kept value nested deeper than the stack can write: such a shape is read in full, as it is kept.
        if (!(cause instanceof RangeError)) throw cause;
        mayKeepMore = true;
      }
    }
    if (mayKeepMore) shape.note = { changes: -1, tries: MAX_QUIET_TRIES } satisfies QuietShape;
    else if (keepsNothingNew) shape.note = { changes: this.keptChanges, tries } satisfies QuietShape;
    else shape.note = { changes: -1, tries: tries + 1 } satisfies QuietShape;
  }

  /** The keys of `object` outside `mapped`, found once per object and set. */
  private unmappedKeysOf(object: JsonObject, mapped: ReadonlySet<string>): readonly string[] {
    const unmapped = (this.unmappedKeys ??= new WeakMap());
    let found = unmapped.get(object);
    if (found === undefined || found.mapped !== mapped) unmapped.set(object, (found = unmappedKeysOf(object, mapped)));
    return found.keys;
  }

  end(): void {
    // A stream that ended cleanly without its end signal, from a server family that omits it.
    if (!this.ended && !this.strict && this.completeWithoutEndSignal()) this.endStream();
    if (!this.ended) {
      const count = `${this.frameCount} ${this.unit}${this.frameCount === 1 ? '' : 's'}`;
      throw new StreamClosedEarlyError(`the stream ended without ${this.endSignal} after ${count}${this.openAtEnd()}`, {
        reason: 'no-end-signal',
        position: { event: this.frameCount },
      });
    }
    this.checkEnded();
  }

  usePreparsed(data: string, value: unknown): void {
    this.preparsed = { data, value };
  }

  /** The stream is over: emits `done`, and what follows is ignored. */
  protected endStream(): void {
    if (this.emit !== this.sink && this.unreadText !== undefined) {
      throw this.protocolError(
        `the stream carried reply text (${this.unreadText}) that this dialect does not read, and no output: nothing of it would arrive`,
        'unread-text',
      );
    }
    this.ended = true;
    this.emit({ type: 'done' });
  }

  /**
   * A payload of a type the dialect does not know: skipped, or with `unknownEvents` passed on as an
   * `unknown` event carrying a copy of it. (An output item of a kind the dialect does not know is not
   * this: it is part of the reply, kept by `keepItem`.)
   */
  protected unknown(payload: JsonObject, frame: SseFrame): void {
    if (!this.unknownEvents) return;
    // NDJSON lines and unnamed SSE events are `message`: only a name of the format's own is kept.
    const payloadCopy = copyJson(payload);
    this.emit(
      frame.event === 'message' ? { type: 'unknown', payload: payloadCopy } : { type: 'unknown', event: frame.event, payload: payloadCopy },
    );
  }

  /** `data: [DONE]` in a format it ends (`doneFrame: 'end'`). */
  protected readDone(): void {
    this.endStream();
  }

  /**
   * Whether a stream that ended (at a frame boundary: the frame layer refuses a cut line) without the
   * format's end signal is nonetheless whole, by the dialect's own rule (`strict` never asks). No by
   * default: the end signal is what tells a whole reply from a cut one.
   */
  protected completeWithoutEndSignal(): boolean {
    return false;
  }

  /** Said after "the stream ended without ..." (a dialect that knows more: calls still open). */
  protected openAtEnd(): string {
    return '';
  }

  /** Checks, once the end signal came, what a whole stream must have had (an id). */
  protected checkEnded(): void {}

  /** The payload of a frame as a JSON object; anything else is a `ProtocolError`. */
  protected parsePayload(frame: SseFrame): JsonObject {
    return this.parseObject(frame.data, this.unit === 'line' ? 'line' : 'data');
  }

  /**
   * The error a frame reports, if it reports one: by default an `event: error` frame, or a payload
   * with a non-null `error`, as a `ProviderError`.
   */
  protected errorIn(frame: SseFrame, payload: JsonObject): LlmStreamError | undefined {
    return frame.event === 'error' || hasError(payload) ? this.providerError(payload) : undefined;
  }

  /** The provider's error in `payload`, named by this frame. */
  protected providerError(payload: unknown): LlmStreamError {
    return providerErrorFrom(payload, `frame ${this.frameCount}`, this.frameCount);
  }

  /**
   * Keeps the fields of `object` that are not in `mapped` (what the dialect reads there, or knows to
   * carry nothing) as provider metadata of `place`, copied; a field whose value is the one kept last
   * time is not kept again. Pass one constant set per level (a module's `ReadonlySet`): once a payload
   * of a shape has been judged (see `judgeShape`), the next payloads of that shape cost a call one
   * comparison of its arguments with the judged payload's, and a new set would fail it every time.
   */
  protected keepUnmapped(object: JsonObject, mapped: ReadonlySet<string>, place: MetadataPlace = NOWHERE): void {
    // Kept small, for the engine to inline into each dialect: a chunk of a judged shape costs this only.
    const settled = this.settled;
    if (settled !== undefined) {
      const calls = settled.calls;
      const at = this.settledCall;
      this.settledCall = at + 4;
      const choice = calls[at + 2];
      if (
        calls[at] === object &&
        calls[at + 1] === mapped &&
        (choice === ANY_PLACE || (choice === (place.choice ?? -1) && calls[at + 3] === (place.call ?? -1)))
      ) {
        return;
      }
      // Asked otherwise than the verdict's payload (a hole chose another branch): the rest is read in full.
      this.settled = undefined;
    }
    this.keepUnmappedNow(object, mapped, place);
  }

  /** `keepUnmapped` in full: the fields of `object` outside `mapped`, noted for the shape's verdict and kept. */
  private keepUnmappedNow(object: JsonObject, mapped: ReadonlySet<string>, place: MetadataPlace): void {
    const choice = place.choice ?? -1;
    const call = place.call ?? -1;
    const keys = this.unmappedKeysOf(object, mapped);
    const judged = this.judged;
    if (judged !== undefined) {
      // An object with nothing to keep keeps nothing wherever it is asked: the call at a hole of the shape
      // (the next fragment's call index) is the same verdict, not another branch.
      if (keys.length === 0) this.judgedCalls.push(object, mapped, ANY_PLACE, ANY_PLACE);
      else this.judgedCalls.push(object, mapped, choice, call);
      if (!this.judgedChanges) for (const key of keys) if (mayChange(judged, object, key)) this.judgedChanges = true;
    }
    if (keys.length === 0 || this.metadataCapped) return;
    const last = this.lastKeptAt(place);
    let fields: { [key: string]: JsonValue } | undefined;
    try {
      for (const key of keys) {
        const value = object[key];
        if (value === undefined) continue;
        const seen = keptForm(value);
        if (last.has(key) && last.get(key) === seen) continue;
        last.set(key, seen);
        // Defined, not assigned: a key `__proto__` is a field like any other, not the object's prototype.
        Object.defineProperty((fields ??= {}), key, { value: copyJson(value), enumerable: true, writable: true, configurable: true });
      }
    } catch (cause) {
      // A value nested deeper than the stack can copy (JSON.parse reads any depth): more than any cap.
      if (!(cause instanceof RangeError)) throw cause;
      return this.capMetadata();
    }
    if (fields !== undefined) {
      this.keptChanges++;
      this.keepMetadata({ ...place, fields });
    }
  }

  /**
   * Keeps an output item of a kind the dialect does not know (a content block, an output item, a
   * part), copied, as provider metadata of `place`. It counts as output: a reply of only such items
   * is a whole reply, not one that lost its text.
   */
  protected keepItem(item: unknown, place: MetadataPlace = NOWHERE): void {
    if (this.metadataCapped) return;
    let copy: JsonValue;
    try {
      copy = copyJson(item);
    } catch (cause) {
      if (!(cause instanceof RangeError)) throw cause;
      return this.capMetadata();
    }
    this.keepMetadata({ ...place, items: [copy] });
  }

  /** Keeps fields or items of `place` as provider metadata, within the cap (fields the dialect has gathered itself). */
  protected keepMetadata(kept: MetadataPlace & { readonly fields?: { [key: string]: JsonValue }; readonly items?: JsonValue[] }): void {
    this.metadataChars += JSON.stringify(kept.fields ?? kept.items).length;
    if (this.metadataChars > this.maxMetadataChars) return this.capMetadata();
    this.emit({ type: 'provider-metadata', provider: this.provider, ...kept });
  }

  /** Past the cap: said once, and nothing more is kept. */
  private capMetadata(): void {
    if (this.metadataCapped) return;
    this.metadataCapped = true;
    this.emit({ type: 'provider-metadata', provider: this.provider, capped: true });
  }

  private lastKeptAt(place: MetadataPlace): Map<string, unknown> {
    const key = placeKey(place);
    const kept = (this.lastKept ??= new Map());
    let last = kept.get(key);
    if (last === undefined) kept.set(key, (last = new Map()));
    return last;
  }

  /** The dense index of a new call in `choice`; more than `maxToolCalls` is a `ProtocolError`. */
  protected newCall(choice: number): number {
    const callCounts = (this.callCounts ??= new Map());
    const index = callCounts.get(choice) ?? 0;
    if (index >= this.maxToolCalls) {
      throw this.protocolError(`choice ${choice} makes more than ${this.maxToolCalls} tool calls`, 'too-many-tool-calls');
    }
    callCounts.set(choice, index + 1);
    return index;
  }

  /** How many calls `choice` has made. */
  protected callsMade(choice: number): number {
    return this.callCounts?.get(choice) ?? 0;
  }

  /** Emits `finish` for `choice`: `raw` normalized, and `stop` after calls promoted to `tool_calls`. */
  protected finish(choice: number, raw: string): void {
    this.emit({ type: 'finish', choice, reason: normalizeFinishReason(raw, this.callsMade(choice) > 0, this.finishReasons), raw });
  }

  /** The payload parsed as JSON; `what` names it in the error (`data`, `line`). */
  protected parseJson(data: string, what = 'data'): unknown {
    const preparsed = this.preparsed;
    if (preparsed !== undefined) {
      this.preparsed = undefined;
      if (preparsed.data === data) return preparsed.value;
    }
    try {
      return this.json.parse(data);
    } catch (cause) {
      throw new ProtocolError(`frame ${this.frameCount}: ${what} is not JSON: ${excerpt(data)}`, {
        reason: 'invalid-json',
        cause,
        position: { event: this.frameCount },
      });
    }
  }

  /** The payload parsed as a JSON object; anything else is a `ProtocolError`. */
  protected parseObject(data: string, what = 'data'): JsonObject {
    const payload = this.parseJson(data, what);
    if (!isJsonObject(payload)) throw this.protocolError(`expected a JSON object, got ${excerpt(data)}`);
    return payload;
  }

  /**
   * A text field: the string, or undefined when null or absent; another type is a `ProtocolError`
   * naming `where` (and `field`, joined with a dot: the path is built only for the message).
   */
  protected text(value: unknown, where: string, field?: string): string | undefined {
    if (typeof value === 'string') return value;
    if (value === undefined || value === null) return undefined;
    throw this.protocolError(`${path(where, field)} is ${describeValue(value)}, not text`);
  }

  /** An id or a name: a non-empty string, else undefined (`""` and null mean "not in this piece"). */
  protected optionalString(value: unknown, where: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw this.protocolError(`${where} is ${describeValue(value)}, not a string`);
    return nonEmptyString(value);
  }

  /** A count: a finite number, or undefined when null or absent. */
  protected count(value: unknown, where: string, field?: string): number | undefined {
    if (value === undefined || value === null) return undefined;
    const count = finiteNumber(value);
    if (count === undefined) throw this.protocolError(`${path(where, field)} is ${describeValue(value)}, not a count`);
    return count;
  }

  /** An object field, or undefined when null or absent. */
  protected object(value: unknown, where: string): JsonObject | undefined {
    if (value === undefined || value === null) return undefined;
    if (!isJsonObject(value)) throw this.protocolError(`${where} is ${describeValue(value)}, not an object`);
    return value;
  }

  /** An index: a non-negative safe integer; `kind` names what it indexes in the message. */
  protected index(value: unknown, where: string, kind = 'an index'): number {
    if (!isIndex(value)) throw this.protocolError(`${where} is ${describeValue(value)}, not ${kind}`);
    return value;
  }

  /** An index, or undefined when null or absent. */
  protected optionalIndex(value: unknown, where: string, kind = 'an index'): number | undefined {
    return value === undefined || value === null ? undefined : this.index(value, where, kind);
  }

  /**
   * A JSON value from a payload written back as text (arguments sent as an object). `JSON.parse`
   * reads nesting of any depth, but `JSON.stringify` recurses: a value nested 100,000 deep would
   * escape as a `RangeError` (stack overflow). It is a `ProtocolError` naming `where` instead.
   */
  protected serialize(value: unknown, where: string): string {
    try {
      return JSON.stringify(value);
    } catch (cause) {
      if (!(cause instanceof RangeError)) throw cause;
      throw new ProtocolError(`frame ${this.frameCount}: ${where} is nested too deeply to serialize`, {
        reason: 'too-large',
        cause,
        position: { event: this.frameCount },
      });
    }
  }

  protected protocolError(what: string, reason: ProtocolReason = 'invalid-payload'): ProtocolError {
    return new ProtocolError(`frame ${this.frameCount}: ${what}`, { reason, position: { event: this.frameCount } });
  }
}
