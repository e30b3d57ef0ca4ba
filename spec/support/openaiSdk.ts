import { createRequire } from 'module';
import { join } from 'path';
import type { ChatCompletionStream as ChatCompletionStreamClass } from 'openai/lib/ChatCompletionStream';
import type { Stream as StreamClass } from 'openai/core/streaming';

/**
 * The official `openai` SDK the differential spec judges against: its current major (7, which needs
 * Node 22 or later, installed as the alias `openai-current`) where the Node in use allows, else the
 * last major that runs on Node 20 (`openai` 6). `npm run test:node24` therefore runs the spec against
 * the SDK users install today, and `npm test` on Node 20 against the one they can. Both lines keep
 * `lib/ChatCompletionStream` and `core/streaming` with the same API; the types are taken from 6.
 */
export interface OpenAiSdk {
  readonly ChatCompletionStream: typeof ChatCompletionStreamClass;
  readonly Stream: typeof StreamClass;
  /** The SDK's version, for the test names. */
  readonly version: string;
}

/** Loads a file by its path (the SDK line is chosen at run time, so it cannot be a static import). */
const requireFile = createRequire(__filename);

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

function load(name: 'openai' | 'openai-current'): OpenAiSdk {
  // Files by path: neither line exports its package.json, and the alias has no subpaths of its own.
  const root = `${join(__dirname, '..', '..', 'node_modules', name)}/`;
  return {
    ChatCompletionStream: (requireFile(`${root}lib/ChatCompletionStream.js`) as { ChatCompletionStream: typeof ChatCompletionStreamClass })
      .ChatCompletionStream,
    Stream: (requireFile(`${root}core/streaming.js`) as { Stream: typeof StreamClass }).Stream,
    version: (requireFile(`${root}version.js`) as { VERSION: string }).VERSION,
  };
}

export const openaiSdk: OpenAiSdk = load(NODE_MAJOR >= 22 ? 'openai-current' : 'openai');
