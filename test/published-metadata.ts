/**
 * What an npm user of a published package reads besides its code: where the project lives, where
 * to report a bug, the licence, and the repository files its README names, as links that work
 * outside the repository. Shared by the install-path tests of the three packages.
 */
import { expect } from 'vitest'

/** The project's address; no other is named anywhere in the repository. */
export const REPOSITORY = 'https://github.com/agent-session-gateway/agent-session-gateway'

export function expectPublishedMetadata(manifest: Record<string, unknown>, directory: string): void {
  expect({ name: manifest.name, license: manifest.license, repository: manifest.repository, homepage: manifest.homepage, bugs: manifest.bugs }).toEqual({
    name: manifest.name,
    license: 'MIT',
    repository: { type: 'git', url: `git+${REPOSITORY}.git`, directory },
    homepage: `${REPOSITORY}/tree/main/${directory}#readme`,
    bugs: { url: `${REPOSITORY}/issues` },
  })
}

/** Repository paths (docs/…, conformance/…, examples/…) a README names other than inside a link to the repository. */
export function unlinkedRepositoryPaths(readme: string): string[] {
  const links = new RegExp(`\\[[^\\]]*\\]\\(${REPOSITORY.replaceAll('.', '\\.')}[^)]*\\)`, 'g')
  const rest = readme.replace(links, '')
  return [...rest.matchAll(/(?<![\w/.-])(?:docs|conformance|examples|scenarios|client|gateway)\/[\w./-]+\.(?:md|ts)\b/g)].map((m) => m[0])
}
