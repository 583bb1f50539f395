#!/usr/bin/env node
/** Runs the fake model server on its own and prints its OpenAI-compatible base URL. */
import { parseArgs } from 'node:util'
import { startFakeModelServer } from './server.ts'

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' } } })
const server = await startFakeModelServer({ port: Number(values.port), host: values.host })
console.log(server.baseURL)
const stop = () => void server.close().then(() => process.exit(0))
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
