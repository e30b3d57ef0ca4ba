/**
 * The example-stream suite every dialect spec runs on its example stream (`marbles/dialects/`, whose
 * README says where each came from).
 *
 * Each dialect spec once carried its own copy of these tests, and the copies drifted: some checked the
 * events at every chunk size and some only the completion, some tried CRLF line ends and some did not.
 * One function keeps the shape the same for every dialect, so a format added later gets all of it.
 * What the stream should give stays written out by hand in each dialect spec: the suite compares
 * against that reading, never against the `.expected.json` files, which are a reading of their own.
 */
import { DialectFactory } from '../../src/dialects/Dialect';
import { autoDialect } from '../../src/dialects/auto';
import { ChatEvent, Completion } from '../../src/types/events';
import { Assembled, assembleBytes, marbleFile, readBytes } from './dialect';

/** One dialect's example stream, and what it should give, written out by hand. */
export interface ExampleStream {
  /** The dialect under test. */
  readonly dialect: DialectFactory;
  /** The stream, under `marbles/` (`'dialects/anthropic-messages.sse'`). */
  readonly file: string;
  /** How the bytes are framed into frames before the dialect reads them. */
  readonly framing: 'sse' | 'ndjson';
  /** The completion the stream assembles to. */
  readonly completion: Completion;
  /** The events the dialect emits, in order; when given, they are checked wherever the completion is. */
  readonly events?: readonly ChatEvent[];
  /** When true, the `auto` dialect must detect this format and give the same events and completion. */
  readonly auto?: boolean;
  /** Registers the dialect's own tests of this stream inside the same `describe`. */
  readonly more?: () => void;
}

const CHUNK_SIZES = Array.from({ length: 64 }, (_, i) => i + 1);

/**
 * Registers, inside `describe('the example stream (<file>)')`, the tests every
 * dialect owes its example stream:
 *
 * - read in one piece, it gives the events (when given) and the completion, without an error;
 * - cut into chunks of every size from 1 to 64 bytes, it gives the same: frames, lines, JSON values and
 *   UTF-8 sequences split anywhere must not change what the dialect reads;
 * - with every line end made CRLF (as real servers send it), the same at every chunk size, the CR and
 *   the LF falling in different chunks included;
 * - when `auto` is set, the same through the `auto` dialect at every chunk size, so detection picks
 *   this format and loses nothing of the frame it decided on.
 *
 * Each check names the chunk size in what it compares, so a failure says at which size it broke.
 *
 * @param example The dialect, its stream and what it should give.
 */
export function exampleStreamSuite(example: ExampleStream): void {
  const { dialect, file, framing, completion, events, auto = false, more } = example;

  /** What is compared: the chunk size, the error (none expected), the completion and, when given, the events. */
  const seen = (size: number | 'whole', result: Assembled) => ({
    size,
    error: result.error,
    completion: result.completion,
    ...(events === undefined ? {} : { events: result.events }),
  });
  const wanted = (size: number | 'whole') => ({
    size,
    error: undefined,
    completion,
    ...(events === undefined ? {} : { events }),
  });

  // The names say what is compared: the events only when the spec wrote them out.
  const inOnePiece =
    events === undefined
      ? 'assembles to the completion written out by hand, read in one piece'
      : 'maps to these events, in this order, and assembles to the completion written out by hand, read in one piece';
  const throughEvents = events === undefined ? '' : ', through these events';

  describe(`the example stream (${file})`, () => {
    const bytes = readBytes(marbleFile(file));

    it(inOnePiece, () => {
      expect(seen('whole', assembleBytes(bytes, dialect, { framing }))).toEqual(wanted('whole'));
    });

    it(`assembles to the completion written out by hand${throughEvents}, at every chunk size from 1 to 64`, () => {
      for (const size of CHUNK_SIZES) {
        expect(seen(size, assembleBytes(bytes, dialect, { framing, chunkSize: size }))).toEqual(wanted(size));
      }
    });

    it('assembles the same with CRLF line ends, at every chunk size from 1 to 64', () => {
      const text = new TextDecoder().decode(bytes);
      const crlf = new TextEncoder().encode(text.replace(/\r?\n/g, '\r\n'));
      // The stream has bare LF line ends to rewrite; else this would only repeat the test above.
      expect(crlf.length).toBeGreaterThan(bytes.length);
      for (const size of CHUNK_SIZES) {
        expect(seen(size, assembleBytes(crlf, dialect, { framing, chunkSize: size }))).toEqual(wanted(size));
      }
    });

    if (auto) {
      it('assembles the same through auto, at every chunk size from 1 to 64', () => {
        for (const size of CHUNK_SIZES) {
          expect(seen(size, assembleBytes(bytes, autoDialect, { framing, chunkSize: size }))).toEqual(wanted(size));
        }
      });
    }

    more?.();
  });
}
