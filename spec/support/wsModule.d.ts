// The `ws` package's client, typed with what the recipes use (`@types/ws` is not installed; this
// file goes once it is). The shapes are those of ws 8's README and lib/websocket.js.
declare module 'ws' {
  import { EventEmitter } from 'events';

  class WebSocket extends EventEmitter {
    static readonly CONNECTING: 0;
    static readonly OPEN: 1;
    static readonly CLOSING: 2;
    static readonly CLOSED: 3;
    constructor(url: string, options?: { readonly headers?: Record<string, string>; readonly followRedirects?: boolean });
    readonly readyState: 0 | 1 | 2 | 3;
    send(data: string): void;
    close(code?: number, reason?: string): void;
    on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): this;
    on(event: 'close', listener: (code: number, reason: Buffer) => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
    on(event: 'open', listener: () => void): this;
    once(event: 'open', listener: () => void): this;
    off(event: string, listener: (...args: never[]) => void): this;
  }
  export default WebSocket;
  export { WebSocket };
}
