export { createCliPrimaryAdapter, type CliPrimaryOptions } from './adapter.ts'
export { loadClaudeAgentSdk, type ClaudeAgentSdk } from './sdk.ts'
export type { EngineProcessEvent } from './process-observer.ts'
