// Sends one chat request with Angular's real HttpClient (the fetch backend, as `withFetch()` gives
// it) through `retryRequest`, on the built package, and prints one JSON line: the reply's content,
// or the error's class, reason, status, attempts (statuses and waits) and rate limits. Angular ships
// only ES modules, which the specs' CommonJS runtime cannot load, so a spec runs this as a child:
//
//   node spec/support/angularRetryClient.mjs <url>
//
// The jitter is made constant (`random: () => 0`) and the waits are shrunk to a millisecond per
// second asked, so that the spec reads exact waits without waiting them.
import '@angular/compiler';
import { Injector, createEnvironmentInjector, provideZonelessChangeDetection, ɵINJECTOR_SCOPE as INJECTOR_SCOPE } from '@angular/core';
import { HttpClient, HttpEventType, provideHttpClient, withFetch } from '@angular/common/http';
import { asyncScheduler, filter, lastValueFrom, map } from 'rxjs';
import { assembleChunks, finalizeCompletion, retryRequest, sseFrames, transcriptDeltas } from '../../dist/esm/index.js';

const [url] = process.argv.slice(2);
const injector = createEnvironmentInjector(
  [provideZonelessChangeDetection(), provideHttpClient(withFetch()), { provide: INJECTOR_SCOPE, useValue: 'root' }],
  Injector.NULL,
);
const http = injector.get(HttpClient);

const waits = [];
/** Records each wait and runs it a thousand times faster. */
const scheduler = {
  now: () => Date.now(),
  schedule: (work, delay = 0, state) => {
    waits.push(delay);
    return asyncScheduler.schedule(work, delay / 1000, state);
  },
};
const limits = [];

try {
  const completion = await lastValueFrom(
    retryRequest(
      () => http.post(url, JSON.stringify({ stream: true }), { observe: 'events', responseType: 'text', reportProgress: true }),
      {
        scheduler,
        random: () => 0,
        onRateLimits: (value, status) => limits.push({ status, value }),
      },
    ).pipe(
      filter((event) => event.type === HttpEventType.DownloadProgress),
      map((event) => event.partialText ?? ''),
      transcriptDeltas(),
      sseFrames(),
      assembleChunks(),
      finalizeCompletion(),
    ),
  );
  console.log(JSON.stringify({ content: completion.content, waits, limits }));
} catch (error) {
  console.log(
    JSON.stringify({
      waits,
      limits,
      error: {
        name: error.name,
        reason: error.reason,
        message: error.message,
        status: error.status,
        attempts: error.attempts?.map((attempt) => ({ status: attempt.status, waitMs: attempt.waitMs, cause: attempt.cause?.name })),
        rateLimits: error.rateLimits,
      },
    }),
  );
} finally {
  injector.destroy();
}
