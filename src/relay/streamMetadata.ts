import { StreamMetadata, StreamStore } from './StreamStore.js';

/** The companion stream that holds a stream's metadata in a store without `writeMetadata`. */
function companionOf(streamId: string): string {
  return `${streamId}#meta`;
}

/**
 * Keeps `metadata` with stream `streamId` (just made): through the store's own `writeMetadata`, or
 * else as the one entry of a companion stream, `<id>#meta`, made with the store's ordinary methods,
 * so that every store (a Redis one included) can keep it. The companion is left live: it lasts the
 * store's `liveTtl` after the start, longer than the stream's `endedTtl` after its end.
 *
 * @example
 * ```ts
 * import { writeStreamMetadata } from 'rxjs-llm-stream/relay';
 *
 * await writeStreamMetadata(store, streamId, { userId: 'u-42' });
 * ```
 *
 * @param store The relay's store.
 * @param streamId The stream's id.
 * @param metadata What to keep.
 */
export async function writeStreamMetadata(store: StreamStore, streamId: string, metadata: StreamMetadata): Promise<void> {
  if (store.writeMetadata !== undefined) return store.writeMetadata(streamId, metadata);
  const companion = companionOf(streamId);
  await store.create(companion);
  await store.append(companion, [{ id: 1, kind: 'event', type: 'metadata', data: JSON.stringify(metadata) }]);
}

/**
 * The metadata kept with stream `streamId` by {@link writeStreamMetadata}, or `undefined`.
 *
 * @example
 * ```ts
 * import { readStreamMetadata } from 'rxjs-llm-stream/relay';
 *
 * const owner = (await readStreamMetadata(store, streamId))?.['userId'];
 * ```
 *
 * @param store The relay's store.
 * @param streamId The stream's id.
 * @returns The metadata, or `undefined` when none is kept.
 */
export async function readStreamMetadata(store: StreamStore, streamId: string): Promise<StreamMetadata | undefined> {
  if (store.readMetadata !== undefined) return store.readMetadata(streamId);
  const [entry] = await store.read(companionOf(streamId), 0, { count: 1, waitMs: 0 });
  if (entry === undefined) return undefined;
  const parsed = JSON.parse(entry.data) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) if (typeof value === 'string') metadata[key] = value;
  return metadata;
}
