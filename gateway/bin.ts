#!/usr/bin/env node
/**
 * Entry of the `gateway` command. It checks the Node version before the command is loaded: static
 * imports are linked before any code runs, and the gateway needs Node 22 (its HTTP client crashes
 * on Node 20 at the first request). So this file imports only the version reader (node:fs), then the command itself.
 */
import module from 'node:module'
import { packageVersion } from './protocol/package-version.ts'

const COMMAND = 'gateway'

if (Number(process.versions.node.split('.')[0]) < 22) {
  console.error(`${COMMAND} needs Node 22 or later; this is Node ${process.versions.node}`)
  process.exit(2)
}
// V8's compiled code for the command's ~200 modules is kept on disk (Node's module compile cache,
// in the OS temporary directory unless NODE_COMPILE_CACHE names one; NODE_DISABLE_COMPILE_CACHE=1
// turns it off), so a start after the first skips compiling them. A cache that cannot
// be written (a read-only file system) only means no cache: the call reports, never throws.
module.enableCompileCache?.()
if (process.argv[2] === '--version' || process.argv[2] === '-v') console.log(packageVersion(import.meta.url))
else await import('./cli.ts')

