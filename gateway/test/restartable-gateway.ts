/**
 * A real `gateway` process (the dev wiring on the fake engines) with a file store under `work`,
 * so a test can kill it (SIGKILL: no shutdown hook runs) and start another on the same store.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openSocket } from './harness.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** `cwdRoot: false` leaves `--cwd-root` out: the gateway picks its own (stable under `--store-dir`). */
export async function startGateway(work: string, run: number, children: ChildProcess[], { cwdRoot = true } = {}) {
  const manifestPath = join(work, `manifest-${run}.json`)
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'gateway/cli.ts'), '--port', '0', '--manifest', manifestPath,
    '--store-dir', join(work, 'store'), '--tokens-file', join(work, 'tokens.json'), ...(cwdRoot ? ['--cwd-root', work] : []), '--park-delay-ms', '20'], { cwd: ROOT, stdio: 'ignore' })
  children.push(child)
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    try {
      const manifest = JSON.parse(await readFile(manifestPath, 'utf8'))
      const auth = { authorization: `Bearer ${manifest.tokens.operator}` }
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${manifest.baseUrl}${path}`, { method, headers: { ...auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
        return { status: res.status, body: await res.json().catch(() => undefined) as any }
      }
      const attach = (id: string, afterSeq?: number) =>
        openSocket(`${manifest.baseUrl.replace(/^http/, 'ws')}/sessions/${id}/ws${afterSeq === undefined ? '' : `?afterSeq=${afterSeq}`}`, auth)
      return { child, call, attach, cwdRoot: manifest.cwdRoot as string | undefined }
    } catch {
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  throw new Error('the gateway did not start')
}
