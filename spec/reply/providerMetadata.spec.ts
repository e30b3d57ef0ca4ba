import { of, pipe } from 'rxjs';
import { map } from 'rxjs/operators';
import { defineDialect } from '../../src/dialects/Dialect';
import { JsonDialectParser } from '../../src/dialects/base/JsonDialectParser';
import { StreamClosedEarlyError } from '../../src/errors/errors';
import { sseFrames } from '../../src/frames/sseFrames';
import { JsonObject } from '../../src/internal/json';
import { CompletionTracker } from '../../src/reply/CompletionTracker';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { ChatEvent, Completion, CompletionSnapshot } from '../../src/types/events';
import { encodeSse } from '../../src/ui/encodeSse';
import { toMessageEvents } from '../../src/ui/toMessageEvents';
import { assembleText, CHUNK_SIZES } from '../support/dialect';
import { collectSync } from '../support/collect';

// The open reply: what a provider sends that no field names is kept on the reply (`providerMetadata`,
// by provider), on the choice and on the tool call it came with, in snapshots and in `partial`, with a
// cap; an output item of a kind the dialect does not know is kept too, and is output.

describe('the completion tracker keeps provider metadata where it arrived', () => {
  const events: ChatEvent[] = [
    { type: 'start', id: 'r1', model: 'm' },
    { type: 'provider-metadata', provider: 'acme', fields: { fingerprint: 'fp_1', tier: 'default' } },
    { type: 'content', choice: 0, text: 'Hi' },
    { type: 'provider-metadata', provider: 'acme', choice: 0, fields: { stop_detail: 'eos' } },
    { type: 'tool-call-delta', choice: 0, index: 0, id: 'c1', name: 'f', arguments: '{}' },
    { type: 'provider-metadata', provider: 'acme', choice: 0, call: 0, fields: { signature: 'sig' } },
    { type: 'provider-metadata', provider: 'acme', choice: 0, items: [{ type: 'compaction', summary: 'short' }] },
    { type: 'provider-metadata', provider: 'acme', fields: { fingerprint: 'fp_2' } },
    { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' },
    { type: 'done' },
  ];

  const fold = (list: readonly ChatEvent[]): CompletionTracker => {
    const tracker = new CompletionTracker();
    for (const event of list) tracker.apply(event);
    return tracker;
  };

  it('puts the reply’s on the completion, the choice’s on the choice and the call’s on the call, a later field winning', () => {
    const completion = fold(events).complete();
    expect(completion.providerMetadata).toEqual({ acme: { fingerprint: 'fp_2', tier: 'default' } });
    expect(completion.choices[0]!.providerMetadata).toEqual({
      acme: { stop_detail: 'eos', items: [{ type: 'compaction', summary: 'short' }] },
    });
    expect(completion.toolCalls).toEqual([
      { index: 0, id: 'c1', name: 'f', arguments: '{}', args: {}, providerMetadata: { acme: { signature: 'sig' } } },
    ]);
    expect(completion.choices[0]!.toolCalls).toEqual(completion.toolCalls);
  });

  it('has none where none arrived: a reply without metadata looks as it always did', () => {
    const plain = fold(events.filter((event) => event.type !== 'provider-metadata')).complete();
    expect('providerMetadata' in plain).toBe(false);
    expect('providerMetadata' in plain.choices[0]!).toBe(false);
    expect('providerMetadata' in plain.toolCalls[0]!).toBe(false);
  });

  it('shows it in every snapshot as far as it arrived, and each snapshot keeps what it showed', () => {
    const tracker = new CompletionTracker();
    const snapshots: CompletionSnapshot[] = [];
    for (const event of events) {
      tracker.apply(event);
      snapshots.push(tracker.snapshot());
    }
    expect(snapshots[1]!.providerMetadata).toEqual({ acme: { fingerprint: 'fp_1', tier: 'default' } });
    expect(snapshots[5]!.toolCalls[0]!.providerMetadata).toEqual({ acme: { signature: 'sig' } });
    expect(snapshots[6]!.choices[0]!.providerMetadata).toEqual({
      acme: { stop_detail: 'eos', items: [{ type: 'compaction', summary: 'short' }] },
    });
    // A later event made a new view: the earlier snapshot still shows what it showed.
    expect(snapshots[7]!.providerMetadata).toEqual({ acme: { fingerprint: 'fp_2', tier: 'default' } });
    expect(snapshots[1]!.providerMetadata).toEqual({ acme: { fingerprint: 'fp_1', tier: 'default' } });
  });

  it('carries it in the partial of a reply cut before its finish', () => {
    const cut = fold(events.slice(0, 7));
    let error: unknown;
    try {
      cut.complete();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StreamClosedEarlyError);
    const partial = (error as StreamClosedEarlyError).partial as CompletionSnapshot;
    expect(partial.providerMetadata).toEqual({ acme: { fingerprint: 'fp_1', tier: 'default' } });
    expect(partial.choices[0]!.providerMetadata).toEqual({
      acme: { stop_detail: 'eos', items: [{ type: 'compaction', summary: 'short' }] },
    });
    expect(partial.toolCalls[0]).toMatchObject({ id: 'c1', providerMetadata: { acme: { signature: 'sig' } } });
  });

  it('says `$capped` for a provider whose metadata went past the cap', () => {
    const capped = fold([
      ...events.slice(0, 8),
      { type: 'provider-metadata', provider: 'acme', capped: true },
      ...events.slice(8),
    ]).complete();
    expect(capped.providerMetadata).toEqual({ acme: { fingerprint: 'fp_2', tier: 'default', $capped: true } });
  });
});

/** Fields this test format reads at its one level: everything else is the provider's own. */
const MAPPED: ReadonlySet<string> = new Set(['kind', 'text', 'end']);

/**
 * A made-up format, `{"kind":"text","text":...}` then `{"kind":"end"}`, whose payloads may carry fields
 * it does not read, and items of kinds it does not know (`kind` other than text or end): the way any
 * dialect of the library keeps them.
 */
class OpenFormatParser extends JsonDialectParser {
  protected readonly endSignal = 'an end payload';
  protected override readonly provider = 'open';

  protected read(payload: JsonObject): void {
    const kind = payload['kind'];
    if (kind === 'text') {
      const text = this.text(payload['text'], 'text');
      if (text) this.emit({ type: 'content', choice: 0, text });
      this.keepUnmapped(payload, MAPPED, { choice: 0 });
    } else if (kind === 'end') {
      this.keepUnmapped(payload, MAPPED);
      this.finish(0, 'stop');
      this.endStream();
    } else {
      this.keepItem(payload, { choice: 0 });
    }
  }
}

const openFormat = defineDialect({
  name: 'open-format',
  create: (emit, options) => new OpenFormatParser(emit, options),
  isFinal: (frame) => frame.data.includes('"end"'),
});

const sse = (...payloads: object[]): string => payloads.map((payload) => `data: ${JSON.stringify(payload)}\n\n`).join('');

describe('a dialect keeps what it does not map (JsonDialectParser.keepUnmapped, keepItem)', () => {
  const stream = sse(
    { kind: 'text', text: 'Hel', lang: 'en' },
    { kind: 'text', text: 'lo', lang: 'en' },
    { kind: 'text', text: '!', lang: 'en-GB' },
    { kind: 'end', served_by: { region: 'eu' } },
  );

  it('keeps each unmapped field, a value repeated chunk after chunk once, at every chunk size', () => {
    for (const size of [undefined, ...CHUNK_SIZES]) {
      const { events, completion, error } = assembleText(stream, openFormat, size === undefined ? {} : { chunkSize: size });
      expect(error).toBeUndefined();
      expect(completion!.content).toBe('Hello!');
      expect(completion!.choices[0]!.providerMetadata).toEqual({ open: { lang: 'en-GB' } });
      expect(completion!.providerMetadata).toEqual({ open: { served_by: { region: 'eu' } } });
      // `en` twice is kept once; the change to `en-GB` is kept again.
      expect(events.filter((event) => event.type === 'provider-metadata')).toEqual([
        { type: 'provider-metadata', provider: 'open', choice: 0, fields: { lang: 'en' } },
        { type: 'provider-metadata', provider: 'open', choice: 0, fields: { lang: 'en-GB' } },
        { type: 'provider-metadata', provider: 'open', fields: { served_by: { region: 'eu' } } },
      ]);
    }
  });

  it('emits nothing for payloads of mapped fields only, however many', () => {
    const plain = sse(...Array.from({ length: 50 }, () => ({ kind: 'text', text: 'x' })), { kind: 'end' });
    const { events, completion } = assembleText(plain, openFormat);
    expect(events.some((event) => event.type === 'provider-metadata')).toBe(false);
    expect('providerMetadata' in completion!).toBe(false);
  });

  it('reads a reply whose only output is an item of an unknown kind as a whole reply, the item kept', () => {
    const onlyItem = sse({ kind: 'compaction', content: 'A summary of the conversation so far.' }, { kind: 'end' });
    const { completion, error } = assembleText(onlyItem, openFormat);
    expect(error).toBeUndefined();
    expect(completion!.content).toBeNull();
    expect(completion!.choices[0]!.providerMetadata).toEqual({
      open: { items: [{ kind: 'compaction', content: 'A summary of the conversation so far.' }] },
    });
  });

  it('still refuses a reply whose text sat where the dialect does not read it and that had no output', () => {
    const lost = sse({ kind: 'text', output: { content: 'the reply, in a field this format does not read' } }, { kind: 'end' });
    const { error } = assembleText(lost, openFormat);
    expect(error).toMatchObject({ name: 'ProtocolError', reason: 'unread-text' });
  });

  it('keeps at most maxProviderMetadataChars of it, then says $capped once and keeps nothing more', () => {
    const big = sse(...Array.from({ length: 10 }, (_, n) => ({ kind: 'text', text: 'x', blob: `${n}`.repeat(40) })), {
      kind: 'end',
      tail: 'after the cap',
    });
    const { events, completion } = assembleText(big, openFormat, { dialect: { maxProviderMetadataChars: 200 } });
    const kept = events.filter((event) => event.type === 'provider-metadata');
    // Each kept `{"blob":"..."}` is 51 characters of JSON text: three fit in 200, the fourth goes past it.
    expect(kept.filter((event) => event.fields !== undefined)).toHaveLength(3);
    expect(kept.filter((event) => event.capped === true)).toEqual([{ type: 'provider-metadata', provider: 'open', capped: true }]);
    expect(completion!.providerMetadata).toEqual({ open: { $capped: true } });
    expect(completion!.choices[0]!.providerMetadata).toEqual({ open: { blob: '2'.repeat(40) } });
  });

  it('caps, instead of failing, a value nested deeper than it can copy; and keeps a __proto__ field as a field', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const stream =
      `data: {"kind":"text","text":"a","__proto__":{"polluted":true}}\n\n` +
      `data: {"kind":"text","text":"b","nested":${deep}}\n\n` +
      `data: {"kind":"end"}\n\n`;
    const { completion, error } = assembleText(stream, openFormat);
    expect(error).toBeUndefined();
    expect(completion!.content).toBe('ab');
    const kept = completion!.choices[0]!.providerMetadata!['open']!;
    expect(Object.keys(kept)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(kept, '__proto__')?.value).toEqual({ polluted: true });
    expect(completion!.providerMetadata).toEqual({ open: { $capped: true } });
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('copies what it keeps: the payload objects the dialect reads are reused for the next chunk', () => {
    const repeated = sse(...Array.from({ length: 6 }, (_, n) => ({ kind: 'text', text: 'x', seen: { n } })), { kind: 'end' });
    const { completion } = assembleText(repeated, openFormat);
    expect(completion!.choices[0]!.providerMetadata).toEqual({ open: { seen: { n: 5 } } });
  });
});

describe('provider metadata through the relay format (toMessageEvents, then the chat-events dialect)', () => {
  it('arrives on the other side where it was', () => {
    const events: ChatEvent[] = [
      { type: 'start', id: 'r1', model: 'm' },
      { type: 'provider-metadata', provider: 'acme', fields: { fingerprint: 'fp_1' } },
      { type: 'tool-call-delta', choice: 0, index: 0, id: 'c1', name: 'f', arguments: '{"a":1}' },
      { type: 'provider-metadata', provider: 'acme', choice: 0, call: 0, fields: { signature: 'sig' } },
      { type: 'provider-metadata', provider: 'acme', choice: 0, items: [{ type: 'audio', id: 'a1' }] },
      { type: 'finish', choice: 0, reason: 'tool_calls', raw: 'tool_calls' },
      { type: 'done' },
    ];
    const relayed = collectSync(
      of(...events).pipe(
        toMessageEvents(),
        map((message) => ({ event: message.type, data: message.data, id: message.id })),
        encodeSse(),
        pipe(sseFrames(), assembleChunks({ dialect: 'chat-events' }), groupToolCallsByIndex(), finalizeCompletion()),
      ),
    );
    expect(relayed.error).toBeUndefined();
    const completion = relayed.values[0] as Completion;
    expect(completion.providerMetadata).toEqual({ acme: { fingerprint: 'fp_1' } });
    expect(completion.toolCalls[0]!.providerMetadata).toEqual({ acme: { signature: 'sig' } });
    expect(completion.choices[0]!.providerMetadata).toEqual({ acme: { items: [{ type: 'audio', id: 'a1' }] } });
  });
});
