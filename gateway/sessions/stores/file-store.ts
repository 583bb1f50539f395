import { randomBytes } from 'node:crypto'
import { chmod, mkdir, open, readFile, readdir, rename, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import type { SessionStore, StoredSession } from '../session-store.ts'

const SUFFIX = '.json'

/**
 * One JSON file per session in `dir`. Records carry transcripts, so the dir is 0700 and files
 * 0600. Writes go through a temp file (fsync) + rename + directory fsync, so a crash never leaves
 * a half-written record and a save that resolved survives power loss.
 */
export function createFileSessionStore(options: { dir: string }): SessionStore {
  const { dir } = options
  // encodeURIComponent leaves no '/' or '\', so every id maps to a plain name inside dir.
  const pathOf = (id: string) => join(dir, encodeURIComponent(id) + SUFFIX)

  let ready: Promise<void> | undefined
  const ensureDir = () => {
    // mkdir's mode is ignored for an existing dir and masked by umask, hence the chmod.
    ready ??= mkdir(dir, { recursive: true, mode: 0o700 })
      .then(() => chmod(dir, 0o700))
      .catch((err) => {
        ready = undefined
        throw err
      })
    return ready
  }

  // Per-id tails that never reject, so one failed operation can't poison the next.
  const tails = new Map<string, Promise<void>>()
  const enqueue = <T>(id: string, op: () => Promise<T>): Promise<T> => {
    const run = (tails.get(id) ?? Promise.resolve()).then(async () => {
      await ensureDir()
      return op()
    })
    const tail = run.then(noop, noop)
    tails.set(id, tail)
    void tail.then(() => {
      if (tails.get(id) === tail) tails.delete(id)
    })
    return run
  }

  const write = async (file: string, data: string) => {
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
    try {
      const fh = await open(tmp, 'wx', 0o600)
      try {
        await fh.writeFile(data)
        await fh.sync()
      } finally {
        await fh.close()
      }
      await rename(tmp, file)
      // The rename itself lives in the directory: without syncing it, a power loss can bring back
      // the previous record (or none) although the new one was announced. kill -9 alone never
      // loses page cache, power loss does; this is what makes a save durable.
      await syncDir(dir)
    } catch (err) {
      await unlink(tmp).catch(noop)
      throw err
    }
  }

  return {
    save: (record) => enqueue(record.id, () => write(pathOf(record.id), JSON.stringify(record))),
    load: (id) =>
      enqueue(id, async () => {
        let text: string
        try {
          text = await readFile(pathOf(id), 'utf8')
        } catch (err) {
          if (isNotFound(err)) return undefined
          throw err
        }
        const record = parse(text)
        return record?.id === id ? record : undefined
      }),
    delete: (id) =>
      enqueue(id, () =>
        unlink(pathOf(id)).catch((err) => {
          if (!isNotFound(err)) throw err
        }),
      ),
    async list() {
      // Let operations already issued land first, so list() after save() sees the record.
      await Promise.all(tails.values())
      await ensureDir()
      const names = (await readdir(dir)).filter((n) => n.endsWith(SUFFIX))
      const records = await Promise.all(
        names.map(async (name) => {
          const record = parse(await readFile(join(dir, name), 'utf8').catch(() => ''))
          // A record whose id doesn't match its file name was copied or renamed by hand.
          return record && encodeURIComponent(record.id) + SUFFIX === name ? record : undefined
        }),
      )
      return records.filter((r) => r !== undefined)
    },
  }
}

function noop() {}

async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r')
  try {
    await fh.sync()
  } finally {
    await fh.close()
  }
}

function isNotFound(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT'
}

/** Malformed or foreign content reads as absent rather than failing the caller. */
function parse(text: string): StoredSession | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  const r = value as Record<string, unknown>
  const ok =
    typeof r.id === 'string' &&
    (r.kind === 'park' || r.kind === 'live') &&
    isObject(r.config) &&
    isObject(r.info) &&
    isObject(r.snapshot)
  return ok ? (value as StoredSession) : undefined
}

function isObject(v: unknown): boolean {
  return typeof v === 'object' && v !== null
}
