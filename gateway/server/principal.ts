/**
 * Principals and the one visibility chokepoint (authentication.3, scope.2). Every list row, every
 * `/sessions/:id/*` gate and every WS attach asks `canSee`; nothing else decides visibility.
 */
import type { IncomingMessage } from 'node:http'
import type { Scope, SessionInfo } from '../protocol/index.ts'

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

/**
 * The per-request authentication step. A synchronous hook answers synchronously: the request path
 * then pays no promise hop for it (the hot read routes are a few microseconds each).
 */
export function createAuthenticator(authenticate: Authenticate | undefined) {
  const accept = (principal: unknown): Principal | undefined => {
    if (principal === null || principal === undefined || principal === false) return undefined
    return typeof principal === 'object' ? (principal as Principal) : UNRESTRICTED
  }
  return function principalOf(req: IncomingMessage): Principal | undefined | Promise<Principal | undefined> {
    if (!authenticate) return UNRESTRICTED
    let answer
    try {
      answer = authenticate(req)
    } catch {
      // A throwing hook is a refusal, never a 500 that would leak its message.
      return undefined
    }
    if (typeof (answer as PromiseLike<unknown> | undefined)?.then === 'function') return Promise.resolve(answer).then(accept, () => undefined)
    return accept(answer)
  }
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
