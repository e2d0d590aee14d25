#!/usr/bin/env node
/**
 * A small MCP server (stdio) over a to-do list kept in a JSON file (env TASKS_FILE, default
 * ./.data/tasks.json). `task_list` reads; `task_add` writes, so the flow asks a person first.
 * Replace it with your own system's tools, or point flow.yaml at an MCP server you already have.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const FILE = resolve(process.env.TASKS_FILE ?? '.data/tasks.json');

/** @returns {{ id: string, title: string, done: boolean }[]} */
function readTasks() {
  try {
    return JSON.parse(readFileSync(FILE, 'utf8'));
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
}

/** A task's id: its title in lower case, words joined by dashes (adding a title twice finds the same task). */
function idOf(title) {
  return title
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-|-$/g, '');
}

/** A tool result the runtime reads as JSON (its structuredContent). */
function result(value) {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

function createServer() {
  const server = new McpServer({ name: 'tasks', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'task_list',
    {
      description: 'Lists the tasks on the to-do list.',
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true },
    },
    async () => result({ tasks: readTasks() }),
  );
  server.registerTool(
    'task_add',
    {
      description:
        'Adds a task to the to-do list and returns it (an existing task with that title is returned as it is).',
      inputSchema: z.object({ title: z.string().min(1).describe('What is to be done') }),
      annotations: { readOnlyHint: false },
    },
    async ({ title }) => {
      const tasks = readTasks();
      const id = idOf(title);
      const found = tasks.find((task) => task.id === id);
      if (found) return result({ task: found, created: false });
      const task = { id, title: title.trim(), done: false };
      mkdirSync(dirname(FILE), { recursive: true });
      writeFileSync(FILE, `${JSON.stringify([...tasks, task], null, 2)}\n`);
      return result({ task, created: true });
    },
  );
  return server;
}

serveStdio(createServer);
