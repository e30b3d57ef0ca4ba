import { CallSchedule } from '../../src/tool-loop/CallSchedule';

// The pure core of a step's calls: the concurrency count and the release in call order.

describe('CallSchedule', () => {
  it('starts no more than its limit, in the order the calls became ready, and the next as one settles', () => {
    const schedule = new CallSchedule<string>(2);
    const slots = [schedule.add(), schedule.add(), schedule.add()];
    schedule.queue(slots[2]!);
    schedule.queue(slots[0]!);
    schedule.queue(slots[1]!);
    expect(schedule.start()).toEqual([2, 0]);
    expect(schedule.start()).toEqual([]);
    schedule.settle(0, 'zero');
    expect(schedule.start()).toEqual([1]);
  });

  it('releases results in call order whatever order they settle in', () => {
    const schedule = new CallSchedule<string>(Infinity);
    for (let i = 0; i < 4; i++) schedule.add();
    expect(schedule.settle(2, 'c')).toEqual([]);
    expect(schedule.settle(1, 'b')).toEqual([]);
    expect(schedule.settle(0, 'a')).toEqual(['a', 'b', 'c']);
    expect(schedule.settled).toBe(false);
    expect(schedule.settle(3, 'd')).toEqual(['d']);
    expect(schedule.settled).toBe(true);
    expect(schedule.results()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('lets a call settle without running (a refused or denied call), dropping it from the queue', () => {
    const schedule = new CallSchedule<string>(1);
    schedule.add();
    schedule.add();
    schedule.queue(0);
    schedule.queue(1);
    expect(schedule.start()).toEqual([0]);
    expect(schedule.settle(1, 'denied')).toEqual([]);
    expect(schedule.settle(0, 'ran')).toEqual(['ran', 'denied']);
    expect(schedule.start()).toEqual([]);
  });

  it('refuses a limit below 1 and a slot settled twice', () => {
    expect(() => new CallSchedule(0)).toThrow(RangeError);
    const schedule = new CallSchedule<string>(1);
    schedule.add();
    schedule.settle(0, 'once');
    expect(() => schedule.settle(0, 'twice')).toThrow(RangeError);
  });
});
