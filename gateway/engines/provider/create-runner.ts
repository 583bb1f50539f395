/** The provider engine's entry point: a runner builder a host's createEngineRunner hook calls. */
import type { EngineRunnerContext, Runner } from '../../sessions/runner.ts'
import { connectMcpServers } from './mcp.ts'
import type { AiSdkRunnerOptions } from './options.ts'
import { ProviderRunner } from './runner.ts'

/**
 * Builds a provider runner. Synchronous unless MCP servers must connect first: a server that
 * does not connect fails the build, never yields a silently tool-less session (errors.14).
 */
export function createAiSdkRunner(ctx: EngineRunnerContext, options?: AiSdkRunnerOptions & { mcpServers?: undefined }): Runner
export function createAiSdkRunner(ctx: EngineRunnerContext, options: AiSdkRunnerOptions): Runner | Promise<Runner>
export function createAiSdkRunner(ctx: EngineRunnerContext, options: AiSdkRunnerOptions = {}): Runner | Promise<Runner> {
  const granted = ctx.profile.session?.mcpServers
  const wired = options.mcpServers ?? {}
  if (!(granted ?? Object.keys(wired)).length) return new ProviderRunner(ctx, options, [])
  return connectMcpServers(wired, granted, { sessionId: ctx.config.id, profile: ctx.profile.name }).then((connections) => {
    try {
      return new ProviderRunner(ctx, options, connections)
    } catch (err) {
      for (const c of connections) void c.dispose()
      throw err
    }
  })
}
