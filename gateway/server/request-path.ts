/** Request targets to route segments. */

/**
 * The request path. Plain paths (the hot case) skip the WHATWG parser; anything it could
 * rewrite (dot segments, backslashes, absolute-form targets) goes through it.
 */
const PLAIN_PATH = /^\/(?!\/)[\w\-~%:@!$&'()*+,;=/]*$/

export function pathOf(target = '/'): string {
  const q = target.indexOf('?')
  const path = q === -1 ? target : target.slice(0, q)
  if (PLAIN_PATH.test(path)) return path
  try {
    return new URL(target, 'http://gateway.invalid').pathname
  } catch {
    return path // e.g. "//": not parseable; splitPath then refuses its empty segment
  }
}

export function splitPath(path: string): string[] | undefined {
  const raw = path.split('/').slice(1)
  if (raw.length && raw[raw.length - 1] === '') raw.pop()
  try {
    const segments = raw.map((s) => decodeURIComponent(s))
    return segments.some((s) => s === '') ? undefined : segments
  } catch {
    return undefined
  }
}

