import { errorFromStreamErrorData } from '../errors/streamErrorData.js';
import { ChatEvent } from '../types/events.js';
import { UiMessageEncoder, UiMessageEncoderState } from '../ui/UiMessageEncoder.js';
import { StreamEntry } from './streamEntries.js';
import { StreamStore } from './StreamStore.js';

/** Where the UI message encoder stood after entry `entry` of a stream. */
export interface UiCheckpoint {
  readonly entry: number;
  readonly state: UiMessageEncoderState;
}

/**
 * Entries between two checkpoints: a resumed UI client reads at most this many entries before its
 * position (one read's batch). Fixed, so that every instance finds the checkpoints of every other.
 */
export const UI_CHECKPOINT_INTERVAL = 256;

/** The companion stream that holds a stream's checkpoints: checkpoint n (after entry n × interval) is its entry n. */
function checkpointsOf(streamId: string): string {
  return `${streamId}#ui`;
}

/** Feeds an entry to the encoder as the UI relay format does. */
function encode(encoder: UiMessageEncoder, entry: StreamEntry): void {
  if (entry.kind === 'end') encoder.end();
  else if (entry.kind === 'error') encoder.fail(errorFromStreamErrorData(JSON.parse(entry.data)));
  else encoder.encode(JSON.parse(entry.data) as ChatEvent);
}

/**
 * The producer's view of `store` for stream `streamId`: appends as the store does, and besides keeps,
 * every {@link UI_CHECKPOINT_INTERVAL} entries, the UI message encoder's state in a companion stream
 * (`<id>#ui`, made with the store's ordinary methods, ended with the stream so that it expires with
 * it). A UI client that resumes near the end of a long reply is then encoded from the checkpoint
 * before its position, not from the first entry. A stream the encoder cannot read (tool calls not
 * grouped) gets no more checkpoints: its UI clients are encoded from the start, and fail there as
 * they would without checkpoints.
 *
 * @example
 * ```ts
 * import { checkpointingStore } from 'rxjs-llm-stream/relay';
 *
 * const producerStore = checkpointingStore(store, streamId);
 * ```
 *
 * @param store The relay's store.
 * @param streamId The stream being produced.
 * @returns A store to give that stream's producer.
 */
export function checkpointingStore(store: StreamStore, streamId: string): StreamStore {
  const encoder = new UiMessageEncoder();
  let readable = true;
  let written = 0;
  const append = async (id: string, entries: readonly StreamEntry[]): Promise<void> => {
    await store.append(id, entries);
    if (id !== streamId || !readable) return;
    const checkpoints: StreamEntry[] = [];
    let ended = false;
    for (const entry of entries) {
      try {
        encode(encoder, entry);
      } catch {
        // Not a stream the UI encoder reads: no checkpoint is better than a wrong one (see above).
        readable = false;
        break;
      }
      ended ||= entry.kind === 'end';
      if (entry.id % UI_CHECKPOINT_INTERVAL === 0 && !encoder.isEnded) {
        const checkpoint: UiCheckpoint = { entry: entry.id, state: encoder.state };
        checkpoints.push({ id: entry.id / UI_CHECKPOINT_INTERVAL, kind: 'event', type: 'ui-checkpoint', data: JSON.stringify(checkpoint) });
      }
    }
    const companion = checkpointsOf(streamId);
    if (checkpoints.length > 0) {
      if (written === 0) await store.create(companion);
      await store.append(companion, checkpoints);
      written = checkpoints[checkpoints.length - 1]!.id;
    }
    if (ended && written > 0) await store.append(companion, [{ id: written + 1, kind: 'end', type: '', data: '' }]);
  };
  return {
    timing: store.timing,
    create: (id) => store.create(id),
    append,
    beat: (id) => store.beat(id),
    requestStop: (id) => store.requestStop(id),
    state: (id) => store.state(id),
    read: (id, after, options) => store.read(id, after, options),
    ...(store.writeMetadata === undefined ? {} : { writeMetadata: store.writeMetadata.bind(store) }),
    ...(store.readMetadata === undefined ? {} : { readMetadata: store.readMetadata.bind(store) }),
  };
}

/**
 * The checkpoint a UI client that has everything through entry `through` resumes from: the last one
 * at or before it, or `undefined` (start from the first entry) when there is none, none yet, or it
 * does not read back.
 *
 * @example
 * ```ts
 * import { readUiCheckpoint } from 'rxjs-llm-stream/relay';
 *
 * const checkpoint = await readUiCheckpoint(store, streamId, 4990);
 * ```
 *
 * @param store The relay's store.
 * @param streamId The stream.
 * @param through The last entry whose every event the client has.
 * @returns The checkpoint, or `undefined`.
 */
export async function readUiCheckpoint(store: StreamStore, streamId: string, through: number): Promise<UiCheckpoint | undefined> {
  const n = Math.floor(through / UI_CHECKPOINT_INTERVAL);
  if (n === 0) return undefined;
  const [entry] = await store.read(checkpointsOf(streamId), n - 1, { count: 1, waitMs: 0 });
  if (entry === undefined || entry.id !== n || entry.kind !== 'event') return undefined;
  const checkpoint = JSON.parse(entry.data) as UiCheckpoint;
  return checkpoint.entry === n * UI_CHECKPOINT_INTERVAL ? checkpoint : undefined;
}
