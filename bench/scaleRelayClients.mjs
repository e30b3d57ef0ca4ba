// The clients of the relay contender of `npm run bench:scale`, in a process of their own, so that
// the relay's process holds only what a gateway holds: forked by bench/scaleClient.mjs, which sends
// `{ open: id }` for each stream; this opens `POST /chat?id=…` on the relay and answers
// `{ opened: id }` once the response's head arrived (or `{ failed: id, error }`). `{ count: true }`
// is answered with `{ events }`: the content events the clients have read so far, counted by their
// `event: content` lines. The clients read as fast as the bytes come.
import http from 'node:http';

const port = Number(process.argv[2]);
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const MARK = 'event: content\n';
let events = 0;

/** Counts the marks in each chunk, with the end of the chunk before (a mark may straddle two). */
function counter() {
  let carry = '';
  return (chunk) => {
    const text = carry + chunk.toString('latin1');
    for (let at = text.indexOf(MARK); at !== -1; at = text.indexOf(MARK, at + MARK.length)) events++;
    carry = text.slice(-(MARK.length - 1));
  };
}

process.on('message', (message) => {
  if (message.count) return process.send({ events });
  const id = message.open;
  const request = http.request(`http://127.0.0.1:${port}/chat?id=${id}`, { method: 'POST', agent }, (response) => {
    response.on('data', counter());
    response.on('error', () => {});
    process.send(response.statusCode === 200 ? { opened: id } : { failed: id, error: `status ${response.statusCode}` });
  });
  request.on('error', (error) => process.send({ failed: id, error: String(error) }));
  request.end();
});
process.on('disconnect', () => process.exit(0));
