/**
 * The manifest for a person: every field of the manifest's JSON Schema, nested
 * ones too, has a row with a meaning and an example in conformance/target/README.md, and every
 * feature name is documented. The schema is walked generically, so a field added to
 * manifest-schema.ts without its README row fails here.
 */
import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { manifestJsonSchema } from '../target/manifest-schema.ts'

const README = new URL('../target/README.md', import.meta.url)

interface Walked { paths: string[]; enums: string[] }

/** Every property path (dotted) and every enum value of a JSON Schema, through anyOf/oneOf/allOf, items and nested objects. */
export function walkSchema(schema: any, prefix = '', out: Walked = { paths: [], enums: [] }): Walked {
  if (!schema || typeof schema !== 'object') return out
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) for (const branch of schema[key] ?? []) walkSchema(branch, prefix, out)
  if (Array.isArray(schema.enum)) out.enums.push(...schema.enum.filter((v: unknown): v is string => typeof v === 'string'))
  if (schema.items) walkSchema(schema.items, prefix, out)
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') walkSchema(schema.additionalProperties, prefix, out)
  for (const [name, sub] of Object.entries<any>(schema.properties ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name
    if (!out.paths.includes(path)) out.paths.push(path)
    walkSchema(sub, path, out)
  }
  return out
}

/** The README's field table: `path` → [meaning, example]. */
function fieldRows(readme: string): Map<string, string[]> {
  const rows = new Map<string, string[]>()
  for (const line of readme.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim())
    const path = /^`([^`]+)`$/.exec(cells[0] ?? '')?.[1]
    if (path && cells.length >= 3) rows.set(path, cells.slice(1))
  }
  return rows
}

describe('the target README documents the manifest', () => {
  it('walks nested schema fields and enum values (so the check below covers what the schema holds)', () => {
    const walked = walkSchema({ type: 'object', properties: { a: { anyOf: [{ type: 'object', properties: { b: { type: 'number' } } }, { type: 'null' }] }, c: { type: 'array', items: { enum: ['x', 'y'] } } } })
    expect(walked).toEqual({ paths: ['a', 'a.b', 'c'], enums: ['x', 'y'] })
  })

  it('has a row with a meaning and an example for every field of manifest.schema.json, nested ones by dotted path', async () => {
    const readme = await readFile(README, 'utf8')
    const rows = fieldRows(readme)
    const { paths } = walkSchema(manifestJsonSchema())
    expect(paths.length).toBeGreaterThan(40)
    const undocumented = paths.filter((p) => !rows.has(p))
    expect(undocumented).toEqual([])
    const withoutExample = paths.filter((p) => { const [meaning, example] = rows.get(p)!; return !meaning || !example })
    expect(withoutExample).toEqual([])
  })

  it('names every feature (the enum of features and absent)', async () => {
    const readme = await readFile(README, 'utf8')
    const { enums } = walkSchema(manifestJsonSchema())
    expect(enums).toContain('queue')
    expect([...new Set(enums)].filter((name) => !readme.includes(`\`${name}\``))).toEqual([])
  })
})
