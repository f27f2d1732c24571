// What the CLI said (contract §4): stdout and stderr joined, carriage returns
// removed, blank lines dropped, then read in this order — the first `RESULT|`
// line, the first `ERROR|` line, quota wording anywhere, a `SAVED_PATH=` line,
// an artifact-looking absolute path. Nothing of these: `none` (the caller then
// scans the CLI's folders for the artifact).

export type CliOutput =
  | { readonly kind: 'artifact'; readonly path: string; readonly via: 'result' | 'saved-path' | 'path' }
  | { readonly kind: 'malformed-result'; readonly line: string }
  | { readonly kind: 'error'; readonly message: string; readonly quota: boolean }
  | { readonly kind: 'quota'; readonly text: string }
  | { readonly kind: 'none' };

/** Phrases of an exhausted quota in an `ERROR|` message. */
const QUOTA_IN_ERROR = /resource exhausted|exhausted your capacity|quota will reset/i;
/** Phrases of an exhausted quota anywhere in the output. */
const QUOTA_ANYWHERE = /resource exhausted|exhausted your capacity/i;
/** An absolute image path inside a CLI data folder (`/brain/`, `/artifacts/`, or the CLI home's own name). */
const ARTIFACT_PATH = (cliHomeName: string) =>
  new RegExp(
    `((?:[A-Za-z]:)?/[^\\s"'|<>]*?/(?:brain|artifacts|${cliHomeName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})/[^\\s"'|<>]*?\\.(?:png|jpe?g|webp))`,
    'i',
  );

export function parseCliOutput(stdout: string, stderr: string, cliHomeName: string): CliOutput {
  const text = `${stdout}\n${stderr}`.replace(/\r/g, '');
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const result = lines.find((line) => line.startsWith('RESULT|'));
  if (result) {
    const [, path, extension] = result.split('|');
    if (!path || !extension) return { kind: 'malformed-result', line: result.slice(0, 200) };
    return { kind: 'artifact', path, via: 'result' };
  }
  const error = lines.find((line) => line.startsWith('ERROR|'));
  if (error) {
    const message = error.slice('ERROR|'.length).trim() || 'the CLI reported an error without a message';
    return { kind: 'error', message, quota: QUOTA_IN_ERROR.test(message) };
  }
  const quota = lines.find((line) => QUOTA_ANYWHERE.test(line));
  if (quota) return { kind: 'quota', text: quota };
  const saved = lines.find((line) => line.startsWith('SAVED_PATH='));
  if (saved && saved.length > 'SAVED_PATH='.length)
    return { kind: 'artifact', path: saved.slice('SAVED_PATH='.length).trim(), via: 'saved-path' };
  const match = ARTIFACT_PATH(cliHomeName).exec(text.replace(/\\/g, '/'));
  if (match) return { kind: 'artifact', path: match[1], via: 'path' };
  return { kind: 'none' };
}
