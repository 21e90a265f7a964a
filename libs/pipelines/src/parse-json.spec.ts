import { parseJsonAnswer } from './parse-json';
import { parseSubQuestions } from './methods/r3/sub-questions';
import { parseTableList } from './methods/r3/table-list';

describe('parseJsonAnswer: JSON inside the prose models wrap it in', () => {
  it.each([
    ['bare', '["a", "b"]', ['a', 'b']],
    ['fenced with prose around', 'Here you go:\n```json\n["a", "b"]\n```\nHope this helps.', ['a', 'b']],
    ['trailing text with brackets', '["a", "b"]\n\nNote: [b] depends on [a].', ['a', 'b']],
    ['leading prose with a bracket', 'The list [as asked]: ["a"] done', ['a']],
    ['nested arrays', '[["a", 1], ["b", 2]] and more]', [['a', 1], ['b', 2]]],
  ])('%s', (_what, raw, expected) => {
    expect(parseJsonAnswer(raw, '[')).toEqual(expected);
  });

  it('reads an object followed by an explanation', () => {
    expect(parseJsonAnswer('{"tables": {"t": "keep_all"}}\nI kept t because {it} matters.', '{')).toEqual({ tables: { t: 'keep_all' } });
  });

  it('answers undefined when nothing parses', () => {
    expect(parseJsonAnswer('no json here [nor here', '[')).toBeUndefined();
  });

  it('is what R3 reads sub-questions and table lists with', () => {
    // The greedy [\s\S]* match took the trailing "[1]" into the array and fell back to reading lines.
    expect(parseSubQuestions('["How many singers?", "Which is oldest?"]\nSee step [1] first.')).toEqual({ ok: true, subQuestions: ['How many singers?', 'Which is oldest?'] });
    expect(parseTableList('["singer", "concert"] (the [stadium] table is not needed)')).toEqual({ ok: true, names: ['singer', 'concert'] });
  });
});
