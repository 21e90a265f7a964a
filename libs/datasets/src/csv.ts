/** One CSV record: its fields and the 1-based line it starts on. */
export interface CsvRow {
  line: number;
  fields: string[];
  /** Set on the last row when its quoted field never closes (the rest of the text became that field). */
  unterminated?: true;
}

/**
 * RFC 4180 CSV with line numbers: quoted fields with doubled quotes, embedded newlines, CRLF or LF line ends, a
 * leading byte-order mark skipped. A quote inside an unquoted field is kept as text. Empty lines give no row.
 */
export function parseCsvRows(text: string): CsvRow[] {
  const rows: CsvRow[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  for (let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (ch === '\n') line++;
        field += ch;
      }
    } else if (ch === '"' && field.length === 0) quoted = true;
    else if (ch === ',') {
      fields.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      fields.push(field);
      if (!(fields.length === 1 && fields[0] === '')) rows.push({ line: rowLine, fields });
      fields = [];
      field = '';
      line++;
      rowLine = line;
    } else field += ch;
  }
  if (field.length > 0 || fields.length > 0 || quoted) {
    fields.push(field);
    rows.push({ line: rowLine, fields, ...(quoted ? { unterminated: true as const } : {}) });
  }
  return rows;
}

/** The records of an RFC 4180 CSV (see `parseCsvRows`), rows of blank fields left out. */
export function parseCsv(text: string): string[][] {
  return parseCsvRows(text)
    .map((row) => row.fields)
    .filter((r) => r.some((cell) => cell.trim().length > 0));
}
