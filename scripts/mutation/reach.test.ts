/** The reach probes on a small file: where they go, and that the instrumented file still parses. */
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { generateMutants } from './mutator.ts'
import { instrument } from './reach.ts'

describe('reach probes', () => {
  it('put a probe before the statement holding each mutant, inside unbraced branches and arrow bodies, and keep the file valid', () => {
    const text = `#!/usr/bin/env node\nexport const f = (a: number) => a > 1 && a < 5\nexport function g(x: boolean) {\n  if (x) return 404\n  return 200\n}\n`
    const ms = generateMutants('gateway/r.ts', text)
    const pick = (original: string) => ms.findIndex((m) => m.original === original)
    const out = instrument(text, [pick('>'), pick('404'), pick('200')].map((id) => ({ id, m: ms[id] })))
    expect(out.startsWith('#!/usr/bin/env node\nfunction __mutationProbe(')).toBe(true)
    expect(out).toContain(`=> (__mutationProbe([${pick('>')}]), a > 1 && a < 5)`)
    expect(out).toContain(`if (x) { __mutationProbe([${pick('404')}]); return 404 }`)
    expect(out).toContain(`__mutationProbe([${pick('200')}]); return 200`)
    const parsed = ts.createSourceFile('r.ts', out, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS) as unknown as { parseDiagnostics: unknown[] }
    expect(parsed.parseDiagnostics).toEqual([])
  })
})
