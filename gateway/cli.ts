#!/usr/bin/env -S npx tsx
/**
 * The `gateway` command: `serve --config` (an operator's gateway on real engines), `check`,
 * `token create`, `schema`, and `dev` (the development gateway on the fakes). Bare options, as
 * before subcommands existed, mean `dev`, so `npm run gateway -- --port … --manifest …` still works.
 * Run it as one process (`node --import tsx gateway/cli.ts …`): a signal reaches the gateway itself.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CHECK_USAGE, checkCommand, SCHEMA_USAGE, schemaCommand, SERVE_USAGE, serveCommand, TOKEN_USAGE, tokenCommand } from './commands/config-commands.ts'
import { DEV_USAGE, devCommand } from './commands/dev.ts'
import { UsageError } from './commands/usage.ts'
import { ConfigProblems } from './config/serve.ts'

const USAGE = `usage: gateway <command> [options]
  serve --config <file>   start the gateway a configuration file describes
  check --config <file>   validate a configuration file (exit 2 on problems)
  token create …          add a principal and print its bearer token once
  schema                  print the configuration file's JSON Schema
  dev [options]           the development gateway on the fake engines (also: bare options)
Every command takes --help; \`gateway --version\` prints the version.`

const COMMANDS: Record<string, { usage: string; run: (args: string[]) => Promise<number | void> | number | void }> = {
  serve: { usage: SERVE_USAGE, run: serveCommand },
  check: { usage: CHECK_USAGE, run: checkCommand },
  token: { usage: TOKEN_USAGE, run: tokenCommand },
  schema: { usage: SCHEMA_USAGE, run: schemaCommand },
  dev: { usage: DEV_USAGE, run: devCommand },
}

/** The version of the nearest package.json above this file. */
function version(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    try {
      return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version
    } catch {
      const parent = dirname(dir)
      if (parent === dir) return 'unknown'
      dir = parent
    }
  }
}

async function main(argv: string[]): Promise<number | void> {
  const [first, ...rest] = argv
  const named = first !== undefined && Object.hasOwn(COMMANDS, first)
  const command = named ? COMMANDS[first] : COMMANDS.dev
  const args = named ? rest : argv
  if (args.includes('--version') || args.includes('-v')) {
    console.log(version())
    return 0
  }
  if (args.includes('--help') || args.includes('-h')) {
    console.log(named ? command.usage : `${USAGE}\n\n${DEV_USAGE}`)
    return 0
  }
  if (!named && first !== undefined && !first.startsWith('-')) throw new UsageError(`unknown command '${first}'`, USAGE)
  return command.run(args)
}

main(process.argv.slice(2)).then((code) => {
  if (typeof code === 'number') process.exit(code)
}, (err) => {
  if (err instanceof UsageError) {
    console.error(`${err.message}\n${err.usage}`)
    process.exit(2)
  }
  if (err instanceof ConfigProblems) {
    for (const problem of err.problems) console.error(problem)
    console.error('gateway: configuration has problems; nothing started (run `gateway check --config <file>`)')
    process.exit(2)
  }
  // parseArgs errors (unknown option, missing value) are usage errors too.
  if ((err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error(`${(err as Error).message}\n${USAGE}`)
    process.exit(2)
  }
  console.error(`gateway failed to start: ${err instanceof Error ? err.message : String(err)}`)
  process.exit(1)
})
