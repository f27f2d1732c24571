import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChatPage, type ChatPage } from './page.js';

describe('the chat page shows goals, the PABCD phase and steering as they happen', () => {
  let chat: ChatPage;
  let page: Page;

  const send = (text: string) => chat.send(text);

  beforeAll(async () => {
    chat = await openChatPage({ chat: { goalMaxContinuations: 2 } });
    ({ page } = chat);
  }, 60_000);

  afterAll(async () => {
    await chat?.close();
  });

  it('steering: the running answer ends interrupted with its partial text, the steer note shows, the new prompt runs', async () => {
    await send('long job [fake:hang]');
    await page.waitForSelector('.run[data-status="running"] .text:has-text("Working on it…")');
    await send('/steer do this instead');
    await page.waitForSelector('.bubble.note.steer-note:has-text("Steered: do this instead")');
    await page.waitForSelector('.run[data-status="interrupted"] .text:has-text("Working on it…")');
    await page.waitForSelector('.run[data-status="ok"] .text:has-text("Echo: do this instead")');
  });

  it('a goal: set from the prompt box, its automatic turns, and done with evidence', async () => {
    await send('/goal set ship the release [fake:goaldone]');
    await page.waitForSelector('#goal[data-status="done"]');
    expect(await page.textContent('#goal-text')).toContain('ship the release');
    await page.waitForSelector('.bubble.note.goal-note:has-text("Goal done.")');
    await page.waitForSelector('.run[data-status="ok"] .text:has-text("[goal:done] evidence: all checks pass")');
  });

  it('a goal whose agent pauses twice: the notes, then automatic turns stop', async () => {
    await send('/goal set review with me [fake:goalpause]');
    await page.waitForSelector('.bubble.note.goal-note:has-text("The agent asked to pause the goal")');
    await page.waitForSelector('.bubble.note.goal-note:has-text("Automatic goal turns stopped (pause confirmed)")');
    await page.waitForSelector('#goal[data-status="active"][data-stopped="true"]');
    expect(await page.textContent('#goal-text')).toContain('pause gate pending');
  });

  it('the PABCD phase as it moves, also after a reload', async () => {
    await send('/orc start tidy up');
    await page.waitForSelector('#orc[data-phase="plan"][data-status="ok"]');
    await send('/orc next');
    await page.waitForSelector('#orc[data-phase="audit"][data-status="ok"]');
    expect(await page.textContent('#orc-text')).toBe('audit (ok) — tidy up');
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForSelector('#orc[data-phase="audit"][data-status="ok"]');
    await page.waitForSelector('#goal[data-status="active"]');
  });
});
