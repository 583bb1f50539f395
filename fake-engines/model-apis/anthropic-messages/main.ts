#!/usr/bin/env node
/** Runs the fake Anthropic Messages API on a port (`--port N`, default 0) and prints the value for `ANTHROPIC_BASE_URL`. */
import { startFakeAnthropicServer } from './server.ts'

const at = process.argv.indexOf('--port')
const server = await startFakeAnthropicServer({ port: at > 0 ? Number(process.argv[at + 1]) : 0 })
process.stdout.write(`${server.url}\n`)
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)))
