/** Listeners per run id: subscribe with an unsubscribe function back, and emit to one run's listeners. */
export class RunListeners<T> {
  private readonly byRun = new Map<string, Set<(value: T) => void>>();

  /** Adds a listener of one run; returns the function that removes it (the run's entry goes with its last listener). */
  subscribe(runId: string, listener: (value: T) => void): () => void {
    let set = this.byRun.get(runId);
    if (!set) {
      set = new Set();
      this.byRun.set(runId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.byRun.delete(runId);
    };
  }

  /** Whether anybody listens to the run. */
  has(runId: string): boolean {
    return this.byRun.has(runId);
  }

  /** Calls the run's listeners (those subscribed when it starts; one may unsubscribe another). */
  emit(runId: string, value: T): void {
    const set = this.byRun.get(runId);
    if (!set) return;
    for (const listener of [...set]) listener(value);
  }
}
