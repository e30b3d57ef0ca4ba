#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { fromFetch } from 'rxjs/fetch';
import { fromResponse } from '../io/fromResponse.js';
import { RECORD_USAGE, parseRecordArguments, record } from './record.js';
import { Framing, ReplayOptions, render, replay } from './replay.js';
import { startReplayServer } from './replayServer.js';

const REPLAY_USAGE = `  rxjs-llm-stream replay [<file> | -] [--chunk N] [--delay MS] [--seed N] [--timing original|none] [--ndjson] [--json]
      replays a stream through decodeUtf8, sseFrames (ndjsonFrames for .ndjson/.jsonl or --ndjson),
      assembleChunks, groupToolCallsByIndex and finalizeCompletion; exit code 1 on a stream error.
      <file> is a raw body (.sse, .ndjson) or a recording made by record (its own chunks, and with
      --timing original its recorded gaps)`;

const DEMO_USAGE = `  rxjs-llm-stream demo
      streams a bundled recording over HTTP from a local server, live, then a truncated one`;

const HELP_USAGE = `  rxjs-llm-stream help [<command>]    (or: rxjs-llm-stream [<command>] --help | -h)
      prints this usage, or that of one command`;

/** The usage lines of each command, in the order the tool's usage lists them. */
const COMMANDS = { replay: REPLAY_USAGE, record: RECORD_USAGE, demo: DEMO_USAGE, help: HELP_USAGE } as const;

type Command = keyof typeof COMMANDS;

const usage = (...commands: readonly string[]): string => `usage:\n${commands.join('\n')}\n`;

const TOOL_USAGE = usage(...Object.values(COMMANDS));

/** Where the CLI writes: the process's streams, or a test's strings. */
export interface CliOutput {
  /** Standard output: what a command prints, and help asked for. */
  readonly out: (text: string) => void;
  /** Standard error: wrong arguments with the usage, failures, record's closing line. */
  readonly err: (text: string) => void;
  /** Colour the output with ANSI codes (for a terminal). */
  readonly color?: boolean;
}

/** A command line that cannot be run as given; the usage that goes with the message is shown. */
class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

const isCommand = (word: string): word is Command => Object.prototype.hasOwnProperty.call(COMMANDS, word);

const isHelpFlag = (arg: string): boolean => arg === '--help' || arg === '-h';

/**
 * Runs one command line (the arguments after the program's name) and resolves to its exit code:
 * 0 for success and for help, 1 for a stream that failed, 2 for a command line that cannot be
 * run (with the usage on `err`) or any other failure. It never rejects and never exits the process,
 * so that tests can run it in place.
 *
 * @example
 * ```ts
 * const code = await main(['replay', 'reply.sse', '--json'], { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) });
 * ```
 */
export async function main(argv: readonly string[], output: CliOutput): Promise<number> {
  try {
    return await dispatch(argv, output);
  } catch (error) {
    output.err(
      error instanceof UsageError ? `${error.message}\n${error.usage}` : `${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 2;
  }
}

async function dispatch(argv: readonly string[], output: CliOutput): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    output.out(TOOL_USAGE);
    return 0;
  }
  if (isHelpFlag(command)) return help(rest, output);
  if (!isCommand(command)) throw new UsageError(`unknown command ${command}`, TOOL_USAGE);
  // Help is answered before a command reads its arguments: `record` parses its own, and must
  // not take `-h` for a missing URL.
  if (rest.some(isHelpFlag)) {
    output.out(usage(COMMANDS[command]));
    return 0;
  }
  switch (command) {
    case 'replay':
      return replayCommand(rest, output);
    case 'record':
      return recordCommand(rest, output);
    case 'demo':
      return demoCommand(rest, output);
    case 'help':
      return help(rest, output);
  }
}

/** `help [<command>]`: the tool's usage, or one command's. */
function help(args: readonly string[], output: CliOutput): number {
  const [topic, ...extra] = args;
  if (extra.length > 0) throw new UsageError(`unknown argument ${extra[0]!}`, usage(HELP_USAGE));
  if (topic === undefined) output.out(TOOL_USAGE);
  else if (isCommand(topic)) output.out(usage(COMMANDS[topic]));
  else throw new UsageError(`unknown command ${topic}`, TOOL_USAGE);
  return 0;
}

/** The arguments of `replay`, read into the input file and the options of {@link replay}. */
type ReplayRequest = { readonly file: string | undefined } & Omit<ReplayOptions, 'write' | 'color'>;

function parseReplayArguments(args: readonly string[]): ReplayRequest {
  const wrong = (message: string): UsageError => new UsageError(message, usage(REPLAY_USAGE));
  let file: string | undefined;
  let chunkSize: number | undefined;
  let maxDelayMs = 0;
  let seed: number | undefined;
  let json = false;
  let timing: 'original' | 'none' | undefined;
  let framing: Framing | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = (): number => {
      const parsed = Number(args[++i]);
      if (!Number.isInteger(parsed) || parsed < 0) throw wrong(`${arg} needs a whole number`);
      return parsed;
    };
    if (arg === '--chunk') chunkSize = Math.max(1, value());
    else if (arg === '--delay') maxDelayMs = value();
    else if (arg === '--seed') seed = value();
    else if (arg === '--json') json = true;
    else if (arg === '--ndjson') framing = 'ndjson';
    else if (arg === '--timing') {
      const given = args[++i];
      if (given !== 'original' && given !== 'none') throw wrong(`--timing needs original or none, got ${String(given)}`);
      timing = given;
    } else if (file === undefined && (arg === '-' || !arg.startsWith('--'))) file = arg;
    else throw wrong(`unknown argument ${arg}`);
  }
  return {
    file,
    chunkSize,
    maxDelayMs,
    json,
    ...(seed === undefined ? {} : { seed }),
    ...(timing === undefined ? {} : { timing }),
    ...(framing === undefined ? {} : { framing }),
    ...(file === undefined || file === '-' ? {} : { fileName: file }),
  };
}

function readInput(file: string | undefined): Uint8Array {
  return readFileSync(file === undefined || file === '-' ? 0 : file);
}

function replayCommand(args: readonly string[], output: CliOutput): Promise<number> {
  const { file, ...options } = parseReplayArguments(args);
  // Without --ndjson, replay decides: a raw body's framing follows its name, a recording's its
  // recorded content type.
  return replay(readInput(file), { ...options, color: output.color === true, write: output.out });
}

function recordCommand(args: readonly string[], output: CliOutput): Promise<number> {
  let request: ReturnType<typeof parseRecordArguments>;
  try {
    request = parseRecordArguments(args);
  } catch (error) {
    // Every error of the parser is about the command line, so the usage goes with it.
    throw new UsageError(error instanceof Error ? error.message : String(error), usage(RECORD_USAGE));
  }
  const { url, ...options } = request;
  return record(url, { ...options, color: output.color === true, write: output.out, log: output.err });
}

async function demoCommand(args: readonly string[], output: CliOutput): Promise<number> {
  if (args.length > 0) throw new UsageError(`unknown argument ${args[0]!}`, usage(DEMO_USAGE));
  const write = output.out;
  const color = output.color === true;
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
  // The truncated reply is part of the show, not a failure of the demo.
  return 0;
}

/** The part of a writable stream that {@link writeUntilClosed} uses. */
export interface OutputStream {
  write(text: string): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** What {@link writeUntilClosed} does when the stream stops taking text. */
export interface WriteEnds {
  /** The reader went away (`EPIPE`: `| head -1` has read its line): nothing went wrong. */
  readonly readerGone: () => void;
  /** Any other write error (a full disk, a revoked terminal): it must be reported. */
  readonly failed: (error: Error) => void;
}

/**
 * A writer to `stream` that stops writing at the stream's first error and tells `ends` which kind
 * it was. Without a listener, a reader that closes the pipe early (`rxjs-llm-stream replay x.sse |
 * head -1`) would crash the process with an `EPIPE` stack trace on the next write.
 *
 * @example
 * ```ts
 * const out = writeUntilClosed(process.stdout, { readerGone: () => process.exit(0), failed: report });
 * ```
 */
export function writeUntilClosed(stream: OutputStream, ends: WriteEnds): (text: string) => void {
  let open = true;
  stream.on('error', (error) => {
    if (!open) return;
    open = false;
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') ends.readerGone();
    else ends.failed(error);
  });
  return (text) => {
    if (open) stream.write(text);
  };
}

/** Runs the command line of this process, with its streams, and sets its exit code. */
function runAsProcess(): void {
  const argv = process.argv.slice(2);
  const out = writeUntilClosed(process.stdout, {
    // Exit at once: the rest of a replay or the demo would only be written into a closed pipe.
    // Not so record: what it prints is a view, its product is the file, which it still writes.
    readerGone: () => {
      if (argv[0] !== 'record') process.exit(0);
    },
    failed: (error) => {
      process.stderr.write(`cannot write the output: ${error.message}\n`);
      process.exit(2);
    },
  });
  const err = (text: string): void => void process.stderr.write(text);
  const color = process.stdout.isTTY === true && process.env['NO_COLOR'] === undefined;
  void main(argv, { out, err, color }).then((code) => {
    process.exitCode = code;
  });
}

// Run only as the program (the bin, or `node main.js`), not when a test imports `main`.
if (require.main === module) runAsProcess();
