import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isFlowError } from '../flow/problems.js';
import type { Logger } from '../log/logger.js';
import { candidatePath, isFlowFile } from './flow-files.js';
import type { FlowRegistry } from './flows.js';

/** How long a file must stay quiet after a change before it is read (editors write in several steps). */
const SETTLE_MS = 150;

/** A running watch of a `--flows` folder. */
export interface FlowWatch {
  /** Stops watching; pending reloads are dropped. */
  close(): void;
}

/**
 * `serve --flows DIR --watch`: watches DIR recursively and re-registers a flow file when it changes, so
 * new runs start with its new content (runs already started keep the flow they started with). A file
 * that no longer is a valid flow leaves the registered flow as it was, with a warning; a removed file
 * leaves its flow registered. Files that are not flows are ignored. Logs every reload.
 */
export function watchFlows(registry: FlowRegistry, dir: string, logger: Logger): FlowWatch {
  const timers = new Map<string, NodeJS.Timeout>();
  const seen = new Map<string, string>();
  const watcher: FSWatcher = watch(dir, { recursive: true }, (_event, name) => {
    if (name === null || !candidatePath(name)) return;
    const file = join(dir, name);
    clearTimeout(timers.get(file));
    timers.set(
      file,
      setTimeout(() => {
        timers.delete(file);
        void reload(registry, file, seen, logger);
      }, SETTLE_MS),
    );
  });
  watcher.on('error', (error) => logger.error('FLOWS watching stopped', { dir, error }));
  return {
    close: () => {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      watcher.close();
    },
  };
}

/** Re-registers one changed file when it is a flow whose content changed; logs what happened. */
async function reload(
  registry: FlowRegistry,
  file: string,
  seen: Map<string, string>,
  logger: Logger,
): Promise<void> {
  try {
    const digest = createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
    if (seen.get(file) === digest || !(await isFlowFile(file))) return;
    seen.set(file, digest);
    const before = registry.list().find((f) => f.path === file);
    const info = await registry.registerFile(file);
    logger.info('FLOWS reloaded a changed flow file', { flowId: info.flowId, version: info.version, file });
    if (before && before.flowId === info.flowId && before.version === info.version)
      logger.warn(
        'FLOWS the flow changed but its version did not: bump `version` when you change its MCP servers or tools, so that new runs connect afresh',
        {
          flowId: info.flowId,
          version: info.version,
        },
      );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') logger.info('FLOWS a flow file was removed; its flow stays registered', { file });
    else if (isFlowError(error))
      logger.warn('FLOWS kept the registered flow: the changed file has problems', {
        file,
        problems: error.message,
      });
    else logger.error('FLOWS could not reload a flow file', { file, error });
  }
}
