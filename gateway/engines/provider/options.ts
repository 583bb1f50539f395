/** How a host builds provider sessions: the model source, the tools, and the per-session limits. */
import type { McpServerWiring } from './mcp.ts'
import type { ModelSource } from './model-factory.ts'
import type { ToolAssembly } from './tools.ts'

export interface AiSdkRunnerOptions extends ModelSource, ToolAssembly {
  /** Retries of a failed model call (AI SDK default 2); 0 surfaces errors at once. */
  maxRetries?: number
  /** Releases per-session resources; runs on close and on park (embedding-rules.9-10). */
  onClose?: () => void
  /** Scratch files for a new session; never applied when restoring (embedding-rules.9). */
  seedFiles?: Record<string, string>
  /** Legs per turn before the turn ends with an error (a model that never stops calling tools). */
  maxLegs?: number
  /** MCP servers the host wires, by name; the profile's `session.mcpServers` grants them. */
  mcpServers?: Record<string, McpServerWiring>
}
