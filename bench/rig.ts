/**
 * Starts the gateway for a benchmark, on loopback, with the firehose runner as its engine. The
 * rows run it in its own process (`startBenchGateway`, rig-child.ts; a client or a
 * baseline in the gateway's process pulls every ratio toward 1); `startInProcessBenchGateway` keeps
 * it in the caller's process, for profiling the gateway and its client together (profile-live.ts).
 */
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { createGatewayServer } from '../gateway/server/create-server.ts'
import { createFirehoseRunner } from './firehose-runner.ts'

const CHILD = fileURLToPath(new URL('./rig-child.ts', import.meta.url))

export interface BenchGateway {
  url: string
  wsUrl: string
  createSession(): Promise<string>
  deleteSession(id: string): Promise<void>
  /** Deletes every session, so a later row sees only the sessions it made itself. */
  deleteAll(): Promise<void>
  close(): Promise<void>
}

export async function listenBenchGateway() {
  const gateway = createGatewayServer({
    allowUnauthenticated: true,
    profiles: [{ name: 'default', engine: 'provider', provider: { id: 'firehose', model: 'firehose' } }],
    createEngineRunner: (ctx) => createFirehoseRunner(ctx),
  })
  const { url } = await gateway.listen(0, '127.0.0.1')
  return { url, close: () => gateway.close() }
}

function client(url: string, close: () => Promise<void>): BenchGateway {
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
    async deleteAll(): Promise<void> {
      const { sessions } = (await (await fetch(`${url}/sessions`)).json()) as { sessions: { id: string }[] }
      for (const { id } of sessions) await fetch(`${url}/sessions/${id}`, { method: 'DELETE' }).then((r) => r.arrayBuffer())
    },
    close,
  }
}

export async function startInProcessBenchGateway(): Promise<BenchGateway> {
  const { url, close } = await listenBenchGateway()
  return client(url, close)
}

/** The gateway in a forked process of its own; this process is only its client. */
export async function startBenchGateway(): Promise<BenchGateway> {
  const child = fork(CHILD, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const [{ url }] = (await once(child, 'message')) as [{ url: string }]
  return client(url, async () => {
    if (child.exitCode !== null) return
    const exited = once(child, 'exit')
    child.kill()
    await exited
  })
}
