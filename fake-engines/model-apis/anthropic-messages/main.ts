#!/usr/bin/env node
/** Runs the fake Anthropic Messages API on a port (`--port N`, default 0) and prints the value for `ANTHROPIC_BASE_URL`. */
import { startFakeAnthropicServer } from './server.ts'
import { exitWithUsageOnHelp } from '../../usage.ts'

exitWithUsageOnHelp(process.argv.slice(2), `usage: fake-anthropic-messages [--port N]

A scripted Anthropic Messages API on 127.0.0.1, for a real Claude Code CLI: prints the value for
ANTHROPIC_BASE_URL on stdout, then serves until SIGTERM.

  --port N                  port to listen on (default 0: a free port)
  --help                    this text`)

const at = process.argv.indexOf('--port')
const server = await startFakeAnthropicServer({ port: at > 0 ? Number(process.argv[at + 1]) : 0 })
process.stdout.write(`${server.url}\n`)
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)))
