import { readFile } from 'node:fs/promises';
import { parseCsv } from './csv';
import { DatasetError } from './errors';
import { decodeText } from './text-decoding';

export interface ColumnDescription {
  originalColumnName: string;
  columnName?: string;
  description?: string;
  dataFormat?: string;
  valueDescription?: string;
}

const normaliseHeader = (h: string): string => h.trim().toLowerCase().replace(/[\s_]+/g, '_');

const HEADER_ALIASES: Record<string, keyof ColumnDescription> = {
  original_column_name: 'originalColumnName',
  column_name: 'columnName',
  column_description: 'description',
  data_format: 'dataFormat',
  value_description: 'valueDescription',
  value_descriptions: 'valueDescription',
};

/** Reads one BIRD `database_description/<table>.csv`, whatever its encoding and header spelling. */
export async function readColumnDescriptions(file: string): Promise<ColumnDescription[]> {
  const { text } = decodeText(await readFile(file));
  const rows = parseCsv(text);
  if (rows.length === 0) return [];
  const header = rows[0].map((h) => HEADER_ALIASES[normaliseHeader(h)]);
  const originalIdx = header.indexOf('originalColumnName');
  if (originalIdx < 0) {
    throw new DatasetError(file, `header has no original_column_name column (found: ${rows[0].join(', ')})`);
  }
  return rows.slice(1).map((cells) => {
    const out: ColumnDescription = { originalColumnName: '' };
    header.forEach((key, i) => {
      const value = (cells[i] ?? '').trim();
      if (key !== undefined && value.length > 0) out[key] = value;
    });
    out.originalColumnName = (cells[originalIdx] ?? '').trim();
    return out;
  });
}
