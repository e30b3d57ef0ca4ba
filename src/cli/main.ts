#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { fromFetch } from 'rxjs/fetch';
import { fromResponse } from '../io/fromResponse.js';
import { RECORD_USAGE, parseRecordArguments, record } from './record.js';
import { Framing, render, replay } from './replay.js';
import { startReplayServer } from './replayServer.js';

const USAGE = `usage:
  rxjs-llm-stream replay [<file> | -] [--chunk N] [--delay MS] [--seed N] [--timing original|none] [--ndjson] [--json]
      replays a stream through decodeUtf8, sseFrames (ndjsonFrames for .ndjson/.jsonl or --ndjson),
      assembleChunks, groupToolCallsByIndex and finalizeCompletion; exit code 1 on a stream error.
      <file> is a raw body (.sse, .ndjson) or a recording made by record (its own chunks, and with
      --timing original its recorded gaps)
${RECORD_USAGE}
  rxjs-llm-stream demo
      streams a bundled recording over HTTP from a local server, live, then a truncated one`;

function readInput(file: string | undefined): Uint8Array {
  return readFileSync(file === undefined || file === '-' ? 0 : file);
}

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  const write = (text: string): void => void process.stdout.write(text);
  const color = process.stdout.isTTY === true && process.env['NO_COLOR'] === undefined;
  if (command === 'replay') {
    let file: string | undefined;
    let chunkSize: number | undefined;
    let maxDelayMs = 0;
    let seed: number | undefined;
    let json = false;
    let timing: 'original' | 'none' | undefined;
    let framing: Framing | undefined;
    for (let i = 0; i < rest.length; i++) {
      const arg = rest[i]!;
      const value = (): number => {
        const parsed = Number(rest[++i]);
        if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${arg} needs a whole number`);
        return parsed;
      };
      if (arg === '--chunk') chunkSize = Math.max(1, value());
      else if (arg === '--delay') maxDelayMs = value();
      else if (arg === '--seed') seed = value();
      else if (arg === '--json') json = true;
      else if (arg === '--ndjson') framing = 'ndjson';
      else if (arg === '--timing') {
        const given = rest[++i];
        if (given !== 'original' && given !== 'none') throw new Error(`--timing needs original or none, got ${String(given)}`);
        timing = given;
      } else if (file === undefined && (arg === '-' || !arg.startsWith('--'))) file = arg;
      else throw new Error(`unknown argument ${arg}\n${USAGE}`);
    }
    // Without --ndjson, replay decides: a raw body's framing follows its name, a recording's its
    // recorded content type.
    return replay(readInput(file), {
      chunkSize,
      maxDelayMs,
      json,
      color,
      write,
      ...(seed === undefined ? {} : { seed }),
      ...(timing === undefined ? {} : { timing }),
      ...(framing === undefined ? {} : { framing }),
      ...(file === undefined || file === '-' ? {} : { fileName: file }),
    });
  }
  if (command === 'record') {
    const request = parseRecordArguments(rest);
    const { url, ...options } = request;
    return record(url, { ...options, color, write, log: (text) => void process.stderr.write(text) });
  }
  if (command === 'demo') {
    // Over real HTTP: a local server streams the recordings the way a provider would, and the
    // platform fetch reads them through the whole pipeline.
    const server = await startReplayServer();
    try {
      const stream = (path: string) => fromFetch(`${server.url}${path}`, { selector: (response) => fromResponse(response) });
      write(`replay server on ${server.url}\n\n== a reply with reasoning and two tool calls, streamed in 5-byte pieces ==\n\n`);
      await render(stream('/dialects/llamacpp-chat.sse?chunk=5&delay=6'), { color, write });
      write("\n== a reply cut off inside a tool call's arguments ==\n\n");
      await render(stream('/openai/truncated-in-arguments.sse?chunk=5&delay=6'), { color, write });
    } finally {
      await server.close();
    }
    return 0;
  }
  write(`${USAGE}\n`);
  return command === undefined || command === '--help' ? 0 : 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
