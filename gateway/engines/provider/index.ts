/** The provider engine: a runner builder on the AI SDK that a host's createEngineRunner hook calls. */
export { createAiSdkRunner } from './create-runner.ts'
export type { AiSdkRunnerOptions } from './options.ts'
