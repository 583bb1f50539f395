#!/usr/bin/env node
/** Runs the fake Responses API on a port (`--port N`, default 0) and prints its base URL. */
import { startFakeResponsesServer } from './server.ts'
import { exitWithUsageOnHelp } from '../../usage.ts'

exitWithUsageOnHelp(process.argv.slice(2), `usage: fake-openai-responses [--port N]

A scripted OpenAI Responses API on 127.0.0.1, for a real codex: prints its base URL on stdout
(base_url of a model provider with wire_api = "responses" in codex's config.toml), then serves
until SIGTERM.

  --port N                  port to listen on (default 0: a free port)
  --help                    this text`)

const at = process.argv.indexOf('--port')
const server = await startFakeResponsesServer({ port: at > 0 ? Number(process.argv[at + 1]) : 0 })
process.stdout.write(`${server.baseURL}\n`)
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)))
