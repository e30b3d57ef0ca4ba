import { ChatEvent } from '../src/types/events';
import { toMessageEvents } from '../src/ui/toMessageEvents';
import { runSync } from './support/collect';

describe('toMessageEvents', () => {
  it('maps each event to a new { data, type, id } object with data always a string', () => {
    const events: ChatEvent[] = [{ type: 'content', choice: 0, text: 'hi' }, { type: 'done' }];
    const { values } = runSync(events, toMessageEvents());
    expect(values).toEqual([
      { data: '{"type":"content","choice":0,"text":"hi"}', type: 'content', id: '1' },
      { data: '{"type":"done"}', type: 'done', id: '2' },
    ]);
    expect(values[0]).not.toBe(events[0]);
    const again = runSync(events, toMessageEvents()).values;
    expect(again[0]).not.toBe(values[0]);
    expect(again[0]!.id).toBe('1'); // a new subscription counts from 1 again
  });
});
