/**
 * Scope stamping at create (scope.1, authentication.3): a request may add tags or repeat the
 * caller's, never contradict them; the caller's pinned keys always win.
 */
import type { Scope } from '../protocol/index.ts'
import type { Principal } from './principal.ts'
import { refuse, type Refusal } from './refusal.ts'

const MAX_SCOPE_KEYS = 16
const MAX_SCOPE_CHARS = 200

export function stampScope(principal: Principal, requested: Scope | undefined): Scope | undefined | Refusal {
  if (requested) {
    const keys = Object.keys(requested)
    if (keys.length > MAX_SCOPE_KEYS) return refuse('scope_invalid', `scope may have at most ${MAX_SCOPE_KEYS} keys`)
    for (const key of keys) {
      if (key.length > MAX_SCOPE_CHARS || requested[key].length > MAX_SCOPE_CHARS) {
        return refuse('scope_invalid', `scope keys and values are at most ${MAX_SCOPE_CHARS} characters`)
      }
    }
  }
  const pinned = principal.scope
  if (pinned) {
    for (const key of Object.keys(pinned)) {
      if (requested && key in requested && requested[key] !== pinned[key]) {
        return refuse('scope_mismatch', `scope '${key}' does not match the caller's`)
      }
    }
  }
  const merged = { ...requested, ...pinned }
  return Object.keys(merged).length ? merged : undefined
}
