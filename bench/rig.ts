/** Starts the gateway for a benchmark, on loopback, with the firehose runner as its engine. */
import { createGatewayServer } from '../gateway/server/create-server.ts'
import { createFirehoseRunner } from './firehose-runner.ts'

export async function startBenchGateway() {
  const gateway = createGatewayServer({
    allowUnauthenticated: true,
    profiles: [{ name: 'default', engine: 'provider', provider: { id: 'firehose', model: 'firehose' } }],
    createEngineRunner: (ctx) => createFirehoseRunner(ctx),
  })
  const { url } = await gateway.listen(0, '127.0.0.1')
  return {
    url,
    wsUrl: url.replace(/^http/, 'ws'),
    async createSession(): Promise<string> {
      const res = await fetch(`${url}/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      const body = (await res.json()) as { session: { id: string } }
      return body.session.id
    },
    async deleteSession(id: string): Promise<void> {
      await fetch(`${url}/sessions/${id}`, { method: 'DELETE' }).then((r) => r.arrayBuffer())
    },
    /** Deletes every session, so a later row sees only the sessions it made itself. */
    async deleteAll(): Promise<void> {
      const { sessions } = (await (await fetch(`${url}/sessions`)).json()) as { sessions: { id: string }[] }
      for (const { id } of sessions) await fetch(`${url}/sessions/${id}`, { method: 'DELETE' }).then((r) => r.arrayBuffer())
    },
    close: () => gateway.close(),
  }
}
