import { StreamStoreTiming } from './StreamStore.js';

/** Options every store takes. */
export interface StreamStoreOptions extends Partial<StreamStoreTiming> {
  /** The most entries kept per stream; older ones are trimmed (a client resuming before them gets an error). Default 100 000. */
  readonly maxLength?: number;
  /** How long an ended stream stays, for clients that resume. Default 10 minutes. */
  readonly endedTtl?: number;
  /** How long a live stream stays after its last entry (a bound on a stream whose end never came). Default 1 hour. */
  readonly liveTtl?: number;
}

/** The store options with their defaults, checked. */
export interface StoreSettings extends StreamStoreTiming {
  readonly maxLength: number;
  readonly endedTtl: number;
  readonly liveTtl: number;
}

/** Renewed every second, dead after three: a producer whose process died is noticed within about four seconds. */
export const DEFAULT_PRODUCER_HEARTBEAT_MS = 1000;
export const DEFAULT_PRODUCER_TIMEOUT_MS = 3000;

/** The settings `options` ask for, each a positive number. */
export function storeSettings(options: StreamStoreOptions, caller: string): StoreSettings {
  const settings: StoreSettings = {
    heartbeatInterval: options.heartbeatInterval ?? DEFAULT_PRODUCER_HEARTBEAT_MS,
    heartbeatTimeout: options.heartbeatTimeout ?? DEFAULT_PRODUCER_TIMEOUT_MS,
    maxLength: options.maxLength ?? 100_000,
    endedTtl: options.endedTtl ?? 10 * 60_000,
    liveTtl: options.liveTtl ?? 60 * 60_000,
  };
  for (const [name, value] of Object.entries(settings)) {
    if (!(typeof value === 'number' && value > 0 && Number.isFinite(value)))
      throw new TypeError(`${caller}: ${name} must be a positive number, got ${String(value)}`);
  }
  if (settings.heartbeatTimeout <= settings.heartbeatInterval) {
    throw new TypeError(
      `${caller}: heartbeatTimeout (${settings.heartbeatTimeout}) must be longer than heartbeatInterval (${settings.heartbeatInterval})`,
    );
  }
  return settings;
}
