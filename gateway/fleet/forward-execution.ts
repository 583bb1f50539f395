/**
 * `POST /executions/:id/result` for an execution this process does not know: a park is found
 * through the shared store already, but a session that runs live on another process (a client
 * attached keeps it from parking) holds its open execution ids in memory there. The result is
 * offered to each live peer in turn (with the forward secret, so it is not offered on again); the
 * first answer that is not 404 is the client's. None: the local 404 stands.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { sendRawJson } from '../server/http.ts'
import type { SessionDirectory } from './directory.ts'
import { askPeer } from './forward-http.ts'

export async function offerExecutionResult(req: IncomingMessage, res: ServerResponse, body: unknown,
  fleet: { directory: SessionDirectory; secret: string; peerTimeoutMs: number }): Promise<boolean> {
  const text = JSON.stringify(body)
  for (const peer of await fleet.directory.peers()) {
    const answer = await askPeer(req, peer.address, { method: 'POST', path: req.url ?? '/', body: text }, fleet.directory.processId, fleet.secret, fleet.peerTimeoutMs)
    if (!answer || answer.status === 404) continue
    sendRawJson(res, answer.status, answer.body)
    return true
  }
  return false
}
