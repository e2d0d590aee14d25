/**
 * Ctrl-C while a command drives a run: the first SIGINT stops the driving cleanly — reads in flight are
 * cancelled (the server gets `notifications/cancelled`), a write in flight is waited for and recorded,
 * and the run's lease is given up, so the run stays `running` and `agent-runtime resume RUN` continues
 * it at once. A second SIGINT exits at once (130), as an unhandled one would.
 */
export interface Interrupt {
  /** True once the first SIGINT arrived. */
  readonly interrupted: boolean;
  /** Removes the handler (call when the command is done). */
  dispose(): void;
}

/** Installs the handler; `stop` is called once, on the first SIGINT. */
export function onInterrupt(stop: () => Promise<void>, tell: (text: string) => void): Interrupt {
  let interrupted = false;
  const again = () => process.exit(130);
  const first = () => {
    interrupted = true;
    process.once('SIGINT', again);
    tell('interrupted: stopping the run (Ctrl-C again to quit at once)\n');
    void stop().catch(() => undefined); // the command's own result reports what happened
  };
  process.once('SIGINT', first);
  return {
    get interrupted() {
      return interrupted;
    },
    dispose() {
      process.off('SIGINT', first);
      process.off('SIGINT', again);
    },
  };
}
