/**
 * Query, fragment and matrix parameters whose values are credentials: API keys (`?key=` is how
 * Gemini takes one, `?code=` how Azure Functions does), tokens (`access_token`, `X-Amz-Security-Token`),
 * passwords, signatures of signed URLs (`sig`, `X-Amz-Signature`), sessions.
 */
const SECRET_PARAMETER = /key|token|secret|passw|pwd|auth|sig|credential|session|jwt|^code$|^pass$/i;

/** `scheme://user:password@`: everything between `//` and the last `@` of the authority. */
const USER_INFO = /([a-z][a-z0-9+.-]*:\/\/)[^/?#\s"'<>]*@/gi;

/** `?name=value`, `&name=value`, `#name=value` (tokens in a fragment) and `;name=value`. */
const PARAMETER = /([?&#;])([^=&#?;\s"'<>]*)=([^&#;\s"'<>]*)/g;

/** The name of a parameter as a server reads it (`%5F` is `_`, `+` a space), or as written when it is malformed. */
function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/**
 * A URL, or any text holding URLs (a message, a header value such as `location` or `link`), as it
 * may be printed or written into a file: user info (`user:password@`) removed, and the values of
 * parameters named like credentials (`key`, `api-key`, `code`, `token`, `access_token`, `password`,
 * `passwd`, `sig`, ...) replaced by `REDACTED`. Everything else is left as it is, byte for byte, so a
 * URL without credentials comes back unchanged; a relative URL and text that is no URL at all are
 * handled the same way. Recordings are made to be shared; a key must not travel with them.
 *
 * @example
 * ```ts
 * redactCredentials('https://user:pw@example.com/api/chat?code=abc&alt=sse');
 * // 'https://example.com/api/chat?code=REDACTED&alt=sse'
 * ```
 */
export function redactCredentials(text: string): string {
  return text.replace(USER_INFO, '$1').replace(PARAMETER, (whole, start: string, name: string, value: string) =>
    // Punctuation that ends the value ends the sentence a URL stands in (`...?key=k1: fetch failed`).
    SECRET_PARAMETER.test(decodedName(name)) ? `${start}${name}=REDACTED${/[:,.)\]]*$/.exec(value)![0]}` : whole,
  );
}
