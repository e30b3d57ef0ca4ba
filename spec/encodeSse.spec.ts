import fc from 'fast-check';
import { from } from 'rxjs';
import { SseFrame } from '../src/frames/SseParser';
import { SseEncoder } from '../src/ui/SseEncoder';
import { encodeSse, encodeSseBytes } from '../src/ui/encodeSse';
import { ProtocolError } from '../src/errors/errors';
import { sseFrames } from '../src/frames/sseFrames';
import { decodeUtf8 } from '../src/frames/decodeUtf8';
import { runSync } from './support/collect';
import { textChunksOf } from './support/chunking';

/** Frames as a reader produces them: `id` and `retry` persist once set, data has no CR. */
const frames = fc
  .array(
    fc.record({
      event: fc.oneof(
        fc.constant('message'),
        fc.string({ minLength: 1, maxLength: 8 }).filter((s) => !/[\r\n]/.test(s) && !s.startsWith(' ') && s !== 'message'),
      ),
      data: fc.string({ maxLength: 20 }).filter((s) => !s.includes('\r')),
      id: fc.option(
        fc.string({ maxLength: 6 }).filter((s) => !/[\r\n\0]/.test(s) && !s.startsWith(' ')),
        { nil: undefined },
      ),
      retry: fc.option(fc.nat(100000), { nil: undefined }),
    }),
    { maxLength: 8 },
  )
  .map((raw) => {
    let id = '';
    let retry: number | undefined;
    return raw.map((f): SseFrame => {
      if (f.id !== undefined) id = f.id;
      if (f.retry !== undefined) retry = f.retry;
      return retry === undefined ? { event: f.event, data: f.data, id } : { event: f.event, data: f.data, id, retry };
    });
  });

describe('encodeSse', () => {
  it('writes fields only as needed, data line by line, and a blank line after each frame', () => {
    const encoder = new SseEncoder();
    expect(encoder.encode({ event: 'message', data: 'a\nb', id: '' })).toBe('data: a\ndata: b\n\n');
    expect(encoder.encode({ event: 'delta', data: ' x', id: '7', retry: 500 })).toBe('event: delta\nid: 7\nretry: 500\ndata:  x\n\n');
    expect(encoder.encode({ event: 'message', data: '', id: '7', retry: 500 })).toBe('data: \n\n');
    expect(encoder.encode({ event: 'message', data: 'z', id: '' })).toBe('id\ndata: z\n\n');
  });

  it('refuses an event name or id that would break the format', () => {
    expect(() => new SseEncoder().encode({ event: 'a\nb', data: '', id: '' })).toThrow(ProtocolError);
    expect(() => new SseEncoder().encode({ event: 'message', data: '', id: 'a\0' })).toThrow(ProtocolError);
  });

  it('then sseFrames is the identity for every frame sequence, however the text is split (fast-check)', () => {
    fc.assert(
      fc.property(frames, fc.integer({ min: 1, max: 9 }), (written, size) => {
        const text = runSync(written, encodeSse()).values.join('');
        const read = runSync(textChunksOf(text, size), sseFrames());
        expect(read).toEqual({ values: written });
      }),
      { numRuns: 400 },
    );
  });

  it('has a byte form that decodeUtf8 and sseFrames read back', () => {
    const written: SseFrame[] = [
      { event: 'message', data: 'café ☕\n😀', id: '1' },
      { event: 'x', data: '', id: '1' },
    ];
    const outcome = runSync([0], () => from(written).pipe(encodeSseBytes(), decodeUtf8(), sseFrames()));
    expect(outcome).toEqual({ values: written });
  });
});
