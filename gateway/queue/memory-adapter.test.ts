import { describeQueueAdapterContract } from './adapter-contract.ts'
import { createMemoryQueueAdapter } from './memory-adapter.ts'

describeQueueAdapterContract('in-memory', () => createMemoryQueueAdapter())
