import { Subject, animationFrameScheduler } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { batchEventsPerFrame, latestPerFrame } from '../../src/screen/perFrame';
import type { ChatEvent } from '../../src/types/events';

// The two operators that pace a screen's updates to its frames, in virtual time: `animate` says when
// the frames come (RxJS's TestScheduler stands in for requestAnimationFrame).

const content = (text: string): ChatEvent => ({ type: 'content', choice: 0, text });
const finish: ChatEvent = { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' };
const onFrames = { scheduler: animationFrameScheduler };

let testScheduler: TestScheduler;
beforeEach(() => {
  testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
});

describe('batchEventsPerFrame', () => {
  it('emits once a frame what arrived since the last one, the deltas of a channel joined', () => {
    testScheduler.run(({ cold, animate, expectObservable, expectSubscriptions }) => {
      animate('            ---x--x----x--x');
      const source = cold('abc--d-f------|', { a: content('Hel'), b: content('lo'), c: content(' you'), d: finish, f: content('!') });
      expectObservable(source.pipe(batchEventsPerFrame(onFrames))).toBe('---x--y----z--|', {
        x: [content('Hello you')],
        y: [finish],
        z: [content('!')],
      });
      expectSubscriptions(source.subscriptions).toBe('^-------------!');
    });
  });

  it('emits nothing in a frame when nothing arrived', () => {
    testScheduler.run(({ cold, animate, expectObservable }) => {
      animate('            -x-x-x-x-x');
      const source = cold('a-----b-|', { a: content('a'), b: content('b') });
      expectObservable(source.pipe(batchEventsPerFrame(onFrames))).toBe('-x-----y|', { x: [content('a')], y: [content('b')] });
    });
  });

  it('flushes what is pending at once when the source completes, before the completion', () => {
    testScheduler.run(({ cold, animate, expectObservable }) => {
      animate('            ---------x');
      const source = cold('ab|', { a: content('Hel'), b: content('lo') });
      expectObservable(source.pipe(batchEventsPerFrame(onFrames))).toBe('--(x|)', { x: [content('Hello')] });
    });
  });

  it('flushes what is pending at once when the source errors, before the error', () => {
    testScheduler.run(({ cold, animate, expectObservable }) => {
      animate('            ---------x');
      const cut = new Error('cut');
      const source = cold('ab#', { a: content('Hel'), b: content('lo') }, cut);
      expectObservable(source.pipe(batchEventsPerFrame(onFrames))).toBe('--(x#)', { x: [content('Hello')] }, cut);
    });
  });

  it('on unsubscribe, stops: the pending frame never emits and the source is released', () => {
    testScheduler.run(({ cold, animate, expectObservable, expectSubscriptions }) => {
      animate('            -----x');
      const source = cold('ab------|', { a: content('a'), b: content('b') });
      expectObservable(source.pipe(batchEventsPerFrame(onFrames)), '---!').toBe('---');
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('without requestAnimationFrame (Node), flushes every 16 ms on the async scheduler', () => {
    expect(typeof (globalThis as { requestAnimationFrame?: unknown }).requestAnimationFrame).toBe('undefined');
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold('ab 20ms c 30ms |', { a: content('a'), b: content('b'), c: content('c') });
      // a at 0 asks for a flush at 16; c at 22 asks for one at 38.
      expectObservable(source.pipe(batchEventsPerFrame())).toBe('16ms x 21ms y 14ms |', { x: [content('ab')], y: [content('c')] });
    });
  });

  it('with requestAnimationFrame, uses the animation frames by default', () => {
    const global = globalThis as { requestAnimationFrame?: unknown };
    // The TestScheduler's animate() intercepts RxJS's frame requests; the global only has to exist.
    global.requestAnimationFrame = () => 0;
    try {
      testScheduler.run(({ cold, animate, expectObservable }) => {
        animate('            ----x');
        const source = cold('ab-------|', { a: content('a'), b: content('b') });
        expectObservable(source.pipe(batchEventsPerFrame())).toBe('----x----|', { x: [content('ab')] });
      });
    } finally {
      delete global.requestAnimationFrame;
    }
  });

  it('starts afresh on each subscription: what an earlier subscription left pending is not emitted to a later one', () => {
    const source = new Subject<ChatEvent>();
    const seen: unknown[] = [];
    const operator = batchEventsPerFrame({ scheduler: testScheduler });
    const first = source.pipe(operator).subscribe({ next: (batch) => seen.push(batch), error: (error) => seen.push(error) });
    source.next(content('a'));
    first.unsubscribe();
    source.pipe(operator).subscribe({ next: (batch) => seen.push(batch), complete: () => seen.push('done') });
    source.next(content('b'));
    source.complete();
    expect(seen).toEqual([[content('b')], 'done']);
  });
});

describe('latestPerFrame', () => {
  it('emits the latest value of each frame that had one, and the latest at once at completion', () => {
    testScheduler.run(({ cold, animate, expectObservable }) => {
      animate('            ---x--x---x');
      const source = cold('abc--d-ef|');
      expectObservable(source.pipe(latestPerFrame(onFrames))).toBe('---c--d--(f|)');
    });
  });

  it('emits the latest at once when the source errors, then the error', () => {
    testScheduler.run(({ cold, animate, expectObservable }) => {
      animate('            -----x');
      const source = cold('ab#');
      expectObservable(source.pipe(latestPerFrame(onFrames))).toBe('--(b#)');
    });
  });

  it('on unsubscribe, the pending value is not emitted', () => {
    testScheduler.run(({ cold, animate, expectObservable, expectSubscriptions }) => {
      animate('            -----x');
      const source = cold('ab----|');
      expectObservable(source.pipe(latestPerFrame(onFrames)), '--!').toBe('--');
      expectSubscriptions(source.subscriptions).toBe('^-!');
    });
  });
});
