import type { StreamEntry } from '../../src/relay/streamEntries';

// The entries the store specs append: a content event of choice 0, and the end.

/** Entry `id`: a content event of choice 0 with `text`. */
export const contentEntry = (id: number, text: string): StreamEntry => ({
  id,
  kind: 'event',
  type: 'content',
  data: JSON.stringify({ type: 'content', choice: 0, text }),
});

/** Entry `id`: the end of the stream. */
export const endEntry = (id: number): StreamEntry => ({ id, kind: 'end', type: '', data: '' });

/** Resolves after `ms` milliseconds. */
export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
