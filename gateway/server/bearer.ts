/**
 * The token of an `Authorization: Bearer <token>` header. The scheme is case-insensitive
 * (RFC 9110 §11.1: `bearer`, `BEARER` and `Bearer` are one scheme) and one or more spaces separate
 * it from the token. The token itself is taken as sent (trimmed), as before: a principals file may
 * hold the hash of a token that is not strict token68, and narrowing that would lock its holder out.
 */
const BEARER = /^bearer +(\S(?:.*\S)?) *$/is

export function bearerToken(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined
  return BEARER.exec(header)?.[1]
}
