/**
 * The `/sessions/:id/*` gate (authentication.3): an unknown id and a session the caller may not
 * see produce the very same refusal object, so the two are byte-identical on the wire.
 */
import type { Runner } from '../../sessions/runner.ts'
import type { GatewayContext } from '../context.ts'
import type { Principal } from '../principal.ts'
import { refuse, SESSION_NOT_FOUND, type Refusal } from '../refusal.ts'

export function gateSession(ctx: GatewayContext, principal: Principal, id: string): Runner | Refusal {
  const runner = ctx.registry.get(id)
  if (!runner) return SESSION_NOT_FOUND
  const info = ctx.registry.info(id)
  if (!info || !ctx.visibility.canSee(principal, info)) return SESSION_NOT_FOUND
  return runner
}

/**
 * The runner a command on `id` acts on. A session resting parked is refused 409 (errors.6); a row
 * that is only stored — a persistLive or dormant CLI record after a restart, status idle — is
 * rebuilt first, as the first attach would (embedding-rules.14), never refused as if parked.
 */
export async function commandRunner(ctx: GatewayContext, id: string, runner: Runner, parkedReason: string): Promise<Runner | Refusal> {
  if (!ctx.parking.isParked(id)) return runner
  if (ctx.parking.restsParked(id)) return refuse('session_parked', parkedReason)
  return (await ctx.parking.ensureLive(id)) ?? SESSION_NOT_FOUND
}
