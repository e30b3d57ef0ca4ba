import fc from 'fast-check';
import { Observable, defer, of, retry, take, throwError, concat } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { Utf8Decoder } from '../src/frames/Utf8Decoder';
import { decodeUtf8 } from '../src/frames/decodeUtf8';
import { ProtocolError, StreamClosedEarlyError } from '../src/errors/errors';
import { chunksOf, utf8 } from './support/chunking';
import { runSync } from './support/collect';

const bytes = (...values: number[]): Uint8Array => new Uint8Array(values);

describe('decodeUtf8', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  describe('as an operator (marbles)', () => {
    it('decodes each chunk and completes with the source', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('-a--b--|', { a: utf8('hel'), b: utf8('lo') });
        const sourceSubs = '  ^------!';
        const expected = '   -x--y--|';
        expectObservable(source.pipe(decodeUtf8())).toBe(expected, { x: 'hel', y: 'lo' });
        expectSubscriptions(source.subscriptions).toBe(sourceSubs);
      });
    });

    it('holds back a character split across chunks and emits no empty string', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold('-a--b--c--|', { a: bytes(0x63, 0x61, 0x66, 0xc3), b: bytes(), c: bytes(0xa9) });
        const expected = '   -x-----y--|';
        expectObservable(source.pipe(decodeUtf8())).toBe(expected, { x: 'caf', y: 'é' });
      });
    });

    it('holds a four-byte character given one byte at a time', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold('-a-b-c-d-|', { a: bytes(0xf0), b: bytes(0x9f), c: bytes(0x98), d: bytes(0x80) });
        const expected = '   -------x-|';
        expectObservable(source.pipe(decodeUtf8())).toBe(expected, { x: '😀' });
      });
    });

    it('errors with StreamClosedEarlyError when the source completes mid-character', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold('-a--|', { a: bytes(0x61, 0xe2, 0x82) });
        const expected = '   -x--#';
        const error = new StreamClosedEarlyError('the bytes ended mid-character: an incomplete UTF-8 sequence starts at byte offset 1');
        expectObservable(source.pipe(decodeUtf8())).toBe(expected, { x: 'a' }, error);
      });
    });

    it('passes an error from the source through', () => {
      testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('-a--#', { a: utf8('x') }, new Error('socket reset'));
        expectObservable(source.pipe(decodeUtf8())).toBe('-x--#', { x: 'x' }, new Error('socket reset'));
        expectSubscriptions(source.subscriptions).toBe('^---!');
      });
    });

    it('never emits for a never source, and completes for an empty one', () => {
      testScheduler.run(({ cold, expectObservable }) => {
        expectObservable(cold<Uint8Array>('-').pipe(decodeUtf8())).toBe('-');
        expectObservable(cold<Uint8Array>('|').pipe(decodeUtf8())).toBe('|');
      });
    });

    it('lets an early unsubscribe reach the source', () => {
      testScheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
        const source = hot('-a--b--c--|', { a: utf8('1'), b: utf8('2'), c: utf8('3') });
        const unsub = '     -----!';
        expectObservable(source.pipe(decodeUtf8()), unsub).toBe('-x--y-', { x: '1', y: '2' });
        expectSubscriptions(source.subscriptions).toBe('^----!');
      });
    });

    it('stops a synchronous source when unsubscribed', () => {
      const produced: number[] = [];
      const synchronous = new Observable<Uint8Array>((subscriber) => {
        for (let i = 0; !subscriber.closed && i < 10; i++) {
          produced.push(i);
          subscriber.next(utf8(String(i)));
        }
      });
      const outcome = runSync([0], () => synchronous.pipe(decodeUtf8(), take(3)));
      expect(outcome.values).toEqual(['0', '1', '2']);
      expect(produced).toEqual([0, 1, 2]);
    });

    it('starts from a fresh decoder on resubscription', () => {
      let attempt = 0;
      // The first attempt leaves half a character in the decoder, then fails; the retry must not see it.
      const source = defer(() =>
        attempt++ === 0
          ? concat(
              of(bytes(0xc3)),
              throwError(() => new Error('reset')),
            )
          : of(utf8('ok')),
      );
      const outcome = runSync([0], () => source.pipe(decodeUtf8(), retry(1)));
      expect(outcome).toEqual({ values: ['ok'] });
    });
  });

  describe('rules', () => {
    const decode = (chunks: Uint8Array[], fatal = false) => runSync(chunks, decodeUtf8({ fatal }));

    it('drops one leading BOM, also when it is split across chunks', () => {
      expect(decode([bytes(0xef, 0xbb, 0xbf, 0x61)]).values).toEqual(['a']);
      expect(decode([bytes(0xef), bytes(0xbb), bytes(0xbf, 0x61)]).values).toEqual(['a']);
    });

    it('keeps a second BOM and a BOM that is not at the start', () => {
      expect(decode([bytes(0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x61)]).values.join('')).toBe('\ufeffa');
      expect(decode([bytes(0x61, 0xef, 0xbb, 0xbf)]).values.join('')).toBe('a\ufeff');
      // A chunk that starts with one after chunks decoded whole (they start and end with ASCII), in
      // both fates of that chunk: ending with ASCII, and ending mid-character.
      const ascii = bytes(...Array.from('data: 1234567890\n', (c) => c.charCodeAt(0)));
      expect(decode([ascii, bytes(0xef, 0xbb, 0xbf, 0x61)]).values.join('')).toBe('data: 1234567890\n\ufeffa');
      expect(decode([ascii, bytes(0xef, 0xbb, 0xbf, 0xc3), bytes(0xa9)]).values.join('')).toBe('data: 1234567890\n\ufeffé');
    });

    it('replaces invalid bytes with U+FFFD by default', () => {
      expect(decode([bytes(0x61, 0xff, 0x62)]).values.join('')).toBe('a\ufffdb');
      // An overlong encoding of '/' and a UTF-16 surrogate encoded in UTF-8 are invalid too.
      expect(decode([bytes(0xc0, 0xaf)]).values.join('')).toBe('\ufffd\ufffd');
      expect(decode([bytes(0xed, 0xa0, 0x80)]).values.join('')).toBe('\ufffd\ufffd\ufffd');
    });

    it('names the byte offset of an invalid byte under fatal, after passing on the text before it', () => {
      const outcome = decode([utf8('ab'), bytes(0x63, 0xff)], true);
      expect(outcome.values).toEqual(['ab', 'c']);
      expect(outcome.error).toBeInstanceOf(ProtocolError);
      expect((outcome.error as ProtocolError).message).toBe('invalid UTF-8 at byte offset 3');
      expect((outcome.error as ProtocolError).position).toEqual({ byteOffset: 3 });
    });

    it('names the offset of an invalid sequence that began in an earlier chunk', () => {
      // E2 82 starts a three-byte sequence; 41 cannot continue it, so the sequence at offset 1 is bad.
      const outcome = decode([bytes(0x61, 0xe2, 0x82), bytes(0x41)], true);
      expect((outcome.error as ProtocolError).position).toEqual({ byteOffset: 1 });
    });

    it('names where an incomplete final sequence starts', () => {
      const outcome = decode([utf8('abc'), bytes(0xf0, 0x9f), bytes(0x98)]);
      expect(outcome.error).toBeInstanceOf(StreamClosedEarlyError);
      expect((outcome.error as StreamClosedEarlyError).position).toEqual({ byteOffset: 3 });
    });

    it('reports an incomplete final sequence under fatal too, as the stream ending early', () => {
      const outcome = decode([bytes(0x61, 0xc3)], true);
      expect(outcome.error).toBeInstanceOf(StreamClosedEarlyError);
    });

    it('accepts a Buffer and a subarray with an offset, and neither mutates nor keeps them', () => {
      const backing = utf8('xxhéllo');
      const view = backing.subarray(2);
      const copy = Uint8Array.from(backing);
      expect(decode([view]).values.join('')).toBe('héllo');
      expect(decode([Buffer.from('naïve', 'utf8')]).values.join('')).toBe('naïve');
      expect(backing).toEqual(copy);
    });

    it('does not retain a chunk after decoding it (the caller may reuse the buffer)', () => {
      const reused = new Uint8Array(2);
      const outcome = runSync([0, 1], (source) =>
        new Observable<Uint8Array>((subscriber) =>
          source.subscribe({
            next: (step) => {
              reused.set(step === 0 ? [0x61, 0xc3] : [0xa9, 0x62]);
              subscriber.next(reused);
            },
            complete: () => subscriber.complete(),
          }),
        ).pipe(decodeUtf8()),
      );
      expect(outcome.values.join('')).toBe('aéb');
    });
  });

  describe('over any chunking', () => {
    const sample = utf8('\ufeffdata: café ☕ 中文 😀\r\n\r\n: ok\rdata: ü\n\n');

    it('gives the same text at every chunk size from 1 to 16', () => {
      const whole = new TextDecoder().decode(sample);
      for (let size = 1; size <= 16; size++) {
        expect(decode(chunksOf(sample, size))).toBe(whole);
      }
    });

    it('equals TextDecoder over the whole input for any split (fast-check)', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 64 }), fc.array(fc.nat(64), { maxLength: 8 }), (input, cuts) => {
          const pieces: Uint8Array[] = [];
          let start = 0;
          for (const cut of [...cuts].sort((a, b) => a - b)) {
            if (cut > start && cut < input.length) {
              pieces.push(input.subarray(start, cut));
              start = cut;
            }
          }
          pieces.push(input.subarray(start));
          const outcome = runSync(pieces, decodeUtf8());
          const whole = new TextDecoder().decode(input);
          if (outcome.error === undefined) {
            expect(outcome.values.join('')).toBe(whole);
            expect(outcome.values).not.toContain('');
          } else {
            // Only a truncated final character may fail, and then everything before it was emitted.
            expect(outcome.error).toBeInstanceOf(StreamClosedEarlyError);
            expect(whole.endsWith('\ufffd')).toBe(true);
            expect(outcome.values.join('')).toBe(whole.slice(0, -1));
          }
        }),
        { numRuns: 500 },
      );
    });

    it('gives what a streaming TextDecoder gives for every chunk, short ASCII chunks included (fast-check)', () => {
      // Mostly ASCII, with BOMs, multi-byte characters, lone continuation and lead bytes, cut into
      // pieces of 0 to 10 bytes: short ASCII chunks are decoded without TextDecoder.
      const byte = fc.oneof(
        { weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
        { weight: 1, arbitrary: fc.constantFrom(0xef, 0xbb, 0xbf, 0xc3, 0xa9, 0xe4, 0xb8, 0xad, 0xf0, 0x9f, 0x98, 0x80, 0x80, 0xff) },
      );
      fc.assert(
        fc.property(fc.array(fc.array(byte, { maxLength: 10 }), { maxLength: 20 }), fc.boolean(), (pieces, fatal) => {
          const reference = new TextDecoder('utf-8', { fatal });
          const decoder = new Utf8Decoder({ fatal });
          for (const piece of pieces) {
            const chunk = new Uint8Array(piece);
            let expected: string;
            try {
              expected = reference.decode(chunk, { stream: true });
            } catch {
              expect(() => decoder.push(chunk)).toThrow(ProtocolError);
              return;
            }
            expect(decoder.push(chunk)).toBe(expected);
          }
          let rest: string;
          try {
            rest = reference.decode();
          } catch {
            rest = '\ufffd';
          }
          if (rest === '') decoder.end();
          else expect(() => decoder.end()).toThrow(StreamClosedEarlyError);
        }),
        { numRuns: 1000 },
      );
    });

    function decode(chunks: Uint8Array[]): string {
      const outcome = runSync(chunks, decodeUtf8());
      expect(outcome.error).toBeUndefined();
      return outcome.values.join('');
    }
  });
});
