/** The provider engine: a runner builder on the AI SDK that a host's createEngineRunner hook calls. */
export { createAiSdkRunner, type AiSdkRunnerOptions } from './runner.ts'
