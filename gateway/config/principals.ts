/**
 * Authentication without code: a principals file keyed by the SHA-256 of each bearer token. The
 * file never holds a token, so reading it (or a backup of it) grants nothing; `gateway token
 * create` prints a new token once and records only its hash.
 */
import { createHash, randomBytes } from 'node:crypto'
import { readFile, rename, writeFile } from 'node:fs/promises'
import type { IncomingMessage } from 'node:http'
import * as z from 'zod'
import { bearerToken } from '../server/bearer.ts'
import type { Principal } from '../server/principal.ts'

const principalEntry = z.strictObject({
  /** Shown in logs as the principal id; never the token. */
  id: z.string().min(1),
  scope: z.record(z.string(), z.string()).optional(),
  allowedProfiles: z.array(z.string()).optional(),
  canManageProfiles: z.boolean().optional(),
  operator: z.boolean().optional(),
})
const principalsFile = z.strictObject({
  version: z.literal(1),
  principals: z.record(z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 hex digest'), principalEntry),
})

export type PrincipalEntry = z.infer<typeof principalEntry>
type PrincipalsFile = z.infer<typeof principalsFile>

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex')
}

export async function readPrincipals(file: string, { missingOk = false } = {}): Promise<PrincipalsFile> {
  let text
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    if (missingOk && (err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, principals: {} }
    throw new Error(`principals file ${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
  }
  let raw
  try {
    raw = JSON.parse(text)
  } catch (err) {
    throw new Error(`principals file ${file}: not valid JSON: ${(err as Error).message}`)
  }
  const parsed = principalsFile.safeParse(raw)
  if (!parsed.success) {
    throw new Error(`principals file ${file}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${issueMessage(i)}`).join('; ')}`)
  }
  return parsed.data
}

/** The `authenticate` hook for a principals file: a bearer token whose hash is listed, else null. */
export function principalsAuthenticator(file: PrincipalsFile): (req: IncomingMessage) => Principal | null {
  const byHash = new Map<string, Principal>(Object.entries(file.principals).map(([hash, entry]) => [hash, Object.freeze({ ...entry })]))
  return (req) => {
    const token = bearerToken(req.headers.authorization)
    return token ? byHash.get(hashToken(token)) ?? null : null
  }
}

/** `token create` for an id the file already holds, without `replace`. */
export class DuplicatePrincipalError extends Error {}

/**
 * Adds a principal with a fresh token; returns the token, which exists nowhere else afterwards.
 * An id is one principal: an id already in the file is refused (two entries with one id would be
 * two live tokens an operator believes are one), unless `replace`, which revokes every token of
 * that id and records the new one in their place.
 */
export async function createToken(file: string, entry: PrincipalEntry, { replace = false } = {}): Promise<string> {
  const parsedEntry = principalEntry.parse(entry)
  const current = await readPrincipals(file, { missingOk: true })
  const existing = Object.keys(current.principals).filter((hash) => current.principals[hash].id === parsedEntry.id)
  if (existing.length && !replace) {
    throw new DuplicatePrincipalError(`principal '${parsedEntry.id}' already exists in ${file}; pass --replace to revoke its token and issue a new one`)
  }
  for (const hash of existing) delete current.principals[hash]
  const token = `gw_${randomBytes(32).toString('base64url')}`
  current.principals[hashToken(token)] = parsedEntry
  // Atomic and private: a reader never sees half a file, and no other user reads the hashes.
  const tmp = `${file}.${process.pid}.tmp`
  await writeFile(tmp, `${JSON.stringify(current, null, 2)}\n`, { mode: 0o600 })
  await rename(tmp, file)
  return token
}

/** zod reports a record key it refused as 'Invalid key in record'; the key's own rule says what a key must be. */
function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_key' && issue.issues[0]) return `the key is not ${issue.issues[0].message}`
  return issue.message
}
