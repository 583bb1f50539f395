/** Library entry: the server factory, its option types and the wire protocol. */
export { createGatewayServer, type GatewayServer } from './server/create-server.ts'
export type { GatewayServerOptions } from './server/options.ts'
export type { Principal, Authenticate, AuthorizeSession } from './server/principal.ts'
export type { Runner, RunnerConfig, EngineRunnerContext, CreateEngineRunner } from './sessions/runner.ts'
export { SessionCore } from './sessions/session-core.ts'
export { createMemoryProfileStore, createFileProfileStore, type ProfileStore } from './host/profile-store.ts'
export * from './protocol/index.ts'
