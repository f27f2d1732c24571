import { SEARCH_MAX_WORDS } from '../assets.js';

// History's full-text search in PostgreSQL, without an extension: each row stores its words'
// prefixes as keys (a text[] under a GIN index), and a search asks for the rows holding every
// key of its words. The rules are those of the SQLite index (unicode61, remove_diacritics 2, and
// store/assets.ts searchExpression): a word is a run of letters and digits, case and accents
// folded; a word of two characters or more also matches the words it begins. Both sides fold in
// JS, with the one function below, so the database's locale never changes what matches.

/** Keys are prefixes up to this length; a longer search word is checked on the folded text too. */
const MAX_KEY = 32;

/** The words of a text, case and accents folded (accents: decomposed, then their marks dropped). */
export function foldedWords(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** What a row stores for search: the keys of its words, and its folded words (` a b c `, for the rare long search word). */
export function searchColumns(...texts: readonly (string | null)[]): { keys: string[]; text: string } {
  const words = texts.flatMap((text) => (text === null ? [] : foldedWords(text)));
  const keys = new Set<string>();
  for (const word of words) {
    const chars = [...word]; // characters, not UTF-16 units (a key never ends inside a pair)
    if (chars.length === 1) keys.add(word);
    for (let length = 2; length <= Math.min(chars.length, MAX_KEY); length += 1) keys.add(chars.slice(0, length).join(''));
  }
  return { keys: [...keys], text: ` ${words.join(' ')} ` };
}

/**
 * A search box's text as what a row must hold: every key, and each long word as the start of a
 * folded word (`% word%` patterns); undefined when the text holds no word.
 */
export function searchQuery(text: string): { keys: string[]; patterns: string[] } | undefined {
  const words = foldedWords(text).slice(0, SEARCH_MAX_WORDS);
  if (words.length === 0) return undefined;
  const characters = words.map((word) => [...word]);
  return {
    keys: [...new Set(characters.map((chars) => chars.slice(0, MAX_KEY).join('')))],
    // Folded words are letters and digits only: nothing in them is a LIKE wildcard.
    patterns: words.filter((_word, index) => characters[index].length > MAX_KEY).map((word) => `% ${word}%`),
  };
}
