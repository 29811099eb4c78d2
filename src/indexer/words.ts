// Search words of a token: the lower-case runs of letters and digits of its name and symbol. Search
// matches a query word as a prefix of these, by an index range [word, word with its last character
// bumped), which byte order keeps contiguous.
export function searchWords(...texts: string[]): string[] {
  const words = texts.flatMap((t) => t.toLowerCase().match(/[a-z0-9]+/g) ?? []);
  return [...new Set(words.map((w) => w.slice(0, 64)))];
}

/** The search words of texts as one text, each after a space: holding ` w` means a word starts with w. */
export function searchText(...texts: string[]): string {
  return searchWords(...texts)
    .map((w) => ` ${w}`)
    .join('');
}

/** The exclusive upper bound of the words that start with `prefix` ([a-z0-9] only). */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
