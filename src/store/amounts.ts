// Token amounts stored so that text order is numeric order in both databases (SQLite has no 256-bit
// integer, PostgreSQL's numeric would need a second code path): the digit count in two digits, then the
// digits. 0 is "010", 1000 is "041000"; a balance of up to 99 digits (uint256 has 78) sorts right.

/** An amount (≥ 0) as its sortable text. */
export const sortableAmount = (amount: bigint): string => {
  const digits = amount.toString();
  return `${String(digits.length).padStart(2, '0')}${digits}`;
};

/** The amount a sortable text holds. */
export const amountOfSortable = (text: string): bigint => BigInt(text.slice(2));

/** The sortable text of 0: a holder at or below it holds nothing. */
export const SORTABLE_ZERO = sortableAmount(0n);
