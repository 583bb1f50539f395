/**
 * Whose duty a mutant is, decided before it runs: **spec-observable** (the conformance kit's: a
 * change a client of any conforming gateway could see through its URL) or outside the kit's
 * reach (the test suite's). A conformance kit judges a gateway through its URL (HTTP and
 * WebSocket) and nothing else, so a mutant whose only effect is on the operator's side of this
 * implementation (its command line, configuration file, log lines, /metrics and health routes,
 * shutdown: none of which the spec defines) cannot be killed by any true case: demanding that
 * behaviour would fail other implementations. Such mutants stay in the sample and are npm test's.
 *
 * The rule table (`outside-kit.json`) maps a pattern to its reason; each reason starts with its
 * class: `spec:` (an explicit exception back into the kit's duty), `operator surface:`, `fault:`
 * (a database or process fault no client request can cause), `fleet:` (needs a second gateway
 * process on the same store) or `documented, not spec:` (a promise of this implementation's docs
 * that the spec leaves open). Patterns, most specific first:
 *   - a single mutant key (`file|fn|operator|hash|n`), kept from the reviewed regression sample;
 *   - a function region, `file#Name` (`file` a path or glob): the function `Name` and the
 *     functions nested in it (`Name>...`), for a module that mixes both duties;
 *   - the behaviour rules below (a removed log or metrics call), from the mutated code itself;
 *   - a file path or glob (the longest pattern wins).
 * Anything else is spec-observable. Nothing here looks at a verdict.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'

export const MUTANT_CLASSES = ['spec', 'operator surface', 'fault', 'fleet', 'documented, not spec'] as const
export type MutantClass = (typeof MUTANT_CLASSES)[number]
export interface Classification { class: MutantClass; rule: string; reason: string }
/** What classification reads of a mutant: where it is and what code it changes. */
export interface ScopeMutant { key: string; file: string; fn?: string; operator?: string; original?: string }
/** The reason a mutant is outside the kit's reach, or undefined when it is spec-observable. */
export type KitScope = (key: string, file: string, mutant?: Partial<ScopeMutant>) => string | undefined

export function globMatcher(glob: string): (file: string) => boolean {
  if (!glob.includes('*')) return (f) => f === glob || f.startsWith(glob.endsWith('/') ? glob : `${glob}/`)
  const re = new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\/?/g, '\u0000').replace(/\*/g, '[^/]*').replace(/\u0000/g, '.*')}$`)
  return (f) => re.test(f)
}

/** A statement that only writes a log line or a metric: the spec has no log or /metrics surface. */
const LOG_CALL = /^(?:void |await )?(?:[\w#$]+(?:\?\.|\.))*?(?:[\w#$]*log(?:ger)?|console)(?:\?\.|\.)(?:debug|info|warn|error|trace|fatal|log)\(/i
const METRICS_CALL = /^(?:void |await )?(?:[\w#$]+(?:\?\.|\.))*?[\w#$]*metrics?(?:\?\.|\.)/i
const REMOVALS = new Set(['removed-call', 'removed-await', 'removed-statement'])

export function behaviourRule(m: Partial<ScopeMutant>): Classification | undefined {
  if (!m.operator || !REMOVALS.has(m.operator) || m.original === undefined) return undefined
  const code = m.original.trim()
  if (LOG_CALL.test(code)) return { class: 'operator surface', rule: '(behaviour: a log call removed)', reason: 'operator surface: a log line is no longer written; the spec has no log surface' }
  if (METRICS_CALL.test(code)) return { class: 'operator surface', rule: '(behaviour: a metrics call removed)', reason: 'operator surface: a metric is no longer recorded; /metrics is this gateway\'s operator surface, not the spec\'s' }
  return undefined
}

function classOf(reason: string): MutantClass {
  const kind = reason.slice(0, reason.indexOf(':'))
  return (MUTANT_CLASSES as readonly string[]).includes(kind) ? kind as MutantClass : 'operator surface'
}

const SPEC: Classification = { class: 'spec', rule: '(default)', reason: 'spec: gateway behaviour a client sees through the URL' }

export function classifier(entries: Record<string, string>): (m: ScopeMutant) => Classification {
  const byKey = new Map<string, string>()
  const byFn: Array<{ pattern: string; file: (f: string) => boolean; fn: string; reason: string }> = []
  const byFile: Array<{ pattern: string; file: (f: string) => boolean; reason: string }> = []
  for (const [pattern, reason] of Object.entries(entries)) {
    if (pattern.includes('|')) byKey.set(pattern, reason)
    else if (pattern.includes('#')) byFn.push({ pattern, file: globMatcher(pattern.slice(0, pattern.indexOf('#'))), fn: pattern.slice(pattern.indexOf('#') + 1), reason })
    else byFile.push({ pattern, file: globMatcher(pattern), reason })
  }
  byFn.sort((a, b) => b.fn.length - a.fn.length)
  byFile.sort((a, b) => b.pattern.length - a.pattern.length)
  const fnOf = (m: ScopeMutant) => m.fn ?? m.key.split('|')[1] ?? ''
  return (m) => {
    const keyed = byKey.get(m.key)
    if (keyed !== undefined) return { class: classOf(keyed), rule: m.key, reason: keyed }
    const fn = fnOf(m)
    const region = byFn.find((r) => r.file(m.file) && (fn === r.fn || fn.startsWith(`${r.fn}>`)))
    if (region) return { class: classOf(region.reason), rule: region.pattern, reason: region.reason }
    const behaviour = behaviourRule(m)
    if (behaviour) return behaviour
    const file = byFile.find((r) => r.file(m.file))
    return file ? { class: classOf(file.reason), rule: file.pattern, reason: file.reason } : SPEC
  }
}

/** The older view: the reason a mutant is outside the kit's reach, undefined when spec-observable. */
export function kitScope(entries: Record<string, string>): KitScope {
  const classify = classifier(entries)
  return (key, file, mutant = {}) => {
    const c = classify({ ...mutant, key, file })
    return c.class === 'spec' ? undefined : c.reason
  }
}

export async function loadRules(root: string): Promise<Record<string, string>> {
  return JSON.parse(await readFile(join(root, 'scripts/mutation/outside-kit.json'), 'utf8')) as Record<string, string>
}

export async function loadKitScope(root: string): Promise<KitScope> {
  return kitScope(await loadRules(root))
}

export async function loadClassifier(root: string): Promise<(m: ScopeMutant) => Classification> {
  return classifier(await loadRules(root))
}
