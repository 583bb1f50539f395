#!/usr/bin/env node
/** Runs the fake MCP server on its own and prints its Streamable HTTP endpoint URL. */
import { parseArgs } from 'node:util'
import { startFakeMcpServer } from './server.ts'

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' } } })
const server = await startFakeMcpServer({ port: Number(values.port), host: values.host })
console.log(server.url)
const stop = () => void server.close().then(() => process.exit(0))
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
