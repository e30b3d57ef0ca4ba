// `npm run bench:relay`: what RedisStreamStore costs Redis, as the relay uses it. Streams are
// produced by the relay's own Producer on one store instance (a delta every RELAY_BENCH_INTERVAL ms,
// its heartbeat as in production) and read by two resumed readers each, one on each of two other
// store instances (each its own clients, as other processes would have). Every command the three
// instances send is counted by a wrapper around their clients. Prints, for each run:
//   - Redis commands per delta (all instances, all commands), and the commands by name;
//   - the memory an ended stream holds in Redis (MEMORY USAGE of its keys);
//   - the delay the store adds for a resumed reader: from the append of an entry to its arrival
//     in each reader (p50, p99, max).
// It prints, never asserts: timings depend on the machine.
// Settings (environment): REDIS_URL (a running Redis to use; default: a redis-server of its own on a
// free port), RELAY_BENCH_RUNS ("20x200,200x500": streams x deltas), RELAY_BENCH_INTERVAL (20 ms).
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import Redis from 'ioredis';
import { Observable } from 'rxjs';

const require = createRequire(import.meta.url);
const { RedisStreamStore, readStream } = require('../dist/cjs/relay/index.js');
const { Producer } = require('../dist/cjs/relay/Producer.js');

const env = process.env;
const runs = (env.RELAY_BENCH_RUNS ?? '20x200,200x500').split(',').map((run) => run.split('x').map(Number));
const interval = Number(env.RELAY_BENCH_INTERVAL ?? 20);

/** A port nobody listens on now. */
const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** A redis-server of the bench's own, or the one REDIS_URL names. */
async function redisServer() {
  if (env.REDIS_URL) return { url: env.REDIS_URL, stop: async () => undefined };
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'relay-bench-'));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: 'ignore',
  });
  for (let attempt = 0; ; attempt++) {
    const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    probe.on('error', () => undefined);
    const up = await probe.connect().then(
      () => true,
      () => false,
    );
    probe.disconnect();
    if (up) break;
    if (attempt > 200) throw new Error('redis-server did not start within 10 s (is it installed? apt-get install -y redis-server)');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      await new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An ioredis client whose commands are counted by name in `counts`. */
function counted(client, counts) {
  const call = client.call.bind(client);
  client.call = (command, ...args) => {
    const name = String(command).toUpperCase();
    counts.set(name, (counts.get(name) ?? 0) + 1);
    return call(command, ...args);
  };
  if (typeof client.multi === 'function') {
    const multi = client.multi.bind(client);
    client.multi = (commands, ...rest) => {
      counts.set('MULTI', (counts.get('MULTI') ?? 0) + 1);
      counts.set('EXEC', (counts.get('EXEC') ?? 0) + 1);
      for (const [name] of commands ?? []) counts.set(String(name).toUpperCase(), (counts.get(String(name).toUpperCase()) ?? 0) + 1);
      return multi(commands, ...rest);
    };
  }
  return client;
}

/** A store instance with clients of its own. */
function storeInstance(url, prefix, counts, closers) {
  const client = counted(new Redis(url), counts);
  const blockingClient = counted(new Redis(url), counts);
  closers.push(
    () => client.quit(),
    () => blockingClient.quit(),
  );
  return new RedisStreamStore({ client, blockingClient, prefix });
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** A text delta of about 22 characters, as a chat reply has (11 KiB of text for 500 deltas). */
const deltaText = (i) => `word${i} and some more `.slice(0, 22);

async function run(url, streams, deltas) {
  const counts = new Map();
  const closers = [];
  const prefix = `bench${streams}x${deltas}:`;
  const producerStore = storeInstance(url, prefix, counts, closers);
  const readerStores = [storeInstance(url, prefix, counts, closers), storeInstance(url, prefix, counts, closers)];
  const appendedAt = new Map();
  const delays = [];
  const ids = Array.from({ length: streams }, (_, i) => `s${i}`);
  for (const id of ids) await producerStore.create(id);
  counts.clear();
  const resumeAfter = 5;
  const producersDone = ids.map(
    (id) =>
      new Promise((resolve, reject) => {
        const producer = new Producer(producerStore, id, { maxPendingBytes: 1 << 20, onError: (error) => reject(error), onOver: resolve });
        const source = () =>
          new Observable((subscriber) => {
            let i = 0;
            const timer = setInterval(() => {
              i += 1;
              appendedAt.set(`${id}:${i}`, performance.now());
              subscriber.next({ type: 'content', choice: 0, text: deltaText(i) });
              if (i === deltas) {
                clearInterval(timer);
                subscriber.complete();
              }
            }, interval);
            return () => clearInterval(timer);
          });
        producer.detach();
        producer.run(source);
      }),
  );
  // Each reader resumes a few entries in, once they are stored, as a reconnecting client does.
  await new Promise((resolve) => setTimeout(resolve, interval * (resumeAfter + 2)));
  const readsDone = ids.flatMap((id) =>
    readerStores.map(
      (store) =>
        new Promise((resolve, reject) =>
          readStream(store, id, { after: resumeAfter }).subscribe({
            next: (entry) => {
              const at = appendedAt.get(`${id}:${entry.id}`);
              if (at !== undefined) delays.push(performance.now() - at);
            },
            error: reject,
            complete: resolve,
          }),
        ),
    ),
  );
  await Promise.all([...producersDone, ...readsDone]);
  const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
  const memory = new Redis(url);
  const usage = [];
  for (const id of ids) {
    const keys = await memory.keys(`${prefix}*${id}}*`);
    let bytes = 0;
    for (const key of keys) bytes += Number((await memory.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0);
    usage.push(bytes);
  }
  memory.disconnect();
  await Promise.all(closers.map((close) => close()));
  delays.sort((a, b) => a - b);
  usage.sort((a, b) => a - b);
  const byName = [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${(n / (streams * deltas)).toFixed(2)}`)
    .join(', ');
  console.log(`${streams} streams x ${deltas} deltas (a delta every ${interval} ms; 2 resumed readers per stream on 2 other instances)`);
  console.log(`  Redis commands per delta: ${(total / (streams * deltas)).toFixed(2)} (${byName})`);
  const kib = (bytes) => (bytes / 1024).toFixed(1);
  const ms = (value) => value.toFixed(1);
  console.log(`  Redis memory per ended stream: ${kib(percentile(usage, 50))} KiB median, ${kib(usage[usage.length - 1])} KiB max`);
  const p50 = ms(percentile(delays, 50));
  const p99 = ms(percentile(delays, 99));
  console.log(
    `  delay added for a resumed reader: p50 ${p50} ms, p99 ${p99} ms, max ${ms(delays[delays.length - 1])} ms (${delays.length} reads)`,
  );
}

const server = await redisServer();
try {
  for (const [streams, deltas] of runs) await run(server.url, streams, deltas);
} finally {
  await server.stop();
}
