/**
 * Picks the scenario a user message asks for: `scenario:<name>` loads `scenarios/<name>.json`,
 * `scenario:{...}` is inline JSON, and any other text is answered with an echo.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { parseScenario, ScenarioError, type Scenario } from './format.ts'

export const DEFAULT_SCENARIOS_DIR = fileURLToPath(new URL('../../scenarios/', import.meta.url))
const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/
const cache = new Map<string, Scenario>()

export function echoScenario(text: string): Scenario {
  return { name: 'echo', steps: [{ type: 'text', text: `echo: ${text}` }] }
}

/** Returns the scenario for a message, or undefined when the message does not select one. */
export function selectScenario(userText: string, scenariosDir = DEFAULT_SCENARIOS_DIR): Scenario | undefined {
  const trimmed = userText.trim()
  if (!trimmed.startsWith('scenario:')) return undefined
  const spec = trimmed.slice('scenario:'.length).trim()
  if (spec.startsWith('{')) {
    let value: unknown
    try {
      value = JSON.parse(spec)
    } catch (err) {
      throw new ScenarioError(`inline scenario is not valid JSON: ${(err as Error).message}`)
    }
    return parseScenario(value, 'inline scenario')
  }
  if (!NAME.test(spec)) throw new ScenarioError(`bad scenario name '${spec.slice(0, 64)}'`)
  const key = `${scenariosDir}\0${spec}`
  const hit = cache.get(key)
  if (hit) return hit
  let raw: string
  try {
    raw = readFileSync(join(scenariosDir, `${spec}.json`), 'utf8')
  } catch {
    throw new ScenarioError(`unknown scenario '${spec}'`)
  }
  const scenario = parseScenario(JSON.parse(raw), `scenarios/${spec}.json`)
  cache.set(key, scenario)
  return scenario
}
