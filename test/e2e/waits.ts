import type { Locator, Page } from 'playwright-core';
import { expect, vi } from 'vitest';

/**
 * Web-first assertions for playwright-core (which has no `expect` of its own): each retries until
 * the page agrees or `TIMEOUT_MS` passes, since the console updates asynchronously (SSE, polling).
 */

const TIMEOUT_MS = 15_000;
const retry = { timeout: TIMEOUT_MS, interval: 50 };

/** The (first) element's text contains `expected` (a string) or matches it (a RegExp). */
export async function hasText(locator: Locator, expected: string | RegExp): Promise<void> {
  await vi.waitFor(async () => {
    const text = (await locator.first().textContent({ timeout: 1000 })) ?? '';
    if (typeof expected === 'string') expect(text).toContain(expected);
    else expect(text).toMatch(expected);
  }, retry);
}

/** The element's whole text (trimmed) is exactly `expected`. */
export async function textIs(locator: Locator, expected: string): Promise<void> {
  await vi.waitFor(
    async () => expect(((await locator.first().textContent({ timeout: 1000 })) ?? '').trim()).toBe(expected),
    retry,
  );
}

/** The locator matches exactly `n` elements. */
export async function countIs(locator: Locator, n: number): Promise<void> {
  await vi.waitFor(async () => expect(await locator.count()).toBe(n), retry);
}

/** The element is visible. */
export async function visible(locator: Locator): Promise<void> {
  await locator.first().waitFor({ state: 'visible', timeout: TIMEOUT_MS });
}

/** The element has the keyboard focus. */
export async function focused(locator: Locator): Promise<void> {
  await vi.waitFor(
    async () => expect(await locator.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true),
    retry,
  );
}

/** The page's URL is `url`. */
export async function urlIs(page: Page, url: string): Promise<void> {
  await page.waitForURL(url, { timeout: TIMEOUT_MS });
}
