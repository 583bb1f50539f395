/**
 * The variation table as Markdown, for conformance/variants/README.md (between the `variations`
 * markers). `npx tsx conformance/variants/render-table.ts --write` rewrites the README's copy; a
 * test fails when the two differ.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { VARIATIONS } from './variations.ts'

export const README = fileURLToPath(new URL('./README.md', import.meta.url))
export const START = '<!-- variations:start (rendered from variations.ts by render-table.ts) -->'
export const END = '<!-- variations:end -->'

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ')

export function renderTable(): string {
  const rows = VARIATIONS.map((v) => `| \`${v.name}\` | ${cell(v.clause)} | ${cell(v.allows)} | ${cell(v.does)} |`)
  return ['| variation | clause | the spec\'s words that allow it | what the proxy does |', '|---|---|---|---|', ...rows].join('\n')
}

/** The README with its table section replaced by the rendered table. */
export function withTable(readme: string): string {
  const start = readme.indexOf(START)
  const end = readme.indexOf(END)
  if (start < 0 || end < start) throw new Error(`${README} lacks the ${START} … ${END} markers`)
  return `${readme.slice(0, start + START.length)}\n${renderTable()}\n${readme.slice(end)}`
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--write')) {
  await writeFile(README, withTable(await readFile(README, 'utf8')))
}
