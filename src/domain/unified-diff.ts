/**
 * The unified diff of a file's change (OUT-9 `patch` rows): one hunk around the changed lines,
 * with up to `context` unchanged lines either side. The coding tools change one region per call
 * (an edit replaces one occurrence), so one hunk spans the whole change.
 *
 * @example
 * unifiedDiff("a.txt", "one\ntwo\n", "one\n2\n")
 * // "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
 */
export function unifiedDiff(file: string, before: string, after: string, context = 3): string {
  if (before === after) return "";
  const lines = (text: string): string[] => (text === "" ? [] : text.replace(/\n$/, "").split("\n"));
  const a = lines(before);
  const b = lines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const start = Math.max(0, head - context);
  const endA = Math.min(a.length, a.length - tail + context);
  const endB = Math.min(b.length, b.length - tail + context);
  // A hunk range is "first line,count"; an empty side names the line before it.
  const range = (count: number): string => `${count === 0 ? start : start + 1},${count}`;
  const body = [
    ...a.slice(start, head).map((line) => ` ${line}`),
    ...a.slice(head, a.length - tail).map((line) => `-${line}`),
    ...b.slice(head, b.length - tail).map((line) => `+${line}`),
    ...a.slice(a.length - tail, endA).map((line) => ` ${line}`),
  ];
  return [`--- a/${file}`, `+++ b/${file}`, `@@ -${range(endA - start)} +${range(endB - start)} @@`, ...body, ""].join("\n");
}
