export { createCliPrimaryAdapter, type CliPrimaryOptions } from './adapter.ts'
export type { EngineProcessEvent } from './process-observer.ts'
