/**
 * The kit's version, from the nearest package.json above this file: the repository's own in a
 * checkout, packages/conformance/package.json once built and installed. Imports only node:fs, so
 * the command's Node-version guard can load it.
 */
import { readFileSync } from 'node:fs'

function packageVersion(): string {
  for (let dir = new URL('./', import.meta.url); ; dir = new URL('../', dir)) {
    try {
      return JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')).version
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dir.pathname === '/') throw err
    }
  }
}

export const KIT_VERSION = packageVersion()
