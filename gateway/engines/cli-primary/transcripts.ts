/**
 * The CLI's on-disk transcripts, read through the SDK's own readers with a session store over a
 * profile's config directory (`<configDir>/projects/<projectKey>/<sessionId>.jsonl`,
 * claude-cli-protocol.md §8). Every profile reads its own directory, concurrently, with no
 * process-wide state: the SDK's filesystem readers would read this process's CLAUDE_CONFIG_DIR.
 */
import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { SDKSessionInfo, SessionMessage, SessionStore, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { loadClaudeAgentSdk } from './sdk.ts'

const TRANSCRIPT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i

/** The environment the CLI processes start from. */
export function configuredEnv(): Record<string, string> {
  return { ...process.env } as Record<string, string>
}

async function entries(file: string): Promise<SessionStoreEntry[] | null> {
  let text
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
  const out: SessionStoreEntry[] = []
  for (const line of text.split('\n')) {
    if (!line.trim()) continue
    try {
      out.push(JSON.parse(line) as SessionStoreEntry)
    } catch {
      // A torn last line (the CLI still writing) is skipped, as the SDK's own reader does.
    }
  }
  return out
}

async function projectDirs(configDir: string): Promise<string[]> {
  const root = join(configDir, 'projects')
  try {
    return (await readdir(root, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => join(root, d.name))
  } catch {
    return []
  }
}

async function transcriptsIn(projectDir: string): Promise<string[]> {
  try {
    return (await readdir(projectDir)).filter((name) => TRANSCRIPT.test(name))
  } catch {
    return []
  }
}

/**
 * A read-only store over one config directory. The SDK derives project keys from a cwd; the store
 * does not depend on that derivation: listing is bound to one project directory, and a session is
 * found by its id (a UUID, unique across projects).
 */
function directoryStore(configDir: string, projectDir?: string): SessionStore {
  return {
    async append() {
      throw new Error('transcripts are written by the CLI, not through the gateway')
    },
    async load(key) {
      for (const dir of projectDir ? [projectDir] : await projectDirs(configDir)) {
        const file = key.subpath ? join(dir, key.sessionId, `${key.subpath}.jsonl`) : join(dir, `${key.sessionId}.jsonl`)
        const found = await entries(file)
        if (found) return found
      }
      return null
    },
    async listSessions() {
      if (!projectDir) return []
      return Promise.all((await transcriptsIn(projectDir)).map(async (name) => ({
        sessionId: name.slice(0, -'.jsonl'.length),
        mtime: Math.floor((await stat(join(projectDir, name))).mtimeMs),
      })))
    },
  }
}

/** The working directory a project's transcripts were written in (every entry carries `cwd`). */
async function projectCwd(projectDir: string): Promise<string | undefined> {
  for (const name of await transcriptsIn(projectDir)) {
    const found = (await entries(join(projectDir, name)))?.find((e) => typeof e.cwd === 'string')
    if (found) return found.cwd as string
  }
  return undefined
}

export async function transcriptMessages(configDir: string | undefined, sessionId: string, dir?: string): Promise<SessionMessage[]> {
  const { getSessionMessages } = await loadClaudeAgentSdk()
  if (!configDir) return getSessionMessages(sessionId, dir ? { dir } : {})
  return getSessionMessages(sessionId, { ...(dir ? { dir } : {}), sessionStore: directoryStore(configDir) })
}

/** A profile's stored sessions, every project or the one whose cwd is `dir`. */
export async function transcriptSessions(configDir: string | undefined, options: { dir?: string }): Promise<SDKSessionInfo[]> {
  const { listSessions } = await loadClaudeAgentSdk()
  if (!configDir) return listSessions(options.dir ? { dir: options.dir } : {})
  const lists = await Promise.all((await projectDirs(configDir)).map(async (projectDir) => {
    const cwd = await projectCwd(projectDir)
    if (!cwd || (options.dir !== undefined && cwd !== options.dir)) return []
    return listSessions({ dir: cwd, sessionStore: directoryStore(configDir, projectDir) })
  }))
  return lists.flat()
}
