/**
 * The forward marker between the processes of one fleet. A forwarded request carries the sender's
 * process id and the fleet's shared secret; the receiver serves it without forwarding it again
 * (no loops). A marker with a missing or wrong secret is refused, so a client can never make a
 * process believe a request was forwarded. The secret is compared in constant time and never
 * echoed, logged or put in a response.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { refuse, type Refusal } from '../server/refusal.ts'

export const FORWARDED_BY = 'x-gateway-forwarded-by'
export const FORWARD_SECRET = 'x-gateway-forward-secret'

const MISSING = refuse('forward_unauthorized', 'a forwarded request must carry the fleet forward secret')
const WRONG = refuse('forward_forbidden', 'the fleet forward secret is wrong, or this process forwards nothing')

export type ForwardState = 'client' | 'forwarded' | Refusal

/** `secret` undefined: this process is in no fleet, so every marked request is refused. */
export function forwardStateOf(req: IncomingMessage, secret: string | undefined): ForwardState {
  const by = req.headers[FORWARDED_BY]
  const given = req.headers[FORWARD_SECRET]
  if (by === undefined && given === undefined) return 'client'
  if (typeof given !== 'string' || given === '') return MISSING
  if (secret === undefined || !sameSecret(given, secret)) return WRONG
  return 'forwarded'
}

/** Digests first: equal lengths for timingSafeEqual, and no early exit on the secret's length. */
function sameSecret(given: string, secret: string): boolean {
  const a = createHash('sha256').update(given).digest()
  const b = createHash('sha256').update(secret).digest()
  return timingSafeEqual(a, b)
}

/** The headers a forwarding process adds; everything else of the client's request passes as it came. */
export function forwardHeaders(processId: string, secret: string): Record<string, string> {
  return { [FORWARDED_BY]: processId, [FORWARD_SECRET]: secret }
}
