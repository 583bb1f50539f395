/**
 * The one path-resolution chokepoint for every route that reads or writes a host file (host
 * files, produced files, the project icon, sdk-sessions): malformed input is told apart before the
 * filesystem is asked, containment is decided on canonical paths only (realpath of the whole
 * chain, both sides), and a file is opened without following a last-component link and then
 * checked on the handle itself, so a parent directory swapped for a symlink between the check and
 * the open is caught.
 */
import { constants } from 'node:fs'
import { open, readlink, realpath, type FileHandle } from 'node:fs/promises'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'

/** Linux limits: a whole path (PATH_MAX) and one component (NAME_MAX), in bytes. */
export const PATH_MAX_BYTES = 4096
export const NAME_MAX_BYTES = 255

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Whether `path` is `root` or below it. A child named `..x` is inside; only `..` itself, or a path through it, climbs out. */
export function isInside(path: string, root: string): boolean {
  const rel = relative(root, resolve(path))
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}

/**
 * Why `path` is not a usable absolute path, or undefined. Control characters (NUL included),
 * lone surrogates, and lengths past the filesystem's limits are refused here, as 4xx input,
 * instead of surfacing later as ENAMETOOLONG or EINVAL from the filesystem.
 */
export function malformedPath(path: unknown): string | undefined {
  if (typeof path !== 'string' || !path) return 'path is required'
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'path contains control characters'
  if (LONE_SURROGATE.test(path)) return 'path is not well-formed unicode'
  if (!isAbsolute(path)) return 'path must be absolute'
  if (Buffer.byteLength(path) > PATH_MAX_BYTES) return `path is longer than ${PATH_MAX_BYTES} bytes`
  for (const name of path.split('/')) if (Buffer.byteLength(name) > NAME_MAX_BYTES) return `a path component is longer than ${NAME_MAX_BYTES} bytes`
  return undefined
}

/** realpath, or undefined for anything the filesystem refuses (absent, dangling, ELOOP, EACCES...). */
export async function canonical(path: string): Promise<string | undefined> {
  try {
    return await realpath(path)
  } catch {
    return undefined
  }
}

const PROC_FD = '/proc/self/fd/'

/**
 * The path of what a handle actually refers to. On Linux the kernel says it (/proc/self/fd), so
 * no later swap can fool the check; elsewhere realpath of the expected path is re-read (narrower,
 * not closed, window).
 */
async function openedPath(handle: FileHandle, expected: string): Promise<string | undefined> {
  try {
    return await readlink(PROC_FD + handle.fd)
  } catch {
    return canonical(expected)
  }
}

/**
 * Opens `real` (a canonical path) read-only or with `flags`, never following a link in its last
 * component (O_NOFOLLOW) and never blocking on a FIFO or device (O_NONBLOCK), then checks on the
 * handle that it is the canonical path asked for: a parent swapped for a symlink leads elsewhere
 * and is refused. Undefined on any refusal or filesystem error.
 */
export async function openVerified(real: string, flags: number = constants.O_RDONLY, mode?: number): Promise<FileHandle | undefined> {
  let handle: FileHandle
  try {
    handle = await open(real, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, mode)
  } catch {
    return undefined
  }
  if ((await openedPath(handle, real)) === real) return handle
  await handle.close().catch(() => {})
  return undefined
}

/** A directory to enumerate through its handle: `/proc/self/fd/N` lists exactly what was opened. */
export function handlePath(handle: FileHandle, fallback: string): string {
  return process.platform === 'linux' ? PROC_FD + handle.fd : fallback
}

/**
 * A regular file at exactly `path` (an absolute path announced earlier, e.g. by `file_produced`),
 * with no symlink anywhere in its chain now: the parent's realpath must be the parent as written,
 * and the file is opened with the handle check above. Undefined when anything differs.
 */
export async function openExactFile(path: string): Promise<{ handle: FileHandle; size: number } | undefined> {
  if (malformedPath(path)) return undefined
  const exact = resolve(path)
  const parent = await canonical(dirname(exact))
  if (parent === undefined || parent !== dirname(exact)) return undefined
  const handle = await openVerified(exact)
  if (!handle) return undefined
  const info = await handle.stat().catch(() => undefined)
  if (info?.isFile()) return { handle, size: info.size }
  await handle.close().catch(() => {})
  return undefined
}
