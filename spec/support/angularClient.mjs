// Reads a streamed chat reply with Angular's real HttpClient (the fetch backend, as `withFetch()`
// gives it), through the README's Angular recipe: progress events -> transcriptDeltas -> sseFrames
// -> assembleChunks -> scanCompletion, on the built package. Angular ships only ES modules, which
// the specs' CommonJS runtime cannot load, so a spec runs this script as a child process:
//
//   node spec/support/angularClient.mjs <url> [<idle ms>]
//
// With <idle ms>, `idleTimeout(ms)` sits on the text, as the README suggests for HttpClient, which
// has no timeout of its own between progress events.
// and reads one JSON line from its stdout: { snapshots, content, error? } where `error` has the
// class, message, partial content and the cause's name, status and message.
import '@angular/compiler';
import { Injector, createEnvironmentInjector, provideZonelessChangeDetection, ɵINJECTOR_SCOPE as INJECTOR_SCOPE } from '@angular/core';
import { HttpClient, HttpEventType, provideHttpClient, withFetch } from '@angular/common/http';
import { filter, map } from 'rxjs';
import { assembleChunks, idleTimeout, isCompletionSnapshot, scanCompletion, sseFrames, transcriptDeltas } from '../../dist/esm/index.js';

const [url, idleMs] = process.argv.slice(2);
// An application's root injector, without a page to bootstrap: the root scope is what makes the
// `providedIn: 'root'` services HttpClient needs resolvable.
const injector = createEnvironmentInjector(
  [provideZonelessChangeDetection(), provideHttpClient(withFetch()), { provide: INJECTOR_SCOPE, useValue: 'root' }],
  Injector.NULL,
);
const http = injector.get(HttpClient);

let snapshots = 0;
let last;
const describeCause = (cause) =>
  cause === undefined
    ? undefined
    : { name: cause.name, status: cause.status, message: cause.message, error: cause.error?.message ?? cause.error };
http
  .post(url, JSON.stringify({ stream: true }), { observe: 'events', responseType: 'text', reportProgress: true })
  .pipe(
    filter((event) => event.type === HttpEventType.DownloadProgress),
    map((event) => event.partialText ?? ''),
    transcriptDeltas(),
    idleMs === undefined ? (text$) => text$ : idleTimeout(Number(idleMs)),
    sseFrames(),
    assembleChunks(),
    scanCompletion(),
  )
  .subscribe({
    next(snapshot) {
      snapshots++;
      last = snapshot;
    },
    error(error) {
      const partial = isCompletionSnapshot(error.partial) ? error.partial : undefined;
      console.log(
        JSON.stringify({
          snapshots,
          content: last?.content ?? null,
          error: {
            name: error.name,
            message: error.message,
            partialContent: partial?.content ?? null,
            status: error.status,
            cause: describeCause(error.cause),
          },
        }),
      );
      injector.destroy();
    },
    complete() {
      console.log(JSON.stringify({ snapshots, content: last?.content ?? null, finishReason: last?.finishReason ?? null }));
      injector.destroy();
    },
  });
