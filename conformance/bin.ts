#!/usr/bin/env node
/**
 * Entry of the `gateway-conformance` command. It checks the Node version before the command is
 * loaded: static imports are linked before any code runs, and the kit needs Node 22 (its HTTP
 * client, undici, crashes on Node 20 at the first request). So this file statically imports only
 * what runs on any Node (node:module, the version), then the command itself.
 */
import module from 'node:module'
import { KIT_VERSION } from './kit-version.ts'

const COMMAND = 'gateway-conformance'

if (Number(process.versions.node.split('.')[0]) < 22) {
  console.error(`${COMMAND} needs Node 22 or later; this is Node ${process.versions.node}`)
  process.exit(2)
}
// V8's compiled code for the kit's modules and its dependencies (undici, zod, ws) is kept on disk
// (Node's module compile cache, as the gateway's bin does): a run after the first skips compiling
// them (the kit run). An unwritable cache only means no cache: the call never throws.
module.enableCompileCache?.()
if (process.argv[2] === '--version' || process.argv[2] === '-v') console.log(KIT_VERSION)
else await import('./cli.ts')
