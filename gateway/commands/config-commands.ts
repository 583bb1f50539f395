/** `gateway serve --config`, `gateway check --config`, `gateway token create`, `gateway schema`. */
import { parseArgs } from 'node:util'
import { preflight } from '../config/preflight.ts'
import { createToken, DuplicatePrincipalError } from '../config/principals.ts'
import { exitOnSignals, serveConfigFile } from '../config/serve.ts'
import { CHECK_USAGE, SERVE_USAGE, TOKEN_USAGE, UsageError } from './usage.ts'


export async function serveCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { config: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' } } })
  if (!values.config) throw new UsageError('--config is required', SERVE_USAGE)
  const port = values.port === undefined ? undefined : Number(values.port)
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new UsageError('--port must be an integer from 0 to 65535', SERVE_USAGE)
  // Signals are handled from the start: a SIGTERM just after "gateway listening" (a supervisor's
  // quick restart) drains and exits 0 instead of killing the process by the default action.
  const running = serveConfigFile(values.config, { port, host: values.host })
  exitOnSignals(running)
  await running
}

export async function checkCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { config: { type: 'string' }, 'no-connect': { type: 'boolean' } } })
  if (!values.config) throw new UsageError('--config is required', CHECK_USAGE)
  // The very validation serve runs before it listens (config/preflight.ts), so the verdicts agree.
  const loaded = await preflight(values.config, { connect: values['no-connect'] !== true, logins: true })
  for (const problem of loaded.problems) console.error(problem)
  for (const warning of loaded.warnings) console.error(`warning: ${warning}`)
  if (loaded.problems.length) {
    console.error(`${values.config}: ${loaded.problems.length} problem${loaded.problems.length === 1 ? '' : 's'}`)
    return 2
  }
  console.log(`${values.config}: configuration is valid`)
  return 0
}

export async function tokenCommand(args: string[]): Promise<number | void> {
  const [action, ...rest] = args
  if (action !== 'create') throw new UsageError(action ? `unknown token action '${action}'` : 'a token action is required', TOKEN_USAGE)
  const { values } = parseArgs({
    args: rest,
    options: {
      principals: { type: 'string' }, id: { type: 'string' }, scope: { type: 'string', multiple: true },
      'allowed-profile': { type: 'string', multiple: true }, operator: { type: 'boolean' }, 'can-manage-profiles': { type: 'boolean' },
      replace: { type: 'boolean' },
    },
  })
  if (!values.principals) throw new UsageError('--principals is required', TOKEN_USAGE)
  if (!values.id) throw new UsageError('--id is required', TOKEN_USAGE)
  let scope: Record<string, string> | undefined
  for (const pair of values.scope ?? []) {
    const eq = pair.indexOf('=')
    if (eq <= 0) throw new UsageError(`--scope '${pair}' must be key=value`, TOKEN_USAGE)
    scope = { ...(scope ?? {}), [pair.slice(0, eq)]: pair.slice(eq + 1) }
  }
  // A principal without a scope sees every tenant's sessions (principal.1): minting one must be
  // asked for by name, never what a forgotten flag gives.
  if (!scope && values.operator !== true) {
    console.error('token create: add --scope key=value to restrict the principal to a tenant, or --operator to give it every tenant\'s sessions and jobs')
    return 2
  }
  let token
  try {
    token = await createToken(values.principals, {
      id: values.id, scope, allowedProfiles: values['allowed-profile'],
      operator: values.operator, canManageProfiles: values['can-manage-profiles'],
    }, { replace: values.replace === true })
  } catch (err) {
    if (!(err instanceof DuplicatePrincipalError)) throw err
    console.error(err.message)
    return 2
  }
  // The only time this token is ever shown; the file keeps its hash.
  console.log(token)
  console.error(`principal '${values.id}' ${values.replace ? 'replaced in' : 'added to'} ${values.principals}; the token above is not stored anywhere`)
}
