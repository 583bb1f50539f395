/** Case helpers: server. Shared by the cases of every section through case-helpers/index.ts. */


/** The permission-mode vocabulary (profile.10). */
export const PERMISSION_MODES = ['default', 'acceptEdits', 'bypassPermissions', 'dontAsk', 'auto']

/** `value` as JSON of exactly `bytes` bytes, padded with `x` in the (empty) string field `key` (at any depth). */
export function jsonOfBytes(value: Record<string, unknown>, key: string, bytes: number): string {
  const empty = JSON.stringify(value)
  const marker = `"${key}":""`
  if (!empty.includes(marker)) throw new Error(`jsonOfBytes: no empty "${key}" in ${empty}`)
  return empty.replace(marker, `"${key}":"${'x'.repeat(Math.max(0, bytes - Buffer.byteLength(empty)))}"`)
}
