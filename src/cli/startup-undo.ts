/**
 * What a command's start-up has started so far, to be undone if a later step fails. `serve` pushes one
 * undo per step (database, services, app, signal handlers); when a step throws, `run()` undoes them newest
 * first, so the command ends with its one error line instead of living on with a pool, a LISTEN
 * connection or a worker loop holding the process open.
 */
export class StartupUndo {
  private readonly steps: Array<() => Promise<void>> = [];

  push(step: () => Promise<void>): void {
    this.steps.push(step);
  }

  /**
   * Undoes every step, newest first. An undo that fails does not stop the others (the start-up error,
   * not the clean-up's, is the one the operator needs to read), and each step runs once.
   */
  async run(): Promise<void> {
    for (let step = this.steps.pop(); step; step = this.steps.pop()) {
      try {
        await step();
      } catch {
        // Best effort: the remaining steps still run, and the process exits on the start-up error.
      }
    }
  }
}
