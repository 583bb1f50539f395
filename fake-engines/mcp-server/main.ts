#!/usr/bin/env node
/** Runs the fake MCP server on its own and prints its Streamable HTTP endpoint URL. */
import { parseArgs } from 'node:util'
import { startFakeMcpServer } from './server.ts'
import { exitWithUsageOnHelp } from '../usage.ts'

exitWithUsageOnHelp(process.argv.slice(2), `usage: fake-mcp-server [--port N] [--host H]

The conformance kit's stateless MCP server (Streamable HTTP) on loopback. Prints its endpoint URL
on stdout (an MCP server's url for a provider profile), then serves until SIGINT or SIGTERM.

  --port N                  port to listen on (default 0: a free port)
  --host H                  address to listen on (default 127.0.0.1)
  --help                    this text`)

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' } } })
const server = await startFakeMcpServer({ port: Number(values.port), host: values.host })
console.log(server.url)
const stop = () => void server.close().then(() => process.exit(0))
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
