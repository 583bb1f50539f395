#!/usr/bin/env -S npx tsx
/**
 * The `gateway` command: `serve --config` (an operator's gateway on real engines), `check`,
 * `token create`, `schema`, and `dev` (the development gateway on the fakes). Bare options, as
 * before subcommands existed, mean `dev`, so `npm run gateway -- --port … --manifest …` still works.
 * Installed, `gateway/bin.ts` checks the Node version and imports this module; in the repository
 * run it as one process (`node --import tsx gateway/bin.ts …`) so a signal reaches the gateway itself.
 */
import { packageVersion } from './protocol/package-version.ts'
import { CHECK_USAGE, DEV_USAGE, SCHEMA_USAGE, SERVE_USAGE, TOKEN_USAGE, UsageError } from './commands/usage.ts'
import { MissingPackageError } from './optional-package.ts'

const USAGE = `usage: gateway <command> [options]
  serve --config <file>   start the gateway a configuration file describes
  check --config <file>   validate a configuration file (exit 2 on problems)
  token create …          add a principal and print its bearer token once
  schema                  print the configuration file's JSON Schema
  dev [options]           the development gateway on the fake engines (also: bare options)
Every command takes --help; \`gateway --version\` prints the version.`

type Run = (args: string[]) => Promise<number | void> | number | void
/** Each command's module is loaded only when it runs (engine SDKs come with `serve` or `dev`, never with `--help`). */
const COMMANDS: Record<string, { usage: string; run: () => Promise<Run> }> = {
  serve: { usage: SERVE_USAGE, run: async () => (await import('./commands/config-commands.ts')).serveCommand },
  check: { usage: CHECK_USAGE, run: async () => (await import('./commands/config-commands.ts')).checkCommand },
  token: { usage: TOKEN_USAGE, run: async () => (await import('./commands/config-commands.ts')).tokenCommand },
  schema: { usage: SCHEMA_USAGE, run: async () => (await import('./commands/schema-command.ts')).schemaCommand },
  dev: { usage: DEV_USAGE, run: async () => (await import('./commands/dev.ts')).devCommand },
}

async function main(argv: string[]): Promise<number | void> {
  const [first, ...rest] = argv
  const named = first !== undefined && Object.hasOwn(COMMANDS, first)
  const command = named ? COMMANDS[first] : COMMANDS.dev
  const args = named ? rest : argv
  if (args.includes('--version') || args.includes('-v')) {
    console.log(packageVersion(import.meta.url))
    return 0
  }
  if (args.includes('--help') || args.includes('-h')) {
    console.log(named ? command.usage : `${USAGE}\n\n${DEV_USAGE}`)
    return 0
  }
  if (!named && first !== undefined && !first.startsWith('-')) throw new UsageError(`unknown command '${first}'`, USAGE)
  return (await command.run())(args)
}

main(process.argv.slice(2)).then((code) => {
  if (typeof code === 'number') process.exit(code)
}, (err) => {
  if (err instanceof UsageError) {
    console.error(`${err.message}\n${err.usage}`)
    process.exit(2)
  }
  // An optional engine SDK or the kit's fakes not installed: one line naming the package.
  if (err instanceof MissingPackageError) {
    console.error(err.message)
    process.exit(2)
  }
  if (Array.isArray((err as { problems?: unknown }).problems)) {
    // ConfigProblems (config/serve.ts), recognised by shape so this file imports no command module.
    for (const problem of (err as { problems: string[] }).problems) console.error(problem)
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
