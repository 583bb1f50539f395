/** Path containment, decided on canonical paths only: both sides must have gone through realpath (security). */
import { isAbsolute, relative, resolve } from 'node:path'

export function isInside(path: string, root: string): boolean {
  const rel = relative(root, resolve(path))
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}
