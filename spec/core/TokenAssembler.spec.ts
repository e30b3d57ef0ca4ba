import { TokenAssembler, TokenEvent } from '../../src/messages/TokenAssembler';

describe('TokenAssembler', () => {
  it('assembles a message from its deltas, finalizes it once, and reads empty and unknown ids', () => {
    const a = new TokenAssembler();
    expect(a.apply({ id: 'm', delta: 'hel' })).toBeNull();
    expect(a.apply({ id: 'm', delta: 'lo', final: true })).toBe('hello');
    expect(a.apply({ id: 'm', delta: 'ignored', final: true })).toBe('hello');
    expect(a.apply({ id: 'empty', final: true })).toBe('');
    expect(a.get('empty')).toBe('');
    expect(a.get('unseen')).toBeNull();
  });

  describe('rules', () => {
    // Each row: the events applied in order, what each `apply` returns, and `get(id)` afterwards.
    const rules: Array<[rule: string, events: TokenEvent[], returns: Array<string | null>, id: string, text: string | null]> = [
      [
        'appends deltas per id',
        [
          { id: 'm', delta: 'a' },
          { id: 'm', delta: 'b' },
        ],
        [null, null],
        'm',
        'ab',
      ],
      [
        'keeps interleaved ids apart',
        [
          { id: 'a', delta: '1' },
          { id: 'b', delta: 'x' },
          { id: 'a', delta: '2' },
          { id: 'b', delta: 'y', final: true },
        ],
        [null, null, null, 'xy'],
        'a',
        '12',
      ],
      [
        'accepts empty-string deltas between others: they add no text and finalize nothing',
        [
          { id: 'm', delta: '' },
          { id: 'm', delta: 'a' },
          { id: 'm', delta: '' },
          { id: 'm', final: true },
        ],
        [null, null, null, 'a'],
        'm',
        'a',
      ],
      ['an event without a delta creates the message with text ""', [{ id: 'm' }], [null], 'm', ''],
      ['an event with final: false is not final', [{ id: 'm', delta: 'a', final: false }], [null], 'm', 'a'],
      [
        'appends the delta of the final event before returning',
        [
          { id: 'm', delta: 'a' },
          { id: 'm', delta: 'b', final: true },
        ],
        [null, 'ab'],
        'm',
        'ab',
      ],
      ['finalizing an unseen id returns ""', [{ id: 'new', final: true }], [''], 'new', ''],
      [
        'ignores deltas after finalize',
        [
          { id: 'm', delta: 'a', final: true },
          { id: 'm', delta: 'b' },
        ],
        ['a', null],
        'm',
        'a',
      ],
      [
        'finalizing again is idempotent and ignores its delta',
        [
          { id: 'm', delta: 'a', final: true },
          { id: 'm', delta: 'b', final: true },
          { id: 'm', final: true },
        ],
        ['a', 'a', 'a'],
        'm',
        'a',
      ],
      ['a non-final apply after finalize returns null', [{ id: 'm', final: true }, { id: 'm' }], ['', null], 'm', ''],
      [
        'repeated non-final deltas are appended again (no duplicate detection)',
        [
          { id: 'm', delta: 'ab' },
          { id: 'm', delta: 'ab' },
        ],
        [null, null],
        'm',
        'abab',
      ],
      ['get of an unseen id is null', [{ id: 'm', delta: 'a' }], [null], 'other', null],
      [
        'a delta may be part of a word or many words',
        [
          { id: 'm', delta: 'he' },
          { id: 'm', delta: 'llo, wor' },
          { id: 'm', delta: 'ld', final: true },
        ],
        [null, null, 'hello, world'],
        'm',
        'hello, world',
      ],
    ];

    it.each(rules)('%s', (_rule, events, returns, id, text) => {
      const assembler = new TokenAssembler();
      expect(events.map((event) => assembler.apply(event))).toEqual(returns);
      expect(assembler.get(id)).toBe(text);
    });
  });

  it('get() during streaming shows the text so far, and does not freeze it', () => {
    const assembler = new TokenAssembler();
    assembler.apply({ id: 'm', delta: 'a' });
    expect(assembler.get('m')).toBe('a');
    assembler.apply({ id: 'm', delta: 'b' });
    assembler.apply({ id: 'm', delta: 'c' });
    expect(assembler.get('m')).toBe('abc');
    expect(assembler.get('m')).toBe('abc');
    expect(assembler.apply({ id: 'm', delta: 'd', final: true })).toBe('abcd');
    expect(assembler.get('m')).toBe('abcd');
  });

  it('lists open ids in first-seen order, and drops them when finalized', () => {
    const assembler = new TokenAssembler();
    assembler.apply({ id: 'b', delta: '1' });
    assembler.apply({ id: 'a' });
    assembler.apply({ id: 'c', delta: 'x' });
    assembler.apply({ id: 'b', delta: '2' });
    expect(assembler.openIds()).toEqual(['b', 'a', 'c']);
    assembler.apply({ id: 'a', final: true });
    expect(assembler.openIds()).toEqual(['b', 'c']);
    expect(assembler.isFinalized('a')).toBe(true);
    expect(assembler.isFinalized('b')).toBe(false);
    expect(assembler.isFinalized('unseen')).toBe(false);
    assembler.apply({ id: 'z', final: true });
    expect(assembler.openIds()).toEqual(['b', 'c']);
  });

  it('joins each delta once when get() follows every one of 100 000 deltas (linear, not quadratic)', () => {
    const count = 100_000;
    const assembler = new TokenAssembler();
    const lengths: number[] = [];
    // Count the parts the assembler joins: re-joining the whole message on every read would join
    // count * (count + 1) / 2 parts in all. Past the linear budget the spy stops the loop at once,
    // so a quadratic implementation fails here instead of running out of time or memory.
    let totalJoined = 0;
    const originalJoin = Array.prototype.join;
    const spy = jest.spyOn(Array.prototype, 'join').mockImplementation(function (this: unknown[], separator?: string) {
      totalJoined += this.length;
      if (totalJoined > count) throw new Error(`joined ${totalJoined} parts for ${count} deltas`);
      return originalJoin.call(this, separator);
    });
    try {
      for (let i = 0; i < count; i++) {
        assembler.apply({ id: 'm', delta: 'ab' });
        // The length of a string is read without flattening it; comparing content here would make the
        // test itself quadratic.
        lengths.push(assembler.get('m')!.length);
      }
    } finally {
      spy.mockRestore();
    }
    expect(totalJoined).toBeLessThanOrEqual(count);
    expect(lengths[0]).toBe(2);
    expect(lengths[count - 1]).toBe(200_000);
    expect(lengths.every((length, i) => length === 2 * (i + 1))).toBe(true);
    expect(assembler.apply({ id: 'm', final: true })).toBe('ab'.repeat(count));
  });

  it('joins parts buffered between two reads together, once', () => {
    const assembler = new TokenAssembler();
    for (const delta of ['a', 'b', 'c']) assembler.apply({ id: 'm', delta });
    const joinedSizes: number[] = [];
    const originalJoin = Array.prototype.join;
    const spy = jest.spyOn(Array.prototype, 'join').mockImplementation(function (this: unknown[], separator?: string) {
      joinedSizes.push(this.length);
      return originalJoin.call(this, separator);
    });
    let first: string | null;
    let second: string | null;
    try {
      first = assembler.get('m');
      second = assembler.get('m');
    } finally {
      spy.mockRestore();
    }
    expect(first).toBe('abc');
    expect(second).toBe('abc');
    expect(joinedSizes).toEqual([3]);
  });

  it('returns the cached text after finalization without joining again', () => {
    const assembler = new TokenAssembler();
    assembler.apply({ id: 'm', delta: 'x' });
    assembler.apply({ id: 'm', delta: 'y', final: true });
    const spy = jest.spyOn(Array.prototype, 'join');
    let read: string | null;
    let refinalized: string | null;
    let joins: number;
    try {
      read = assembler.get('m');
      refinalized = assembler.apply({ id: 'm', final: true });
      joins = spy.mock.calls.length;
    } finally {
      spy.mockRestore();
    }
    expect(read).toBe('xy');
    expect(refinalized).toBe('xy');
    expect(joins).toBe(0);
  });
});
