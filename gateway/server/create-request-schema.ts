/**
 * Field types of CreateSessionRequest (createsessionrequest.1), built once per process, at the
 * first create rather than at start (building zod schemas is a visible part of the
 * start). Unknown fields pass through untouched (forward compatibility); known fields must have
 * their types.
 */
import * as z from 'zod'
import { PERMISSION_MODES } from '../protocol/index.ts'

function buildCreateSessionSchema() {
  const stringList = z.array(z.string())
  const scope = z.record(z.string(), z.string())
  const mcpServer = z.object({
    type: z.enum(['stdio', 'http', 'sse']).optional(),
    command: z.string().optional(),
    args: stringList.optional(),
    env: z.record(z.string(), z.string()).optional(),
    url: z.string().optional(),
    headers: z.record(z.string(), z.string()).optional(),
  }).loose()

  return z.object({
    profile: z.string().optional(),
    cwd: z.string().min(1).optional(),
    prompt: z.string().optional(),
    permissionMode: z.string().optional(),
    allowDangerouslySkipPermissions: z.boolean().optional(),
    allowedTools: stringList.optional(),
    disallowedTools: stringList.optional(),
    mcpServers: z.record(z.string(), mcpServer).optional(),
    settingSources: stringList.optional(),
    model: z.string().min(1).optional(),
    reasoningEffort: z.string().optional(),
    maxTurns: z.number().int().positive().optional(),
    maxBudgetUsd: z.number().positive().optional(),
    resume: z.string().min(1).optional(),
    forkSession: z.boolean().optional(),
    capabilities: stringList.optional(),
    includePartialMessages: z.boolean().optional(),
    approvalTimeoutMs: z.number().int().nonnegative().nullable().optional(),
    questionBehavior: z.enum(['ask', 'auto', 'deny']).optional(),
    meta: z.record(z.string(), z.unknown()).optional(),
    scope: scope.optional(),
  }).loose()
}

export type ParsedCreateSession = z.infer<ReturnType<typeof buildCreateSessionSchema>>

let built: ReturnType<typeof buildCreateSessionSchema> | undefined
export const createSessionSchema = (): ReturnType<typeof buildCreateSessionSchema> => (built ??= buildCreateSessionSchema())

export const KNOWN_PERMISSION_MODES: ReadonlySet<string> = new Set(PERMISSION_MODES)

/** `path: message` of the first issue, so the caller learns which field is wrong. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0]
  const path = issue.path.length ? issue.path.join('.') : 'body'
  return `${path}: ${issue.message}`
}
