// The UI's Monaco editor from a Chromium test: the page exposes the mounted editor as
// window.__kubedeskEditor (YAML tab, create-from-YAML), so tests read and replace its text directly.
import type { Page } from 'playwright-core';
import { until } from './wait';

export async function editorValue(page: Page): Promise<string> {
  return page.evaluate(() => (window as unknown as { __kubedeskEditor?: { getValue(): string } }).__kubedeskEditor?.getValue() ?? '');
}

/** Waits for the editor, replaces its text and waits until it holds exactly that text. */
export async function setEditor(page: Page, text: string): Promise<void> {
  await page.waitForFunction(() => (window as unknown as { __kubedeskEditor?: unknown }).__kubedeskEditor !== undefined, undefined, { timeout: 30_000 });
  await page.evaluate((value) => (window as unknown as { __kubedeskEditor: { setValue(text: string): void } }).__kubedeskEditor.setValue(value), text);
  await until('the editor to hold the text', async () => ((await editorValue(page)) === text ? true : undefined), 10_000, 100);
}
