/** Writes conformance/target/manifest.schema.json from the zod schema (the one source of truth). */
import { writeFileSync } from 'node:fs'
import { manifestJsonSchema } from '../conformance/target/manifest-schema.ts'

const out = new URL('../conformance/target/manifest.schema.json', import.meta.url)
writeFileSync(out, `${JSON.stringify(manifestJsonSchema(), null, 2)}\n`)
console.log(`wrote ${out.pathname}`)
