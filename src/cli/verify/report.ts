/**
 * The verifier kit's output: one line per check (ok, note, FAIL), with the failures counted.
 *
 * @module
 */

/** `2, 5-7` for [2, 5, 6, 7]. */
export function ranges(numbers: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < numbers.length; i++) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j] + 1) j++;
    parts.push(i === j ? `${numbers[i]}` : `${numbers[i]}-${numbers[j]}`);
    i = j;
  }
  return parts.join(", ");
}

/** Prints one line per check and counts the failures. */
export class Report {
  failures = 0;
  constructor(readonly out: (line: string) => void) {}
  pass(line: string) {
    this.out(`ok    ${line}`);
  }
  note(line: string) {
    this.out(`note  ${line}`);
  }
  fail(line: string) {
    this.failures++;
    this.out(`FAIL  ${line}`);
  }
}
