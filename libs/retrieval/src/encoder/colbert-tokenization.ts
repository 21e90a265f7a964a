import { Tokenizer } from '@huggingface/tokenizers';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RetrievalError } from '../errors';
import type { EncoderConfig } from './encoder-config';

export interface TokenizedText {
  ids: number[];
  attentionMask: number[];
}

export type TextRole = 'query' | 'document';

/**
 * Turns texts into model inputs with the ColBERT conventions: `[CLS] marker tokens… [SEP]`, truncated to the
 * role's max length; queries padded with `queryPadToken` ([MASK]) to exactly `queryMaxLength`.
 */
export class ColbertTokenization {
  private readonly tokenizer: Tokenizer;
  private readonly queryMarkerId: number | null;
  private readonly documentMarkerId: number | null;
  private readonly queryPadId: number | null;

  constructor(
    modelDir: string,
    private readonly config: EncoderConfig,
  ) {
    const tokenizerPath = join(modelDir, config.tokenizerFile);
    let tokenizerJson: object;
    let tokenizerConfig: object = {};
    try {
      tokenizerJson = JSON.parse(readFileSync(tokenizerPath, 'utf8'));
      if (config.tokenizerConfigFile) tokenizerConfig = JSON.parse(readFileSync(join(modelDir, config.tokenizerConfigFile), 'utf8'));
      this.tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
    } catch (error) {
      throw new RetrievalError('ENCODER_TOKENIZER_INVALID', `${tokenizerPath}: ${(error as Error).message}`);
    }
    const idOf = (field: string, token: string | null): number | null => {
      if (token === null) return null;
      const id = this.tokenizer.token_to_id(token);
      if (id === undefined) {
        throw new RetrievalError('ENCODER_TOKENIZER_INVALID', `${join(modelDir, 'config.json')}: ${field} "${token}" is not in ${tokenizerPath}`);
      }
      return id;
    };
    this.queryMarkerId = idOf('queryMarker', config.queryMarker);
    this.documentMarkerId = idOf('documentMarker', config.documentMarker);
    this.queryPadId = config.kind === 'late-interaction' ? idOf('queryPadToken', config.queryPadToken) : null;
  }

  /** Token count of a text without special tokens (used for the 512-token large-table rule and RAG chunking). */
  countTokens(text: string): number {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids.length;
  }

  /** Plain word pieces of a text, for chunking. */
  pieces(text: string): string[] {
    return this.tokenizer.encode(text, { add_special_tokens: false }).tokens;
  }

  tokenize(text: string, role: TextRole): TokenizedText {
    const encoded = this.tokenizer.encode(text, { add_special_tokens: true });
    const ids = [...encoded.ids];
    const marker = role === 'query' ? this.queryMarkerId : this.documentMarkerId;
    if (marker !== null) ids.splice(1, 0, marker);
    const maxLength = role === 'query' ? this.config.queryMaxLength : this.config.documentMaxLength;
    if (ids.length > maxLength) {
      const last = ids[ids.length - 1];
      ids.length = maxLength;
      ids[maxLength - 1] = last; // keep the closing [SEP]
    }
    const attentionMask = ids.map(() => 1);
    if (role === 'query' && this.queryPadId !== null) {
      while (ids.length < maxLength) {
        ids.push(this.queryPadId);
        attentionMask.push(this.config.attendToMaskTokens ? 1 : 0);
      }
    }
    return { ids, attentionMask };
  }
}
