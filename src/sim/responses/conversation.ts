// The text a simulated model answers to the studio's own conversations: the
// prompt builder and Agent Mode's planner. A real model follows their
// instructions; the simulator recognises them and answers in the form they
// ask for, from the words it was given, so two different requests get two
// different answers (tests and the offline demo tell them apart). Both the
// Responses vendor and the alpha planner use it.

const PLANNER = 'planner of an image workspace';
const BUILDER = 'prompt builder of an image studio';

const QUESTION = /\?\s*$|^(what|why|how|who|which|when|where|is|are|can|could|should|would|do|does|explain|describe|tell me)\b/i;
const EDIT =
  /\b(make (it|them|the)|change|turn (it|the)|add|remove|replace|recolou?r|give (it|the)|without|instead|more|less|brighter|darker|bigger|smaller)\b/i;
const VARIANTS = /\b(\d+)\s+(variants?|versions?|options?|variations?)\b/i;

/** The labelled fields of the workspace state (the simulators fold its lines into one). */
const LABELS = ['Current image prompt', 'Current image', 'Subject lock', 'Style lock', 'Forced action'] as const;

function fields(state: string): Partial<Record<(typeof LABELS)[number], string>> {
  const found = LABELS.flatMap((label) => {
    const match = new RegExp(`(^|\\s)${label}:`, 'i').exec(state);
    return match ? [{ label, start: match.index + match[1].length, valueAt: match.index + match[0].length }] : [];
  }).sort((a, b) => a.start - b.start);
  return Object.fromEntries(
    found.map((entry, index) => [entry.label, state.slice(entry.valueAt, found[index + 1]?.start ?? state.length).trim()]),
  );
}

/** The planner's JSON decision from the user's words and the workspace state the studio appends. */
function plannerAnswer(text: string, model: string): string {
  const [said, state = ''] = text.split(/\s*Workspace state:/);
  const words = said.trim();
  const workspace = fields(state);
  const hasCurrent = workspace['Current image'] === 'yes';
  const currentPrompt = workspace['Current image prompt'];
  const forced = workspace['Forced action'];
  const action = forced ?? (QUESTION.test(words) ? 'answer' : hasCurrent && EDIT.test(words) ? 'edit' : 'generate');
  const variants = Math.min(4, Math.max(1, Number(VARIANTS.exec(words)?.[1] ?? 1)));
  if (action === 'answer') {
    const about = currentPrompt ? `The current image shows ${currentPrompt}.` : 'There is no image in this workspace yet.';
    return JSON.stringify({ action, variants: 1, prompt: null, reply: `(${model}) On "${words}": ${about}` });
  }
  const prompt =
    action === 'edit' && currentPrompt ? `${words}, keeping the rest of ${currentPrompt}` : `${words}, detailed, balanced composition`;
  const reply = action === 'edit' ? `(${model}) I will edit the current image: ${words}.` : `(${model}) Here is a new image of ${words}.`;
  return JSON.stringify({ action, variants, prompt, reply });
}

/** The builder's advice and its suggested prompt line, from the user's words (and the prompt being improved). */
function builderAnswer(text: string, model: string): string {
  const [said, current] = text.split(/\s*Current prompt:\s*/);
  const subject = said.trim().replace(/\s+/g, ' ');
  const base = current?.trim() ? `${current.trim()}, ${subject}` : subject;
  const light = /night|dark|moon/i.test(base) ? 'cool moonlight' : 'warm golden-hour light';
  const advice = current?.trim()
    ? `(${model}) I kept "${current.trim()}" and worked in "${subject}".`
    : `(${model}) "${subject}" is a good start; naming the light, the framing and a style makes it sharper.`;
  return `${advice} Which style do you want?\nPrompt: ${base}, ${light}, wide framing, fine detail`;
}

/** The answer to one of the studio's conversations, or undefined for any other request. */
export function conversationAnswer(instructions: string | null | undefined, lastUserText: string, model: string): string | undefined {
  if (!instructions) return undefined;
  if (instructions.includes(PLANNER)) return plannerAnswer(lastUserText, model);
  if (instructions.includes(BUILDER)) return builderAnswer(lastUserText, model);
  return undefined;
}
