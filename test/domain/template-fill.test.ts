import { describe, expect, it } from 'vitest';
import { fill } from '../../src/domain/template-fill.js';

/** The `{name}` placeholders of the texts the model sees (reasons and next steps). */

describe('fill', () => {
  it('fills every placeholder, numbers as text, the same one as often as it appears', () => {
    expect(fill('Tool {tool} timed out after {ms} ms; {tool} again?', { tool: 'q', ms: 300 })).toBe(
      'Tool q timed out after 300 ms; q again?',
    );
    expect(fill('{a}{b}', { a: 'x', b: 0 })).toBe('x0');
  });

  it('leaves an unknown placeholder visible, and text without placeholders as it is', () => {
    expect(fill('Tool {tool} failed: {detail}', { tool: 't' })).toBe('Tool t failed: {detail}');
    expect(fill('no placeholders here', { tool: 't' })).toBe('no placeholders here');
    expect(fill('{ spaced } {not-a-name} {}', { spaced: 'x' })).toBe('{ spaced } {not-a-name} {}');
  });

  it('fills zh-CN texts the same way', () => {
    expect(fill('工具 {tool} 调用超时（{timeoutMs} ms）', { tool: 'slow_query', timeoutMs: 250 })).toBe(
      '工具 slow_query 调用超时（250 ms）',
    );
  });

  it('does not fill a placeholder inside a value', () => {
    expect(fill('{a} and {b}', { a: '{b}', b: 'B' })).toBe('{b} and B');
  });

  it('gives the same text when a template is filled again with other values (split once, kept)', () => {
    const template = 'run {id} is {status}';
    expect(fill(template, { id: 'r1', status: 'done' })).toBe('run r1 is done');
    expect(fill(template, { id: 'r2' })).toBe('run r2 is {status}');
  });
});
