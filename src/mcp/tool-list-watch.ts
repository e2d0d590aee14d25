/**
 * Follows one server's `notifications/tools/list_changed`: a notification starts a relisting after
 * `debounceMs` (several in a row make one), and `settled()` resolves once no notification is waiting
 * for its relisting and none is running. A call whose server changed its tools while it ran therefore
 * knows, when it returns, whether the new list is still on its way, and can wait for it (the next
 * model turn then sees an added tool). `relist` reports its own failures; it never rejects here.
 */
export class ToolListWatch {
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** Resolves when the relisting of the notifications received so far has run. */
  #waiting: { promise: Promise<void>; resolve: () => void } | null = null;
  /** The relisting running now. */
  #running: Promise<void> | null = null;
  #stopped = false;

  constructor(
    private readonly relist: () => Promise<void>,
    private readonly debounceMs = 50,
  ) {}

  /** A `notifications/tools/list_changed` arrived. */
  notified(): void {
    if (this.#stopped) return;
    this.#waiting ??= deferred();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#run(), this.debounceMs);
  }

  /** Resolves once every notification received so far has been followed by a relisting. */
  async settled(): Promise<void> {
    await Promise.all([this.#waiting?.promise, this.#running]);
  }

  /** Stops following (the session ended): nothing waits for a relisting that will not come. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#waiting?.resolve();
    this.#waiting = null;
  }

  #run(): void {
    this.#timer = null;
    const waiting = this.#waiting;
    this.#waiting = null;
    const running = this.relist()
      // `relist` logs its own failures (its contract); waiting callers only need to know it ended.
      .catch(() => undefined)
      .finally(() => {
        if (this.#running === running) this.#running = null;
        waiting?.resolve();
      });
    this.#running = running;
  }
}

/** A promise with its resolve function. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}
