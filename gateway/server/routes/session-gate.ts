/**
 * The `/sessions/:id/*` gate (authentication.3): an unknown id and a session the caller may not
 * see produce the very same refusal object, so the two are byte-identical on the wire.
 */
import type { Runner } from '../../sessions/runner.ts'
import type { GatewayContext } from '../context.ts'
import type { Principal } from '../principal.ts'
import { SESSION_NOT_FOUND, type Refusal } from '../refusal.ts'

export function gateSession(ctx: GatewayContext, principal: Principal, id: string): Runner | Refusal {
  const runner = ctx.registry.get(id)
  if (!runner) return SESSION_NOT_FOUND
  const info = ctx.registry.info(id)
  if (!info || !ctx.visibility.canSee(principal, info)) return SESSION_NOT_FOUND
  return runner
}
