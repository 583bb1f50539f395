/**
 * Transcripts where the real CLI keeps them (reference/claude-cli-protocol.md §8), so the SDK's
 * own readers (`listSessions`, `getSessionMessages`) and `--resume` work on what the fake wrote:
 * `<configDir>/projects/<projectKey>/<sessionId>.jsonl`, entries chained by `parentUuid`.
 */
import { randomUUID } from 'node:crypto'
import { appendFileSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { CLI_VERSION } from './catalog.ts'

export function projectKey(cwd: string): string {
  const key = cwd.replace(/[^a-zA-Z0-9]/g, '-')
  if (key.length <= 200) return key
  let hash = 0
  for (const ch of cwd) hash = (Math.imul(31, hash) + ch.charCodeAt(0)) | 0
  return `${key.slice(0, 200)}-${Math.abs(hash).toString(36)}`
}

export class Transcript {
  readonly path: string
  #parent: string | null = null
  #cwd: string

  #dir: string
  #source: string | undefined
  #opened = false

  readonly sessionId: string

  constructor(env: NodeJS.ProcessEnv, cwd: string, sessionId: string, resumedFrom?: string) {
    this.sessionId = sessionId
    this.#cwd = realpathSync(cwd)
    this.#dir = join(env.CLAUDE_CONFIG_DIR ?? join(homedir(), '.claude'), 'projects', projectKey(this.#cwd))
    this.path = join(this.#dir, `${sessionId}.jsonl`)
    this.#source = resumedFrom ? join(this.#dir, `${resumedFrom}.jsonl`) : undefined
  }

  /** Nothing touches the disk until the first entry: a process that only answered initialize leaves no trace. */
  #open(): void {
    if (this.#opened) return
    this.#opened = true
    mkdirSync(this.#dir, { recursive: true })
    // A fork starts from the resumed conversation under its new id; a resume appends to its own file.
    if (this.#source && this.#source !== this.path && existsSync(this.#source)) {
      const lines = readFileSync(this.#source, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
      writeFileSync(this.path, lines.map((e) => JSON.stringify({ ...e, sessionId: this.sessionId })).join('\n') + '\n')
    }
    if (existsSync(this.path)) {
      const last = readFileSync(this.path, 'utf8').trim().split('\n').reverse().map((l) => JSON.parse(l)).find((e) => typeof e.uuid === 'string')
      this.#parent = last?.uuid ?? null
    }
  }

  /** Appends a user or assistant entry and returns its uuid. */
  add(type: 'user' | 'assistant', message: unknown, uuid: string = randomUUID()): string {
    this.#open()
    appendFileSync(this.path, `${JSON.stringify({
      parentUuid: this.#parent, isSidechain: false, type, message, uuid, timestamp: new Date().toISOString(),
      userType: 'external', entrypoint: 'sdk-ts', cwd: this.#cwd, sessionId: this.sessionId, version: CLI_VERSION, gitBranch: '',
    })}\n`)
    this.#parent = uuid
    return uuid
  }

  lastPrompt(text: string): void {
    this.#open()
    appendFileSync(this.path, `${JSON.stringify({ type: 'last-prompt', lastPrompt: text.slice(0, 200), leafUuid: this.#parent, sessionId: this.sessionId })}\n`)
  }
}
