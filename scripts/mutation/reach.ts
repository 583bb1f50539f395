/**
 * Which sampled mutants the kit reaches at all. One scratch copy gets a probe before the
 * statement enclosing each sampled mutant (or inside the arrow whose expression body holds it);
 * the kit runs once on it; every probe that fired is appended to a file named by an environment
 * variable, synchronously, so a killed gateway loses nothing, with the time it fired (the kit's
 * case markers in the same file then tell which cases reach it: case-reach.ts). A mutant whose probe never fired
 * sits in code the kit never executes: the mutated gateway behaves as the original one under
 * the kit, so the kit run is skipped and the mutant is `unreached` (a kit survivor). The probe
 * over-approximates (a statement reached does not mean each branch in it was), never the reverse.
 * Only the scratch copy is instrumented; production code carries no hook.
 */
import ts from 'typescript'
import type { GeneratedMutant } from './mutator.ts'
import { HIT_WINDOW_MS } from './case-reach.ts'

export const REACH_ENV = 'GATEWAY_MUTATION_REACH_FILE'

/**
 * Every firing of a probe is not written (a hot statement fires thousands of times a second): a
 * probe is written with the time, then not again for HIT_WINDOW_MS; case-reach.ts widens each
 * written hit by that window when it attributes hits to the kit's cases.
 */
const PRELUDE = `function __mutationProbe(ids) { const g = globalThis; g.__mutationHits ??= new Map(); const now = Date.now(); const fresh = ids.filter((id) => !(now - (g.__mutationHits.get(id) ?? -Infinity) < ${HIT_WINDOW_MS})); if (!fresh.length) return; for (const id of fresh) g.__mutationHits.set(id, now); const f = process.env.${REACH_ENV}; if (f) process.getBuiltinModule('node:fs').appendFileSync(f, fresh.map((id) => id + ' ' + now).join('\\n') + '\\n') }\n`

interface Insertion { at: number; text: string; closing: boolean }

/** The node a probe goes before: the innermost statement (or arrow expression body) holding the span. */
function anchorOf(source: ts.SourceFile, start: number, end: number): ts.Node | undefined {
  let anchor: ts.Node | undefined
  const visit = (node: ts.Node) => {
    if (node.getStart(source) > start || node.getEnd() < end) return
    if (ts.isStatement(node) && !ts.isBlock(node) && node.getStart(source) <= start) anchor = node
    if (ts.isArrowFunction(node) && !ts.isBlock(node.body) && node.body.getStart(source) <= start && node.body.getEnd() >= end) anchor = node.body
    ts.forEachChild(node, visit)
  }
  visit(source)
  return anchor
}

/** The file with a probe per mutant (ids are indexes into `mutants`), or the same text when none applies. */
export function instrument(text: string, mutants: Array<{ id: number; m: GeneratedMutant }>): string {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const byAnchor = new Map<ts.Node, number[]>()
  for (const { id, m } of mutants) {
    // An early return is inserted before the body's first statement: that statement is its anchor.
    const anchor = anchorOf(source, m.start, m.operator === 'early-return' ? m.start + 1 : m.end)
    if (anchor) byAnchor.set(anchor, [...(byAnchor.get(anchor) ?? []), id])
  }
  const insertions: Insertion[] = []
  for (const [anchor, ids] of byAnchor) {
    const at = anchor.getStart(source)
    const probe = `__mutationProbe([${ids.join(',')}])`
    if (ts.isStatement(anchor)) {
      // A statement that is a branch or a loop body of its own is wrapped in a block, so the probe stays inside the branch.
      const p = anchor.parent
      const needsBlock = !ts.isBlock(p) && !ts.isSourceFile(p) && !ts.isCaseClause(p) && !ts.isDefaultClause(p) && !ts.isModuleBlock(p)
      insertions.push({ at, text: needsBlock ? `{ ${probe}; ` : `${probe}; `, closing: false })
      if (needsBlock) insertions.push({ at: anchor.getEnd(), text: ' }', closing: true })
    } else {
      insertions.push({ at, text: `(${probe}, `, closing: false })
      insertions.push({ at: anchor.getEnd(), text: ')', closing: true })
    }
  }
  if (!insertions.length) return text
  // Later offsets first so earlier ones stay valid; at one offset an opening goes in before a closing, so the closing ends up first.
  insertions.sort((a, b) => b.at - a.at || Number(a.closing) - Number(b.closing))
  let out = text
  for (const ins of insertions) out = out.slice(0, ins.at) + ins.text + out.slice(ins.at)
  // After a shebang line, which must stay first.
  const shebang = out.startsWith('#!') ? out.indexOf('\n') + 1 : 0
  return out.slice(0, shebang) + PRELUDE + out.slice(shebang)
}
