/** Usage texts, kept apart from the commands so `--help` loads nothing else. */
export const SERVE_USAGE = `usage: gateway serve --config <file.yaml|file.json> [--port n] [--host h]
Starts the gateway the configuration file describes (docs/operating.md).`

export const CHECK_USAGE = `usage: gateway check --config <file> [--no-connect]
Runs every validation \`serve\` runs before listening (the file, the principals file, the hooks
module, required environment variables, engine packages and executables, writable directories,
each declared PostgreSQL database) and prints every problem with its path; exit 2 on any.
--no-connect skips only the database round trip (CI without the database).`

export const TOKEN_USAGE = `usage: gateway token create --principals <file> --id <name> (--scope key=value... | --operator) [--allowed-profile name]...
                            [--can-manage-profiles] [--replace]
Prints a new bearer token once and records only its SHA-256 in the principals file.
One of --scope (a tenant's principal) or --operator (every tenant's sessions and jobs) is required.
An id already in the file is refused (exit 2); --replace revokes its token(s) and issues a new one.`

export const SCHEMA_USAGE = `usage: gateway schema
Prints the configuration file's JSON Schema (for editors).`

export const DEV_USAGE = `usage: gateway dev [--port 8787] [--host 127.0.0.1] [--manifest file.json] [--cwd-root dir]
               [--webhook-url url] [--park-delay-ms n] [--store-dir dir] [--tokens-file f]
               [--claude-executable path (the real Claude Code CLI, against the fake Messages API)]
               [--model-url url (an OpenAI-compatible server for the provider profiles instead of the fake model)]
The development gateway on the fake engines (bare options mean \`dev\`).`

/** A command-line mistake: printed with the usage text, exit code 2. */
export class UsageError extends Error {
  readonly usage: string
  constructor(message: string, usage: string) {
    super(message)
    this.usage = usage
  }
}
