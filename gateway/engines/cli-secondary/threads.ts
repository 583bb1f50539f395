/**
 * `GET /sdk-sessions` for a codex profile (reference §9, §12.13): a short-lived app-server child
 * pages `thread/list` by cursor with the `cwd` filter given in both its spelled and realpath
 * forms, skips ephemeral rows, and converts codex's seconds to milliseconds.
 */
import { realpath } from 'node:fs/promises'
import { CodexPeer, type Json, type Launch } from './peer.ts'

export interface CodexThreadRow {
  sessionId: string
  summary: string
  lastModified: number
  createdAt: number
  cwd?: string
}

const PAGE = 100
const MAX_PAGES = 50

export async function listThreads(launch: Launch, query: { dir?: string }, timeoutMs: number): Promise<CodexThreadRow[]> {
  let failure: string | undefined
  const peer = new CodexPeer(launch, { onNotification: () => {}, onRequest: async (method) => { throw new Error(`unexpected ${method}`) }, onExit: (s) => { failure = s } })
  try {
    await peer.request('initialize', { clientInfo: { name: 'agent-session-gateway', title: null, version: '0' }, capabilities: { experimentalApi: true } }, timeoutMs)
    peer.notify('initialized')
    const cwd = query.dir ? [...new Set([query.dir, await realpath(query.dir).catch(() => query.dir as string)])] : undefined
    const rows: CodexThreadRow[] = []
    let cursor: string | null = null
    for (let page = 0; page < MAX_PAGES; page++) {
      const result: Json = await peer.request('thread/list', { limit: PAGE, sortKey: 'updated_at', ...(cwd ? { cwd } : {}), ...(cursor ? { cursor } : {}) }, timeoutMs)
      for (const t of (result.data as Json[] | undefined) ?? []) {
        if (t.ephemeral === true) continue
        rows.push({
          sessionId: String(t.id), summary: String(t.name ?? t.preview ?? ''), lastModified: Number(t.updatedAt ?? 0) * 1000, createdAt: Number(t.createdAt ?? 0) * 1000,
          ...(typeof t.cwd === 'string' ? { cwd: t.cwd } : {}),
        })
      }
      cursor = typeof result.nextCursor === 'string' ? result.nextCursor : null
      if (!cursor) break
    }
    return rows
  } catch (err) {
    throw new Error(failure ?? (err as Error).message)
  } finally {
    peer.close()
  }
}
