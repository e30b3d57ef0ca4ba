import fc from 'fast-check';
import { TestScheduler } from 'rxjs/testing';
import { smoothText } from '../../src/screen/smoothText';
import type { ChatEvent } from '../../src/types/events';

// smoothText in virtual time: a word per 10 ms, at once while the page is hidden, and at once at the
// end, on an error and before an event that is not text.

const content = (text: string, choice = 0): ChatEvent => ({ type: 'content', choice, text });
const reasoning = (text: string): ChatEvent => ({ type: 'reasoning', choice: 0, text });
const finish: ChatEvent = { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' };
const shown = { isHidden: () => false };

let testScheduler: TestScheduler;
beforeEach(() => {
  testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
});

describe('smoothText', () => {
  it('releases a word at once, then one word per delay; the last word at the end', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold('a 49ms |', { a: content('The sky is blue') });
      expectObservable(source.pipe(smoothText(shown))).toBe('a 9ms b 9ms c 29ms (d|)', {
        a: content('The '),
        b: content('sky '),
        c: content('is '),
        d: content('blue'),
      });
    });
  });

  it('keeps the pace across chunks, and releases a word that arrives after an idle delay at once', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold('a 2ms b 39ms c 9ms |', { a: content('One tw'), b: content('o three '), c: content('four five') });
      expectObservable(source.pipe(smoothText({ ...shown, delay: 10 }))).toBe('a 9ms b 9ms c 22ms d 9ms (e|)', {
        a: content('One '),
        b: content('two '),
        c: content('three '),
        d: content('four '),
        e: content('five'),
      });
    });
  });

  it('lines: releases a line per delay', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold('a 29ms |', { a: content('one\ntwo\nthr') });
      expectObservable(source.pipe(smoothText({ ...shown, chunking: 'line', delay: 5 }))).toBe('a 4ms b 24ms (c|)', {
        a: content('one\n'),
        b: content('two\n'),
        c: content('thr'),
      });
    });
  });

  it('flushes what it holds before an event that is not text, which passes in its place', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold('a 4ms f 9ms |', { a: content('Hello big world'), f: finish });
      expectObservable(source.pipe(smoothText(shown))).toBe('a 4ms (bf) 6ms |', {
        a: content('Hello '),
        b: content('big world'),
        f: finish,
      });
    });
  });

  it('flushes one channel before the next begins: reasoning, then content', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold('a 4ms b 19ms |', { a: reasoning('Let me think'), b: content('Yes it is') });
      expectObservable(source.pipe(smoothText(shown))).toBe('a 4ms (bc) 6ms d 9ms (e|)', {
        a: reasoning('Let '),
        b: reasoning('me think'),
        c: content('Yes '),
        d: content('it '),
        e: content('is'),
      });
    });
  });

  it('flushes what it holds at once when the source errors, then errors', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const cut = new Error('cut');
      const source = cold('a 2ms #', { a: content('Hello big world') }, cut);
      expectObservable(source.pipe(smoothText(shown))).toBe('a 2ms (b#)', { a: content('Hello '), b: content('big world') }, cut);
    });
  });

  it('skips the delay while the page is hidden: all it holds goes at once', () => {
    let hidden = false;
    testScheduler.run(({ cold, expectObservable }) => {
      testScheduler.schedule(() => (hidden = true), 5);
      // Hidden at 5: the release due at 10 takes all that is held, and text arriving at 12 goes at once.
      const source = cold('a 11ms b 9ms |', { a: content('one two three four'), b: content(' five six') });
      expectObservable(source.pipe(smoothText({ isHidden: () => hidden }))).toBe('a 9ms b 1ms c 9ms |', {
        a: content('one '),
        b: content('two three four'),
        c: content(' five six'),
      });
    });
  });

  it('reads document.visibilityState by default', () => {
    const global = globalThis as { document?: unknown };
    global.document = { visibilityState: 'hidden' };
    try {
      testScheduler.run(({ cold, expectObservable }) => {
        const source = cold('a 9ms |', { a: content('one two three') });
        expectObservable(source.pipe(smoothText())).toBe('a 9ms |', { a: content('one two three') });
      });
    } finally {
      delete global.document;
    }
  });

  it('on unsubscribe, releases nothing more and the source is released', () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a 49ms |', { a: content('one two three four') });
      expectObservable(source.pipe(smoothText(shown)), '15ms !').toBe('a 9ms b', { a: content('one '), b: content('two ') });
      expectSubscriptions(source.subscriptions).toBe('^ 14ms !');
    });
  });

  it('gives a released reasoning unit the token count of the latest reasoning event that had one', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold<ChatEvent>('a 4ms b 9ms |', {
        a: { type: 'reasoning', choice: 0, text: 'Let me ', reasoningTokens: 2 },
        b: { type: 'reasoning', choice: 0, text: 'think', reasoningTokens: 3 },
      });
      expectObservable(source.pipe(smoothText(shown))).toBe('a 9ms b 4ms (c|)', {
        a: { type: 'reasoning', choice: 0, text: 'Let ', reasoningTokens: 2 },
        b: { type: 'reasoning', choice: 0, text: 'me ', reasoningTokens: 3 },
        c: { type: 'reasoning', choice: 0, text: 'think', reasoningTokens: 3 },
      });
    });
  });

  it('routes a throw of isHidden to the error channel, when a delayed release asks it too, after the text held', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const broken = new Error('no document');
      let calls = 0;
      const isHidden = (): boolean => {
        if (++calls > 1) throw broken;
        return false;
      };
      const source = cold('a 49ms |', { a: content('one two three') });
      expectObservable(source.pipe(smoothText({ isHidden }))).toBe('a 9ms (b#)', { a: content('one '), b: content('two three') }, broken);
    });
  });

  it('never drops or reorders text: each channel, joined, is what came in, and the other events keep their order', () => {
    const word = fc.constantFrom('a', 'bc', ' ', '\n', '. ', 'é', '😀', '今日');
    const anEvent: fc.Arbitrary<ChatEvent> = fc.oneof(
      fc.array(word, { maxLength: 4 }).map((list) => content(list.join(''))),
      fc.array(word, { maxLength: 4 }).map((list) => content(list.join(''), 1)),
      fc.array(word, { maxLength: 4 }).map((list) => reasoning(list.join(''))),
      fc.constant(finish),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(anEvent, fc.nat({ max: 30 })), { maxLength: 12 }),
        fc.constantFrom('word', 'line' as const),
        (timed, chunking) => {
          const got: ChatEvent[] = [];
          const scheduler = new TestScheduler(() => undefined);
          scheduler.run(({ cold }) => {
            const marbles = timed.map(([, gap], i) => `${i.toString(36)} ${gap}ms`).join(' ') + ' |';
            const values = Object.fromEntries(timed.map(([event], i) => [i.toString(36), event]));
            cold(marbles, values)
              .pipe(smoothText({ ...shown, chunking }))
              .subscribe((event) => got.push(event));
          });
          expect(meaning(got)).toEqual(meaning(timed.map(([event]) => event)));
        },
      ),
    );
  });
});

/** Each channel's text between two other events, and those events: what a screen would show. */
function meaning(events: readonly ChatEvent[]): string[] {
  const out: string[] = [];
  let texts: Record<string, string> = {};
  const written = (): string =>
    JSON.stringify(
      Object.entries(texts)
        .filter(([, text]) => text !== '')
        .sort(([a], [b]) => a.localeCompare(b)),
    );
  for (const event of events) {
    if (event.type === 'content' || event.type === 'reasoning') {
      const key = `${event.type} ${event.choice}`;
      texts[key] = (texts[key] ?? '') + event.text;
    } else {
      out.push(written(), event.type);
      texts = {};
    }
  }
  out.push(written());
  return out;
}
