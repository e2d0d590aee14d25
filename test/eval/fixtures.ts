import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';

/** The official filesystem MCP server's entry point (a devDependency). */
export const FS_SERVER = resolve(
  import.meta.dirname,
  '../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
);

/** A temporary eval project: a notes flow over the filesystem server, with helpers to write files into it. */
export class EvalProject {
  readonly dir = mkdtempSync(join(tmpdir(), 'eval-test-'));
  /** The folder the filesystem server may use. */
  readonly files = join(this.dir, 'files');

  constructor() {
    mkdirSync(this.files);
  }

  /** Writes a file of the project (objects as YAML) and returns its path. */
  write(name: string, content: unknown): string {
    const path = join(this.dir, name);
    writeFileSync(path, typeof content === 'string' ? content : stringify(content));
    return path;
  }

  /** The notes flow: `write_file` is a write (gated), `read_text_file` a read. */
  flow(extra: Record<string, unknown> = {}): string {
    return this.write('flow.yaml', {
      id: 'notes',
      version: 1,
      locale: 'en',
      mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, this.files] } },
      limits: { maxRounds: 8, maxStalls: 3, fingerprintRepeats: 2 },
      tools: { write_file: { write: true } },
      nodes: [
        {
          id: 'main',
          instructions: 'Write the note the user asks for.',
          tools: ['write_file', 'read_text_file'],
        },
      ],
      ...extra,
    });
  }

  /** The path of a note in the server's folder. */
  note(name: string): string {
    return join(this.files, name);
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Scripted turns of a model that writes `content` to `path`, asks for approval, writes, and finishes. */
export function writerTurns(path: string, content: string, summary: string): unknown {
  const write = { tool: 'write_file', args: { path, content } };
  return {
    turns: [
      { calls: [write] },
      { calls: [{ tool: 'builtin_node_approval', args: { tool: 'write_file', summary: `write ${path}` } }] },
      { calls: [write] },
      { calls: [{ tool: 'builtin_node_finish', args: { summary } }] },
    ],
  };
}
