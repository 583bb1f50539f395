/**
 * A real `gateway` process (the dev wiring of `gateway/cli.ts`: provider engine on the fake model
 * server, file store with persistLive when `storeDir` is given) for tests that must kill it with
 * SIGKILL. Started through tsx like `npm run gateway`; the manifest file says where it listens.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openSocket, type TestSocket } from '../harness.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

export interface ChildGateway {
  child: ChildProcess
  baseUrl: string
  tokens: Record<string, string>
  call(method: string, path: string, body?: unknown, who?: string): Promise<{ status: number; body: any }>
  attach(id: string, afterSeq?: number): Promise<TestSocket>
  kill(): Promise<void>
}

export async function startChildGateway(work: string, run: number, extraArgs: string[] = []): Promise<ChildGateway> {
  const manifestPath = join(work, `manifest-${run}.json`)
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'gateway/cli.ts'), '--port', '0', '--manifest', manifestPath,
    '--store-dir', join(work, 'store'), '--tokens-file', join(work, 'tokens.json'), '--cwd-root', work, ...extraArgs], { cwd: ROOT, stdio: 'ignore' })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    let manifest: any
    try {
      manifest = JSON.parse(await readFile(manifestPath, 'utf8'))
    } catch {
      if (child.exitCode !== null) throw new Error(`the gateway exited with ${child.exitCode} before listening`)
      await new Promise((r) => setTimeout(r, 50))
      continue
    }
    const tokens = manifest.tokens as Record<string, string>
    const headers = (who = 'operator') => ({ authorization: `Bearer ${tokens[who]}` })
    return {
      child,
      baseUrl: manifest.baseUrl,
      tokens,
      async call(method, path, body, who) {
        const res = await fetch(`${manifest.baseUrl}${path}`, { method, headers: { ...headers(who), 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
        const text = await res.text()
        let parsed: unknown
        try { parsed = text ? JSON.parse(text) : undefined } catch { parsed = text }
        return { status: res.status, body: parsed }
      },
      attach: (id, afterSeq) => openSocket(`${manifest.baseUrl.replace(/^http/, 'ws')}/sessions/${id}/ws${afterSeq === undefined ? '' : `?afterSeq=${afterSeq}`}`, headers()),
      async kill() {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
        await exited
      },
    }
  }
  child.kill('SIGKILL')
  throw new Error('the gateway did not start within 60 s')
}
