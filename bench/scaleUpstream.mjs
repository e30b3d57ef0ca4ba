// The fake upstream of `npm run bench:scale`: an HTTP server on 127.0.0.1, in a process of its own,
// that answers every request with an OpenAI Chat Completions stream that never ends while the
// benchmark runs: a first chunk with the role, then one content chunk every 1/rate seconds, each in
// OpenAI's current envelope (an `obfuscation` string of random length at the end), each written as
// it is made, with Nagle's algorithm off, as a server that flushes every event does.
//
//   node bench/scaleUpstream.mjs <rate> [ports]
//
// Started by bench/scale.mjs with the default rate (events per second per stream) and the number of
// ports to listen on (default 1): one client address reaches one server port from at most as many
// ephemeral ports as /proc/sys/net/ipv4/ip_local_port_range holds (about 28,000), so a run of more
// streams spreads them over several ports of 127.0.0.1. It prints `{"ports":[…]}` on stdout once it
// listens on all of them. A request's `?rate=` overrides the rate for its stream (the largest count is
// run at a lower rate, which the report says). `GET /close` ends every open stream. The streams of
// one rate are spread evenly over its period: a timer every TICK_MS writes the next event of the
// streams whose turn it is, so the load is steady.
import http from 'node:http';

const defaultRate = Number(process.argv[2] ?? 2);
const portCount = Math.max(1, Number(process.argv[3] ?? 1));
const TICK_MS = 10;
/** Per rate: its period in ticks (between two events of a stream), a set of streams per tick, the next set to fill. */
const schedules = new Map();
function scheduleOf(rate) {
  let schedule = schedules.get(rate);
  if (schedule === undefined) {
    const period = Math.max(1, Math.round(1000 / rate / TICK_MS));
    schedule = { period, slots: Array.from({ length: period }, () => new Set()), nextSlot: 0 };
    schedules.set(rate, schedule);
  }
  return schedule;
}
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

/** Answers one request: a stream, or /close. */
function answer(request, response) {
  request.resume();
  if (request.url === '/close') {
    // The end of a measurement: this side ends every stream, so that the closed connections wait
    // out TIME_WAIT here, not on the client's ephemeral ports (the next measurement needs them).
    let closed = 0;
    for (const { slots } of schedules.values())
      for (const slot of slots) {
        for (const stream of slot) {
          stream.response.end();
          closed++;
        }
        slot.clear();
      }
    response.end(JSON.stringify({ closed }));
    return;
  }
  const id = `chatcmpl-scale${String(streamCount++).padStart(6, '0')}`;
  response.socket.setNoDelay(true);
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.write(event(id, '{"role":"assistant","content":"","refusal":null}'));
  const stream = { response, id };
  const asked = Number(new URL(request.url, 'http://upstream').searchParams.get('rate'));
  const schedule = scheduleOf(asked > 0 ? asked : defaultRate);
  const slot = schedule.slots[schedule.nextSlot];
  schedule.nextSlot = (schedule.nextSlot + 1) % schedule.period;
  slot.add(stream);
  response.on('close', () => slot.delete(stream));
}

let tick = 0;
setInterval(() => {
  for (const { period, slots } of schedules.values())
    for (const { response, id } of slots[tick % period])
      response.write(event(id, `{"content":${JSON.stringify(WORDS[Math.floor(random() * WORDS.length)])}}`));
  tick++;
}, TICK_MS);

/** Listens on one more free port of 127.0.0.1; every port serves the same streams (one /close ends them all). */
const listen = () =>
  new Promise((resolve, reject) => {
    const server = http.createServer(answer);
    server.keepAliveTimeout = 0;
    server.maxConnections = Infinity;
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => resolve(server.address().port));
  });
const ports = [];
for (let i = 0; i < portCount; i++) ports.push(await listen());
process.stdout.write(`${JSON.stringify({ ports })}\n`);
// The benchmark ends it; and should the benchmark die first, its end of the pipe closes.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
