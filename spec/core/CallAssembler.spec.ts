import { CallAssembler } from '../../src/reply/CallAssembler';
import { ProtocolError } from '../../src/errors/errors';
import { FinishReason } from '../../src/types/events';

/** Fragments of one choice as [index, id, name, arguments, kind?]; an id or name of '' is "not in this piece". */
type Fragment = readonly [number, string, string, string, 'custom'?];

function assemble(fragments: readonly Fragment[], ends: readonly number[] = []): CallAssembler {
  const calls = new CallAssembler();
  for (const [index, id, name, text, kind] of fragments) {
    calls.addFragment({
      choice: 0,
      index,
      ...(id === '' ? {} : { id }),
      ...(name === '' ? {} : { name }),
      arguments: text,
      ...(kind === undefined ? {} : { kind }),
    });
  }
  for (const index of ends) calls.end(0, index);
  return calls;
}

const TWO_CALLS_SECOND_CUT: readonly Fragment[] = [
  [0, 'call_a', 'lookup', '{"q":"paris"}'],
  [1, 'call_b', 'lookup', '{"q":"tok'],
];

describe('CallAssembler at the finish', () => {
  it.each<[string, FinishReason]>([
    ['length', 'length'],
    ['stop', 'stop'],
    ['tool_calls', 'tool_calls'],
  ])('a whole set of calls closes the same way at %s', (_name, reason) => {
    const finished = assemble([[0, 'call_a', 'lookup', '{"q":1}']]).finish(0, reason);
    expect(finished.closed.map(({ call }) => call.args)).toEqual([{ q: 1 }]);
    expect(finished.incomplete).toEqual([]);
  });

  it('at length, keeps the last call apart when its arguments were cut, and closes the calls before it', () => {
    const finished = assemble(TWO_CALLS_SECOND_CUT).finish(0, 'length');
    expect(finished.closed).toEqual([
      { choice: 0, call: { index: 0, id: 'call_a', name: 'lookup', arguments: '{"q":"paris"}', args: { q: 'paris' } } },
    ]);
    expect(finished.incomplete).toEqual([{ choice: 0, call: { index: 1, id: 'call_b', name: 'lookup', arguments: '{"q":"tok' } }]);
  });

  it.each<[string, FinishReason | undefined]>([
    ['stop', 'stop'],
    ['tool_calls', 'tool_calls'],
    ['content_filter', 'content_filter'],
    ['no reason', undefined],
  ])('at %s, a cut call is a ProtocolError: only the token limit explains it', (_name, reason) => {
    expect(() => assemble(TWO_CALLS_SECOND_CUT).finish(0, reason)).toThrow(ProtocolError);
  });

  it('at length, a broken call that is not the last one is still a ProtocolError', () => {
    const calls = assemble([
      [0, 'call_a', 'lookup', '{"q":'],
      [1, 'call_b', 'lookup', '{"q":2}'],
    ]);
    expect(() => calls.finish(0, 'length')).toThrow(/arguments of tool call 0 of choice 0 \(lookup\) are not valid JSON/);
  });

  it('at length, a call cut before its name arrived is kept apart with what it had', () => {
    const finished = assemble([[0, 'call_a', '', '']]).finish(0, 'length');
    expect(finished.incomplete).toEqual([{ choice: 0, call: { index: 0, id: 'call_a', name: null, arguments: '' } }]);
  });
});

describe('CallAssembler and an explicit end', () => {
  it('a call ended with arguments that do not parse waits for the finish: length keeps it apart', () => {
    const calls = assemble([[0, 'toolu_1', 'lookup', '{"q":"to']], [0]);
    expect(calls.finish(0, 'length').incomplete.map(({ call }) => call.arguments)).toEqual(['{"q":"to']);
  });

  it('a call ended with arguments that do not parse fails at a finish that is not length', () => {
    const calls = assemble([[0, 'toolu_1', 'lookup', '{"q":"to']], [0]);
    expect(() => calls.finish(0, 'tool_calls')).toThrow(ProtocolError);
  });

  it('a call ended broken fails as soon as another call starts: it was not cut by the end of the reply', () => {
    const calls = assemble([[0, 'toolu_1', 'lookup', '{"q":"to']], [0]);
    expect(() => calls.addFragment({ choice: 0, index: 1, id: 'toolu_2', name: 'lookup', arguments: '{}' })).toThrow(
      /arguments of tool call 0 of choice 0 \(lookup\) are not valid JSON/,
    );
  });

  it('a fragment after a call ended is refused, whether or not the call was whole', () => {
    const whole = assemble([[0, 'toolu_1', 'lookup', '{}']], [0]);
    expect(() => whole.addFragment({ choice: 0, index: 0, arguments: 'x' })).toThrow(/after it closed/);
    const broken = assemble([[0, 'toolu_1', 'lookup', '{']], [0]);
    expect(() => broken.addFragment({ choice: 0, index: 0, arguments: '}' })).toThrow(/after it closed/);
  });
});

describe('CallAssembler and custom (free-form) calls', () => {
  it('keeps a custom call raw: text that is not JSON closes, with args the text itself', () => {
    const finished = assemble([
      [0, 'call_c', 'run_sql', 'SELECT * FROM ', 'custom'],
      [0, '', '', 'users;'],
    ]).finish(0, 'tool_calls');
    expect(finished.closed).toEqual([
      {
        choice: 0,
        call: { kind: 'custom', index: 0, id: 'call_c', name: 'run_sql', arguments: 'SELECT * FROM users;', args: 'SELECT * FROM users;' },
      },
    ]);
  });

  it('never parses a custom call whose text happens to be JSON', () => {
    const [closed] = assemble([[0, 'call_c', 'echo', '{"a":1}', 'custom']], [0]).finish(0, 'stop').closed;
    expect(closed).toBeUndefined(); // closed at its end already
    const calls = assemble([[0, 'call_c', 'echo', '{"a":1}', 'custom']]);
    expect(calls.end(0, 0)).toEqual({ kind: 'custom', index: 0, id: 'call_c', name: 'echo', arguments: '{"a":1}', args: '{"a":1}' });
  });

  it('at length, a custom call that no end closed may have been cut: it is kept apart', () => {
    const finished = assemble([[0, 'call_c', 'run_sql', 'SELECT', 'custom']]).finish(0, 'length');
    expect(finished.incomplete).toEqual([
      { choice: 0, call: { kind: 'custom', index: 0, id: 'call_c', name: 'run_sql', arguments: 'SELECT' } },
    ]);
  });

  it('at length, a custom call its end closed is whole', () => {
    const calls = assemble([[0, 'call_c', 'run_sql', 'SELECT 1', 'custom']]);
    expect(calls.end(0, 0)?.args).toBe('SELECT 1');
    expect(calls.finish(0, 'length')).toEqual({ closed: [], incomplete: [] });
  });
});

describe('CallAssembler adopting what an assembler upstream settled', () => {
  it('adopts a cut call that matches its fragments, and then has nothing open at the finish', () => {
    const calls = assemble(TWO_CALLS_SECOND_CUT);
    calls.adoptIncomplete(0, { index: 1, id: 'call_b', name: 'lookup', arguments: '{"q":"tok' });
    const finished = calls.finish(0, 'length');
    expect(finished.incomplete).toEqual([]);
    expect(finished.closed.map(({ call }) => call.id)).toEqual(['call_a']);
    expect(calls.choice(0).incompleteList()).toEqual([{ index: 1, id: 'call_b', name: 'lookup', arguments: '{"q":"tok' }]);
  });

  it('refuses a cut call that does not match its fragments', () => {
    const calls = assemble(TWO_CALLS_SECOND_CUT);
    expect(() => calls.adoptIncomplete(0, { index: 1, id: 'call_b', name: 'lookup', arguments: '{"q":"other' })).toThrow(
      /does not match its fragments/,
    );
  });

  it('refuses a whole call for a call that the finish kept apart', () => {
    const calls = assemble(TWO_CALLS_SECOND_CUT);
    calls.finish(0, 'length');
    expect(() => calls.adopt(0, { index: 1, id: 'call_b', name: 'lookup', arguments: '{"q":"tok', args: {} })).toThrow(/not whole/);
  });
});
