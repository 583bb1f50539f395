#!/usr/bin/env node
/**
 * Entry of the `gateway` command. It checks the Node version before the command is loaded: static
 * imports are linked before any code runs, and the gateway needs Node 22 (its HTTP client crashes
 * on Node 20 at the first request). So this file imports only node:fs, then the command itself.
 */
import { readFileSync } from 'node:fs'

const COMMAND = 'gateway'

if (Number(process.versions.node.split('.')[0]) < 22) {
  console.error(`${COMMAND} needs Node 22 or later; this is Node ${process.versions.node}`)
  process.exit(2)
}
if (process.argv[2] === '--version' || process.argv[2] === '-v') console.log(packageVersion())
else await import('./cli.ts')

/** The version of the package this file ships in: the nearest package.json above it. */
function packageVersion(): string {
  for (let dir = new URL('./', import.meta.url); ; dir = new URL('../', dir)) {
    try {
      return JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')).version
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dir.pathname === '/') throw err
    }
  }
}
