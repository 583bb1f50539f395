/**
 * The mutator on a small fixture: each operator yields the expected mutants, type positions,
 * imports and log messages yield none, and a mutant's key survives lines inserted above it.
 */
import { describe, expect, it } from 'vitest'
import { applyMutant, generateMutants, OPERATORS, type GeneratedMutant } from './mutator.ts'

const FIXTURE = `import { x } from './x.ts'
export type Mode = 'a' | 'b'
interface Shape { size: 10 }
export function check(n: number, s?: { v?: string }, list: string[] = []): number {
  if (n < 3 && !list.length) return 404
  while (n > 10) n--
  const y = s?.v ?? 'none'
  log.info('a log message')
  void y
  notify(n)
  total = n * 2 + 1
  return n === 0 ? 500 : [1, 2].length
}
export async function later(): Promise<boolean> {
  await flush()
  return true
}
`

const of = (ms: GeneratedMutant[], operator: string) => ms.filter((m) => m.operator === operator).map((m) => `${m.original} -> ${m.replacement}`)

describe('generateMutants', () => {
  const mutants = generateMutants('gateway/fixture.ts', FIXTURE)

  it('yields every operator on the fixture', () => {
    expect(new Set(mutants.map((m) => m.operator))).toEqual(new Set(OPERATORS))
  })

  it('forces if and ternary conditions both ways and loop conditions false', () => {
    expect(of(mutants, 'condition')).toEqual([
      'n < 3 && !list.length -> true', 'n < 3 && !list.length -> false', 'n > 10 -> false', 'n === 0 -> true', 'n === 0 -> false',
    ])
  })

  it('swaps boundaries, equality, logical and arithmetic operators, and drops negation', () => {
    expect(of(mutants, 'boundary')).toEqual(['< -> <=', '> -> >='])
    expect(of(mutants, 'equality')).toEqual(['=== -> !=='])
    expect(of(mutants, 'logical')).toEqual(['&& -> ||', "s?.v ?? 'none' -> s?.v", "s?.v ?? 'none' -> 'none'"])
    expect(of(mutants, 'arithmetic')).toEqual(['* -> /', '+ -> -'])
    expect(of(mutants, 'unary')).toEqual(['!list.length -> list.length'])
  })

  it('changes numbers (status codes too), strings, booleans and arrays, but not types, imports or log messages', () => {
    expect(of(mutants, 'literal')).toEqual([
      '3 -> 4', '3 -> 0', '404 -> 405', '404 -> 0', '10 -> 11', '10 -> 0', "'none' -> ''", '2 -> 3', '2 -> 0', '1 -> 2', '1 -> 0',
      '0 -> 1', '500 -> 501', '500 -> 0', '[1, 2] -> []', '1 -> 2', '1 -> 0', '2 -> 3', '2 -> 0', 'true -> false',
    ])
    expect(mutants.some((m) => m.original.includes('a log message') && m.operator === 'literal')).toBe(false)
    expect(mutants.some((m) => m.original === "'./x.ts'" || m.original === "'a'")).toBe(false)
  })

  it('removes call statements, awaits, other statements, and inserts early returns', () => {
    expect(of(mutants, 'removed-call')).toEqual(["log.info('a log message') -> ;", 'notify(n) -> ;', 'await flush() -> ;'])
    expect(of(mutants, 'removed-await')).toEqual(['await flush() -> void flush()'])
    expect(of(mutants, 'removed-statement')).toEqual(['n-- -> ;', 'void y -> ;', 'total = n * 2 + 1 -> ;'])
    expect(of(mutants, 'early-return')).toEqual([' -> return undefined; ', ' -> return undefined; '])
    expect(of(mutants, 'optional-chain')).toEqual(['?. -> .'])
  })

  it('names the enclosing function and the line, and applies as one replacement', () => {
    const notify = mutants.find((m) => m.original === 'notify(n)')!
    expect(notify).toMatchObject({ fn: 'check', line: 10, file: 'gateway/fixture.ts' })
    expect(applyMutant(FIXTURE, notify)).toContain('  ;\n  total = n * 2 + 1')
    expect(mutants.find((m) => m.original === 'await flush()' && m.operator === 'removed-call')!.fn).toBe('later')
  })

  it('keeps every key when lines are inserted above, and keys are unique', () => {
    const shifted = generateMutants('gateway/fixture.ts', `// a new comment\n\nconst added = 1\n${FIXTURE}`)
    const byKey = new Map(shifted.map((m) => [m.key, m]))
    for (const m of mutants) {
      const moved = byKey.get(m.key)
      expect(moved, m.key).toBeDefined()
      expect(moved!.line).toBe(m.line + 3)
      expect(moved!.original).toBe(m.original)
    }
    expect(new Set(mutants.map((m) => m.key)).size).toBe(mutants.length)
  })
})
