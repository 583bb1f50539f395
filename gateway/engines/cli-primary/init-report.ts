/**
 * What the CLI's `system/init` and its initialize answer tell the client: `system_init`, then
 * `skills`, `tool_titles` and `plan_info` only when they change (events.9, events.15-16). Keeps
 * the last of each, and the session's `apiKeySource`, across the turns of one session.
 */
import type { PermissionMode, SessionEventBody } from '../../protocol/index.ts'
import { toolTitles } from './sdk-shapes.ts'

export class InitReport {
  apiKeySource = 'none'
  #skills: string | undefined
  #toolTitles: string | undefined
  #planType: string | undefined
  readonly #emit: (body: SessionEventBody) => void

  constructor(emit: (body: SessionEventBody) => void) {
    this.#emit = emit
  }

  /** `system_init` from the CLI's init message, then skills and titles if changed; returns the apiKeySource. */
  init(init: Record<string, unknown>, mode: PermissionMode): string {
    const apiKeySource = String(init.apiKeySource ?? this.apiKeySource)
    this.apiKeySource = apiKeySource
    this.#emit({
      type: 'system_init', sdkSessionId: String(init.session_id), model: init.model as string | undefined, cwd: init.cwd as string | undefined,
      apiKeySource, tools: (init.tools as string[]) ?? [], skills: (init.skills as string[]) ?? [], slashCommands: (init.slash_commands as string[]) ?? [],
      permissionMode: (init.permissionMode as PermissionMode) ?? mode, claudeCodeVersion: init.claude_code_version as string | undefined,
      mcpServers: (init.mcp_servers as Array<{ name: string; status: string }>) ?? [],
    })
    this.#noteSkillsAndTools(init)
    return apiKeySource
  }

  /** `skills` and `tool_titles` follow init, and again only when they change (events.15-16). */
  #noteSkillsAndTools(init: Record<string, unknown>): void {
    const skills = ((init.skills as unknown[]) ?? []).map((s) => (typeof s === 'string' ? { name: s, enabled: true } : s))
    const skillsKey = JSON.stringify(skills)
    if (skillsKey !== this.#skills) {
      this.#skills = skillsKey
      this.#emit({ type: 'skills', skills })
    }
    const titles = toolTitles((init.tools as string[]) ?? [])
    const titlesKey = JSON.stringify(titles)
    if (titlesKey !== this.#toolTitles) {
      this.#toolTitles = titlesKey
      this.#emit({ type: 'tool_titles', titles })
    }
  }

  /** `plan_info` once per change, never for an API-key session (events.9). */
  notePlan(subscriptionType: string | undefined): void {
    if (!subscriptionType || this.apiKeySource !== 'oauth' || subscriptionType === this.#planType) return
    this.#planType = subscriptionType
    this.#emit({ type: 'plan_info', subscriptionType })
  }
}
