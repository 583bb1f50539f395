/**
 * The raw baselines of rows a-d, each in a forked process of its own (baseline-child.ts:
 * a baseline sharing the client's process, or the gateway's, pulls the ratio toward 1). The same
 * servers as before, unchanged: a raw `ws` server (ws-client.ts `startBaselineServer`) sending
 * the captured replay frames or building the live burst, and a raw `node:http` server answering
 * the captured reply bytes.
 */
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'

const CHILD = fileURLToPath(new URL('./baseline-child.ts', import.meta.url))

export type BaselineSpec =
  | { replay: string[] }
  | { live: { head: string[]; firstSeq: number; count: number; tail: string[] } }
  | { http: string }

export async function startBaseline(spec: BaselineSpec): Promise<{ url: string; close(): Promise<void> }> {
  const child = fork(CHILD, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  child.send(spec)
  const [{ url }] = (await once(child, 'message')) as [{ url: string }]
  return {
    url,
    async close() {
      if (child.exitCode !== null) return
      const exited = once(child, 'exit')
      child.kill()
      await exited
    },
  }
}

/** The limit for the same wire work: the reply's bytes encoded once, then written as they are. */
export async function startRawServer(text: string) {
  const body = Buffer.from(text)
  const answer = (res: ServerResponse, status: number) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length })
    res.end(body)
  }
  // A GET is answered at once, as the gateway does; a POST after its body, which the gateway reads too.
  const server = createServer((req, res) => {
    if (req.method !== 'POST') return answer(res, 200)
    req.resume()
    req.on('end', () => answer(res, 201))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections() }) }
}

