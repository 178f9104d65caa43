/** Debian's headless Chromium through playwright-core (never a downloaded browser). */
import { chromium, type Browser, type Page } from 'playwright-core';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/**
 * How the page's own font draws each of `chars` (one PNG data URL per character, on a canvas): two
 * characters the machine has no font for come out as the same empty box (tofu), so equal drawings of
 * different characters mean "not rendered".
 */
export function drawnCharacters(page: Page, chars: readonly string[]): Promise<string[]> {
  return page.evaluate((list) => {
    const family = getComputedStyle(document.body).fontFamily;
    return list.map((char) => {
      const canvas = document.createElement('canvas');
      canvas.width = 48;
      canvas.height = 48;
      const context = canvas.getContext('2d')!;
      context.font = `32px ${family}`;
      context.fillText(char, 4, 38);
      return canvas.toDataURL();
    });
  }, [...chars]);
}

/**
 * Fails unless the page draws Japanese as glyphs (the language switcher's 日本語, the ja pages): without
 * a CJK font (Debian's fonts-noto-cjk, installed by .ci/run) 日, 本 and 語 are all the same box.
 */
export async function assertDrawsJapanese(page: Page): Promise<void> {
  const [nichi, hon, go, unassigned] = await drawnCharacters(page, ['日', '本', '語', '\u{10FFFD}']);
  const distinct = new Set([nichi, hon, go, unassigned]).size;
  if (distinct !== 4) throw new Error('Chromium draws 日本語 as empty boxes: install a CJK font (apt-get install fonts-noto-cjk)');
}
