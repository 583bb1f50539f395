/**
 * What only the kit's scripted engines can play. A target whose manifest
 * says an engine runs the REAL CLI (`realEngines`) is driven through the kit's fake model API, and
 * a model API can steer what the model says, not what the CLI process does: it cannot make the
 * CLI die on cue, hand it a rate-limit reading or sign it in with a subscription. A case needing
 * one of these requires `scripted:<engine>:<fault>`, which is `unsupported` on a real engine, with
 * the reason in words, instead of waiting for an event and blaming the gateway when it never comes.
 */
import type { RealEngine, TargetManifest } from '../target/manifest-schema.ts'

/** Each fault a case may need, in words, and why a real CLI behind a fake model API cannot play it. */
export const SCRIPTED_FAULTS = {
  crash: 'its process dying mid-turn on cue (a model API cannot kill the real CLI)',
  'rate-limit': 'a rate-limit reading on cue (the real CLI reports rate limits only for a subscription login, which a fake model API cannot grant)',
  'refuse-turn': 'refusing to start a turn on cue (a model API is reached only once the real CLI has started the turn)',
  'subscription-login': 'a subscription (oauth) login (the real CLI signs in with the API key the gateway gives it)',
  question: 'a question to its user on cue (codex asks through its own user-input request, which a model API cannot make it send)',
  subagent: 'a sub-agent on cue (a model API can ask for one, but the real CLI decides whether and how it spawns it)',
} as const
export type ScriptedFault = keyof typeof SCRIPTED_FAULTS

/** The `requires` token of a case that needs `fault` from `engine`'s scripted fake. */
export function scripted(engine: RealEngine, fault: ScriptedFault): string {
  return `scripted:${engine}:${fault}`
}

/** `--list` and the `unsupported` message: what `scripted:<engine>:<fault>` asks of the target. */
export function describeScripted(arg: string): string {
  const [engine, fault] = arg.split(':') as [string, string]
  const words = (SCRIPTED_FAULTS as Record<string, string>)[fault] ?? fault
  return `the ${engine} profiles on the kit's scripted engine, for ${words}; the manifest's realEngines.${engine} runs a real CLI`
}

/** True unless the manifest says `engine` runs a real CLI. */
export function offersScripted(manifest: TargetManifest, arg: string): boolean {
  const engine = arg.split(':')[0] as RealEngine
  return manifest.realEngines?.[engine] === undefined
}
