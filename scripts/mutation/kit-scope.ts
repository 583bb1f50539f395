/**
 * The kit's reach: which mutants a conformance kit could observe at all. The kit judges a gateway
 * through its URL (HTTP and WebSocket) and nothing else, so a mutant whose only effect is on the
 * operator's side of this implementation (its command line, its log lines, its own /metrics and
 * health routes, none of which the spec defines) cannot be killed by any true case: demanding
 * that behaviour would fail other implementations. Such mutants stay in the sample and in the
 * npm test column, and leave the kit column's in-reach denominator, with the reason shown.
 *
 * `outside-kit.json` maps a file path, a glob (`*`, `**`) or a single mutant key to its reason;
 * a key entry is for a file whose other mutants the kit does reach. Each reason starts with its
 * kind: `operator surface:` (command line, logs, /metrics, health), `fault:` (a database or process
 * fault no client request can cause), `fleet:` (needs a second gateway process on the same store,
 * which one URL does not have) or `documented, not spec:` (a promise of this implementation's docs
 * that the spec leaves open, so no true case may demand it of another). The kinds are counted apart.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'

export type KitScope = (key: string, file: string) => string | undefined

export function globMatcher(glob: string): (file: string) => boolean {
  if (!glob.includes('*')) return (f) => f === glob || f.startsWith(glob.endsWith('/') ? glob : `${glob}/`)
  const re = new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\/?/g, '\u0000').replace(/\*/g, '[^/]*').replace(/\u0000/g, '.*')}$`)
  return (f) => re.test(f)
}

export function kitScope(entries: Record<string, string>): KitScope {
  const byKey = new Map<string, string>()
  const byFile: Array<[(file: string) => boolean, string]> = []
  for (const [pattern, reason] of Object.entries(entries)) {
    if (pattern.includes('|')) byKey.set(pattern, reason)
    else byFile.push([globMatcher(pattern), reason])
  }
  return (key, file) => byKey.get(key) ?? byFile.find(([match]) => match(file))?.[1]
}

export async function loadKitScope(root: string): Promise<KitScope> {
  return kitScope(JSON.parse(await readFile(join(root, 'scripts/mutation/outside-kit.json'), 'utf8')) as Record<string, string>)
}
