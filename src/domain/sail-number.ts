// Boats are listed by sail number in natural order: "GBR 9" before "GBR 10".

const collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });

export function compareSailNumbers(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}
