/** No run with this id (CLI exit 2, HTTP 404). */
export class RunNotFoundError extends Error {
  override readonly name = 'RunNotFoundError';
  constructor(readonly runId: string) {
    super(`unknown run id ${runId}`);
  }
}

/** The run is not waiting for this input, or another driver holds it (CLI exit 4, HTTP 409). Nothing changed. */
export class RunConflictError extends Error {
  override readonly name = 'RunConflictError';
  constructor(
    readonly runId: string,
    message: string,
  ) {
    super(message);
  }
}

/** Bad input from the caller (flow, model, input; CLI exit 2, HTTP 400). */
export class RuntimeInputError extends Error {
  override readonly name = 'RuntimeInputError';
}
