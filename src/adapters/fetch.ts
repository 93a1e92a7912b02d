// The fetch adapter: see issue 6. Filled in by the adapters work.
export {};
