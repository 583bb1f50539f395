/**
 * Shaping the CLI's model list once, server-side (engine-facts §1): the leading `default` row is a
 * selection, not a model, so it is dropped and what it resolves to becomes `defaultModel`;
 * `primary` marks the newest model of each family, since the CLI's list is flat.
 */
import type { ModelOption } from '../../protocol/index.ts'

export interface CliModelRow {
  value: string
  resolvedModel?: string
  displayName?: string
  description?: string
}

export function shapeModels(rows: readonly CliModelRow[]): { models: ModelOption[]; defaultModel?: string } {
  const fallback = rows.find((r) => r.value === 'default')
  const models: ModelOption[] = rows.filter((r) => r.value !== 'default').map((r) => ({
    value: r.value,
    ...(r.displayName ? { displayName: r.displayName } : {}),
    ...(r.description ? { description: r.description } : {}),
  }))
  const newest = new Map<string, { index: number; version: number[] }>()
  rows.filter((r) => r.value !== 'default').forEach((r, index) => {
    const id = r.resolvedModel ?? r.value
    const family = familyOf(id)
    const version = versionOf(id)
    const best = newest.get(family)
    if (!best || compare(version, best.version) > 0) newest.set(family, { index, version })
  })
  for (const { index } of newest.values()) models[index].primary = true
  return { models, ...(fallback?.resolvedModel ? { defaultModel: fallback.resolvedModel } : {}) }
}

function familyOf(id: string): string {
  return (id.match(/(opus|sonnet|haiku)/i)?.[1] ?? id.replace(/[-\d.[\]]+$/, '')).toLowerCase()
}

function versionOf(id: string): number[] {
  return (id.match(/\d+/g) ?? []).map(Number)
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0)
    if (d) return d
  }
  return 0
}
