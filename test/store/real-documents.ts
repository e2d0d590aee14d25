import { runState } from '../../src/testing/store-contract/helpers.js';

/**
 * The frozen table fixtures (fixtures/*.sql) were written before stores decoded run documents: their
 * documents (`state`, the child's flow, the pending item) are hand-made placeholders no runtime ever
 * wrote. These statements swap them for real documents of version 1 after a fixture is loaded and
 * before the store opens it; the table layout, which those tests are about, stays as frozen. Real run
 * documents written by real runs are the corpus in test/fixtures/run-documents.
 *
 * `table(name)` names a table (PostgreSQL schema-qualified); `flows` is the table that holds the flow.
 */
export function realDocumentSql(table: (name: string) => string, flows: 'runs' | 'run_definitions'): string {
  const quote = (value: unknown): string => `'${JSON.stringify(value).replaceAll("'", "''")}'`;
  const pending = { tool: 'site_create', args: { name: 'Alpha' }, summary: 'create site Alpha' };
  return [
    `UPDATE ${table('runs')} SET state = ${quote(runState('run_v1'))} WHERE run_id = 'run_v1'`,
    `UPDATE ${table('runs')} SET state = ${quote(runState('run_v1_child'))} WHERE run_id = 'run_v1_child'`,
    `UPDATE ${table('runs')} SET suspension = ${quote({ kind: 'APPROVAL', pending })} WHERE suspension IS NOT NULL`,
    `UPDATE ${table(flows)} SET flow = ${quote({ id: 'lookup', nodes: [{ id: 'find' }] })} WHERE run_id = 'run_v1_child'`,
  ].join(';\n');
}
