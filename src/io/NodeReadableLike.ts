/** The part of a Node.js `Readable` this library uses (so that no Node types leak into browser builds). */
export interface NodeReadableLike {
  on(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  destroy(error?: Error): unknown;
  readonly destroyed?: boolean;
  /** Needed with a `demand`: stops the `data` events (and a socket's reading) until `resume`. */
  pause?(): unknown;
  resume?(): unknown;
}
