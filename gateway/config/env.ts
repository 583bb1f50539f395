/**
 * Secrets never sit in the configuration file: it names environment variables. This module lists
 * every name the file refers to (with the path that refers to it) and reads them at startup.
 */
import type { GatewayConfig } from './schema.ts'

export interface EnvReference {
  path: string
  name: string
  /** Nothing can start without it (a database URL); the others only make a profile or feature unavailable. */
  required?: boolean
  /** What the variable must hold, for the problem naming it; unset: a postgres:// URL, which check connects to. */
  holds?: string
}

/** Every environment variable the configuration names, with where it names it. */
export function envReferences(config: GatewayConfig): EnvReference[] {
  const refs: EnvReference[] = []
  config.profiles?.forEach((profile, i) => {
    if (profile.engine === 'provider' && profile.provider.apiKeyEnv) refs.push({ path: `profiles[${i}].provider.apiKeyEnv`, name: profile.provider.apiKeyEnv })
    if (profile.engine !== 'provider') {
      for (const [key, name] of Object.entries(profile.env ?? {})) refs.push({ path: `profiles[${i}].env.${key}`, name })
    }
  })
  for (const [server, wiring] of Object.entries(config.engines?.provider?.mcpServers ?? {})) {
    if (wiring.bearerTokenEnv) refs.push({ path: `engines.provider.mcpServers.${server}.bearerTokenEnv`, name: wiring.bearerTokenEnv })
  }
  // A database URL carries its password: it is a credential like any other.
  if (config.parking?.store?.kind === 'postgres') refs.push({ path: 'parking.store.urlEnv', name: config.parking.store.urlEnv, required: true })
  if (config.queue?.adapter?.kind === 'postgres') refs.push({ path: 'queue.adapter.urlEnv', name: config.queue.adapter.urlEnv, required: true })
  if (config.fleet) refs.push({ path: 'fleet.secretEnv', name: config.fleet.secretEnv, required: true, holds: 'the secret shared by the fleet' })
  for (const [header, name] of Object.entries(config.notifications?.webhook?.headersFromEnv ?? {})) {
    refs.push({ path: `notifications.webhook.headersFromEnv.${header}`, name })
  }
  return refs
}

/** One warning per unset optional variable, naming it and where the file refers to it (never a value). */
export function missingEnvWarnings(config: GatewayConfig, env: NodeJS.ProcessEnv = process.env): string[] {
  return envReferences(config)
    .filter((ref) => !ref.required && !env[ref.name])
    .map((ref) => `${ref.path}: environment variable ${ref.name} is not set`)
}

/** One problem per unset required variable (a database URL): `serve` cannot start without it. */
export function missingEnvProblems(config: GatewayConfig, env: NodeJS.ProcessEnv = process.env): string[] {
  return envReferences(config)
    .filter((ref) => ref.required && !env[ref.name])
    .map((ref) => `${ref.path}: environment variable ${ref.name} is not set (it must hold ${ref.holds ?? 'a postgres:// URL'})`)
}

/** `{TARGET: SOURCE_NAME}` to `{TARGET: value}`, leaving out unset variables. */
export function readEnv(mapping: Record<string, string>, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [target, source] of Object.entries(mapping)) {
    const value = env[source]
    if (value !== undefined) out[target] = value
  }
  return out
}

/** The names of every credential variable, so the logger can redact their values wherever they appear. */
export function credentialValues(config: GatewayConfig, env: NodeJS.ProcessEnv = process.env): string[] {
  return envReferences(config).map((ref) => env[ref.name]).filter((v): v is string => typeof v === 'string' && v.length > 0)
}
