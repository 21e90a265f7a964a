import type { Page } from 'playwright-core';

export interface ContrastFailure { text: string; tag: string; ratio: number; needed: number; colour: string; background: string }

/**
 * Every visible text of the page (elements with their own text, outside SVG charts, not disabled) whose colour
 * against its effective background (the first opaque background up the tree, translucent ones composited onto it)
 * is below WCAG AA: 4.5:1, or 3:1 for large text (24 px, or 18.66 px bold).
 */
export function contrastFailures(page: Page): Promise<ContrastFailure[]> {
  return page.evaluate(contrastScript) as Promise<ContrastFailure[]>;
}

// Runs in the page (plain JavaScript: this project's TypeScript has no DOM library).
const contrastScript = `(() => {
  const parse = (c) => {
    const m = c.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return [0, 0, 0, 0];
    const p = m[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, bottom) => {
    const a = top[3] + bottom[3] * (1 - top[3]);
    if (a === 0) return [255, 255, 255, 0];
    return [0, 1, 2].map((i) => (top[i] * top[3] + bottom[i] * bottom[3] * (1 - top[3])) / a).concat(a);
  };
  const luminance = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const bg = parse(getComputedStyle(e).backgroundColor);
      if (bg[3] > 0) layers.push(bg);
      if (bg[3] >= 1) break;
    }
    let out = [255, 255, 255, 1];
    for (const l of layers.reverse()) out = over(l, out);
    return out;
  };
  const failures = [];
  for (const el of Array.from(document.querySelectorAll('body *'))) {
    if (el.closest('svg') || el.disabled || el.closest('[aria-hidden=true]')) continue;
    const own = Array.from(el.childNodes).filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent || '').join('').trim();
    if (!own) continue;
    const rect = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (rect.width === 0 || rect.height === 0 || style.visibility === 'hidden' || Number(style.opacity) === 0) continue;
    const bg = background(el);
    const fg = over(parse(style.color), bg);
    const [l1, l2] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
    const ratio = (l1 + 0.05) / (l2 + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    const needed = large ? 3 : 4.5;
    if (ratio < needed - 0.005) {
      failures.push({ text: own.slice(0, 60), tag: el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : ''),
        ratio: Math.round(ratio * 100) / 100, needed, colour: style.color, background: 'rgb(' + bg.slice(0, 3).map(Math.round).join(', ') + ')' });
    }
  }
  return failures;
})()`;

/** How much wider than the viewport the page is (0 when it fits): the document's scroll width over the window's. */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate('Math.max(0, document.documentElement.scrollWidth - window.innerWidth, document.body.scrollWidth - window.innerWidth)') as Promise<number>;
}
