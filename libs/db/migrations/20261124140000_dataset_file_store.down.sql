DROP TABLE IF EXISTS dataset_version_files;
DROP TABLE IF EXISTS dataset_file_chunks;
DROP TABLE IF EXISTS dataset_files;
