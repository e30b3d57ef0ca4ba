#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { marblesFolder } from './paths.js';
import { replay } from './replay.js';

const USAGE = `usage:
  rxjs-llm-stream replay [<file.sse> | -] [--chunk N] [--delay MS] [--seed N] [--json]
      replays a recorded SSE stream (or stdin) through decodeUtf8, sseFrames, assembleChunks,
      groupToolCallsByIndex and finalizeCompletion; exit code 1 on a stream error
  rxjs-llm-stream demo
      replays a bundled recording live, then a truncated one`;

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
    let seed = 1;
    let json = false;
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
      else if (file === undefined && (arg === '-' || !arg.startsWith('--'))) file = arg;
      else throw new Error(`unknown argument ${arg}\n${USAGE}`);
    }
    return replay(readInput(file), { chunkSize, maxDelayMs, seed, json, color, write });
  }
  if (command === 'demo') {
    const marbles = marblesFolder();
    write('== a reply with reasoning and two tool calls, in small random chunks ==\n\n');
    await replay(readFileSync(join(marbles, 'dialects', 'llamacpp-chat.sse')), { maxDelayMs: 12, seed: 7, color, write });
    write('\n== the same kind of reply, cut off inside a tool call\'s arguments ==\n\n');
    await replay(readFileSync(join(marbles, 'openai', 'truncated-in-arguments.sse')), { maxDelayMs: 12, seed: 7, color, write });
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
