// restcanon/xml: filled in by the formats work.
export {};
