/**
 * A general-knowledge RAG corpus from WordNet 3.0 (the Debian package wordnet-base): one line per noun synset whose
 * senses occur in WordNet's sense-tagged corpus (tag count > 0 in cntlist.rev, about 14,000 synsets, about 1.2 MB),
 * as `lemma, lemma: definition` (the gloss's example sentences dropped, underscores in lemmas read as spaces).
 * Lines are sorted and de-duplicated and nothing depends on the clock or the machine, so the same WordNet files give
 * the same bytes on every build.
 */
export interface WordnetSources {
  /** Content of `data.noun`: the noun synsets with their glosses. */
  dataNoun: string;
  /** Content of `cntlist.rev`: `sense_key sense_number tag_count` per line. */
  cntlistRev: string;
}

/** Noun sense keys with a positive tag count, cut to `lemma%1:lexfile:lexid` (what a data.noun entry yields). */
function taggedNounSenses(cntlistRev: string): Set<string> {
  const tagged = new Set<string>();
  for (const line of cntlistRev.split('\n')) {
    const [senseKey, , count] = line.split(' ');
    if (!senseKey || Number(count) <= 0) continue;
    const m = /^(.+%1:\d\d:\d\d):/.exec(senseKey);
    if (m) tagged.add(m[1]!);
  }
  return tagged;
}

/** `synset_offset lex_filenum ss_type w_cnt word lex_id [word lex_id...] p_cnt ... | gloss`, or undefined for a licence line. */
function parseSynset(line: string, file: string): { lexFile: string; words: Array<{ lemma: string; lexId: number }>; gloss: string } | undefined {
  if (!line || line.startsWith('  ')) return undefined;
  const bar = line.indexOf(' | ');
  if (bar < 0) throw new Error(`${file}: synset line without a gloss: ${line.slice(0, 60)}`);
  const fields = line.slice(0, bar).split(' ');
  const count = parseInt(fields[3] ?? '', 16);
  if (!Number.isInteger(count) || count < 1) throw new Error(`${file}: bad word count in: ${line.slice(0, 60)}`);
  const words = Array.from({ length: count }, (_, i) => ({ lemma: fields[4 + 2 * i]!, lexId: parseInt(fields[5 + 2 * i]!, 16) }));
  return { lexFile: fields[1]!, words, gloss: line.slice(bar + 3).trim() };
}

export function wordnetNounGlossCorpus(sources: WordnetSources, file = 'data.noun'): string {
  const tagged = taggedNounSenses(sources.cntlistRev);
  const lines = new Set<string>();
  for (const raw of sources.dataNoun.split('\n')) {
    const synset = parseSynset(raw, file);
    if (!synset) continue;
    const used = synset.words.some((w) => tagged.has(`${w.lemma.toLowerCase()}%1:${synset.lexFile}:${String(w.lexId).padStart(2, '0')}`));
    if (!used) continue;
    const definition = synset.gloss.split('; "')[0]!.trim();
    const lemmas = [...new Set(synset.words.map((w) => w.lemma.replace(/_/g, ' ')))];
    lines.add(`${lemmas.join(', ')}: ${definition}`);
  }
  if (lines.size === 0) throw new Error(`${file}: no tagged noun synset found (is this WordNet's data.noun, with cntlist.rev beside it?)`);
  return `${[...lines].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join('\n')}\n`;
}
