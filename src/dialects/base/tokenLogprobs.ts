import { TokenLogprob } from '../../types/events.js';
import { JsonObject, finiteNumber, isJsonObject } from '../../internal/json.js';

/**
 * The log probabilities of one list of tokens, in OpenAI's shape, and how many entries were left
 * out because they were not a token's log probability (no string token, no finite logprob): a
 * dialect skips them, or refuses them under `strict`.
 */
export interface TokenLogprobList {
  readonly tokens: TokenLogprob[];
  readonly skipped: number;
}

/** One alternative of `top_logprobs`, in OpenAI's shape. */
type TopLogprob = TokenLogprob['top_logprobs'][number];

/**
 * Reads a list of token log probabilities in OpenAI's Chat shape (`{token, logprob, bytes,
 * top_logprobs}`), as OpenAI and llama.cpp send them in `choices[].logprobs.content` and as
 * llama.cpp's native `/completion` sends `completion_probabilities`. llama.cpp's
 * `post_sampling_probs` variant (`prob` and `top_probs` instead) is read as `Math.log(prob)`.
 *
 * Every entry is built anew from its strings and numbers: the payload it came from is overwritten
 * by the next one (see `JsonTemplateParser`), so no object of it may be kept. Fields beside the
 * four of the shape (llama.cpp's token `id`) are dropped.
 */
export function readTokenLogprobs(list: readonly unknown[]): TokenLogprobList {
  const tokens: TokenLogprob[] = [];
  let skipped = 0;
  for (const entry of list) {
    const token = isJsonObject(entry) ? readTokenLogprob(entry) : undefined;
    if (token === undefined) skipped++;
    else tokens.push(token);
  }
  return { tokens, skipped };
}

/** One token's entry of the Chat shape, or undefined when it is not one. */
function readTokenLogprob(entry: JsonObject): TokenLogprob | undefined {
  const token = entry['token'];
  const logprob = logprobOf(entry);
  if (typeof token !== 'string' || logprob === undefined) return undefined;
  const top = entry['top_logprobs'] ?? entry['top_probs'];
  return { token, logprob, bytes: bytesOf(entry['bytes']), top_logprobs: Array.isArray(top) ? readTopLogprobs(top) : [] };
}

/** The alternatives of one token: those that are a token with a log probability, in order. */
function readTopLogprobs(list: readonly unknown[]): TopLogprob[] {
  const top: TopLogprob[] = [];
  for (const entry of list) {
    if (!isJsonObject(entry)) continue;
    const token = entry['token'];
    const logprob = logprobOf(entry);
    if (typeof token === 'string' && logprob !== undefined) top.push({ token, logprob, bytes: bytesOf(entry['bytes']) });
  }
  return top;
}

/** `logprob`, else the log of llama.cpp's post-sampling `prob`; undefined when neither is a finite number. */
function logprobOf(entry: JsonObject): number | undefined {
  const logprob = finiteNumber(entry['logprob']);
  if (logprob !== undefined) return logprob;
  return logOf(entry['prob']);
}

/** The natural log of a probability in [0, 1], when it is finite (a probability of 0 has none). */
function logOf(value: unknown): number | undefined {
  const prob = finiteNumber(value);
  if (prob === undefined || prob <= 0 || prob > 1) return undefined;
  return Math.log(prob);
}

/** The token's UTF-8 bytes as the server sent them, copied; null when they are not a list of bytes. */
function bytesOf(value: unknown): number[] | null {
  if (!Array.isArray(value)) return null;
  const bytes: number[] = [];
  for (const byte of value) {
    if (typeof byte !== 'number' || !Number.isInteger(byte) || byte < 0 || byte > 255) return null;
    bytes.push(byte);
  }
  return bytes;
}

/**
 * Reads the legacy Completions shape (`/v1/completions`: `{tokens, token_logprobs, top_logprobs:
 * [{token: logprob}], text_offset}`, parallel arrays) as OpenAI's Chat shape, `bytes` null (the
 * shape has none). A position whose token is not a string or whose log probability is not a finite
 * number (the first token of an echoed prompt has `null`) is skipped.
 */
export function readLegacyLogprobs(logprobs: JsonObject): TokenLogprobList {
  const tokens = logprobs['tokens'];
  const values = logprobs['token_logprobs'];
  const tops = logprobs['top_logprobs'];
  const list: TokenLogprob[] = [];
  let skipped = 0;
  if (!Array.isArray(tokens)) return { tokens: list, skipped };
  for (let i = 0; i < tokens.length; i++) {
    const token: unknown = tokens[i];
    const logprob = Array.isArray(values) ? finiteNumber(values[i]) : undefined;
    if (typeof token !== 'string' || logprob === undefined) {
      skipped++;
      continue;
    }
    const top: unknown = Array.isArray(tops) ? tops[i] : undefined;
    list.push({ token, logprob, bytes: null, top_logprobs: isJsonObject(top) ? legacyTop(top) : [] });
  }
  return { tokens: list, skipped };
}

/** `{token: logprob}` as a list of alternatives, in the object's order. */
function legacyTop(top: JsonObject): TopLogprob[] {
  const list: TopLogprob[] = [];
  for (const token of Object.keys(top)) {
    const logprob = finiteNumber(top[token]);
    if (logprob !== undefined) list.push({ token, logprob, bytes: null });
  }
  return list;
}

/**
 * Reads llama.cpp's native `completion_probabilities`: newer servers send the Chat shape (with the
 * token's `id`), older ones `{content, probs: [{tok_str, prob}]}`, where the token's own log
 * probability is the log of the `prob` its `tok_str` has among `probs`. An older entry whose token
 * is not among its `probs` has no log probability to give, and is skipped.
 */
export function readLlamaCppProbabilities(list: readonly unknown[]): TokenLogprobList {
  const tokens: TokenLogprob[] = [];
  let skipped = 0;
  for (const entry of list) {
    const token = !isJsonObject(entry) ? undefined : 'probs' in entry && !('token' in entry) ? readOlder(entry) : readTokenLogprob(entry);
    if (token === undefined) skipped++;
    else tokens.push(token);
  }
  return { tokens, skipped };
}

/** One entry of older llama.cpp servers: `{content, probs: [{tok_str, prob}]}`. */
function readOlder(entry: JsonObject): TokenLogprob | undefined {
  const token = entry['content'];
  const probs = entry['probs'];
  if (typeof token !== 'string' || !Array.isArray(probs)) return undefined;
  const top: TopLogprob[] = [];
  let logprob: number | undefined;
  for (const candidate of probs) {
    if (!isJsonObject(candidate) || typeof candidate['tok_str'] !== 'string') continue;
    const candidateLogprob = logOf(candidate['prob']);
    if (candidateLogprob === undefined) continue;
    if (logprob === undefined && candidate['tok_str'] === token) logprob = candidateLogprob;
    top.push({ token: candidate['tok_str'], logprob: candidateLogprob, bytes: null });
  }
  return logprob === undefined ? undefined : { token, logprob, bytes: null, top_logprobs: top };
}
