/**
 * Runs cases and returns results; it neither prints nor decides the exit code (style-examples 6).
 * Per-session cases run with bounded parallelism, global ones alone afterwards.
 */
import { CaseContext } from './harness/context.ts'
import { caseSeed } from './harness/random.ts'
import type { WebhookReceiver } from './harness/webhook-receiver.ts'
import { WsRefused } from './harness/ws-client.ts'
import { ClauseViolation, NonStrict, Unsupported, type Case, type CaseResult, type Outcome, type TargetManifest } from './types.ts'

export interface RunOptions {
  manifest: TargetManifest
  cases: Case[]
  concurrency: number
  timeoutMs: number
  seed: number
  repeat: number
  receiver?: WebhookReceiver
  /** Restarts the target keeping its address, principals and store (the self target can). */
  restart?: () => Promise<void>
  onStart?: (c: Case) => void
  onResult?: (r: CaseResult) => void
}

export async function runCases(options: RunOptions): Promise<CaseResult[]> {
  const results = new Map<string, CaseResult>()
  const record = (r: CaseResult) => {
    results.set(r.id, r)
    options.onResult?.(r)
  }
  const parallel = options.cases.filter((c) => (c.isolation ?? 'session') === 'session')
  const serial = options.cases.filter((c) => c.isolation === 'global')
  let next = 0
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, async () => {
    while (next < parallel.length) record(await runRepeated(parallel[next++], options))
  }))
  for (const c of serial) record(await runRepeated(c, options))
  return options.cases.map((c) => results.get(c.id)!)
}

async function runRepeated(c: Case, options: RunOptions): Promise<CaseResult> {
  options.onStart?.(c)
  const runs: CaseResult[] = []
  for (let i = 0; i < Math.max(1, options.repeat); i++) runs.push(await runOnce(c, options, i))
  if (runs.length === 1) return runs[0]
  const outcomes = runs.map((r) => r.outcome)
  const differing = runs.find((r) => r.outcome !== runs[0].outcome)
  if (!differing) return { ...runs[0], repeats: outcomes }
  const bad = runs.find((r) => r.outcome !== 'pass') ?? differing
  return { ...bad, outcome: 'flaky', repeats: outcomes, message: `outcomes differ between repeats (${outcomes.join(', ')}): ${bad.message ?? ''}` }
}

export function missingRequirement(c: Case, manifest: TargetManifest, hasReceiver = false, canRestart = false): string | undefined {
  for (const need of c.requires) {
    if (need === 'restart') {
      if (!canRestart) return 'needs a target the kit can restart (the self target)'
      continue
    }
    if (need === 'receiver') {
      if (!hasReceiver) return 'needs the kit\'s webhook receiver (the self target, or a manifest webhookUrl on this host)'
    } else if (need.startsWith('principal:')) {
      if (!manifest.tokens[need.slice('principal:'.length) as keyof TargetManifest['tokens']]) return `needs principal ${need.slice(10)}`
    } else if (need.startsWith('timer:')) {
      if (typeof manifest.timers?.[need.slice('timer:'.length)] !== 'number') return `needs timer ${need.slice(6)} in the manifest`
    } else if (need.startsWith('profile:')) {
      if (!manifest.profiles[need.slice('profile:'.length)]) return `needs a '${need.slice(8)}' profile in the manifest`
    } else if (need.startsWith('no:')) {
      if (manifest.features.includes(need.slice(3))) return `applies only without feature ${need.slice(3)}`
    } else if (!manifest.features.includes(need)) {
      return `needs feature ${need}`
    }
  }
  return undefined
}

/**
 * Each repeat draws from its own seed (still derived from --seed, so reproducible): a repeat
 * must not reuse the names and receiver paths of the one before and read its leftovers.
 */
async function runOnce(c: Case, options: RunOptions, attempt = 0): Promise<CaseResult> {
  const started = Date.now()
  const base = { id: c.id, title: c.title, section: c.section, clauses: c.clauses }
  const missing = missingRequirement(c, options.manifest, options.receiver !== undefined, options.restart !== undefined)
  if (missing) return { ...base, outcome: 'unsupported', message: missing, durationMs: 0, wireLog: [] }
  const ctx = new CaseContext(options.manifest, caseSeed(options.seed, attempt ? `${c.id}#${attempt}` : c.id), Math.min(options.timeoutMs, 10_000), options.receiver, options.restart)
  let outcome: Outcome = 'pass'
  let message: string | undefined
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.race([
      c.run(ctx),
      new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`case timed out after ${options.timeoutMs} ms`)), options.timeoutMs) }),
    ])
  } catch (err) {
    ;({ outcome, message } = classify(err))
  } finally {
    clearTimeout(timer)
    await ctx.cleanup()
  }
  return { ...base, outcome, message, durationMs: Date.now() - started, wireLog: ctx.log.entries }
}

function classify(err: unknown): { outcome: Outcome; message: string } {
  if (err instanceof ClauseViolation) return { outcome: 'fail', message: err.message }
  if (err instanceof NonStrict) return { outcome: 'non-strict', message: err.message }
  if (err instanceof Unsupported) return { outcome: 'unsupported', message: err.message }
  if (err instanceof WsRefused) return { outcome: 'fail', message: `websocket-framing.1: expected the upgrade to succeed, got HTTP ${err.status} ${err.body.slice(0, 120)}` }
  const text = err instanceof Error ? err.message : String(err)
  // A wait that timed out means the target never produced what a clause requires.
  if (/^timed out after/.test(text)) return { outcome: 'fail', message: text }
  return { outcome: 'error', message: text }
}
