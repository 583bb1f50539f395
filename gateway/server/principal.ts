/**
 * Principals and the one visibility chokepoint (authentication.3, scope.2). Every list row, every
 * `/sessions/:id/*` gate and every WS attach asks `canSee`; nothing else decides visibility.
 */
import type { IncomingMessage } from 'node:http'
import type { Scope, SessionInfo } from '../protocol/index.ts'
import { refuse, UNAUTHORIZED, type Refusal } from './refusal.ts'

export interface Principal {
  scope?: Scope
  allowedProfiles?: string[]
  operator?: boolean
  canManageProfiles?: boolean
  [key: string]: unknown
}

export type Authenticate = (req: IncomingMessage) => Principal | null | undefined | false | Promise<Principal | null | undefined | false>
export type AuthorizeSession = (principal: Principal, session: SessionInfo) => boolean

const UNRESTRICTED: Principal = Object.freeze({})

/** A hook that threw or answered something that is not a principal: a 500, never access. */
export const AUTH_HOOK_FAILED = Symbol('authenticate hook failed')
export type Authentication = Principal | undefined | typeof AUTH_HOOK_FAILED

/**
 * The per-request authentication step. A synchronous hook answers synchronously: the request path
 * then pays no promise hop for it (the hot read routes are a few microseconds each).
 * A falsy answer is a refusal (authentication.1); a principal is a plain object; anything else
 * (a throw, `true`, a string, an array) is a broken hook: logged through `onError`, and the request
 * fails closed with a 500 instead of becoming an unscoped operator.
 */
export function createAuthenticator(authenticate: Authenticate | undefined, onError: (err: unknown, where: string) => void = () => {}) {
  const accept = (principal: unknown): Authentication => {
    if (!principal) return undefined
    if (typeof principal === 'object' && !Array.isArray(principal)) return principal as Principal
    onError(new Error(`authenticate returned a ${Array.isArray(principal) ? 'array' : typeof principal}, not a principal object or null`), 'authenticate')
    return AUTH_HOOK_FAILED
  }
  const failed = (err: unknown): Authentication => {
    onError(err, 'authenticate')
    return AUTH_HOOK_FAILED
  }
  return function principalOf(req: IncomingMessage): Authentication | Promise<Authentication> {
    if (!authenticate) return UNRESTRICTED
    let answer
    try {
      answer = authenticate(req)
    } catch (err) {
      return failed(err)
    }
    if (typeof (answer as PromiseLike<unknown> | undefined)?.then === 'function') return Promise.resolve(answer).then(accept, failed)
    return accept(answer)
  }
}

const AUTH_FAILED = refuse('internal_error', 'internal error')

/** The one refusal for a failed authentication step: 401, or 500 for a broken hook. */
export function authRefusal(principal: unknown): Refusal | undefined {
  if (principal === AUTH_HOOK_FAILED) return AUTH_FAILED
  return principal ? undefined : UNAUTHORIZED
}

/** The default rule: every key the principal pins must equal the session's value for it. */
export function scopeMatches(principal: Principal, sessionScope: Scope | undefined): boolean {
  const pinned = principal.scope
  if (!pinned) return true
  for (const key of Object.keys(pinned)) {
    if (!sessionScope || sessionScope[key] !== pinned[key]) return false
  }
  return true
}

export function createVisibility(authorizeSession: AuthorizeSession | undefined) {
  return {
    canSee(principal: Principal, session: SessionInfo): boolean {
      if (!authorizeSession) return scopeMatches(principal, session.scope)
      try {
        return authorizeSession(principal, session) === true
      } catch {
        return false // a policy that throws means no
      }
    },
    /** Operator surfaces: explicit `operator: true` once a policy exists, else unscoped principals. */
    isOperator(principal: Principal): boolean {
      if (typeof principal.operator === 'boolean') return principal.operator
      if (authorizeSession) return false
      return !principal.scope || Object.keys(principal.scope).length === 0
    },
  }
}

export type Visibility = ReturnType<typeof createVisibility>
