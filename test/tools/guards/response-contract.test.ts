import { describe, expect, it } from 'vitest';
import { code } from '../../../src/domain/error-codes.js';
import { Observation } from '../../../src/domain/observation.js';
import { MemoryLogger } from '../../../src/log/logger.js';
import { catalogGuard } from '../../../src/tools/catalog.js';
import { argPolicyGuard } from '../../../src/tools/guards/arg-policy.js';
import { applyResponseContract, responseContractGuard } from '../../../src/tools/guards/response-contract.js';
import { cloudTools, harness, parts } from './fixtures.js';

const contract = { okPath: 'code', okValues: [0], codePath: 'code', messagePath: 'message' };
const logger = new MemoryLogger();

describe('ResponseContract alone', () => {
  it('a downstream error code goes into the reason; the runtime code is TOOL_BUSINESS_FAILED with NEXT_BUSINESS', async () => {
    const body = { code: 'system.50001', message: '站点名称已存在' };
    const obs = await applyResponseContract(contract, Observation.success('调用成功', body), 'zh-CN', logger);
    expect(parts(obs)).toEqual({
      outcome: 'FAILED',
      code: 'TOOL_BUSINESS_FAILED',
      reason: '业务失败 [system.50001]：站点名称已存在',
      next: '根据业务失败原因修正后再调用；无法修正时调用 builtin_node_follow_up 向用户说明并询问如何处理',
      message:
        '业务失败 [system.50001]：站点名称已存在。下一步：根据业务失败原因修正后再调用；无法修正时调用 builtin_node_follow_up 向用户说明并询问如何处理。',
    });
    expect(obs.data).toEqual(body);
    const en = await applyResponseContract(contract, Observation.success('ok', body), 'en', logger);
    expect(en.message('en')).toBe(
      'Business failure [system.50001]: 站点名称已存在. Next: fix the cause of the business failure and call again; if you cannot, explain it to the user with builtin_node_follow_up and ask how to go on.',
    );
  });

  it('without a downstream code the reason is 业务失败：<message>', async () => {
    const obs = await applyResponseContract(
      { okPath: 'success', okValues: [true], messagePath: 'error.msg' },
      Observation.success('x', { success: false, error: { msg: '余额不足' } }),
      'zh-CN',
      logger,
    );
    expect(parts(obs)).toMatchObject({ code: 'TOOL_BUSINESS_FAILED', reason: '业务失败：余额不足' });
    const none = await applyResponseContract(
      { okPath: 'success', okValues: [true] },
      Observation.success('x', {}),
      'en',
      logger,
    );
    expect(none.reason).toBe('Business failure: (no message)');
  });

  it('ok values compare as normalised scalars; failures and missing contracts pass unchanged', async () => {
    const ok = Observation.success('x', { code: '0' });
    expect(await applyResponseContract(contract, ok, 'zh-CN', logger)).toBe(ok);
    const failed = Observation.failed(code('TOOL_TIMEOUT'), 'r', 'n');
    expect(await applyResponseContract(contract, failed, 'zh-CN', logger)).toBe(failed);
    expect(await applyResponseContract(undefined, ok, 'zh-CN', logger)).toBe(ok);
  });

  it('as a guard it judges executed calls of the tool’s policy (web_site_list has one in the site flow)', async () => {
    const h = harness({ localTools: cloudTools().tools });
    const { obs } = await h.through(
      { checks: [catalogGuard(), argPolicyGuard()], after: [responseContractGuard()] },
      'web_site_list',
      { spaceId: 'sp_9' },
    );
    expect(parts(obs)).toMatchObject({
      outcome: 'FAILED',
      code: 'TOOL_BUSINESS_FAILED',
      reason: '业务失败 [system.40401]：空间不存在',
    });
  });
});
