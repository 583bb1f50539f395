/** The operator configuration as a library: load and validate a file, turn it into server options, or serve it. */
export { configSchema, profileSchema, type GatewayConfig, type ProfileEntry } from './schema.ts'
export { loadConfigFile, validateConfig, type LoadedConfig } from './load.ts'
export { buildServerOptions, loadHooks, type GatewayHooks } from './server-options.ts'
export { serveConfigFile, ConfigProblems, type RunningGateway, type ServeOptions } from './serve.ts'
