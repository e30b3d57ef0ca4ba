// The contenders: each reads the same array of Uint8Array chunks (one streamed OpenAI Chat
// Completions body) and returns its own assembled result; `measure` reduces that result to what is
// compared across contenders: { text: content length, args: [arguments length by call index] }.
//
// Every `run(chunks, ctx)` may be sync or async. `ctx.deadline` (a performance.now() value) is the
// time budget of the run: the contenders whose loop is written here check it every 1024 chunks (a
// counter and a clock read, nothing else), the SDKs through their source, and throw
// `BudgetExceeded`. The library's pipeline is synchronous over `from(chunks)` and has no place for a
// check: the parent process stops the worker if it overruns (see compare.mjs).
import { from, Subject } from 'rxjs';
import { createParser } from 'eventsource-parser';
import OpenAI from 'openai';
import { streamText, tool, jsonSchema } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { pathToFileURL } from 'node:url';

// The library: the built package, ../dist/esm/index.js, or the copy of it that compare.mjs takes at
// its start (BENCH_LIB), so that every worker measures the same build even if dist/ is rebuilt or
// removed while the benchmark runs.
const libraryUrl = process.env.BENCH_LIB
  ? pathToFileURL(process.env.BENCH_LIB).href
  : new URL('../dist/esm/index.js', import.meta.url).href;
const { decodeUtf8, sseFrames, assembleChunks, groupToolCallsByIndex, finalizeCompletion, scanCompletion } = await import(libraryUrl);

export class BudgetExceeded extends Error {
  constructor() {
    super('time budget exceeded');
    this.name = 'BudgetExceeded';
  }
}

const CHECK_EVERY = 1024;

// ---------------------------------------------------------------------------------------------
// 0. The decode floor: the cost of merely reading the bytes. One streaming TextDecoder and a search
// for each blank line (the end of each event) in the newly decoded text, and across the seam; no
// line is cut out and nothing is parsed. Its result is the number of events found.

const STREAM = { stream: true };

/** The decode floor's state machine; `push` one piece at a time, then `end`. */
export function createDecodeFloor() {
  const decoder = new TextDecoder();
  let events = 0;
  let lastWasLf = false;
  const count = (text) => {
    if (text === '') return;
    if (lastWasLf && text.charCodeAt(0) === 10) events++;
    for (let at = text.indexOf('\n\n'); at !== -1; at = text.indexOf('\n\n', at + 2)) events++;
    lastWasLf = text.charCodeAt(text.length - 1) === 10;
  };
  return {
    push: (piece) => count(decoder.decode(piece, STREAM)),
    end() {
      count(decoder.decode());
      return { events };
    },
  };
}

function decodeFloor(chunks, ctx) {
  const f = createDecodeFloor();
  for (let i = 0; i < chunks.length; i++) {
    if (i % CHECK_EVERY === 0 && performance.now() > ctx.deadline) throw new BudgetExceeded();
    f.push(chunks[i]);
  }
  return f.end();
}

// ---------------------------------------------------------------------------------------------
// 1. The floor: one streaming TextDecoder, a split on blank lines with the pending remainder kept
// as a string, JSON.parse of each payload, and a count of the content and argument characters
// (no string is assembled). The split looks for "\n\n" only in the newly decoded text (and across
// the seam, which only the previous piece's last character can start), so a long line is not
// rescanned on every piece: `pending += text` stays a rope until a blank line arrives. This keeps
// the floor linear, so it stays a floor on the long-line workload too. Only LF line ends (which is
// what the workloads use); no comments, no `event:` fields.

/** The floor's state machine; `push` one piece at a time, then `end`. */
export function createFloor() {
  const decoder = new TextDecoder();
  let pending = '';
  let lastWasLf = false;
  let text = 0;
  const args = [];
  const payload = (block) => {
    // Every block of these streams is exactly one `data: ` line.
    const data = block.slice(6);
    if (data === '[DONE]') return;
    const parsed = JSON.parse(data);
    const choices = parsed.choices;
    for (let c = 0; c < choices.length; c++) {
      const delta = choices[c].delta;
      if (delta.content) text += delta.content.length;
      const calls = delta.tool_calls;
      if (calls !== undefined) {
        for (let t = 0; t < calls.length; t++) {
          const call = calls[t];
          args[call.index] = (args[call.index] ?? 0) + (call.function?.arguments?.length ?? 0);
        }
      }
    }
  };
  return {
    push(piece) {
      const decoded = decoder.decode(piece, { stream: true });
      if (decoded === '') return;
      const seam = lastWasLf && decoded.charCodeAt(0) === 10;
      lastWasLf = decoded.charCodeAt(decoded.length - 1) === 10;
      if (!seam && decoded.indexOf('\n\n') === -1) {
        pending += decoded;
        return;
      }
      const blocks = (pending + decoded).split('\n\n');
      pending = blocks.pop();
      for (let b = 0; b < blocks.length; b++) if (blocks[b] !== '') payload(blocks[b]);
    },
    end() {
      const rest = pending + decoder.decode();
      if (rest !== '') for (const block of rest.split('\n\n')) if (block !== '') payload(block);
      return { text, args };
    },
  };
}

function floor(chunks, ctx) {
  const f = createFloor();
  for (let i = 0; i < chunks.length; i++) {
    if (i % CHECK_EVERY === 0 && performance.now() > ctx.deadline) throw new BudgetExceeded();
    f.push(chunks[i]);
  }
  return f.end();
}

// ---------------------------------------------------------------------------------------------
// The straightforward fold shared by contenders 2 and 4: text += delta.content, and
// calls[index].arguments += fragment, plus the finish reason and usage a caller would read.

function createFold() {
  let content = '';
  const toolCalls = [];
  let finishReason = null;
  let usage = null;
  return {
    add(chunk) {
      if (chunk.usage) usage = chunk.usage;
      for (const choice of chunk.choices ?? []) {
        const delta = choice.delta;
        if (delta) {
          if (delta.content) content += delta.content;
          if (delta.tool_calls) {
            for (const part of delta.tool_calls) {
              let call = toolCalls[part.index];
              if (call === undefined) call = toolCalls[part.index] = { id: part.id, name: part.function?.name ?? '', arguments: '' };
              if (part.function?.arguments) call.arguments += part.function.arguments;
            }
          }
        }
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
    },
    result: () => ({ content, toolCalls, finishReason, usage }),
  };
}

const measureFold = (r) => ({ text: r.content.length, args: r.toolCalls.map((c) => c.arguments.length) });

// 2. eventsource-parser's createParser fed by a streaming TextDecoder, then the fold.
function createEventsourceParserFold() {
  const decoder = new TextDecoder();
  const fold = createFold();
  const parser = createParser({
    onEvent(event) {
      if (event.data !== '[DONE]') fold.add(JSON.parse(event.data));
    },
  });
  return {
    push: (piece) => parser.feed(decoder.decode(piece, { stream: true })),
    end() {
      const rest = decoder.decode();
      if (rest !== '') parser.feed(rest);
      return fold.result();
    },
  };
}

function eventsourceParser(chunks, ctx) {
  const reader = createEventsourceParserFold();
  for (let i = 0; i < chunks.length; i++) {
    if (i % CHECK_EVERY === 0 && performance.now() > ctx.deadline) throw new BudgetExceeded();
    reader.push(chunks[i]);
  }
  return reader.end();
}

// ---------------------------------------------------------------------------------------------
// The body the SDK contenders read: a pull source handing out one chunk per pull, as a
// network body does. It errors the stream with BudgetExceeded once the run is over its budget.

function body(chunks, ctx) {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i === chunks.length) return controller.close();
      if (i % CHECK_EVERY === 0 && performance.now() > ctx.deadline) return controller.error(new BudgetExceeded());
      controller.enqueue(chunks[i++]);
    },
  });
}

/**
 * A body that hands out `chunks` and then stays open, as a reply still streaming does; `fed` resolves
 * once every chunk has been pulled.
 */
function openBody(chunks) {
  let i = 0;
  let fed;
  const done = new Promise((resolve) => (fed = resolve));
  const stream = new ReadableStream({
    pull(controller) {
      if (i < chunks.length) return controller.enqueue(chunks[i++]);
      fed();
      return new Promise(() => {});
    },
  });
  return { stream, fed: done };
}

/** Waits until the microtasks and tasks queued by an async pipeline have run. */
const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};

// 3. The official openai SDK's ChatCompletionStream, through to finalChatCompletion().
//
// `ChatCompletionStream.fromReadableStream(response.body)` does not accept an SSE body: it reads
// newline-delimited JSON, the format of `stream.toReadableStream()` (openai/core/streaming.mjs,
// `Stream.fromReadableStream`, JSON.parse of each line), so on `data: {...}` it fails with a JSON
// syntax error. The SDK's own path from an SSE response to a ChatCompletionStream is
// `client.chat.completions.stream(params)` (= `ChatCompletionStream.createChatCompletion`), which
// reads the response with `Stream.fromSSEResponse`. The client takes a `fetch` option, so a client
// whose fetch returns our Response (built over the chunks with content-type text/event-stream)
// runs exactly the SDK's code from the response body on; nothing goes over a network. The client
// is made once; the request it builds per run (URL, headers, a JSON body) is part of the SDK's
// cost, and constant per run.
let nextResponse = null;
const openaiClient = new OpenAI({
  apiKey: 'sk-bench',
  baseURL: 'http://127.0.0.1:9/v1',
  maxRetries: 0,
  fetch: async () => nextResponse(),
});
const openaiParams = { model: 'gpt-4o', messages: [{ role: 'user', content: 'bench' }], stream_options: { include_usage: true } };

async function openaiSdk(chunks, ctx) {
  nextResponse = () => new Response(body(chunks, ctx), { status: 200, headers: { 'content-type': 'text/event-stream' } });
  const stream = openaiClient.chat.completions.stream(openaiParams);
  try {
    return await stream.finalChatCompletion();
  } catch (error) {
    if (performance.now() > ctx.deadline) throw new BudgetExceeded();
    throw error;
  }
}

async function holdOpenaiSdk(chunks) {
  const body = openBody(chunks);
  nextResponse = () => new Response(body.stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  const stream = openaiClient.chat.completions.stream(openaiParams);
  stream.finalChatCompletion().catch(() => {});
  await body.fed;
  await settle();
  return stream;
}

const measureOpenai = (c) => {
  const message = c.choices[0].message;
  return { text: message.content?.length ?? 0, args: (message.tool_calls ?? []).map((t) => t.function.arguments.length) };
};

// 4. The AI SDK itself: `streamText` with its OpenAI provider (`@ai-sdk/openai`, Chat Completions:
// `provider.chat(model)`), whose `fetch` returns a Response over the chunks, as for the SDK above.
// What its users pay is all of it: the provider parses each chunk and validates it against its
// schema, and `streamText` passes the parts through its stream transforms. The result is read from
// `fullStream`: the text deltas, and each call's argument deltas (`tool-input-delta`) by call, the
// calls in the order they started. The tools are declared (without `execute`, so there is one step):
// a call to a tool it does not know is an error part.
const aiSdkTools = { write_file: tool({ inputSchema: jsonSchema({ type: 'object' }) }) };
for (let k = 0; k < 64; k++) aiSdkTools[`search_${k}`] = tool({ inputSchema: jsonSchema({ type: 'object' }) });
let nextAiSdkBody = null;
const aiSdkProvider = createOpenAI({
  apiKey: 'sk-bench',
  baseURL: 'http://127.0.0.1:9/v1',
  fetch: async () => new Response(nextAiSdkBody(), { status: 200, headers: { 'content-type': 'text/event-stream' } }),
});
const aiSdkModel = aiSdkProvider.chat('gpt-4o');

async function readFullStream(result, ctx) {
  let text = 0;
  const args = new Map();
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') text += part.text.length;
    else if (part.type === 'tool-input-start') args.set(part.id, 0);
    else if (part.type === 'tool-input-delta') args.set(part.id, args.get(part.id) + part.delta.length);
    else if (part.type === 'error') {
      if (ctx !== undefined && performance.now() > ctx.deadline) throw new BudgetExceeded();
      throw part.error;
    }
  }
  return { text, args: [...args.values()] };
}

async function aiSdk(chunks, ctx) {
  nextAiSdkBody = () => body(chunks, ctx);
  try {
    return await readFullStream(streamText({ model: aiSdkModel, prompt: 'bench', tools: aiSdkTools, maxRetries: 0 }), ctx);
  } catch (error) {
    // The body's BudgetExceeded arrives wrapped (an APICallError): the clock says what it was.
    if (performance.now() > ctx.deadline) throw new BudgetExceeded();
    throw error;
  }
}

async function holdAiSdk(chunks) {
  const open = openBody(chunks);
  nextAiSdkBody = () => open.stream;
  readFullStream(streamText({ model: aiSdkModel, prompt: 'bench', tools: aiSdkTools, maxRetries: 0 })).catch(() => {});
  await open.fed;
  await settle();
  return open;
}

// ---------------------------------------------------------------------------------------------
// 5. This library, over the built package. The pipeline is synchronous over from(chunks), so a
// plain subscribe runs it to the end; an error is rethrown here.

function drain(observable) {
  let last;
  let failure;
  let failed = false;
  observable.subscribe({ next: (value) => (last = value), error: (error) => ((failed = true), (failure = error)) });
  if (failed) throw failure;
  return last;
}

// The README's pipeline.
const libraryPipeline = (kind, ctx) => (source) =>
  source.pipe(
    decodeUtf8(),
    sseFrames(ctx.sseOptions),
    assembleChunks(kind === 'explicit' ? { dialect: 'openai-chat' } : undefined),
    groupToolCallsByIndex(),
    kind === 'scan' ? scanCompletion() : finalizeCompletion(),
  );

const library = (kind) => (chunks, ctx) => drain(from(chunks).pipe(libraryPipeline(kind, ctx)));

const measureLibrary = (c) => ({ text: c.content?.length ?? 0, args: c.toolCalls.map((t) => t.arguments.length) });

/** Opens a stream of the pull-style contenders and feeds it `chunks`, leaving it open. */
const holdDriver = (start) => (chunks, ctx) => {
  const driver = start(ctx);
  for (const piece of chunks) driver.push(piece);
  return driver;
};

// `hold(chunks)` opens one more stream of the contender, feeds it the chunks and leaves it open for
// the whole cell, as in a process that serves other streams while one is measured. Without it, the
// full GC before each timed run frees every object of the contender, V8 then drops the hidden classes
// (maps) of those objects, and with them the optimized code that was specialized for them: each run
// would start in unoptimized code (worker.mjs explains why the GC is there).
export const CONTENDERS = [
  {
    name: 'decode floor',
    label: 'decode floor (TextDecoder + a search for each blank line, no parsing)',
    run: decodeFloor,
    hold: holdDriver(createDecodeFloor),
    measure: (r) => r,
    sync: true,
    floor: true,
  },
  {
    name: 'floor',
    label: 'floor (TextDecoder + split + JSON.parse)',
    run: floor,
    hold: holdDriver(createFloor),
    measure: (r) => r,
    sync: true,
    floor: true,
  },
  {
    name: 'eventsource-parser',
    label: 'eventsource-parser createParser + fold',
    run: eventsourceParser,
    hold: holdDriver(createEventsourceParserFold),
    measure: measureFold,
    sync: true,
  },
  {
    name: 'openai',
    label: 'openai SDK ChatCompletionStream → finalChatCompletion()',
    run: openaiSdk,
    hold: holdOpenaiSdk,
    measure: measureOpenai,
    sync: false,
  },
  {
    name: 'ai-sdk',
    label: 'the AI SDK: streamText with @ai-sdk/openai (Chat Completions) → fullStream',
    run: aiSdk,
    hold: holdAiSdk,
    measure: (r) => r,
    sync: false,
  },
  {
    name: 'lib finalize',
    label: "this library, the README's pipeline: decodeUtf8 → sseFrames → assembleChunks() → groupToolCallsByIndex() → finalizeCompletion",
    run: library('finalize'),
    hold: holdDriver((ctx) => subjectDriver('finalize', ctx)),
    measure: measureLibrary,
    sync: true,
    library: true,
  },
  {
    name: 'lib scan',
    label: 'the same with scanCompletion() (a snapshot per event; the last one)',
    run: library('scan'),
    hold: holdDriver((ctx) => subjectDriver('scan', ctx)),
    measure: measureLibrary,
    sync: true,
    library: true,
  },
  {
    name: 'lib openai-chat',
    label: "the same with assembleChunks({ dialect: 'openai-chat' })",
    run: library('explicit'),
    hold: holdDriver((ctx) => subjectDriver('explicit', ctx)),
    measure: measureLibrary,
    sync: true,
    library: true,
  },
];

// ---------------------------------------------------------------------------------------------
// Memory runs (not timed): the same work, driven one chunk at a time by the caller so that it can
// sample the heap between chunks. `start()` returns { push(chunk), end() → result }.

export const MEMORY_CONTENDERS = {
  floor: () => createFloor(),
  'lib finalize': (ctx) => subjectDriver('finalize', ctx),
  'lib scan': (ctx) => subjectDriver('scan', ctx),
};

function subjectDriver(kind, ctx) {
  const subject = new Subject();
  let last;
  let failure;
  let failed = false;
  subject.pipe(libraryPipeline(kind, ctx)).subscribe({ next: (v) => (last = v), error: (e) => ((failed = true), (failure = e)) });
  return {
    push(piece) {
      subject.next(piece);
    },
    end() {
      subject.complete();
      if (failed) throw failure;
      return last;
    },
  };
}
