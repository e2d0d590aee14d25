/**
 * The few functions of a test framework the Store contract suite needs, passed in by the caller so that
 * this package does not depend on one. Vitest's and Jest's `describe`, `it`, `beforeEach`, `afterEach`
 * and `expect` fit as they are.
 */

/** The matchers the contract cases use. */
export interface Assertion {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toMatchObject(expected: object): void;
  toBeDefined(): void;
  toBeNull(): void;
  toBeInstanceOf(expected: unknown): void;
  toHaveLength(expected: number): void;
  readonly rejects: { toBeInstanceOf(expected: unknown): Promise<void> | void };
}

/** A test body or hook: may return a promise. */
export type TestBody = () => unknown;

/** What `storeContract` takes from the test framework. */
export interface TestApi {
  describe: (name: string, body: () => void) => void;
  it: (name: string, body: TestBody) => void;
  beforeEach: (body: TestBody) => void;
  afterEach: (body: TestBody) => void;
  expect: (value: unknown) => Assertion;
}
