// GET /api/demo (not in the spec): what a demo user can script. The demo room
// (src/demo/guide.ts) gathers it from the simulators and gives it to the studio.

export interface DemoGuide {
  /** How a trigger is written. */
  readonly syntax: string;
  /** The triggers each simulator knows, by the lanes (or media) it stands behind. */
  readonly triggers: Readonly<Record<string, readonly string[]>>;
  /** Which keys the demo refuses. */
  readonly rejectedKey: { readonly contains: string; readonly rule: string };
}
