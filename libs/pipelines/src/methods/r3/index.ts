export { r3Method, r3Pipeline, r3Templates, r3Link, r3Decompose, r3Generate, r3GenerateDirect, parseLinkAnswer, parseDecomposition, linkedSchemaDdl, type LinkedTables, type SubQuestions } from './r3';
export { parseTableList, type ParsedTableList } from './table-list';
export { mapToSchemaTables, nameSimilarity, jaccardSimilarity, editDistance, normalizeName, type TableMapping } from './table-mapping';
export { parseSubQuestions, type ParsedSubQuestions } from './sub-questions';
export { r3RagStage, ragCorpusKnob, ragTopK, contextSection, type RagContext, type RagChunk, type RagCorpusHash } from './rag-context';
export { tableLinkingMetrics } from './linking-metrics';
