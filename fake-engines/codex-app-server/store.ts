/**
 * Threads persisted as rollout JSONL under `$CODEX_HOME/sessions/YYYY/MM/DD/` (reference §9), so a
 * fresh fake process can `thread/resume` and `thread/list` them. The first line is `session_meta`;
 * every finished turn appends one `turn` line. The line format is this fake's own (the adapter
 * never reads rollouts, only the RPCs), but the path follows the real binary's layout.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface StoredTurn {
  id: string
  status: string
  items: Record<string, unknown>[]
  error: { message: string } | null
}

export interface StoredThread {
  id: string
  cwd: string
  model: string
  preview: string
  createdAt: number
  updatedAt: number
  path: string
  turns: StoredTurn[]
}

const pad = (n: number) => String(n).padStart(2, '0')

export class RolloutStore {
  #root: string

  constructor(codexHome: string) {
    this.#root = join(codexHome, 'sessions')
  }

  create(id: string, cwd: string, model: string): StoredThread {
    const now = new Date()
    const day = join(this.#root, String(now.getUTCFullYear()), pad(now.getUTCMonth() + 1), pad(now.getUTCDate()))
    mkdirSync(day, { recursive: true })
    const stamp = `${now.getUTCFullYear()}-${pad(now.getUTCMonth() + 1)}-${pad(now.getUTCDate())}T${pad(now.getUTCHours())}-${pad(now.getUTCMinutes())}-${pad(now.getUTCSeconds())}`
    const path = join(day, `rollout-${stamp}-${id}.jsonl`)
    const seconds = Math.floor(now.getTime() / 1000)
    const thread: StoredThread = { id, cwd, model, preview: '', createdAt: seconds, updatedAt: seconds, path, turns: [] }
    writeFileSync(path, `${JSON.stringify({ timestamp: now.toISOString(), type: 'session_meta', payload: { id, session_id: id, cwd, model, originator: 'fake', model_provider: 'fake', timestamp: now.toISOString() } })}\n`)
    return thread
  }

  appendTurn(thread: StoredThread, turn: StoredTurn, preview: string): void {
    thread.turns.push(turn)
    thread.updatedAt = Math.floor(Date.now() / 1000)
    if (!thread.preview) thread.preview = preview
    appendFileSync(thread.path, `${JSON.stringify({ timestamp: new Date().toISOString(), type: 'turn', payload: { ...turn, preview } })}\n`)
  }

  load(id: string): StoredThread | undefined {
    return this.all().find((t) => t.id === id)
  }

  all(): StoredThread[] {
    return this.#files().map((path) => read(path)).filter((t): t is StoredThread => t !== undefined)
  }

  #files(): string[] {
    if (!existsSync(this.#root)) return []
    const out: string[] = []
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = join(dir, entry.name)
        if (entry.isDirectory()) walk(full)
        else if (entry.name.startsWith('rollout-') && entry.name.endsWith('.jsonl')) out.push(full)
      }
    }
    walk(this.#root)
    return out
  }
}

function read(path: string): StoredThread | undefined {
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { timestamp: string; type: string; payload: Record<string, unknown> })
  const meta = lines.find((l) => l.type === 'session_meta')
  if (!meta) return undefined
  const created = Math.floor(Date.parse(meta.timestamp) / 1000)
  const thread: StoredThread = { id: String(meta.payload.id), cwd: String(meta.payload.cwd), model: String(meta.payload.model), preview: '', createdAt: created, updatedAt: created, path, turns: [] }
  for (const line of lines) {
    if (line.type !== 'turn') continue
    const { preview, ...turn } = line.payload
    thread.turns.push(turn as unknown as StoredTurn)
    thread.updatedAt = Math.floor(Date.parse(line.timestamp) / 1000)
    if (!thread.preview && typeof preview === 'string') thread.preview = preview
  }
  return thread
}
