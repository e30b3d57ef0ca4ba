import { pipe } from 'rxjs';
import { assembleChunks } from '../../../src/reply/assembleChunks';
import { Completion } from '../../../src/types/events';
import { finalizeCompletion } from '../../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../../src/reply/groupToolCallsByIndex';
import { TestReply } from '../../../src/dialects/writing/TestReply';
import { UnsupportedReplyError } from '../../../src/dialects/writing/UnsupportedReplyError';
import { providerStream } from '../../../src/testing/writeProviderStream';
import { ProviderFormat } from '../../../src/dialects/writing/wire';
import { Outcome, runSync } from '../../support/collect';
import { framesFor } from './pipeline';

/**
 * The reference notes' one scenario, which every dialect example follows (reasoning, the text "Let
 * me check both cities.", two `get_weather` calls), with non-ASCII text in it, as a reply.
 */
export const WEATHER: TestReply = {
  choices: [
    {
      reasoning: 'The user wants the weather in Paris and Tokyo. I’ll call get_weather once per city.',
      text: 'Let me check both cities — Paris and 東京.',
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } },
        { name: 'get_weather', arguments: { city: 'Tokyo', unit: 'celsius' } },
      ],
    },
  ],
  usage: { promptTokens: 472, completionTokens: 161, totalTokens: 633 },
};

/** `WEATHER` without the parts some formats lack: no reasoning, no usage. */
export const WEATHER_PLAIN: TestReply = { choices: [{ text: WEATHER.choices[0]!.text!, toolCalls: WEATHER.choices[0]!.toolCalls! }] };

/** The body of a stream as text. */
export function bodyText(chunks: readonly Uint8Array[]): string {
  return Buffer.concat(chunks).toString('utf8');
}

/** The SSE events of a body, split at its blank lines (LF or CRLF). */
export function sseEvents(body: string): string[] {
  return body.split(/\r?\n\r?\n/).filter((event) => event !== '');
}

/** A table of replies `format` must refuse, each naming the part it cannot write. */
export function refusals(format: ProviderFormat, table: ReadonlyArray<readonly [what: string, reply: TestReply, part: string]>): void {
  describe(`${format}: what it cannot write`, () => {
    it.each(table)('refuses %s', (_what, reply, part) => {
      let caught: unknown;
      try {
        providerStream(reply, format);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(UnsupportedReplyError);
      expect(caught).toMatchObject({ format, part });
    });
  });
}

/** The format's stream of `reply` through the README's pipeline under `strict`: a stream with no quirk in it reads the same. */
export function strictOutcome(reply: TestReply, format: ProviderFormat): Outcome<Completion> {
  const stream = providerStream(reply, format);
  return runSync(
    stream.chunks,
    pipe(
      framesFor(stream.contentType),
      assembleChunks({ dialect: stream.dialect, strict: true }),
      groupToolCallsByIndex(),
      finalizeCompletion(),
    ),
  );
}
