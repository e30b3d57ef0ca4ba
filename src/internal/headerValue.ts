/**
 * Response headers as the clients give them: a fetch `Headers` or Angular's `HttpHeaders` (both
 * have `get`, case-insensitive), or a plain record such as Node's `IncomingHttpHeaders` (lower-case
 * names, a repeated header as an array).
 */
export type HeadersLike =
  { get(name: string): string | null } | { readonly [name: string]: string | readonly string[] | number | undefined };

/**
 * The value of header `name` (lower-case), or `undefined` when it is absent; a repeated header's
 * values joined by `, ` as HTTP folds them. Never throws: a `get` that does is an absent header.
 */
export function headerValue(headers: HeadersLike | undefined | null, name: string): string | undefined {
  if (headers === undefined || headers === null) return undefined;
  try {
    if (typeof headers.get === 'function') {
      const value = (headers as { get(name: string): unknown }).get(name);
      return typeof value === 'string' ? value : undefined;
    }
    const value = (headers as { readonly [name: string]: unknown })[name];
    if (typeof value === 'string') return value;
    if (typeof value === 'number') return String(value);
    if (Array.isArray(value)) return value.filter((part): part is string => typeof part === 'string').join(', ');
  } catch {
    // A headers object that throws on a read (a revoked proxy) says nothing usable.
  }
  return undefined;
}
