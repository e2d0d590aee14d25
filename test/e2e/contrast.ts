import type { Page } from 'playwright-core';

// The browser's globals used in the page function below, declared for this module only (the test
// project has no DOM library, and page.evaluate runs this code in the browser).
interface PageElement {
  parentElement: PageElement | null;
  tagName: string;
  disabled?: boolean;
  getBoundingClientRect(): { width: number; height: number; right: number };
  closest(selector: string): PageElement | null;
}
interface PageStyle {
  color: string;
  backgroundColor: string;
  fontSize: string;
  fontWeight: string;
  visibility: string;
}
interface PageText {
  parentElement: PageElement | null;
  textContent: string | null;
}
declare const document: {
  body: PageElement;
  createTreeWalker(root: PageElement, what: number): { nextNode(): PageText | null };
};
declare const NodeFilter: { SHOW_TEXT: number };
declare function getComputedStyle(element: PageElement): PageStyle;

/**
 * WCAG 2 contrast of every visible text on the page against the background it is drawn on
 * (the nearest ancestor with an opaque background colour). Returns one line per element below
 * 4.5:1 (3:1 for large text), empty when all pass.
 */
export function contrastProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    type Rgba = [number, number, number, number];
    const parse = (css: string): Rgba => {
      const m = /rgba?\(([^)]+)\)/.exec(css);
      if (!m) return [0, 0, 0, 0];
      const parts = (m[1] as string)
        .split(/[ ,/]+/)
        .filter(Boolean)
        .map(Number);
      return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0, parts[3] ?? 1];
    };
    const luminance = ([r, g, b]: Rgba): number => {
      const lin = (c: number): number => {
        const s = c / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    };
    const background = (el: PageElement | null): Rgba => {
      for (let node = el; node; node = node.parentElement) {
        const bg = parse(getComputedStyle(node).backgroundColor);
        if (bg[3] >= 0.99) return bg;
      }
      return [255, 255, 255, 1];
    };
    const problems: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const seen = new Set<PageElement>();
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      const el = text.parentElement;
      if (!el || seen.has(el) || !(text.textContent ?? '').trim()) continue;
      seen.add(el);
      const style = getComputedStyle(el);
      const box = el.getBoundingClientRect();
      if (style.visibility === 'hidden' || box.width === 0 || box.height === 0 || box.right < 0) continue;
      if (el.closest('[aria-hidden=true]') || (el.tagName === 'BUTTON' && el.disabled === true)) continue;
      const fg = luminance(parse(style.color));
      const bg = luminance(background(el));
      const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5))
        problems.push(
          `${ratio.toFixed(2)}:1 "${(text.textContent ?? '').trim().slice(0, 40)}" (${style.color} on ${getComputedStyle(el).backgroundColor})`,
        );
    }
    return problems;
  });
}
