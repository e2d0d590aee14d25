/**
 * The kind of result a tool call had, decided by whoever produced it (docs/observations.md).
 * Whether it advances the node or counts a stall is a property of the value itself,
 * so the loop never has to look at error codes or scenarios.
 */
export class Outcome {
  /** The tool really ran and succeeded (includes reuse of a successful write evidence). */
  static readonly SUCCESS = new Outcome('SUCCESS', true, false);
  /** The tool really ran and failed. */
  static readonly FAILED = new Outcome('FAILED', false, true);
  /** The call broke a rule and was stopped before running. */
  static readonly REJECTED = new Outcome('REJECTED', false, true);
  /** The call is legitimate but a prerequisite step must come first. */
  static readonly DEFERRED = new Outcome('DEFERRED', false, false);

  static readonly values: readonly Outcome[] = [
    Outcome.SUCCESS,
    Outcome.FAILED,
    Outcome.REJECTED,
    Outcome.DEFERRED,
  ];

  private constructor(
    readonly name: OutcomeName,
    private readonly advancesNode: boolean,
    private readonly stallsNode: boolean,
  ) {}

  /** True when the result resets the node's consecutive stall count. */
  advances(): boolean {
    return this.advancesNode;
  }

  /** True when the result counts one stall. */
  stalls(): boolean {
    return this.stallsNode;
  }

  /** The outcome with this name; throws for anything else (a bug or corrupt data). */
  static of(name: string): Outcome {
    const found = Outcome.values.find((o) => o.name === name);
    if (!found) throw new Error(`unknown outcome ${JSON.stringify(name)}`);
    return found;
  }

  toString(): string {
    return this.name;
  }

  toJSON(): string {
    return this.name;
  }
}

export type OutcomeName = 'SUCCESS' | 'FAILED' | 'REJECTED' | 'DEFERRED';
