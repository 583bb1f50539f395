/**
 * Programmatic entry of the conformance kit: select and run the cases against a target manifest,
 * write the reports, and read the outcome as the command does. The command (conformance/cli.ts)
 * is a thin shell over these.
 */
export { runSuite, selectCases, exitCodeOf, type SuiteOptions } from './run-suite.ts'
export { loadManifest, urlManifest, checkManifest, ManifestError } from './manifest.ts'
export { startSelfTarget, MissingGatewayError, type SelfTarget, type SelfTargetOptions } from './target/self.ts'
export { WebhookReceiver } from './harness/webhook-receiver.ts'
export { writeReports } from '../reports/write.ts'
export { KIT_VERSION } from './kit-version.ts'
export type * from './types.ts'
