// Preloaded into a relay instance by the slow-client spec (`node --expose-gc -r memoryProbe.cjs`):
// answers a 'memory' message on the IPC channel with the process's heap (after a full collection)
// and resident set size, so that what is measured is the server's own memory.
process.on('message', (message) => {
  if (message !== 'memory') return;
  if (typeof global.gc === 'function') {
    global.gc();
    global.gc();
  }
  const { heapUsed, heapTotal, rss, external, arrayBuffers } = process.memoryUsage();
  process.send({ heapUsed, heapTotal, rss, external, arrayBuffers });
});
