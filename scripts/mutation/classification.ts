/**
 * The pre-run classification of a sample: each mutant's duty (kit-scope.ts), decided from its
 * file, function and code before any kit or test run, and written as `classification.json` at the
 * start of the run, so no verdict can have moved a mutant from one side to the other.
 */
import type { Classification, MutantClass, ScopeMutant } from './kit-scope.ts'

export interface ClassifiedMutant { key: string; file: string; line?: number; fn?: string; operator?: string; class: MutantClass; rule: string; reason: string }
export interface SampleClassification { list: ClassifiedMutant[]; byKey: Map<string, Classification>; counts: Partial<Record<MutantClass, number>> }

export function classifyAll(mutants: Array<ScopeMutant & { line?: number }>, classify: (m: ScopeMutant) => Classification): SampleClassification {
  const byKey = new Map<string, Classification>()
  const counts: Partial<Record<MutantClass, number>> = {}
  const list = mutants.map((m) => {
    const c = classify(m)
    byKey.set(m.key, c)
    counts[c.class] = (counts[c.class] ?? 0) + 1
    return { key: m.key, file: m.file, line: m.line, fn: m.fn, operator: m.operator, ...c }
  })
  return { list, byKey, counts }
}
