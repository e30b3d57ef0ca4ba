import type { OutputSource } from './structuredOutput.js';

/** How messages name a structured output: "the output (content of choice 0)", "the output (arguments of record_summary)". */
export function describeOutput(from: OutputSource, choice: number): string {
  const where = from === 'content' ? 'content' : `arguments of ${from.tool}`;
  return choice === 0 ? `the output (${where})` : `the output (${where} of choice ${choice})`;
}

/** The start of a long text, for a message: enough to recognize it, never the whole of a large output. */
export function excerptOf(text: string): string {
  const oneLine = JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
  return text.length > 80 ? `${oneLine} (${text.length} characters)` : oneLine;
}
