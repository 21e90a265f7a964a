import { SPECIAL_TOKENS, STOPWORDS } from './vocabulary';

/** A Hugging Face `tokenizer.json` (BERT-style WordPiece) for the bundled vocabulary. */
export function buildTokenizerJson(vocabulary: readonly string[], maxLength: number): Record<string, unknown> {
  const vocab: Record<string, number> = {};
  vocabulary.forEach((piece, id) => (vocab[piece] = id));
  const special = (token: string) => ({ id: token, ids: [vocab[token]], tokens: [token] });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content) => ({
      id: vocab[content],
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: 'Sequence',
      normalizers: [
        { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: true, lowercase: true },
        { type: 'Replace', pattern: { Regex: `\\b(?:${STOPWORDS.join('|')})\\b` }, content: ' ' },
      ],
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: { '[CLS]': special('[CLS]'), '[SEP]': special('[SEP]') },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
    // model_max_length lives in tokenizer_config.json in HF repos; kept here for readers of this file alone.
    sqlsweep: { model_max_length: maxLength },
  };
}

export function buildTokenizerConfigJson(maxLength: number): Record<string, unknown> {
  return {
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    model_max_length: maxLength,
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    pad_token: '[PAD]',
    mask_token: '[MASK]',
    unk_token: '[UNK]',
  };
}
