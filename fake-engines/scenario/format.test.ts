import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { legsOf, parseScenario, ScenarioError } from './format.ts'
import { DEFAULT_SCENARIOS_DIR, selectScenario } from './select.ts'

describe('scenario format', () => {
  it('parses every bundled scenario', () => {
    const files = readdirSync(DEFAULT_SCENARIOS_DIR).filter((f) => f.endsWith('.json'))
    expect(files.length).toBeGreaterThan(5)
    for (const file of files) expect(() => parseScenario(JSON.parse(readFileSync(`${DEFAULT_SCENARIOS_DIR}${file}`, 'utf8')), file)).not.toThrow()
  })

  it('names the bad step in its error', () => {
    expect(() => parseScenario({ name: 'x', steps: [{ type: 'text', text: 'ok' }, { type: 'sleep' }] })).toThrow(/step 1/)
    expect(() => parseScenario({ name: 'x', steps: [{ type: 'teleport' }] })).toThrow(ScenarioError)
  })

  it('splits legs at steps that hand a call over', () => {
    const legs = legsOf(parseScenario({ name: 'x', steps: [{ type: 'text', text: 'a' }, { type: 'tool', name: 't' }, { type: 'text', text: 'b' }] }))
    expect(legs.map((leg) => leg.map((s) => s.type))).toEqual([['text', 'tool'], ['text']])
  })

  it('selects by name, inline, or not at all', () => {
    expect(selectScenario('scenario:hello')?.name).toBe('hello')
    expect(selectScenario('scenario:{"name":"i","steps":[{"type":"hang"}]}')?.name).toBe('i')
    expect(selectScenario('just chatting')).toBeUndefined()
    expect(() => selectScenario('scenario:../etc/passwd')).toThrow(/bad scenario name/)
  })
})
