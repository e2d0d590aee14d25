import { describe, expect, it } from 'vitest';
import {
  createStderrLogger,
  formatRecord,
  isLogLevel,
  MemoryLogger,
  silentLogger,
} from '../../src/log/logger.js';

describe('formatRecord', () => {
  it('prints one line: LEVEL message key=value…', () => {
    expect(formatRecord('warn', 'TOOL invoked', { tool: 'x', outcome: 'FAILED', code: 'TOOL_TIMEOUT' })).toBe(
      'WARN TOOL invoked tool=x outcome=FAILED code=TOOL_TIMEOUT',
    );
  });

  it('quotes values with spaces, quotes or newlines; leaves out undefined; prints numbers, null, errors, objects', () => {
    const line = formatRecord('info', 'MCP  server\nexited', {
      server: 'cloud',
      stderr: 'boom: line one\nline two',
      pid: 42,
      gone: undefined,
      none: null,
      error: new Error('connect ECONNREFUSED'),
      args: { a: [1, 2] },
    });
    expect(line).toBe(
      'INFO MCP  server exited server=cloud stderr="boom: line one\\nline two" pid=42 none=null error="connect ECONNREFUSED" args={"a":[1,2]}',
    );
    expect(line).not.toContain('\n');
  });

  it('survives values JSON cannot print', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(formatRecord('debug', 'm', { cyclic, fn: () => 1 })).toMatch(
      /^DEBUG m cyclic="\[unserializable: .*\]" fn=\[function\]$/,
    );
  });
});

describe('loggers', () => {
  it('the stderr logger writes records at or above its level', () => {
    const lines: string[] = [];
    const logger = createStderrLogger({ level: 'warn', write: (l) => lines.push(l) });
    logger.debug('d');
    logger.info('i');
    logger.warn('TOOL invoked', { tool: 'x' });
    logger.error('e');
    expect(lines).toEqual(['WARN TOOL invoked tool=x', 'ERROR e']);
  });

  it('defaults to info', () => {
    const lines: string[] = [];
    const logger = createStderrLogger({ write: (l) => lines.push(l) });
    logger.debug('hidden');
    logger.info('REACT no_tool_calls', { node: 'query' });
    expect(lines).toEqual(['INFO REACT no_tool_calls node=query']);
  });

  it('the memory logger keeps records and formats them like the stderr one', () => {
    const logger = new MemoryLogger();
    logger.info('TOOL invoked', { tool: 'a', outcome: 'SUCCESS' });
    logger.warn('TOOL invoked', { tool: 'b', outcome: 'FAILED', code: 'TOOL_UNREACHABLE' });
    logger.debug('MCP stderr', { line: 'x' });
    expect(logger.records).toHaveLength(3);
    expect(logger.find('TOOL invoked').map((r) => r.level)).toEqual(['info', 'warn']);
    expect(logger.find(/^MCP/)).toHaveLength(1);
    expect(logger.lines()[1]).toBe('WARN TOOL invoked tool=b outcome=FAILED code=TOOL_UNREACHABLE');
  });

  it('the silent logger accepts everything and does nothing', () => {
    expect(() => {
      silentLogger.error('x', { a: 1 });
      silentLogger.debug('y');
    }).not.toThrow();
  });

  it('recognises level names', () => {
    expect(isLogLevel('warn')).toBe(true);
    expect(isLogLevel('trace')).toBe(false);
  });
});
