/**
 * The kit's version, from the nearest package.json above this file: the repository's own in a
 * checkout, packages/conformance/package.json once built and installed. Imports only node:fs, so
 * the command's Node-version guard can load it.
 */
import { packageVersion } from '../gateway/protocol/package-version.ts'

export const KIT_VERSION = packageVersion(import.meta.url)
