/**
 * The arguments of a function call that Vertex AI streams piece by piece (`functionCall.partialArgs`,
 * with `toolConfig.functionCallingConfig.streamFunctionCallArguments`), written back as JSON text in
 * the order the pieces arrive. Each piece names where its value goes with a JSON Path (RFC 9535):
 * `{"jsonPath": "$.recipe.ingredients[0].name", "stringValue": "San ", "willContinue": true}`.
 */

/** One step of a path: a member name, or an array index. */
export type PathSegment = string | number;

/**
 * A value of one piece: a piece of a string (`more` while the string goes on in a later piece, as
 * `willContinue` says), or a whole value as JSON text (a number, `true`, `false`, `null`).
 */
export type PieceValue =
  { readonly kind: 'string'; readonly text: string; readonly more: boolean } | { readonly kind: 'json'; readonly json: string };

/** An object or array whose text is open: its place in the path, and what it holds so far. */
interface OpenContainer {
  readonly segment: PathSegment | undefined;
  readonly kind: 'object' | 'array';
  /** The member names written (objects): a path that names one again goes back into it. */
  readonly names: Set<string>;
  /** Members or elements written so far: the next array index, and whether a comma comes first. */
  count: number;
}

/**
 * Writes the arguments object as JSON text while its pieces arrive, so that the text of all the calls
 * of `begin`, `put` and `end`, joined, parses to the object the paths describe: a container opens
 * when a path first needs it, closes when a later path leaves it, and a string stays open while its
 * pieces say `willContinue`. The text can only grow, so a path that goes back into a value already
 * closed (or names a member twice), skips an array index, or treats an object as an array, is refused
 * through `fail`, with the path in the message.
 *
 * @example
 * ```ts
 * const args = new PartialArgsWriter((what) => new Error(what));
 * args.begin(); // '{'
 * args.put(['city'], { kind: 'string', text: 'San ', more: true }); // '"city":"San '
 * args.put(['city'], { kind: 'string', text: 'Francisco', more: false }); // 'Francisco"'
 * args.put(['days', 0], { kind: 'json', json: '3' }); // ',"days":[3'
 * args.end(); // ']}'
 * ```
 */
export class PartialArgsWriter {
  private readonly open: OpenContainer[] = [];
  /** The path of the string still being written, when a piece said it goes on. */
  private openString: readonly PathSegment[] | undefined = undefined;
  private ended = false;

  constructor(private readonly fail: (what: string) => Error) {}

  /** The text that opens the arguments object. */
  begin(): string {
    this.open.push({ segment: undefined, kind: 'object', names: new Set(), count: 0 });
    return '{';
  }

  /** The text that puts `value` at `path` (a path of `parsePath`): closing, opening and separating as needed. */
  put(path: readonly PathSegment[], value: PieceValue): string {
    if (this.ended || this.open.length === 0) throw this.fail('a piece arrived for arguments that are not open');
    if (path.length === 0 || typeof path[0] !== 'string') throw this.fail(`${pathText(path)} is not a member of the arguments object`);
    let text = '';
    if (this.openString !== undefined) {
      if (samePath(this.openString, path)) {
        if (value.kind !== 'string') throw this.fail(`${pathText(path)} is a string still being written`);
        return this.stringPiece(path, value);
      }
      // A string said to go on, and the next piece is elsewhere: the string is over.
      text += '"';
      this.openString = undefined;
    }
    const shared = this.sharedDepth(path);
    text += this.closeAbove(shared);
    for (let depth = shared; depth < path.length - 1; depth++) {
      const segment = path[depth]!;
      text += this.member(path, depth, segment);
      const kind = typeof path[depth + 1] === 'number' ? 'array' : 'object';
      this.open.push({ segment, kind, names: new Set(), count: 0 });
      text += kind === 'array' ? '[' : '{';
    }
    text += this.member(path, path.length - 1, path[path.length - 1]!);
    if (value.kind === 'json') return text + value.json;
    return text + '"' + this.stringPiece(path, value);
  }

  /** The text that closes whatever is still open, the arguments object last. */
  end(): string {
    if (this.ended) return '';
    this.ended = true;
    let text = this.openString === undefined ? '' : '"';
    this.openString = undefined;
    text += this.closeAbove(0);
    this.open.length = 0;
    return text + '}';
  }

  /** How deep the open containers follow `path`'s containers (the root, always, is depth 0). */
  private sharedDepth(path: readonly PathSegment[]): number {
    let depth = 0;
    while (depth + 1 < this.open.length && depth < path.length - 1 && this.open[depth + 1]!.segment === path[depth]) depth++;
    return depth;
  }

  /** Closes the open containers deeper than `depth`. */
  private closeAbove(depth: number): string {
    let text = '';
    while (this.open.length - 1 > depth) text += this.open.pop()!.kind === 'object' ? '}' : ']';
    return text;
  }

  /** The text before a new member `segment` of the innermost open container: a comma, and its name. */
  private member(path: readonly PathSegment[], depth: number, segment: PathSegment): string {
    const container = this.open[this.open.length - 1]!;
    const where = pathText(path.slice(0, depth + 1));
    const comma = container.count > 0 ? ',' : '';
    if (container.kind === 'object') {
      if (typeof segment !== 'string') throw this.fail(`${where} indexes an object`);
      if (container.names.has(segment)) throw this.fail(`${where} goes back into a value already written`);
      container.names.add(segment);
      container.count++;
      return `${comma}${JSON.stringify(segment)}:`;
    }
    if (typeof segment !== 'number') throw this.fail(`${where} names a member of an array`);
    if (segment < container.count) throw this.fail(`${where} goes back into a value already written`);
    if (segment > container.count) throw this.fail(`${where} skips index ${container.count}`);
    container.count++;
    return comma;
  }

  /** A string piece's text, escaped; the closing quote when no piece follows. */
  private stringPiece(path: readonly PathSegment[], value: { readonly text: string; readonly more: boolean }): string {
    const escaped = JSON.stringify(value.text).slice(1, -1);
    this.openString = value.more ? path : undefined;
    return value.more ? escaped : escaped + '"';
  }
}

/**
 * The segments of a JSON Path (RFC 9535) that names one value: `$`, then `.name`, `['name']` or
 * `["name"]` (with the escapes of the RFC), and `[0]`; undefined for anything else (wildcards,
 * filters, slices, negative indices).
 */
export function parsePath(path: string): PathSegment[] | undefined {
  if (path[0] !== '$') return undefined;
  const segments: PathSegment[] = [];
  let at = 1;
  while (at < path.length) {
    const step = path[at] === '.' ? dotted(path, at + 1) : path[at] === '[' ? bracketed(path, at + 1) : undefined;
    if (step === undefined) return undefined;
    segments.push(step.segment);
    at = step.next;
  }
  return segments;
}

interface Step {
  readonly segment: PathSegment;
  readonly next: number;
}

/** `.name`: the characters up to the next `.` or `[`. */
function dotted(path: string, from: number): Step | undefined {
  let at = from;
  while (at < path.length && path[at] !== '.' && path[at] !== '[') at++;
  const name = path.slice(from, at);
  return name === '' || name === '*' ? undefined : { segment: name, next: at };
}

/** `[0]`, `['name']` or `["name"]`. */
function bracketed(path: string, from: number): Step | undefined {
  const quote = path[from];
  if (quote === "'" || quote === '"') return quotedName(path, from + 1, quote);
  const close = path.indexOf(']', from);
  if (close === -1) return undefined;
  const digits = path.slice(from, close);
  if (!/^(0|[1-9][0-9]*)$/.test(digits)) return undefined;
  const index = Number(digits);
  return Number.isSafeInteger(index) ? { segment: index, next: close + 1 } : undefined;
}

const ESCAPES: Readonly<Record<string, string>> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '/': '/', '\\': '\\', "'": "'", '"': '"' };

/** A quoted member name up to its closing quote and `]`, its escapes read. */
function quotedName(path: string, from: number, quote: string): Step | undefined {
  let name = '';
  let at = from;
  while (at < path.length && path[at] !== quote) {
    if (path[at] !== '\\') {
      name += path[at];
      at++;
      continue;
    }
    const escape = path[at + 1];
    if (escape === 'u' && /^[0-9a-fA-F]{4}$/.test(path.slice(at + 2, at + 6))) {
      name += String.fromCharCode(parseInt(path.slice(at + 2, at + 6), 16));
      at += 6;
    } else if (escape !== undefined && ESCAPES[escape] !== undefined) {
      name += ESCAPES[escape];
      at += 2;
    } else {
      return undefined;
    }
  }
  return path[at] === quote && path[at + 1] === ']' ? { segment: name, next: at + 2 } : undefined;
}

function samePath(a: readonly PathSegment[], b: readonly PathSegment[]): boolean {
  return a.length === b.length && a.every((segment, i) => segment === b[i]);
}

/** A path as the messages write it: `$.recipe.ingredients[0]`. */
function pathText(path: readonly PathSegment[]): string {
  return '$' + path.map((segment) => (typeof segment === 'number' ? `[${segment}]` : `.${segment}`)).join('');
}
