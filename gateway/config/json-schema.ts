/**
 * The JSON Schema of the configuration file, generated from the zod schema, for editors
 * (`$schema: ./gateway-config.schema.json` in JSON, `# yaml-language-server: $schema=…` in YAML).
 * The committed file is checked against this generator by a test, so it cannot drift.
 */
import * as z from 'zod'
import { configSchema } from './schema.ts'

export const JSON_SCHEMA_FILE = new URL('./gateway-config.schema.json', import.meta.url)

export function configJsonSchema(): Record<string, unknown> {
  return { ...z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }), title: 'Agent session gateway configuration' }
}
