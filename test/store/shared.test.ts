import { describe, expect, it } from 'vitest';
import { PATCH_FIELDS } from '../../src/store/checks.js';
import {
  DEFINITION_COLUMNS,
  DefinitionCache,
  NEW_RUN_COLUMNS,
  PATCH_COLUMNS,
  abandonedSql,
  deepFreeze,
  leaseFree,
  leaseFreeSql,
  leaseSql,
  listConditions,
  listLimit,
  patchedColumns,
  refusedCommit,
  whereSql,
} from '../../src/store/shared.js';
import { StoreError, type Commit, type NewRun, type RunPatch } from '../../src/store/store.js';
import { runState } from '../../src/testing/store-contract/helpers.js';

/** What the memory, SQLite and PostgreSQL stores share beyond the checks (src/store/shared.ts). */

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('deepFreeze', () => {
  it('freezes an object and everything in it, and returns the same value', () => {
    const value = { flow: { nodes: [{ id: 'a', tools: ['x'] }] }, n: 1 };
    expect(deepFreeze(value)).toBe(value);
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.flow.nodes)).toBe(true);
    expect(Object.isFrozen(value.flow.nodes[0]?.tools)).toBe(true);
    expect(() => {
      (value.flow.nodes as unknown[]).push({});
    }).toThrow(TypeError);
  });

  it('leaves primitives and null as they are', () => {
    expect(deepFreeze(3)).toBe(3);
    expect(deepFreeze('x')).toBe('x');
    expect(deepFreeze(null)).toBeNull();
    expect(deepFreeze(undefined)).toBeUndefined();
  });
});

describe('DefinitionCache.remember', () => {
  it('hands out the definition frozen, input included', () => {
    const cache = new DefinitionCache();
    const definition = cache.remember('r1', {
      flow: { id: 'f', locale: 'en', nodes: [{ id: 'main' }] },
      input: { text: 'hi', lines: [1] },
    });
    expect(Object.isFrozen(definition.flow)).toBe(true);
    expect(Object.isFrozen(definition.input)).toBe(true);
    expect(Object.isFrozen((definition.input as { lines: number[] }).lines)).toBe(true);
    expect(cache.get('r1')).toBe(definition);
  });

  it('refuses a stored flow that is not a flow with BAD_DOCUMENT, and keeps nothing', () => {
    const cache = new DefinitionCache();
    const error = thrown(() => cache.remember('r1', { flow: { id: 'f' }, input: null }));
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'BAD_DOCUMENT' });
    expect((error as Error).message).toMatch(/^run r1 cannot be read: its flow does not fit this version/);
    expect(cache.get('r1')).toBeUndefined();
    expect(cache.held.count).toBe(0);
  });
});

describe('refusedCommit', () => {
  const commit: Commit = { runId: 'r1', expectedVersion: 3, patch: {} };

  it('a run that is not there: VERSION_CONFLICT with actual null', () => {
    const error = thrown(() => refusedCommit(commit, undefined));
    expect(error).toMatchObject({ code: 'VERSION_CONFLICT', runId: 'r1', expected: 3, actual: null });
    expect((error as Error).message).toBe('run r1 is at version none, not 3');
  });

  it('another version: VERSION_CONFLICT naming both', () => {
    const error = thrown(() => refusedCommit(commit, { version: 4, lastSeq: 0 }));
    expect(error).toMatchObject({ code: 'VERSION_CONFLICT', expected: 3, actual: 4 });
  });

  it('the right version but events not above the stored seq: INVALID_APPEND', () => {
    const events = [{ seq: 5, ts: 't', runId: 'r1', type: 'react.round' }];
    const error = thrown(() => refusedCommit({ ...commit, events }, { version: 3, lastSeq: 5 }));
    expect(error).toMatchObject({ code: 'INVALID_APPEND' });
    expect((error as Error).message).toBe('event seq 5 of run r1 is not above 5');
  });

  it('nothing to blame: a plain Error, a bug rather than a refusal', () => {
    const error = thrown(() => refusedCommit(commit, { version: 3, lastSeq: 0 }));
    expect(error).not.toBeInstanceOf(StoreError);
    expect((error as Error).message).toBe('commit of run r1 refused for no known reason');
  });
});

describe('PATCH_COLUMNS and patchedColumns', () => {
  it('has one column per patchable field, in the order of PATCH_FIELDS', () => {
    expect(PATCH_COLUMNS.map((c) => c.field)).toEqual([...PATCH_FIELDS]);
    expect(PATCH_COLUMNS.find((c) => c.field === 'failedNode')?.column).toBe('failed_node');
    expect(PATCH_COLUMNS.find((c) => c.field === 'leaseExpiresAt')).toMatchObject({
      column: 'lease_expires_at',
      cast: 'bigint',
    });
  });

  it('only the fields a patch sets: present and not undefined (null sets the column to NULL)', () => {
    const patch: RunPatch = { status: 'failed', reason: undefined, suspension: null, leaseExpiresAt: 0 };
    expect(patchedColumns(patch).map((c) => c.field)).toEqual(['status', 'suspension', 'leaseExpiresAt']);
    expect(patchedColumns({})).toEqual([]);
  });

  it('stores each value as its column wants it', () => {
    const value = (field: keyof RunPatch, patch: RunPatch) =>
      PATCH_COLUMNS.find((c) => c.field === field)?.value(patch);
    expect(value('suspension', { suspension: null })).toBeNull();
    expect(value('usage', {})).toBe('null');
    expect(value('outputs', { outputs: { a: { n: 1 } } })).toBe('{"a":{"n":1}}');
    expect(value('state', {})).toBeNull();
    expect(value('state', { state: runState('r1') })).toBe(JSON.stringify(runState('r1')));
    expect(value('leaseExpiresAt', { leaseExpiresAt: 1234 })).toBe(1234);
    expect(value('leaseOwner', { leaseOwner: null })).toBeNull();
  });
});

describe('NEW_RUN_COLUMNS', () => {
  const run = {
    runId: 'r1',
    parentRunId: null,
    rootRunId: 'r1',
    tenant: null,
    flowId: 'f',
    flowVersion: '1',
    flow: { id: 'f' },
    flowDir: null,
    model: 'scripted:/t.json',
    input: { text: 'hi' },
    status: 'running',
    suspension: null,
    reason: null,
    failedNode: null,
    message: null,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    outputs: {},
    state: runState('r1'),
    leaseOwner: 'w1',
    leaseExpiresAt: 99,
  } as unknown as NewRun;
  const at = { lastSeq: 2, ts: '2026-01-01T00:00:00.000Z' };
  const values = Object.fromEntries(NEW_RUN_COLUMNS.map((c) => [c.column, c.value(run, at)]));

  it('names every column once, the definition columns among them', () => {
    const columns = NEW_RUN_COLUMNS.map((c) => c.column);
    expect(new Set(columns).size).toBe(columns.length);
    for (const column of DEFINITION_COLUMNS) expect(columns).toContain(column);
    expect([...DEFINITION_COLUMNS].sort()).toEqual(['flow', 'input']);
  });

  it('a fresh run is at version 1, with the given last seq and time as created and updated', () => {
    expect(values).toMatchObject({
      version: 1,
      last_seq: 2,
      created_at: at.ts,
      updated_at: at.ts,
      run_id: 'r1',
      root_run_id: 'r1',
      lease_owner: 'w1',
      lease_expires_at: 99,
    });
  });

  it('JSON columns as text, null ones as SQL NULL except the ones that hold JSON null', () => {
    expect(values.flow).toBe('{"id":"f"}');
    expect(values.input).toBe('{"text":"hi"}');
    expect(values.suspension).toBeNull();
    expect(values.outputs).toBe('{}');
    expect(values.parent_run_id).toBeNull();
    expect(values.tenant).toBeNull();
  });
});

describe('leases', () => {
  it('a run is free with no owner, no expiry, or an expiry at or before now', () => {
    expect(leaseFree({ leaseOwner: null, leaseExpiresAt: 500 }, 100)).toBe(true);
    expect(leaseFree({ leaseOwner: 'w1', leaseExpiresAt: null }, 100)).toBe(true);
    expect(leaseFree({ leaseOwner: 'w1', leaseExpiresAt: 100 }, 100)).toBe(true);
    expect(leaseFree({ leaseOwner: 'w1', leaseExpiresAt: 99 }, 100)).toBe(true);
    expect(leaseFree({ leaseOwner: 'w1', leaseExpiresAt: 101 }, 100)).toBe(false);
  });

  it('the SQL condition says the same, with `<=` for expired', () => {
    expect(leaseFreeSql('?')).toBe(
      '(lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= ?)',
    );
  });

  it('acquireLease takes a free run, or one its owner holds, and bumps the version', () => {
    const sql = leaseSql('runs', { runId: '$1', owner: '$2', expires: '$3', now: '$4', updatedAt: '$5' });
    expect(sql).toBe(
      'UPDATE runs SET lease_owner = $2, lease_expires_at = $3, version = version + 1, updated_at = $5 ' +
        'WHERE run_id = $1 AND ((lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= $4) OR lease_owner = $2)',
    );
  });

  it('abandoned runs: top-level running runs with no live lease, least recently updated first', () => {
    expect(abandonedSql('s.runs', ':now', ':limit')).toBe(
      "SELECT run_id FROM s.runs WHERE status = 'running' AND parent_run_id IS NULL " +
        'AND (lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= :now) ' +
        'ORDER BY updated_at, run_id LIMIT :limit',
    );
  });
});

describe('listRuns conditions', () => {
  function conditions(filter: Parameters<typeof listConditions>[0]): { where: string[]; bound: string[] } {
    const bound: string[] = [];
    const where = listConditions(filter, (value) => {
      bound.push(value);
      return `$${bound.length}`;
    });
    return { where, bound };
  }

  it('no filter, no condition, and an empty WHERE', () => {
    expect(conditions({})).toEqual({ where: [], bound: [] });
    expect(whereSql([])).toBe('');
  });

  it('binds status, tenant and parent as parameters, in that order', () => {
    expect(conditions({ status: 'failed', tenant: 'acme', parentRunId: 'r0' })).toEqual({
      where: ['status = $1', 'tenant = $2', 'parent_run_id = $3'],
      bound: ['failed', 'acme', 'r0'],
    });
    expect(whereSql(['a = 1', 'b = 2'])).toBe('WHERE a = 1 AND b = 2');
  });

  it('tenant null selects runs without a tenant, binding nothing', () => {
    expect(conditions({ tenant: null })).toEqual({ where: ['tenant IS NULL'], bound: [] });
  });

  it('a value is never written into the SQL', () => {
    const { where, bound } = conditions({ tenant: "x' OR '1'='1" });
    expect(where).toEqual(['tenant = $1']);
    expect(bound).toEqual(["x' OR '1'='1"]);
  });

  it('the limit is a non-negative integer, or null for none', () => {
    expect(listLimit({})).toBeNull();
    expect(listLimit({ limit: 10 })).toBe(10);
    expect(listLimit({ limit: 2.9 })).toBe(2);
    expect(listLimit({ limit: -5 })).toBe(0);
    expect(listLimit({ limit: Number.NaN })).toBeNull();
    expect(listLimit({ limit: Number.POSITIVE_INFINITY })).toBeNull();
    expect(listLimit({ limit: 0 })).toBe(0);
  });
});
