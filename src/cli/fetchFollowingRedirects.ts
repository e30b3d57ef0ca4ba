/** How many redirects are followed before giving up, as `fetch` does. */
const MAX_REDIRECTS = 20;

/** The statuses that redirect to their `location`. */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Request headers that carry a credential: those `fetch` itself drops on a redirect to another origin
 * (`authorization`, `proxy-authorization`, `cookie`), the API keys of the providers (`x-api-key`,
 * `api-key`, `x-goog-api-key`, which `fetch` forwards), and any other whose name says it holds one.
 */
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie)$|auth|token|key|secret|passw|credential|session|signature/i;

/**
 * True for a request header whose value must not go to another origin.
 *
 * @example
 * ```ts
 * isSecretRequestHeader('x-goog-api-key'); // true
 * isSecretRequestHeader('content-type'); // false
 * ```
 */
export function isSecretRequestHeader(name: string): boolean {
  return SECRET_HEADER.test(name);
}

/** The headers that describe a request body, dropped with the body when a redirect turns it into a GET. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

/** A request of {@link fetchFollowingRedirects}. */
export interface RedirectedRequest {
  readonly method: string;
  readonly headers: Headers;
  readonly body?: string;
}

/**
 * `fetch(url, request)` that follows redirects itself, as `fetch` would (at most 20; a 303, and a
 * 301 or 302 of a POST, become a GET without the body), but drops every secret request header
 * (see {@link isSecretRequestHeader}) once a redirect leads to another origin: `fetch` drops only
 * `authorization`, `proxy-authorization` and `cookie`, and would hand an `x-api-key` to whatever
 * host a redirect names. A header dropped stays dropped for the redirects after. Rejects with an
 * `Error` for a redirect it cannot follow (a `location` that is no http(s) URL or that holds user
 * info, too many redirects), and as `fetch` does when there is no response.
 *
 * @example
 * ```ts
 * const response = await fetchFollowingRedirects(url, { method: 'POST', headers: new Headers({ 'x-api-key': key }), body });
 * ```
 */
export async function fetchFollowingRedirects(url: string, request: RedirectedRequest): Promise<Response> {
  let current = new URL(url);
  let { method, body } = request;
  const headers = new Headers(request.headers);
  for (let redirects = 0; ; redirects++) {
    const response = await fetch(current, { method, headers, redirect: 'manual', ...(body === undefined ? {} : { body }) });
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
    // The redirect's own body is not wanted: release its connection.
    await response.body?.cancel();
    if (redirects === MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new Error(`a ${response.status} redirect to a location that is not a URL`);
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new Error(`a ${response.status} redirect to a ${next.protocol} URL`);
    if (next.username !== '' || next.password !== '') throw new Error(`a ${response.status} redirect to a URL with user info`);
    if (next.origin !== current.origin) {
      for (const name of [...headers.keys()]) if (isSecretRequestHeader(name)) headers.delete(name);
    }
    if (
      (response.status === 303 && method !== 'GET' && method !== 'HEAD') ||
      ((response.status === 301 || response.status === 302) && method === 'POST')
    ) {
      method = 'GET';
      body = undefined;
      for (const name of BODY_HEADERS) headers.delete(name);
    }
    current = next;
  }
}
