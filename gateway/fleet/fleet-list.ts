/**
 * `GET /sessions` across the fleet, by fan-out: the arriving process asks every process whose
 * lease holds for its own visible rows (with the client's credentials and the forward secret),
 * and merges them with its own. Fan-out rather than a shared table because a session's status,
 * title and activity change with every turn on the process that runs it: a table would need a
 * write per change, while the owner's registry already holds them (serialised once per change).
 * A row a process runs wins over a stored copy another process holds (a park or a record it read
 * at boot). A peer that does not answer within the timeout is left out of the list.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { GatewayContext } from '../server/context.ts'
import { sendRawJson } from '../server/http.ts'
import type { Principal } from '../server/principal.ts'
import type { SessionDirectory } from './directory.ts'
import { askPeer } from './forward-http.ts'

/** On a forwarded list request: answer this process's own rows, with which of them run here. */
export const FLEET_LIST = 'x-gateway-fleet-list'

interface Row { id: string; json: string; live: boolean }

function localRows(ctx: GatewayContext, principal: Principal): Row[] {
  const rows: Row[] = []
  for (const id of ctx.registry.ids()) {
    const info = ctx.registry.info(id)
    if (!info || !ctx.visibility.canSee(principal, info)) continue
    const json = ctx.registry.json(id)
    if (json) rows.push({ id, json, live: !ctx.parking.isParked(id) })
  }
  return rows
}

/** The part a peer answers: `{sessions, live}` (live: the ids it runs). */
export function answerFleetPart(ctx: GatewayContext, res: ServerResponse, principal: Principal): void {
  const rows = localRows(ctx, principal)
  sendRawJson(res, 200, `{"sessions":[${rows.map((r) => r.json).join(',')}],"live":${JSON.stringify(rows.filter((r) => r.live).map((r) => r.id))}}`)
}

export async function answerFleetList(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, principal: Principal,
  fleet: { directory: SessionDirectory; secret: string; peerTimeoutMs: number }): Promise<void> {
  const merged = new Map<string, Row>()
  for (const row of localRows(ctx, principal)) merged.set(row.id, row)
  const peers = await fleet.directory.peers()
  const parts = await Promise.all(peers.map((peer) => askPeer(req, peer.address, { method: 'GET', path: req.url ?? '/', headers: { [FLEET_LIST]: '1' } },
    fleet.directory.processId, fleet.secret, fleet.peerTimeoutMs)))
  for (const answer of parts) {
    if (answer?.status !== 200) continue
    const text = answer.body
    let part: { sessions?: unknown[]; live?: unknown[] }
    try { part = JSON.parse(text) } catch { continue }
    const live = new Set(Array.isArray(part.live) ? part.live : [])
    for (const session of Array.isArray(part.sessions) ? part.sessions : []) {
      const id = (session as { id?: unknown })?.id
      if (typeof id !== 'string') continue
      const known = merged.get(id)
      if (!known || (!known.live && live.has(id))) merged.set(id, { id, json: JSON.stringify(session), live: live.has(id) })
    }
  }
  sendRawJson(res, 200, `{"sessions":[${[...merged.values()].map((r) => r.json).join(',')}]}`)
}
