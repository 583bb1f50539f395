/** `gateway schema`: the configuration file's JSON Schema, for editors and CI checks. */
import { configJsonSchema } from '../config/json-schema.ts'

export function schemaCommand(): void {
  console.log(JSON.stringify(configJsonSchema(), null, 2))
}
