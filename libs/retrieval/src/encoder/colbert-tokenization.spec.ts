import { readEncoderConfig } from './encoder-config';
import { ColbertTokenization } from './colbert-tokenization';
import { ensureBundledEncoderForTests } from '../testing/test-encoder';

describe('ColBERT tokenization conventions', () => {
  const modelDir = ensureBundledEncoderForTests();
  const config = readEncoderConfig(modelDir);
  const tokenization = new ColbertTokenization(modelDir, config);

  it('queries: [CLS] [unused0] pieces [SEP], padded with unattended [MASK] to 32', () => {
    const { ids, attentionMask } = tokenization.tokenize('singer age', 'query');
    expect(ids).toHaveLength(32);
    const real = tokenization.countTokens('singer age') + 3;
    expect(attentionMask.slice(0, real).every((m) => m === 1)).toBe(true);
    expect(attentionMask.slice(real).every((m) => m === 0)).toBe(true);
    const mask = ids[real];
    expect(ids.slice(real).every((id) => id === mask)).toBe(true);
    expect(ids[1]).not.toBe(ids[0]);
  });

  it('truncates long queries to 32 and long documents to 512, keeping the closing [SEP]', () => {
    const long = Array.from({ length: 400 }, (_, i) => `column_${i}`).join(' ');
    const query = tokenization.tokenize(long, 'query');
    const doc = tokenization.tokenize(long, 'document');
    const sep = tokenization.tokenize('', 'document').ids[2];
    expect(query.ids).toHaveLength(32);
    expect(doc.ids).toHaveLength(512);
    expect(query.ids[31]).toBe(sep);
    expect(doc.ids[511]).toBe(sep);
  });

  it('drops question stopwords but keeps SQL keywords', () => {
    expect(tokenization.pieces('What are the names of the singers')).toEqual(['nam', '##es', 'sin', '##ger', '##s']);
    expect(tokenization.pieces('order by name')).toEqual(['ord', '##er', 'by', 'nam', '##e']);
  });

  it('names the field and file when a marker token is not in the vocabulary', () => {
    expect(() => new ColbertTokenization(modelDir, { ...config, queryMarker: '[Q]' })).toThrow(/queryMarker "\[Q\]" is not in .*tokenizer.json/);
  });
});
