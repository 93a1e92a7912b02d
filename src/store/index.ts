/**
 * restcanon/store: the interface of the short-lived state that conventions share across requests
 * and instances, and the in-memory store. The Redis store is restcanon/redis.
 */
export { memoryStore, type MemoryStore, type MemoryStoreOptions } from './memory.js';
export { StoreUnavailableError, withTimeout, type Hit, type Store } from './store.js';
