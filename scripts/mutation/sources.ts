/**
 * Which files of gateway/ are mutated: every non-test source. Tests, test support (testing/
 * folders, the shared adapter and store contract suites, which import vitest) and the JSON
 * schema are not production behaviour; a file of pure type declarations yields no mutant by
 * itself (the mutator skips type positions).
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { generateMutants, type GeneratedMutant } from './mutator.ts'

export function isMutable(path: string, text?: string): boolean {
  if (!path.endsWith('.ts') || path.endsWith('.d.ts') || path.endsWith('.test.ts')) return false
  if (path.startsWith('gateway/test/') || /(^|\/)(testing|fixtures|__fixtures__)\//.test(path)) return false
  // Test support that lives beside the code it checks (contract suites run by several test files).
  if (text !== undefined && /from ['"]vitest['"]/.test(text)) return false
  return true
}

/** The module a file belongs to in the report: its folder (`gateway/server/routes`), or `gateway` for root files. */
export function moduleOf(file: string): string {
  return file.slice(0, file.lastIndexOf('/'))
}

export interface SourceSet { files: Map<string, string>; mutants: GeneratedMutant[] }

/** Reads every mutable file under `root`/gateway and generates all mutants, in a stable order. */
export async function generateAll(root: string): Promise<SourceSet> {
  const entries = (await readdir(join(root, 'gateway'), { recursive: true })).map((f) => `gateway/${f}`).sort()
  const files = new Map<string, string>()
  const mutants: GeneratedMutant[] = []
  for (const file of entries) {
    if (!isMutable(file)) continue
    const text = await readFile(join(root, file), 'utf8')
    if (!isMutable(file, text)) continue
    files.set(file, text)
    mutants.push(...generateMutants(file, text))
  }
  return { files, mutants }
}
