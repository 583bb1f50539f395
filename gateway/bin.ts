#!/usr/bin/env node
/**
 * Entry of the `gateway` command. It checks the Node version before the command is loaded: static
 * imports are linked before any code runs, and the gateway needs Node 22 (its HTTP client crashes
 * on Node 20 at the first request). So this file imports only the version reader (node:fs), then the command itself.
 */
import { packageVersion } from './protocol/package-version.ts'

const COMMAND = 'gateway'

if (Number(process.versions.node.split('.')[0]) < 22) {
  console.error(`${COMMAND} needs Node 22 or later; this is Node ${process.versions.node}`)
  process.exit(2)
}
if (process.argv[2] === '--version' || process.argv[2] === '-v') console.log(packageVersion(import.meta.url))
else await import('./cli.ts')

