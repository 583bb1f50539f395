#!/usr/bin/env node
/**
 * Runs the fake model server on its own and prints its OpenAI-compatible base URL.
 * `--tool-name eval_script=run_js` (repeatable) names the target's tool for a scenario's tool
 * when neither the name nor its suffix matches (tool-binding.ts).
 */
import { parseArgs } from 'node:util'
import { startFakeModelServer } from './server.ts'
import { exitWithUsageOnHelp } from '../usage.ts'

exitWithUsageOnHelp(process.argv.slice(2), `usage: fake-model-server [--port N] [--host H] [--tool-name <scenario tool>=<target tool>]...

The conformance kit's scripted model server: an OpenAI-compatible API (chat completions) on
loopback. Prints its base URL on stdout (a provider profile's baseURL), then serves until SIGINT
or SIGTERM. A user message picks a scenario (scenario:<name>, or inline JSON); any other text is
echoed back.

  --port N                  port to listen on (default 0: a free port)
  --host H                  address to listen on (default 127.0.0.1)
  --tool-name a=b           where a scenario calls tool a, call the gateway's tool b (repeatable)
  --help                    this text`)

const { values } = parseArgs({ options: {
  port: { type: 'string', default: '0' },
  host: { type: 'string', default: '127.0.0.1' },
  'tool-name': { type: 'string', multiple: true, default: [] },
} })
const toolNames: Record<string, string> = {}
for (const pair of values['tool-name']) {
  const [intent, name] = pair.split('=')
  if (!intent || !name) {
    console.error(`--tool-name wants <scenario tool>=<target tool>, got '${pair}'`)
    process.exit(2)
  }
  toolNames[intent] = name
}
const server = await startFakeModelServer({ port: Number(values.port), host: values.host, toolNames })
console.log(server.baseURL)
const stop = () => void server.close().then(() => process.exit(0))
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
