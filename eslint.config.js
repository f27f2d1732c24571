import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The layers of src/ (docs/ARCHITECTURE.md, "Layers"): each room and the rooms it may import, as data.
// A room imports its own files and those of the rooms listed; any other room of src/ is refused.
// manager imports chat: it is a client of the chat servers it follows (their token proof).
const ROOMS = {
  common: [],
  sim: ['common'],
  studio: ['common'],
  chat: ['common'],
  manager: ['common', 'chat'],
  demo: ['common', 'studio', 'sim'],
  cli: ['common', 'studio', 'chat', 'manager', 'demo'],
};

// A lane is one folder: no file of src/ outside src/studio/lanes/ but the registry imports a lane's folder
// (src/studio/lanes/<lane>/...). Tests and benches may reach into a lane to test it.
const LANE_FOLDERS_ARE_PRIVATE = true;
const LANE_FOLDER_IMPORTERS = ['src/studio/lanes/**', 'src/studio/catalog/registry.ts'];

const SOURCES = '**/*.{ts,tsx,js,mjs}';
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
// Specifiers are relative ('../../studio/errors.js'): a room is reached by climbing up to src/ and entering it.
// No folder inside a room is named like a room, so the first folder after the climb is the room.
const roomPattern = (rooms) => `^(\\.\\./)+(${rooms.map(escape).join('|')})/`;
const LANE_FOLDER_PATTERN = '(^|/)lanes/[^/]+/';

/** The restrictions of one room, lanes' folders included or not, for static imports and import() (whose selector regex cannot hold a slash). */
function restrictions(room, laneFoldersPrivate) {
  const refused = Object.keys(ROOMS).filter((other) => other !== room && !ROOMS[room].includes(other));
  const rules = [];
  if (refused.length > 0)
    rules.push({
      regex: roomPattern(refused),
      message: `src/${room} may import only ${['itself', ...ROOMS[room]].join(', ')} (eslint.config.js ROOMS; docs/ARCHITECTURE.md, Layers).`,
    });
  if (laneFoldersPrivate)
    rules.push({
      regex: LANE_FOLDER_PATTERN,
      message:
        "A lane's folder is imported only inside src/studio/lanes/ and by src/studio/catalog/registry.ts: reach a lane through the registry.",
    });
  return {
    'no-restricted-imports': ['error', { patterns: rules.map(({ regex, message }) => ({ regex, message })) }],
    'no-restricted-syntax': [
      'error',
      ...rules.map(({ regex, message }) => ({ selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\x2F')}/]`, message })),
    ],
  };
}

const layerRules = Object.keys(ROOMS).flatMap((room) => [
  { files: [`src/${room}/${SOURCES}`], ignores: LANE_FOLDER_IMPORTERS, rules: restrictions(room, LANE_FOLDERS_ARE_PRIVATE) },
  ...(room === 'studio' ? [{ files: LANE_FOLDER_IMPORTERS, rules: restrictions(room, false) }] : []),
]);

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'web/**/vendor/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        document: 'readonly',
        window: 'readonly',
        localStorage: 'readonly',
        EventSource: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-control-regex': 'off',
    },
  },
  ...layerRules,
);
