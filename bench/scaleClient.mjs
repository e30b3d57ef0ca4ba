// One measurement of `npm run bench:scale`, in a process of its own: `streams` concurrent streams
// from the fake upstream (bench/scaleUpstream.mjs) read by one contender, mid-reply. Prints one JSON
// line: memory per open stream (heap and RSS after a full GC, above the level before the first
// connection), the text the streams hold, CPU per event, and the latency from the arrival of the
// bytes that complete an event to the contender's event for it (p50, p99, max).
//
//   node --expose-gc bench/scaleClient.mjs <contender> <streams> <ports> <rate> <warm-up s> <window s>
//
// <ports>: the upstream's ports, comma-separated; the streams are spread over them in turn (one port
// takes at most as many connections from 127.0.0.1 as there are ephemeral ports). Each request asks
// the upstream for <rate> events per second (`?rate=`). With SCALE_CPU_PROFILE=<file>, the window
// (and only the window) is profiled through the inspector, and the profile written to <file>: its
// CPU figures then include the profiler's cost, so such a run is not a row of the table. With
// SCALE_HEAP_SNAPSHOT=<file>, a heap snapshot is written to <file> after the memory is taken, every
// stream still open: two contenders' snapshots at one count, compared by constructor, show what one
// holds per stream that the other does not (a snapshot takes seconds and doubles the heap for a while).
//
// Every contender gets its bytes from the same transport: `node:http` requests on one agent with no
// limit on sockets. A `data` listener, registered before the contender's, takes the time each chunk
// arrives and counts the events it completes (its blank lines); the contender's n-th content event
// is matched with the arrival of the n-th content event's last bytes. The library reads the
// `IncomingMessage` itself (`fromReadableStream` takes a Node stream); the two SDKs take a `fetch`,
// which is given one that returns a `Response` over a web stream of the same chunks, as fetch does.
import http from 'node:http';
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { writeFileSync } from 'node:fs';
import { writeHeapSnapshot } from 'node:v8';
import { Session } from 'node:inspector/promises';

const [contender, streamsArg, portsArg, rateArg, warmArg, windowArg] = process.argv.slice(2);
const streams = Number(streamsArg);
const ports = portsArg.split(',').map(Number);
const port = ports[0];
const rate = Number(rateArg);
const profilePath = process.env.SCALE_CPU_PROFILE;
const gc = globalThis.gc;
if (typeof gc !== 'function') throw new Error('run with node --expose-gc');

const libraryUrl = process.env.BENCH_LIB
  ? pathToFileURL(process.env.BENCH_LIB).href
  : new URL('../dist/esm/index.js', import.meta.url).href;
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const urls = ports.map((p) => `http://127.0.0.1:${p}/v1/chat/completions?rate=${rate}`);
const requestBody = JSON.stringify({ model: 'gpt-4.1-nano', stream: true, messages: [{ role: 'user', content: 'bench' }] });

let measuring = false;
let events = 0;
let handedOut = 0; // every content event, in the window or not
let textChars = 0;
const latencies = [];
let failures = 0;
let firstFailure;

/** The per-stream record of arrivals: the time the bytes completing each event arrived; and the stream's URL. */
function arrivals(url) {
  return { times: [], next: 1, lastWasLf: false, url }; // event 0 is the role chunk: no content event
}

/** Counts the events `chunk` completes, noting the time of each. */
function noteArrival(record, chunk, now) {
  let at = 0;
  if (record.lastWasLf && chunk[0] === 10) {
    record.times.push(now);
    at = 1;
  }
  for (let found = chunk.indexOf('\n\n', at); found !== -1; found = chunk.indexOf('\n\n', found + 2)) record.times.push(now);
  record.lastWasLf = chunk[chunk.length - 1] === 10;
}

/** A content event of one stream: its latency, when the window is open. */
function onContent(record, text) {
  const now = performance.now();
  const arrived = record.times[record.next];
  record.times[record.next++] = undefined;
  textChars += text.length;
  handedOut++;
  if (!measuring) return;
  events++;
  if (arrived !== undefined) latencies.push(now - arrived);
}

let closing = false;
function fail(error) {
  if (closing) return; // the streams end without [DONE]: the measurement is over
  failures++;
  firstFailure ??= String(error?.stack ?? error)
    .split('\n')
    .slice(0, 3)
    .join(' ');
}

/**
 * Opens one stream; `read(response)` is called as soon as the headers arrived, in the same turn as
 * the arrival listener is added (a turn later, the first chunks would already have gone by).
 */
function open(record, read) {
  return new Promise((resolve, reject) => {
    const request = http.request(record.url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (response) => {
      response.on('data', (chunk) => noteArrival(record, chunk, performance.now()));
      resolve(read(response));
    });
    request.on('error', reject);
    request.end(requestBody);
  });
}

/** A `fetch` for the SDKs: the same request, its body as a web stream of the same chunks. */
function fetchThrough(record) {
  return () =>
    open(record, (response) => {
      const body = new ReadableStream({
        start(controller) {
          response.on('data', (chunk) => controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
          response.on('end', () => controller.close());
          response.on('error', (error) => controller.error(error));
        },
        cancel: () => response.destroy(),
      });
      return new Response(body, { status: response.statusCode, headers: { 'content-type': response.headers['content-type'] } });
    });
}

// Each contender: load() once, then start(record) per stream; start resolves once the stream is open.
const CONTENDERS = {
  // The transport alone: what every contender below pays before it reads a byte.
  transport: {
    load: async () => ({}),
    start: (record) =>
      open(record, (response) =>
        response.on('data', () => {
          // The events the chunk completed, counted (its arrival listener ran first).
          while (record.next < record.times.length) onContent(record, '');
        }),
      ),
  },
  // This library: the README's pipeline over the IncomingMessage; events are seen where they leave
  // groupToolCallsByIndex, and finalizeCompletion after it holds the text as a reply would.
  library: {
    load: async () => ({ lib: await import(libraryUrl), rxjs: await import('rxjs') }),
    start: (record, { lib, rxjs }) => {
      const { decodeUtf8, sseFrames, assembleChunks, groupToolCallsByIndex, finalizeCompletion, fromReadableStream } = lib;
      return open(record, (response) =>
        fromReadableStream(response)
          .pipe(
            decodeUtf8(),
            sseFrames(),
            assembleChunks(),
            groupToolCallsByIndex(),
            rxjs.tap((event) => {
              if (event.type === 'content') onContent(record, event.text);
            }),
            finalizeCompletion(),
          )
          .subscribe({ error: fail }),
      );
    },
  },
  // The openai SDK's ChatCompletionStream (client.chat.completions.stream), its `content` events.
  openai: {
    load: async () => ({ OpenAI: (await import('openai')).default }),
    start: async (record, { OpenAI }) => {
      const client = new OpenAI({ apiKey: 'sk-bench', baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0, fetch: fetchThrough(record) });
      const stream = client.chat.completions.stream({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'bench' }] });
      stream.on('content', (delta) => onContent(record, delta));
      stream.on('error', fail);
      await new Promise((resolve) => stream.on('connect', resolve));
      return stream;
    },
  },
  // The AI SDK: streamText with @ai-sdk/openai's Chat Completions model, read from fullStream.
  'ai-sdk': {
    load: async () => ({ ai: await import('ai'), provider: await import('@ai-sdk/openai') }),
    start: async (record, { ai, provider }) => {
      let opened;
      const ready = new Promise((resolve) => (opened = resolve));
      const fetch = fetchThrough(record);
      const model = provider.createOpenAI({
        apiKey: 'sk-bench',
        baseURL: `http://127.0.0.1:${port}/v1`,
        fetch: (...args) => fetch(...args).finally(opened),
      });
      const result = ai.streamText({
        model: model.chat('gpt-4.1-nano'),
        prompt: 'bench',
        maxRetries: 0,
        onError: ({ error }) => fail(error),
      });
      (async () => {
        for await (const part of result.fullStream) if (part.type === 'text-delta') onContent(record, part.text);
      })().catch(fail);
      await ready;
      return result;
    },
  },
  // The relay (rxjs-llm-stream/relay): a `StreamRelay` over the in-memory store serves each stream
  // to a client of its own, in another process (bench/scaleRelayClients.mjs), as a gateway does:
  // POST /chat starts the upstream request, reads it through the README's layers by the client's
  // demand, keeps every event in the store and writes it to the client as SSE. An event is handed
  // out when its frame is written to the client's socket (`response.write`), so the latency is from
  // the upstream bytes' arrival to the frame's write, store and sink included.
  relay: {
    load: async () => {
      const lib = await import(libraryUrl);
      const { Observable } = await import('rxjs');
      const { StreamRelay } = await import(new URL('./relay/index.js', libraryUrl).href);
      const relay = new StreamRelay({ onError: (error) => fail(error) });
      const waiting = new Map();
      const server = http.createServer((request, response) => {
        request.resume();
        const id = new URL(request.url, 'http://relay').searchParams.get('id');
        const stream = waiting.get(id);
        if (stream === undefined) return response.writeHead(404).end();
        const write = response.write.bind(response);
        response.write = (chunk, ...rest) => {
          noteFrames(stream.record, chunk);
          return write(chunk, ...rest);
        };
        const reply = (demand) =>
          new Observable((subscriber) => {
            let subscription;
            open(stream.record, (upstream) => (subscription = lib.fromReadableStream(upstream, { demand }).subscribe(subscriber))).catch(
              (error) => subscriber.error(error),
            );
            return () => subscription?.unsubscribe();
          }).pipe(lib.decodeUtf8(), lib.sseFrames(), lib.assembleChunks(), lib.groupToolCallsByIndex());
        relay.start(reply, response, { streamId: id }).subscribe({ error: fail });
      });
      server.maxConnections = Infinity;
      await new Promise((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve));
      const clients = fork(new URL('./scaleRelayClients.mjs', import.meta.url), [String(server.address().port)]);
      clients.on('message', (message) => {
        const id = message.opened ?? message.failed;
        if (id === undefined) return clients.emit('count', message.events);
        const stream = waiting.get(id);
        waiting.delete(id);
        if (message.opened) stream.resolve(stream);
        else stream.reject(new Error(`relay client ${id}: ${message.error}`));
      });
      const clientEvents = () =>
        new Promise((resolve) => {
          clients.once('count', resolve);
          clients.send({ count: true });
        });
      return { waiting, clients, clientEvents, next: 0 };
    },
    start: (record, relay) =>
      new Promise((resolve, reject) => {
        const id = `s${relay.next++}`;
        relay.waiting.set(id, { record, resolve, reject });
        relay.clients.send({ open: id });
      }),
  },
};

const CONTENT_FRAME = 'event: content\n';
/** The content frames a write to a relay's client holds: each is the event handed out, with its text. */
function noteFrames(record, chunk) {
  if (typeof chunk !== 'string') return;
  for (let at = chunk.indexOf(CONTENT_FRAME); at !== -1; at = chunk.indexOf(CONTENT_FRAME, at + 1)) {
    const data = chunk.indexOf('data: ', at) + 6;
    onContent(record, JSON.parse(chunk.slice(data, chunk.indexOf('\n', data))).text);
  }
}

const spec = CONTENDERS[contender];
if (spec === undefined) throw new Error(`unknown contender ${contender}`);
const loaded = await spec.load();
// The level before the first connection: the modules and the agent are loaded, nothing is open.
gc();
gc();
const base = process.memoryUsage();

const records = [];
const held = [];
const BATCH = 500;
// A reader that cannot keep up opens its streams ever more slowly: past this, it is measured with
// the streams it has (`open` in the report says how many).
const RAMP_LIMIT_MS = Number(process.env.SCALE_RAMP_LIMIT ?? 40) * 1000;
const rampStart = performance.now();
for (let i = 0; i < streams && performance.now() - rampStart < RAMP_LIMIT_MS; i += BATCH) {
  const batch = [];
  for (let k = i; k < Math.min(i + BATCH, streams); k++) {
    const record = arrivals(urls[k % urls.length]);
    records.push(record);
    batch.push(spec.start(record, loaded).then((handle) => held.push(handle), fail));
  }
  // A batch still opening at the limit is left to open in the background; it is not measured.
  const left = RAMP_LIMIT_MS - (performance.now() - rampStart);
  await Promise.race([Promise.all(batch), sleep(Math.max(0, left))]);
}
const rampSeconds = (performance.now() - rampStart) / 1000;

await sleep(Number(warmArg) * 1000);
let profiler;
if (profilePath) {
  profiler = new Session();
  profiler.connect();
  await profiler.post('Profiler.enable');
  // 200 µs between samples (the default is 1 ms): a 5 s window of a busy process gives thousands.
  await profiler.post('Profiler.setSamplingInterval', { interval: 200 });
  await profiler.post('Profiler.start');
}
const lagStart = performance.now();
const cpuStart = process.cpuUsage();
measuring = true;
const windowMs = Number(windowArg) * 1000;
await sleep(windowMs);
measuring = false;
const cpu = process.cpuUsage(cpuStart);
const elapsedMs = performance.now() - lagStart;
if (profiler) {
  const { profile } = await profiler.post('Profiler.stop');
  writeFileSync(profilePath, JSON.stringify(profile));
  profiler.disconnect();
}

gc();
gc();
const after = process.memoryUsage();
if (process.env.SCALE_HEAP_SNAPSHOT) writeHeapSnapshot(process.env.SCALE_HEAP_SNAPSHOT);
// The text the streams hold: the contents so far, one byte per character (the words are ASCII).
const textBytes = textChars;

latencies.sort((a, b) => a - b);
const at = (q) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] : null);
// The relay's clients: what they read by the end of the window, beside what was written to them.
const clientEvents = loaded.clientEvents ? await loaded.clientEvents() : undefined;
const result = {
  contender,
  clientEvents,
  handedOut,
  streams,
  opened: held.length,
  failures,
  firstFailure,
  rampSeconds,
  rampLimited: held.length < streams,
  heapPerStream: (after.heapUsed - base.heapUsed) / Math.max(1, held.length),
  rssPerStream: (after.rss - base.rss) / Math.max(1, held.length),
  textPerStream: textBytes / Math.max(1, held.length),
  events,
  expectedEvents: held.length * rate * (elapsedMs / 1000),
  cpuMicrosPerEvent: events ? (cpu.user + cpu.system) / events : null,
  cpuShare: (cpu.user + cpu.system) / 1000 / elapsedMs,
  p50: at(0.5),
  p99: at(0.99),
  max: latencies.length ? latencies[latencies.length - 1] : null,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
// The upstream ends the streams (see /close there); then this process goes.
closing = true;
await new Promise((resolve) =>
  http.get(`http://127.0.0.1:${port}/close`, { agent }, (response) => response.resume().on('end', resolve)).on('error', resolve),
);
await sleep(Math.min(5000, 500 + streams / 10));
process.exit(0);
