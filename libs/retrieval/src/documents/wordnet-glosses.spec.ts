import { wordnetNounGlossCorpus } from './wordnet-glosses';

// Three synsets in data.noun's format (licence header line first); cntlist.rev tags two of their senses.
const dataNoun = [
  '  1 This software and database is being provided to you, the LICENSEE, by',
  '02958343 06 n 05 car 0 auto 0 automobile 0 machine 1 motorcar 0 001 @ 03791235 n 0000 | a motor vehicle with four wheels; usually propelled by an internal combustion engine; "he needs a car to get to work"  ',
  '02960501 06 n 01 car_door 0 000 | the door of a car  ',
  '00001740 03 n 01 entity 0 000 | that which is perceived or known or inferred to have its own distinct existence (living or nonliving)  ',
].join('\n');
const cntlistRev = ['car%1:06:00:: 1 71', 'machine%1:06:01:: 4 2', 'entity%1:03:00:: 1 11', 'car_door%1:06:00:: 1 0', 'cardinal%5:00:00:number:00 1 3'].join('\n');

describe('wordnetNounGlossCorpus', () => {
  it('keeps the tagged noun synsets as sorted "lemmas: definition" lines, examples dropped', () => {
    expect(wordnetNounGlossCorpus({ dataNoun, cntlistRev })).toBe(
      'car, auto, automobile, machine, motorcar: a motor vehicle with four wheels; usually propelled by an internal combustion engine\n'
      + 'entity: that which is perceived or known or inferred to have its own distinct existence (living or nonliving)\n',
    );
  });

  it('gives the same bytes whatever the order of its input lines', () => {
    const shuffled = dataNoun.split('\n').reverse().join('\n');
    expect(wordnetNounGlossCorpus({ dataNoun: shuffled, cntlistRev })).toBe(wordnetNounGlossCorpus({ dataNoun, cntlistRev }));
  });

  it('names the file when it is not WordNet data', () => {
    expect(() => wordnetNounGlossCorpus({ dataNoun: 'hello world', cntlistRev }, '/usr/share/wordnet/data.noun')).toThrow('/usr/share/wordnet/data.noun: synset line without a gloss');
    expect(() => wordnetNounGlossCorpus({ dataNoun, cntlistRev: '' }, 'data.noun')).toThrow('data.noun: no tagged noun synset found');
  });
});
