// The benchmark's inputs: OpenAI Chat Completions SSE streams, generated deterministically (a seeded
// PRNG, no Math.random), each ending as a real one does: a finish chunk, a usage chunk
// (`choices: []`, as with `stream_options.include_usage`) and `data: [DONE]`.
//
// Each generator returns { bytes, expected, events, maxEventChars }: the UTF-8 bytes of the whole
// body, the assembled result every contender must reproduce ({ text, args }: the length of the
// content in UTF-16 code units and the length of each tool call's arguments, by index), the number
// of SSE events, and the longest event in characters.

const encoder = new TextEncoder();

/** mulberry32: a small seeded PRNG, so that every run generates the same bytes. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The envelope every chunk carries (id, object, created, model), kept short: the tool-call workloads
// are hundreds of thousands of chunks, and the envelope is most of their bytes.
const HEAD = 'data: {"id":"chatcmpl-b1","object":"chat.completion.chunk","created":1730000000,"model":"gpt-4o","choices":';

/** One `data:` event holding a chunk with one choice whose delta is the JSON text `delta`. */
function chunkEvent(delta, finishReason = null) {
  const finish = finishReason === null ? 'null' : JSON.stringify(finishReason);
  return `${HEAD}[{"index":0,"delta":${delta},"finish_reason":${finish}}]}\n\n`;
}

function tail(finishReason) {
  return [
    chunkEvent('{}', finishReason),
    `${HEAD}[],"usage":{"prompt_tokens":57,"completion_tokens":4242,"total_tokens":4299,` +
      '"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},' +
      '"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,' +
      '"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}\n\n',
    'data: [DONE]\n\n',
  ];
}

// Words with one-, two-, three- and four-byte UTF-8 characters (é, 中文, emoji, a ZWJ sequence).
const WORDS = [
  'the',
  'stream',
  'token',
  'model',
  'reply',
  'café',
  'naïve',
  'résumé',
  'élan',
  'straße',
  'Ünïcödé',
  '中文',
  '字符串',
  '流式传输',
  '日本語',
  '😀',
  '🚀',
  '👩‍💻',
  'déjà',
  'vu',
  'and',
  'of',
  '—',
  '“quoted”',
];

function words(random, count) {
  let s = '';
  for (let i = 0; i < count; i++) s += WORDS[Math.floor(random() * WORDS.length)] + (random() < 0.08 ? '.\n' : ' ');
  return s;
}

function finish(parts, expected, maxEventChars) {
  const body = parts.join('');
  const bytes = encoder.encode(body);
  // Where each event ends, in bytes: the `event` chunking hands out one event per chunk.
  const eventEnds = new Array(parts.length);
  for (let i = 0, at = 0; i < parts.length; i++) eventEnds[i] = at += Buffer.byteLength(parts[i]);
  return { bytes, expected, events: parts.length, eventEnds, maxEventChars };
}

// OpenAI's chunks as its API sends them now (marbles/real/openai-text.sse): the envelope names the
// service tier and a system fingerprint, every choice has `logprobs`, every chunk `usage: null` (the
// usage chunk its numbers), and each ends in an `obfuscation` string of random length (random
// padding against size side channels, on unless `stream_options.include_obfuscation` is false), so
// that no two envelopes are alike.
const CURRENT_HEAD =
  'data: {"id":"chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0","object":"chat.completion.chunk","created":1770933892,' +
  '"model":"gpt-4.1-nano-2025-04-14","service_tier":"default","system_fingerprint":"fp_de604bd877","choices":';
const OBFUSCATION_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The `"obfuscation"` field: 1 to 16 random letters and digits, as the recordings have. */
function obfuscation(random) {
  let padding = '';
  const letters = OBFUSCATION_ALPHABET;
  for (let n = 1 + Math.floor(random() * 16); n > 0; n--) padding += letters[Math.floor(random() * letters.length)];
  return `,"obfuscation":"${padding}"`;
}

/** The events of one envelope: `compact` (the short one) or `current` (OpenAI's as it is now). */
function envelope(kind, random) {
  if (kind === 'compact') return { event: chunkEvent, tail };
  const event = (delta, finishReason = null) => {
    const finish = finishReason === null ? 'null' : JSON.stringify(finishReason);
    const choice = `{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}`;
    return `${CURRENT_HEAD}[${choice}],"usage":null${obfuscation(random)}}\n\n`;
  };
  const currentTail = (finishReason) => [
    event('{}', finishReason),
    `${CURRENT_HEAD}[],"usage":{"prompt_tokens":57,"completion_tokens":4242,"total_tokens":4299,` +
      '"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},' +
      '"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,' +
      `"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}${obfuscation(random)}}\n\n`,
    'data: [DONE]\n\n',
  ];
  return { event, tail: currentTail };
}

/** `text`: about `megabytes` MB of content chunks of 1 to 4 words each, multi-byte text. */
export function textStream(megabytes, seed = 1, kind = 'compact') {
  const random = prng(seed);
  const { event: chunkEvent, tail } = envelope(kind, random);
  const parts = [chunkEvent('{"role":"assistant","content":"","refusal":null}')];
  let size = parts[0].length;
  let textLength = 0;
  let maxEventChars = 0;
  const target = megabytes * 1e6;
  while (size < target) {
    const content = words(random, 1 + Math.floor(random() * 4));
    const event = chunkEvent(`{"content":${JSON.stringify(content)}}`);
    parts.push(event);
    // Characters, not bytes: close enough for a size target, and the tail is small.
    size += event.length;
    textLength += content.length;
    if (event.length > maxEventChars) maxEventChars = event.length;
  }
  parts.push(...tail('stop'));
  return finish(parts, { text: textLength, args: [] }, maxEventChars);
}

/** The JSON text of a tool call's arguments of about `chars` characters (ASCII with some é, 中). */
function argumentsText(random, chars, key) {
  const pieces = [];
  let length = 0;
  while (length < chars) {
    const w = WORDS[Math.floor(random() * 14)]; // the BMP words only: no surrogate pairs in arguments
    const piece = random() < 0.1 ? `${w}\\n` : `${w} `;
    pieces.push(piece);
    length += piece.length;
  }
  return `{"path":"notes/${key}.md","content":"${pieces.join('')}"}`;
}

function callHeader(index, name) {
  const id = `call_${String(index).padStart(3, '0')}bench`;
  return `{"tool_calls":[{"index":${index},"id":"${id}","type":"function","function":{"name":"${name}","arguments":""}}]}`;
}

function argumentsDelta(index, fragment) {
  return `{"tool_calls":[{"index":${index},"function":{"arguments":${JSON.stringify(fragment)}}}]}`;
}

/** `one-big-call`: one tool call whose `megabytes` MB argument string arrives in 10-character fragments. */
export function oneBigCall(megabytes, seed = 2) {
  const random = prng(seed);
  const args = argumentsText(random, megabytes * 1e6, 'big');
  const parts = [chunkEvent(`{"role":"assistant","content":null,${callHeader(0, 'write_file').slice(1)}`)];
  let maxEventChars = parts[0].length;
  for (let i = 0; i < args.length; i += 10) {
    const event = chunkEvent(argumentsDelta(0, args.slice(i, i + 10)));
    parts.push(event);
    if (event.length > maxEventChars) maxEventChars = event.length;
  }
  parts.push(...tail('tool_calls'));
  return finish(parts, { text: 0, args: [args.length] }, maxEventChars);
}

/**
 * `64-calls`: 64 tool calls; after their 64 opening chunks (arguments ""), their argument
 * fragments (4 to 24 characters) interleave round-robin, one fragment per chunk, about
 * `megabytes` MB in all.
 */
export function sixtyFourCalls(megabytes, seed = 3, kind = 'compact') {
  const random = prng(seed);
  const { event: chunkEvent, tail } = envelope(kind, random);
  const calls = 64;
  const perEvent = Buffer.byteLength(chunkEvent(argumentsDelta(32, ''))) + 16; // envelope plus a fragment
  const fragmentsPerCall = Math.ceil((megabytes * 1e6) / perEvent / calls);
  const fragments = [];
  const lengths = [];
  for (let k = 0; k < calls; k++) {
    // Cut the call's arguments into fragmentsPerCall pieces of 4 to 24 characters.
    const sizes = Array.from({ length: fragmentsPerCall }, () => 4 + Math.floor(random() * 21));
    const total = sizes.reduce((a, b) => a + b, 0);
    const args = argumentsText(random, total, `part-${k}`);
    const list = [];
    let at = 0;
    for (let f = 0; f < fragmentsPerCall; f++) {
      const end = f === fragmentsPerCall - 1 ? args.length : Math.min(args.length, at + sizes[f]);
      list.push(args.slice(at, end));
      at = end;
    }
    fragments.push(list);
    lengths.push(args.length);
  }
  const parts = [chunkEvent('{"role":"assistant","content":null}')];
  for (let k = 0; k < calls; k++) parts.push(chunkEvent(callHeader(k, `search_${k}`)));
  let maxEventChars = 0;
  for (let f = 0; f < fragmentsPerCall; f++) {
    for (let k = 0; k < calls; k++) {
      const event = chunkEvent(argumentsDelta(k, fragments[k][f]));
      parts.push(event);
      if (event.length > maxEventChars) maxEventChars = event.length;
    }
  }
  parts.push(...tail('tool_calls'));
  return finish(parts, { text: 0, args: lengths }, maxEventChars);
}

/** `long-line`: one `data` line of about `megabytes` MB: a single chunk whose content is all the text. */
export function longLine(megabytes, seed = 4) {
  const random = prng(seed);
  const pieces = [];
  let bytes = 0;
  while (bytes < megabytes * 1e6) {
    const w = words(random, 64);
    pieces.push(w);
    bytes += Buffer.byteLength(w);
  }
  const content = pieces.join('');
  const event = chunkEvent(`{"role":"assistant","content":${JSON.stringify(content)}}`);
  const parts = [event, ...tail('stop')];
  return finish(parts, { text: content.length, args: [] }, event.length);
}

/** The workloads at scale x1 (x4 is four times the payload). */
export const WORKLOADS = {
  text: {
    make: (scale) => textStream(20 * scale),
    about: 'content deltas of 1-4 words, multi-byte text (é, 中文, emoji)',
    x1: '20 MB of chunks',
  },
  'text-current': {
    make: (scale) => textStream(20 * scale, 5, 'current'),
    about: "the same in OpenAI's current chunks: a longer envelope, `obfuscation` of random length",
    x1: '20 MB of chunks',
  },
  'one-big-call': {
    make: (scale) => oneBigCall(5 * scale),
    about: 'one tool call, arguments in 10-character fragments',
    x1: '5 MB of arguments',
  },
  '64-calls': {
    make: (scale) => sixtyFourCalls(20 * scale),
    about: '64 tool calls, fragments of 4-24 characters interleaved round-robin',
    x1: '20 MB of chunks',
  },
  '64-calls-current': {
    make: (scale) => sixtyFourCalls(20 * scale, 6, 'current'),
    about: "the same in OpenAI's current chunks",
    x1: '20 MB of chunks',
  },
  'long-line': {
    make: (scale) => longLine(10 * scale),
    about: 'one data line: a single chunk whose content is all the text',
    x1: '10 MB line',
  },
};

/**
 * Cuts a workload's bytes into the array every contender reads: views of `size` bytes (the last may
 * be shorter), or with `size` 'event' one view per event, as a server that flushes each event sends
 * them (and as they mostly arrive while a reply trickles in).
 */
export function chunk(data, size) {
  const bytes = data.bytes;
  if (size === 'event') {
    const ends = data.eventEnds;
    const pieces = new Array(ends.length);
    for (let i = 0, at = 0; i < ends.length; at = ends[i++]) pieces[i] = bytes.subarray(at, ends[i]);
    return pieces;
  }
  const count = Math.ceil(bytes.length / size);
  const pieces = new Array(count);
  for (let i = 0, at = 0; i < count; i++, at += size) pieces[i] = bytes.subarray(at, at + size);
  return pieces;
}
