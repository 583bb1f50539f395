/**
 * Codex's shapes as the runner builds them (no state): a turn's input from a message and its
 * attachments, an approval's decision from the gateway's answer, and per-turn id nonces.
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import type { OutgoingAttachment } from '../../sessions/attachments.ts'
import type { Settled } from '../cli-primary/approvals.ts'
import type { Json } from './peer.ts'
import type { PermissionMode, SessionEventBody } from '../../protocol/index.ts'

export interface Queued {
  text: string
  attachments: OutgoingAttachment[]
}

export function nonceOf(): string {
  return randomBytes(4).toString('hex')
}

/**
 * allow → `accept` only when offered; deny → `decline`; deny with interrupt → `cancel` when
 * offered, else `decline` and an interrupt (reference §7). A one-shot allow is never widened.
 */
export function decisionOf(settled: Settled, offered: unknown, interrupt: () => void): string {
  const offers = (d: string) => !Array.isArray(offered) || offered.includes(d)
  if (settled.behavior === 'allow') return offers('accept') ? 'accept' : 'decline'
  if (settled.interrupt) {
    if (offers('cancel')) return 'cancel'
    queueMicrotask(interrupt)
  }
  return 'decline'
}

/** Text plus inlined text attachments; images as `localImage` temp files (engine-facts §2). */
export async function inputOf(message: Queued, tempDirs: string[]): Promise<Json[]> {
  let text = message.text
  const images: Json[] = []
  let dir: string | undefined
  for (const a of message.attachments) {
    if (a.mediaType.startsWith('image/')) {
      if (!dir) {
        dir = await mkdtemp(join(tmpdir(), 'codex-attach-'))
        tempDirs.push(dir)
      }
      const path = join(dir, `${images.length}-${basename(a.name) || 'image'}`)
      await writeFile(path, a.data)
      images.push({ type: 'localImage', path })
    } else {
      text = `<attachment name="${a.name}">\n${Buffer.from(a.data).toString('utf8')}\n</attachment>\n${text}`
    }
  }
  return [...images, { type: 'text', text, text_elements: [] }]
}

/** Codex has no system_init (engine-facts §2): the thread start or resume stands in for it. */
export function threadInit(threadId: string, model: string | undefined, cwd: string, mode: PermissionMode): SessionEventBody {
  return { type: 'system_init', sdkSessionId: threadId, model, cwd, apiKeySource: 'none', tools: ['Bash', 'apply_patch'], skills: [], slashCommands: [], permissionMode: mode, mcpServers: [] }
}

/**
 * `mcpServerStatus/list` rows as the gateway lists them: tools but no status in codex, so having
 * tools reads as connected, else pending (engine-facts §2). Only names leave, never a server's configuration.
 */
export function mcpStatusRows(result: Json): unknown[] {
  const rows = Array.isArray(result.data) ? (result.data as Json[]) : []
  return rows.map((row) => {
    // `tools` is a name-keyed map in 0.169's schema; an array form is read by each tool's name.
    const tools = Array.isArray(row.tools) ? row.tools.map((t) => String((t as Json)?.name)) : row.tools && typeof row.tools === 'object' ? Object.keys(row.tools as object) : []
    return { name: String(row.name), status: tools.length ? 'connected' : row.authStatus === 'notLoggedIn' ? 'needs-auth' : 'pending', tools: tools.map((name) => ({ name })) }
  })
}
