/**
 * The first JSON value of the given kind in a model's answer: inside a fence (```json or bare) first, else the first
 * bracketed span of the answer that parses. Models wrap JSON in prose before and after it (which may hold brackets
 * of its own), so each opening bracket is tried against every later closing one, the longest span first.
 */
export function parseJsonAnswer(raw: string, open: '[' | '{'): unknown {
  const fence = /```(?:json)?[ \t]*\n([\s\S]*?)```/.exec(raw);
  const candidates = fence ? [fence[1], raw] : [raw];
  const close = open === '[' ? ']' : '}';
  for (const text of candidates) {
    for (let start = text.indexOf(open); start >= 0; start = text.indexOf(open, start + 1)) {
      for (let end = text.lastIndexOf(close); end > start; end = text.lastIndexOf(close, end - 1)) {
        try {
          return JSON.parse(text.slice(start, end + 1));
        } catch {
          // keep shrinking: models add prose after the JSON
        }
      }
    }
  }
  return undefined;
}
