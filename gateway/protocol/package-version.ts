/**
 * The version of the package a module ships in: the nearest package.json above `from` (the
 * caller's `import.meta.url`). In a checkout that is the repository's own; installed, the
 * gateway's or the kit's (both compile this file). Imports only node:fs, so each command's
 * Node-version guard can load it before anything else; not re-exported by the protocol index,
 * which stays free of Node modules.
 */
import { readFileSync } from 'node:fs'

export function packageVersion(from: string | URL): string {
  for (let dir = new URL('./', from); ; dir = new URL('../', dir)) {
    try {
      return (JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { version: string }).version
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dir.pathname === '/') throw err
    }
  }
}
