#!/usr/bin/env node
/** Runs the fake Responses API on a port (`--port N`, default 0) and prints its base URL. */
import { startFakeResponsesServer } from './server.ts'

const at = process.argv.indexOf('--port')
const server = await startFakeResponsesServer({ port: at > 0 ? Number(process.argv[at + 1]) : 0 })
process.stdout.write(`${server.baseURL}\n`)
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)))
