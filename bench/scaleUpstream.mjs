// The fake upstream of `npm run bench:scale`: an HTTP server on 127.0.0.1, in a process of its own,
// that answers every request with an OpenAI Chat Completions stream that never ends while the
// benchmark runs: a first chunk with the role, then one content chunk every 1/rate seconds, each in
// OpenAI's current envelope (an `obfuscation` string of random length at the end), each written as
// it is made, with Nagle's algorithm off, as a server that flushes every event does.
//
// Started by bench/scale.mjs with the rate (events per second per stream) as its argument; it prints
// `{"port":…}` on stdout once it listens. `GET /close` ends every open stream. The streams are spread evenly over the period: a timer
// every TICK_MS writes the next event of the streams whose turn it is, so the load is steady.
import http from 'node:http';

const rate = Number(process.argv[2] ?? 2);
const TICK_MS = 10;
const period = Math.max(1, Math.round(1000 / rate / TICK_MS)); // ticks between two events of a stream
const slots = Array.from({ length: period }, () => new Set());
let nextSlot = 0;
let streamCount = 0;

const WORDS = [' the', ' stream', ' token', ' model', ' reply', ' and', ' of', ' to', ' a', ' in', '.', ',', ' is', ' it'];
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
let seed = 12345;
const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;

function obfuscation() {
  let padding = '';
  for (let n = 1 + Math.floor(random() * 16); n > 0; n--) padding += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return padding;
}

function event(id, delta) {
  return (
    `data: {"id":"${id}","object":"chat.completion.chunk","created":1770933892,"model":"gpt-4.1-nano-2025-04-14",` +
    `"service_tier":"default","system_fingerprint":"fp_de604bd877","choices":[{"index":0,"delta":${delta},` +
    `"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"${obfuscation()}"}\n\n`
  );
}

const server = http.createServer((request, response) => {
  request.resume();
  if (request.url === '/close') {
    // The end of a measurement: this side ends every stream, so that the closed connections wait
    // out TIME_WAIT here, not on the client's ephemeral ports (the next measurement needs them).
    let closed = 0;
    for (const slot of slots)
      for (const stream of slot) {
        stream.response.end();
        closed++;
      }
    for (const slot of slots) slot.clear();
    response.end(JSON.stringify({ closed }));
    return;
  }
  const id = `chatcmpl-scale${String(streamCount++).padStart(6, '0')}`;
  response.socket.setNoDelay(true);
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.write(event(id, '{"role":"assistant","content":"","refusal":null}'));
  const stream = { response, id };
  const slot = slots[nextSlot];
  nextSlot = (nextSlot + 1) % period;
  slot.add(stream);
  response.on('close', () => slot.delete(stream));
});
server.keepAliveTimeout = 0;
server.maxConnections = Infinity;

let tick = 0;
setInterval(() => {
  const slot = slots[tick++ % period];
  for (const { response, id } of slot)
    response.write(event(id, `{"content":${JSON.stringify(WORDS[Math.floor(random() * WORDS.length)])}}`));
}, TICK_MS);

server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
// The benchmark ends it; and should the benchmark die first, its end of the pipe closes.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
