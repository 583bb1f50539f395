/**
 * Host file access under configured roots (what-the-service-does.10, engine-facts §7). Containment
 * is decided only on realpath output against canonical roots, never on a lexical collapse of
 * `..`. Every refusal that consulted the filesystem (outside the roots, a symlink leading out, a
 * dangling link, an absent path) is the same 404, so nothing outside can be probed; 403 is kept
 * for malformed requests and wrong-kind targets inside a root. Writes are compare-and-swap.
 */
import { createHash, randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { lstat, open, readdir, rename, unlink, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join, relative } from 'node:path'
import type { FindHostFilesResponse, ListHostDirResponse, ListHostRootsResponse, ReadHostFileResponse, WriteHostFileResponse } from '../protocol/index.ts'
import { canonical, handlePath, isInside, malformedPath, openVerified } from './containment.ts'

export interface HostFilesOptions {
  /** Defaults to `allowedCwdRoots`; `[]` turns the routes off. */
  roots?: string[]
  write?: boolean
  maxFileBytes?: number
  maxEntries?: number
  /** Directory names find never descends into. */
  ignore?: string[]
}

export const HOST_FILES_DEFAULTS = { maxFileBytes: 1024 * 1024, maxEntries: 5000, ignore: ['node_modules', '.git'], findLimit: 50, findMax: 200, findScan: 20_000 } as const

export class FileRefusal {
  readonly status: 400 | 403 | 404 | 409 | 413
  readonly message: string

  constructor(status: 400 | 403 | 404 | 409 | 413, message: string) {
    this.status = status
    this.message = message
  }
}

const NOT_FOUND = new FileRefusal(404, 'not found')
type Result<T> = T | FileRefusal

export class HostFiles {
  readonly canWrite: boolean
  #roots: string[]
  #maxFileBytes: number
  #maxEntries: number
  #ignore: Set<string>

  /** `roots` must already be canonical (realpath), as the server makes them at construction. */
  constructor(roots: string[], options: HostFilesOptions = {}) {
    this.#roots = roots
    this.canWrite = options.write === true
    this.#maxFileBytes = options.maxFileBytes ?? HOST_FILES_DEFAULTS.maxFileBytes
    this.#maxEntries = options.maxEntries ?? HOST_FILES_DEFAULTS.maxEntries
    this.#ignore = new Set(options.ignore ?? HOST_FILES_DEFAULTS.ignore)
  }

  roots(): ListHostRootsResponse['roots'] {
    return this.#roots.map((path) => ({ path, name: basename(path) || path }))
  }

  /** The canonical path of an existing target inside a root, or a refusal. */
  async resolve(path: unknown): Promise<Result<string>> {
    const malformed = checkPath(path)
    if (malformed) return malformed
    const real = await canonical(path as string)
    return real !== undefined && this.#inside(real) ? real : NOT_FOUND
  }

  /** A directory inside a root, opened and checked on its handle (a swapped parent is refused). */
  async #openDir(path: unknown): Promise<Result<{ dir: string; handle: FileHandle }>> {
    const dir = await this.resolve(path)
    if (dir instanceof FileRefusal) return dir
    const handle = await openVerified(dir, constants.O_RDONLY | constants.O_DIRECTORY)
    if (!handle) return (await lstat(dir).then((s) => s.isDirectory(), () => true)) ? NOT_FOUND : new FileRefusal(400, 'not a directory')
    return { dir, handle }
  }

  async list(path: unknown): Promise<Result<ListHostDirResponse>> {
    const opened = await this.#openDir(path)
    if (opened instanceof FileRefusal) return opened
    const { dir, handle } = opened
    let dirents
    try { dirents = await readdir(handlePath(handle, dir), { withFileTypes: true }) } catch { return new FileRefusal(403, 'directory is not readable') } finally { await handle.close() }
    const entries = await Promise.all(dirents.map(async (d) => {
      // Symlinks are listed as symlinks and never followed.
      const type = d.isSymbolicLink() ? 'symlink' : d.isDirectory() ? 'dir' : d.isFile() ? 'file' : 'other'
      // Protocol 7's entry: size and mtime of regular files (lstat, so a link is never followed).
      const info = type === 'file' ? await lstat(join(dir, d.name)).catch(() => undefined) : undefined
      return { name: d.name, path: join(dir, d.name), type, ...(info ? { bytes: info.size, modifiedAt: info.mtimeMs } : {}) }
    }))
    entries.sort((a, b) => Number(b.type === 'dir') - Number(a.type === 'dir') || a.name.localeCompare(b.name))
    const truncated = entries.length > this.#maxEntries
    return { path: dir, entries: entries.slice(0, this.#maxEntries), ...(truncated ? { truncated: true as const } : {}) }
  }

  /**
   * Subsequence match of `q` on relative paths; file-name hits above path hits, shallowest first.
   * Skips ignored directories and everything behind a symlink; truncates instead of failing.
   */
  async find(path: unknown, q: string, limit: number): Promise<Result<FindHostFilesResponse>> {
    const opened = await this.#openDir(path)
    if (opened instanceof FileRefusal) return opened
    const base = opened.dir
    await opened.handle.close()
    const needle = q.toLowerCase()
    const hits: Array<{ path: string; name: string; rank: number; depth: number }> = []
    let scanned = 0
    let truncated = false
    const queue: Array<{ dir: string; depth: number }> = [{ dir: base, depth: 0 }]
    while (queue.length) {
      const { dir, depth } = queue.shift()!
      // Each directory is opened and checked before it is read: a subdirectory swapped for a link
      // mid-walk is skipped, never listed.
      const handle = await openVerified(dir, constants.O_RDONLY | constants.O_DIRECTORY)
      if (!handle) continue
      let dirents
      try { dirents = await readdir(handlePath(handle, dir), { withFileTypes: true }) } catch { continue } finally { await handle.close() }
      for (const d of dirents) {
        if (++scanned > HOST_FILES_DEFAULTS.findScan) { truncated = true; queue.length = 0; break }
        if (d.isSymbolicLink()) continue
        const full = join(dir, d.name)
        if (d.isDirectory()) {
          if (!this.#ignore.has(d.name)) queue.push({ dir: full, depth: depth + 1 })
          continue
        }
        if (!d.isFile()) continue
        const rel = relative(base, full).toLowerCase()
        const rank = !needle ? 0 : isSubsequence(needle, d.name.toLowerCase()) ? 0 : isSubsequence(needle, rel) ? 1 : -1
        if (rank >= 0) hits.push({ path: full, name: d.name, rank, depth })
      }
    }
    hits.sort((a, b) => a.rank - b.rank || a.depth - b.depth || a.path.localeCompare(b.path))
    if (hits.length > limit) truncated = true
    // `relative` is protocol 7's picker text (relative to `base`); `name` is ours, kept beside it.
    return { base, matches: hits.slice(0, limit).map(({ path, name }) => ({ path, name, relative: relative(base, path) })), truncated }
  }

  async read(path: unknown): Promise<Result<ReadHostFileResponse>> {
    const real = await this.resolve(path)
    if (real instanceof FileRefusal) return real
    // Open exactly the resolved path without following a link swapped in since, and check it on the handle.
    const handle = await openVerified(real)
    if (!handle) return NOT_FOUND
    try {
      const info = await handle.stat()
      if (!info.isFile()) return new FileRefusal(400, 'not a regular file')
      if (info.size > this.#maxFileBytes) return new FileRefusal(413, `file is larger than ${this.#maxFileBytes} bytes`)
      const bytes = await handle.readFile()
      if (bytes.byteLength > this.#maxFileBytes) return new FileRefusal(413, `file is larger than ${this.#maxFileBytes} bytes`)
      const text = bytes.toString('utf8')
      const utf8 = Buffer.from(text, 'utf8').equals(bytes)
      return { path: real, content: utf8 ? text : bytes.toString('base64'), encoding: utf8 ? 'utf8' : 'base64', bytes: bytes.byteLength, hash: sha256(bytes), modifiedAt: info.mtimeMs }
    } finally {
      await handle.close()
    }
  }

  /** Create (no expectedHash) or replace (expectedHash = sha256 of what was read); never both, never blind. */
  async write(body: unknown): Promise<Result<WriteHostFileResponse>> {
    if (!this.canWrite) return new FileRefusal(403, 'host file writes are not enabled on this server')
    const { path, content, encoding = 'utf8', expectedHash } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>
    const malformed = checkPath(path)
    if (malformed) return malformed
    if (typeof content !== 'string') return new FileRefusal(400, 'content must be a string')
    if (encoding !== 'utf8' && encoding !== 'base64') return new FileRefusal(400, "encoding must be 'utf8' or 'base64'")
    if (expectedHash !== undefined && typeof expectedHash !== 'string') return new FileRefusal(400, 'expectedHash must be a sha256 hex string')
    const bytes = Buffer.from(content, encoding)
    if (bytes.byteLength > this.#maxFileBytes) return new FileRefusal(413, `content is larger than ${this.#maxFileBytes} bytes`)
    // Directories are never created implicitly: the parent must exist inside a root. All that
    // follows goes through the parent's checked handle, so a parent swapped for a link after the
    // check cannot redirect the write, not even the temp file's creation.
    const parent = await this.resolve(dirname(path as string))
    if (parent instanceof FileRefusal) return parent
    const dir = await openVerified(parent, constants.O_RDONLY | constants.O_DIRECTORY)
    if (!dir) return NOT_FOUND
    try {
      return await this.#writeIn(dir, parent, basename(path as string), bytes, expectedHash as string | undefined)
    } finally {
      await dir.close().catch(() => {})
    }
  }

  async #writeIn(dir: FileHandle, parent: string, name: string, bytes: Buffer, expectedHash: string | undefined): Promise<Result<WriteHostFileResponse>> {
    const base = handlePath(dir, parent)
    const target = join(parent, name)
    const at = join(base, name)
    const existing = await lstat(at).catch(() => undefined)
    if (existing && !existing.isFile()) return existing.isSymbolicLink() ? NOT_FOUND : new FileRefusal(403, 'not a regular file')
    if (existing && expectedHash === undefined) return new FileRefusal(409, 'file exists — pass expectedHash to overwrite it')
    if (!existing && expectedHash !== undefined) return new FileRefusal(409, 'file no longer exists')
    if (existing) {
      const current = await this.read(target)
      if (current instanceof FileRefusal) return current
      if (current.hash !== expectedHash) return new FileRefusal(409, 'file changed on disk since it was read')
    }
    // A short temp name: the target's own name may already be at the filesystem's limit.
    const temp = join(base, `.gw-${randomBytes(8).toString('hex')}.tmp`)
    let handle: FileHandle
    try {
      handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, existing ? existing.mode & 0o777 : 0o644)
    } catch {
      return NOT_FOUND
    }
    let modifiedAt: number
    try {
      await handle.writeFile(bytes)
      await handle.sync()
      modifiedAt = (await handle.stat()).mtimeMs
    } catch (err) {
      await handle.close().catch(() => {})
      await unlink(temp).catch(() => {})
      throw err
    }
    await handle.close()
    try {
      await rename(temp, at)
    } catch (err) {
      await unlink(temp).catch(() => {})
      const code = (err as NodeJS.ErrnoException).code
      if (code === 'ENAMETOOLONG' || code === 'EISDIR' || code === 'ENOTDIR') return new FileRefusal(403, 'invalid path')
      if (code === 'ENOENT') return NOT_FOUND
      throw err
    }
    return { path: target, bytes: bytes.byteLength, hash: sha256(bytes), modifiedAt }
  }

  #inside(real: string): boolean {
    return this.#roots.some((root) => isInside(real, root))
  }
}

/** Malformed input is 403 (400 when absent), before the filesystem is consulted. */
function checkPath(path: unknown): FileRefusal | undefined {
  if (typeof path !== 'string' || !path) return new FileRefusal(400, 'path is required')
  const malformed = malformedPath(path)
  return malformed ? new FileRefusal(403, `invalid path: ${malformed}`) : undefined
}

function isSubsequence(needle: string, haystack: string): boolean {
  let i = 0
  for (const ch of haystack) if (ch === needle[i]) i++
  return i === needle.length
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex')
}
