import { ToolCallDeltaEvent, ToolCallProgress } from '../types/events.js';

/**
 * `{ ...event, call }`: the fragment with the call so far, as `groupToolCallsByIndex` emits it.
 *
 * Written out for the fragments every dialect of this library makes (`type`, `choice`, `index`, `id`
 * and `name` when the fragment has them, `arguments`, in that order): in V8
 * an object literal that adds a property after a spread is built by the runtime, property by
 * property, at about 30 times the cost of a literal, and the objects it makes have shapes that every
 * later property read of them finds slowly. A fragment whose keys are others, or in another order,
 * is spread, so the result is always the same keys, in the same order, with the same values.
 */
export function deltaWithCall(event: ToolCallDeltaEvent, call: ToolCallProgress): ToolCallDeltaEvent {
  const keys = Object.keys(event);
  const n = keys.length;
  if (n >= 4 && n <= 6 && keys[0] === 'type' && keys[1] === 'choice' && keys[2] === 'index' && keys[n - 1] === 'arguments') {
    const { type, choice, index, id, name, arguments: text } = event;
    if (n === 4) return { type, choice, index, arguments: text, call };
    if (n === 6 && keys[3] === 'id' && keys[4] === 'name') return { type, choice, index, id, name, arguments: text, call };
    if (n === 5 && keys[3] === 'id') return { type, choice, index, id, arguments: text, call };
    if (n === 5 && keys[3] === 'name') return { type, choice, index, name, arguments: text, call };
  }
  return { ...event, call };
}
