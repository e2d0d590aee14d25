import { describe, expect, it } from 'vitest';
import { createProviderRegistry, ModelError, type ModelErrorCode } from '../../src/index.js';
import { classifyFailure } from '../../src/model/ai-sdk/errors.js';
import { fromStream } from '../../src/model/ai-sdk/response.js';
import { modelTimeout } from '../../src/model/errors.js';

/** The model layer's errors: one class with a code, named by code as the classes before codes were. */

const NAMES: Record<ModelErrorCode, string> = {
  CONFIG: 'ModelConfigError',
  TIMEOUT: 'ModelTimeoutError',
  STREAM: 'ModelStreamError',
};

function streamOf(parts: unknown[]): ReadableStream<unknown> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

describe('ModelError', () => {
  it.each(Object.entries(NAMES))(
    '%s keeps the name its class had (failure messages show it)',
    (code, name) => {
      expect(new ModelError(code as ModelErrorCode, 'x').name).toBe(name);
    },
  );

  it('a missing key is a ModelError CONFIG', () => {
    const thrown = (() => {
      try {
        createProviderRegistry({ env: {} })('openai', 'gpt-4.1');
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(thrown).toBeInstanceOf(ModelError);
    expect(thrown).toMatchObject({
      code: 'CONFIG',
      name: 'ModelConfigError',
      message: 'model openai:gpt-4.1: OPENAI_API_KEY is not set',
    });
  });

  it('a TIMEOUT is retryable and says how long it waited', () => {
    const error = modelTimeout(1500);
    expect(error).toMatchObject({ code: 'TIMEOUT', timeoutMs: 1500, message: 'timed out after 1500 ms' });
    expect(classifyFailure(error)).toEqual({
      message: 'timed out after 1500 ms',
      detail: 'timed out after 1500 ms',
      retryable: true,
      retryAfterMs: null,
    });
  });

  it('a stream that ends unfinished is a STREAM error, described with its old name', async () => {
    const error = await fromStream(streamOf([{ type: 'text-delta', delta: 'hi' }])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).code).toBe('STREAM');
    expect(classifyFailure(error).detail).toBe(
      'ModelStreamError: the response stream ended before the model finished',
    );
    // Viewers see its kind only: a stream's error part may carry the provider's text.
    expect(classifyFailure(error).message).toBe("the provider's answer could not be used (ModelStreamError)");
    const part = await fromStream(streamOf([{ type: 'error', error: { message: 'overloaded' } }])).catch(
      (e: unknown) => e,
    );
    expect(part).toMatchObject({ code: 'STREAM', message: 'overloaded' });
  });
});
