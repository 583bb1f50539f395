/**
 * The gateway the client's tests run against: our gateway on the fake engines (the kit's self
 * target), with helpers to open a client for a principal of its manifest.
 */
import { GatewayClient, type GatewayClientOptions } from '../index.ts'
import { startSelfTarget, type SelfTarget } from '../../conformance/target/self.ts'

export type Principal = 'operator' | 'tenantA' | 'tenantB' | 'restricted' | 'manager'

export interface TestGateway {
  target: SelfTarget
  client(as?: Principal, options?: Partial<GatewayClientOptions>): GatewayClient
  provider: { profile: string }
  primary: { profile: string; cwd: string }
}

export async function startTestGateway(): Promise<TestGateway> {
  const target = await startSelfTarget()
  const { manifest } = target
  return {
    target,
    client: (as = 'operator', options = {}) => new GatewayClient({ baseUrl: manifest.baseUrl, token: manifest.tokens[as], ...options }),
    provider: { profile: manifest.profiles.provider! },
    primary: { profile: manifest.profiles.cli_primary!, cwd: manifest.cwdRoot! },
  }
}

/** A prompt playing an inline scenario of the fake engines (scenarios/README.md). */
export const inline = (steps: unknown[]) => `scenario:${JSON.stringify({ name: 'client-test', steps })}`
